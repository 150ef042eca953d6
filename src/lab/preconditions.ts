/**
 * What the lab needs from this machine, checked before anything is changed. The lab installs
 * nothing by itself: a missing piece is an error that says exactly what to run.
 */
import { accessSync, constants } from 'node:fs'
import { delimiter, isAbsolute, join } from 'node:path'
import type { LabContext } from './lab-context.js'
import { ok } from '../result/result.js'
import { type LabResult, labFail, tail } from './lab-problem.js'

/** Full path of a program as PATH would find it, or undefined. */
export function findProgram(name: string, path = process.env.PATH ?? ''): string | undefined {
  const candidates = isAbsolute(name)
    ? [name]
    : path
        .split(delimiter)
        .filter(Boolean)
        .map((d) => join(d, name))
  for (const c of candidates) {
    try {
      accessSync(c, constants.X_OK)
      return c
    } catch {
      // not here
    }
  }
  return undefined
}

const PACKAGE_OF: Readonly<Record<string, string>> = {
  debootstrap: 'debootstrap',
  iptables: 'iptables',
  'ssh-keygen': 'openssh-client',
  chroot: 'coreutils',
  tar: 'tar',
}

export function requireProgram(name: string, why: string): LabResult<string> {
  const found = findProgram(name)
  if (found) return ok(found)
  const pkg = PACKAGE_OF[name] ?? name
  return labFail('missing-tool', `${name} is not installed; the lab needs it to ${why}`, `apt-get install -y ${pkg}`)
}

export function requireRoot(): LabResult<void> {
  if (typeof process.getuid === 'function' && process.getuid() !== 0) {
    return labFail(
      'not-root',
      'the lab needs root on this machine (debootstrap, chroot, iptables for the egress guard)',
      'run it as root, e.g. sudo -E vllm-ray-deploy lab up',
    )
  }
  return ok(undefined)
}

/** Docker client present and its daemon answering; returns the server version. */
export async function requireDocker(ctx: LabContext): Promise<LabResult<string>> {
  if (!findProgram(ctx.dockerBin)) {
    return labFail(
      'missing-tool',
      `docker is not installed (looked for ${ctx.dockerBin}; set VRD_DOCKER to use another client)`,
      'apt-get install -y docker.io debootstrap',
    )
  }
  const r = await ctx.runner.probe(ctx.docker.serverVersion(), 20_000)
  if (r.code !== 0 || !r.stdout.trim()) {
    return labFail(
      'docker-unreachable',
      `the docker daemon is not answering (${ctx.dockerBin} version)`,
      'start it: dockerd > /var/log/dockerd.log 2>&1 &   (or: systemctl start docker)',
      tail(r.stderr || r.stdout, 5),
    )
  }
  return ok(r.stdout.trim())
}

/** The programs `lab up` runs besides docker, each with what it is for. */
const UP_PROGRAMS: readonly (readonly [string, string])[] = [
  ['iptables', 'install the egress guard'],
  ['ssh-keygen', 'make the SSH keys'],
  ['debootstrap', 'build the node images from Debian packages'],
  ['chroot', 'install packages into the image trees'],
  ['tar', 'turn image trees into docker images'],
]

/** Everything `lab up` may use; checked up front so a missing tool fails before any change. */
export async function requireUpTools(ctx: LabContext): Promise<LabResult<string>> {
  const root = requireRoot()
  if (!root.ok) return root
  const version = await requireDocker(ctx)
  if (!version.ok) return version
  for (const [name, why] of UP_PROGRAMS) {
    const found = requireProgram(name, why)
    if (!found.ok) return found
  }
  return version
}
