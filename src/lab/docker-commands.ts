/**
 * Docker commands the lab runs on this machine, as data (argv arrays, see src/command/shell.ts).
 * Pure: nothing here runs anything. The docker binary is a parameter (see `dockerBinary()`).
 */
import { type Argv, argv, withEnv } from '../command/shell.js'
import type { LabNetwork } from './layout.js'

/** A bind mount or a named volume. */
export type Mount =
  | { readonly type: 'bind'; readonly source: string; readonly target: string; readonly readonly?: boolean }
  | { readonly type: 'volume'; readonly source: string; readonly target: string }

/** Everything `docker create` needs for one container; rendered by `createContainer`. */
export interface ContainerSpec {
  readonly name: string
  readonly image: string
  readonly hostname?: string
  readonly network?: string
  readonly ip?: string
  readonly aliases?: readonly string[]
  readonly dns?: readonly string[]
  readonly dnsOptions?: readonly string[]
  /** `host:port:containerPort`, e.g. `127.0.0.1:5000:5000`. */
  readonly publish?: readonly string[]
  readonly mounts?: readonly Mount[]
  readonly env?: Readonly<Record<string, string>>
  readonly labels?: Readonly<Record<string, string>>
  readonly init?: boolean
  readonly cgroupns?: 'private' | 'host'
  readonly privileged?: boolean
  readonly capAdd?: readonly string[]
  readonly capDrop?: readonly string[]
  readonly securityOpts?: readonly string[]
  readonly deviceCgroupRules?: readonly string[]
  readonly stopTimeoutSeconds?: number
  readonly restart?: 'no' | 'unless-stopped'
  /** Command (after the image). */
  readonly cmd?: readonly string[]
}

export interface BuildSpec {
  readonly tag: string
  readonly context: string
  readonly dockerfile: string
  readonly buildArgs?: Readonly<Record<string, string>>
  readonly labels?: Readonly<Record<string, string>>
}

const labelArgs = (labels: Readonly<Record<string, string>> = {}): string[] => Object.entries(labels).flatMap(([k, v]) => ['--label', `${k}=${v}`])

/** `--mount` value; docker's csv syntax, so paths holding `,` or `"` cannot be expressed. */
export function mountArg(m: Mount): string {
  for (const part of [m.source, m.target]) {
    // bug: mount paths are the lab dir's (labContext refuses those characters) and the lab's own constants
    if (/[,"\n]/.test(part)) throw new Error(`a docker mount path cannot contain a comma, quote or newline: ${JSON.stringify(part)}`)
  }
  const base = `type=${m.type},source=${m.source},target=${m.target}`
  return m.type === 'bind' && m.readonly ? `${base},readonly` : base
}

export function dockerCommands(docker: string) {
  const d = (...args: string[]): Argv => argv(docker, ...args)
  return {
    /** Server version; fails when the daemon is not reachable. */
    serverVersion: () => d('version', '--format', '{{.Server.Version}}'),
    info: (format: string) => d('info', '--format', format),

    // ---- images
    imageInspect: (ref: string) => d('image', 'inspect', ref),
    /** Reads a rootfs tarball on stdin and makes an image of it. */
    importImage: (ref: string, changes: readonly string[] = []) => d('import', ...changes.flatMap((c) => ['--change', c]), '-', ref),
    /** Legacy builder, no network at all during RUN steps, never pulls. */
    build: (spec: BuildSpec) =>
      withEnv(
        { DOCKER_BUILDKIT: '0' },
        docker,
        'build',
        '--network',
        'none',
        '--force-rm',
        '-f',
        spec.dockerfile,
        '-t',
        spec.tag,
        ...Object.entries(spec.buildArgs ?? {}).flatMap(([k, v]) => ['--build-arg', `${k}=${v}`]),
        ...labelArgs(spec.labels),
        spec.context,
      ),
    tag: (source: string, target: string) => d('tag', source, target),
    push: (ref: string) => d('push', ref),
    removeImages: (refs: readonly string[]) => d('image', 'rm', '--force', ...refs),
    /** Image ids carrying a label (`key` or `key=value`), including intermediate build layers. */
    imagesByLabel: (label: string) => d('images', '--all', '--quiet', '--no-trunc', '--filter', `label=${label}`),
    /** `repository:tag` names matching a reference pattern such as `vrd-lab/*`. */
    imagesByReference: (pattern: string) => d('images', '--filter', `reference=${pattern}`, '--format', '{{.Repository}}:{{.Tag}}'),
    imageSizes: (pattern: string) => d('images', '--filter', `reference=${pattern}`, '--format', '{{.Repository}}:{{.Tag}}\t{{.Size}}'),

    // ---- networks
    networkInspect: (name: string) => d('network', 'inspect', name),
    networkCreate: (net: LabNetwork, labels: Readonly<Record<string, string>>) =>
      d(
        'network',
        'create',
        '--driver',
        'bridge',
        '--subnet',
        net.subnet,
        '--gateway',
        net.gateway,
        '--opt',
        `com.docker.network.bridge.name=${net.bridge}`,
        ...(net.internal ? ['--internal'] : []),
        ...labelArgs(labels),
        net.name,
      ),
    networkConnect: (network: string, container: string, ip: string, aliases: readonly string[] = []) =>
      d('network', 'connect', '--ip', ip, ...aliases.flatMap((a) => ['--alias', a]), network, container),
    networkRemove: (names: readonly string[]) => d('network', 'rm', ...names),
    networksByFilter: (filter: string) => d('network', 'ls', '--quiet', '--no-trunc', '--filter', filter),
    networkNamesByFilter: (filter: string) => d('network', 'ls', '--filter', filter, '--format', '{{.Name}}'),

    // ---- volumes
    volumeCreate: (name: string, labels: Readonly<Record<string, string>>) => d('volume', 'create', ...labelArgs(labels), name),
    volumeRemove: (names: readonly string[]) => d('volume', 'rm', '--force', ...names),
    volumesByFilter: (filter: string) => d('volume', 'ls', '--quiet', '--filter', filter),

    // ---- containers
    containerInspect: (names: readonly string[]) => d('container', 'inspect', ...names),
    containersByFilter: (filter: string) => d('ps', '--all', '--filter', filter, '--format', '{{.Names}}'),
    create: (spec: ContainerSpec) => d('create', ...containerArgs(spec), spec.image, ...(spec.cmd ?? [])),
    /** Run a throw-away container (`--rm`), e.g. to probe whether `--privileged` works here. */
    runOnce: (spec: ContainerSpec, entrypoint?: string) =>
      d('run', '--rm', ...(entrypoint ? ['--entrypoint', entrypoint] : []), ...containerArgs(spec), spec.image, ...(spec.cmd ?? [])),
    start: (name: string) => d('start', name),
    removeContainers: (names: readonly string[]) => d('rm', '--force', '--volumes', ...names),
    exec: (container: string, ...args: string[]) => d('exec', container, ...args),
    logs: (container: string, tail: number) => d('logs', '--tail', String(tail), container),
    stats: (names: readonly string[]) => d('stats', '--no-stream', '--format', '{{.Name}}\t{{.MemUsage}}\t{{.CPUPerc}}', ...names),
  }
}

export type DockerCommands = ReturnType<typeof dockerCommands>

/** The flags of `docker create` / `docker run` for a spec, in a fixed order. */
export function containerArgs(spec: ContainerSpec): string[] {
  const a: string[] = ['--name', spec.name]
  if (spec.hostname) a.push('--hostname', spec.hostname)
  if (spec.init) a.push('--init')
  if (spec.cgroupns) a.push(`--cgroupns=${spec.cgroupns}`)
  if (spec.privileged) a.push('--privileged')
  for (const c of spec.capAdd ?? []) a.push('--cap-add', c)
  for (const c of spec.capDrop ?? []) a.push('--cap-drop', c)
  for (const o of spec.securityOpts ?? []) a.push('--security-opt', o)
  for (const r of spec.deviceCgroupRules ?? []) a.push('--device-cgroup-rule', r)
  if (spec.network) a.push('--network', spec.network)
  if (spec.ip) a.push('--ip', spec.ip)
  for (const alias of spec.aliases ?? []) a.push('--network-alias', alias)
  for (const s of spec.dns ?? []) a.push('--dns', s)
  for (const o of spec.dnsOptions ?? []) a.push('--dns-option', o)
  for (const p of spec.publish ?? []) a.push('--publish', p)
  for (const m of spec.mounts ?? []) a.push('--mount', mountArg(m))
  for (const [k, v] of Object.entries(spec.env ?? {})) a.push('--env', `${k}=${v}`)
  a.push(...labelArgs(spec.labels))
  if (spec.stopTimeoutSeconds !== undefined) a.push('--stop-timeout', String(spec.stopTimeoutSeconds))
  if (spec.restart) a.push('--restart', spec.restart)
  return a
}
