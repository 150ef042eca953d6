/**
 * `lab status`: what of the lab exists and answers, as data. Reads only; changes nothing.
 */
import { existsSync } from 'node:fs'
import { basename } from 'node:path'
import { labContext } from './lab-context.js'
import type { LabContext } from './lab-context.js'
import type { ContainerView } from './docker-inspect.js'
import { labContainers, labGuardRules } from './lab.js'
import type { LabNodeStatus, LabOptions, LabStatus } from './lab-types.js'
import type { LabPaths } from './paths.js'
import { FABRIC_NETWORK, INSTANCE, MAX_NODES, MGMT_NETWORK, PREFIX, REGISTRY, labLayout } from './layout.js'
import { NODE_LABEL, ROLE_LABEL } from './node-container.js'
import { findProgram } from './preconditions.js'
import { httpStatus, sshBanner } from './probes.js'
import { lines } from './lab-runner.js'
import { ok } from '../result/result.js'
import type { LabResult } from './lab-problem.js'

/** The files of the lab directory a user reaches the lab with; what is missing by file name. */
export function labFiles(paths: LabPaths): LabStatus['files'] {
  const wanted = [paths.manifest, paths.sshKey, paths.knownHosts]
  return { dirExists: existsSync(paths.root), missing: wanted.filter((f) => !existsSync(f)).map((f) => basename(f)) }
}

/** Healthy: every node runs with sshd and docker answering, the registry answers, guard and networks are there, and so are the lab directory's files. */
export function labHealthy(s: Pick<LabStatus, 'nodes' | 'networks' | 'files'> & { readonly registryOk: boolean; readonly guardPresent: boolean }): boolean {
  return (
    s.nodes.length > 0 &&
    s.nodes.every((n) => n.state === 'running' && n.sshReachable && n.dockerReady) &&
    s.registryOk &&
    s.guardPresent &&
    s.networks.every((n) => n.present) &&
    s.files.missing.length === 0
  )
}

export async function labStatus(opts: LabOptions = {}): Promise<LabResult<LabStatus>> {
  const context = labContext(opts)
  if (!context.ok) return context
  const ctx = context.value
  const base = { dir: ctx.paths.root, files: labFiles(ctx.paths) }
  const version = findProgram(ctx.dockerBin) ? await ctx.runner.probe(ctx.docker.serverVersion(), 15_000) : undefined
  if (version?.code !== 0) {
    return ok({
      ...base,
      docker: {
        // record: whether docker answers, in the lab's status; not a failure value.
        ok: false,
        binary: ctx.dockerBin,
        detail: version ? ((version.stderr || version.stdout).trim().split('\n').slice(-1)[0] ?? 'no answer') : `${ctx.dockerBin} not found`,
      },
      nodes: [],
      registry: { container: REGISTRY.container, state: 'unknown', reachable: false, address: REGISTRY.hostHost },
      networks: [],
      egressGuard: { present: false, rules: [] },
      volumes: [],
      healthy: false,
      down: false,
    })
  }

  const listed = await labContainers(ctx)
  if (!listed.ok) return listed
  const containers = listed.value
  const nodeViews = containers.filter((c) => c.labels[ROLE_LABEL] === 'node').sort((a, b) => (a.name < b.name ? -1 : 1))
  const nodes = await Promise.all(nodeViews.map((c) => nodeStatus(ctx, c)))

  const registryView = containers.find((c) => c.name === REGISTRY.container)
  const registryOk = registryView?.running ? (await httpStatus(`http://${REGISTRY.hostHost}/v2/`))?.status === 200 : false

  const networkNames = new Set(lines((await ctx.runner.probe(ctx.docker.networkNamesByFilter(INSTANCE.labelFilter))).stdout))
  const networks = [MGMT_NETWORK, FABRIC_NETWORK].map((n) => ({ name: n.name, present: networkNames.has(n.name), subnet: n.subnet }))
  const volumes = lines((await ctx.runner.probe(ctx.docker.volumesByFilter(`name=${PREFIX}-`))).stdout).filter((v) => v.startsWith(`${PREFIX}-`))

  const guard = await labGuardRules(ctx)
  const bridges = [MGMT_NETWORK.bridge, FABRIC_NETWORK.bridge]
  const guardPresent = bridges.every((b) => guard.rules.some((r) => r[0] === '-i' && r[1] === b && r.includes('DROP')))

  const healthy = labHealthy({ nodes, networks, files: base.files, registryOk, guardPresent })
  const down = containers.length === 0 && networkNames.size === 0 && volumes.length === 0 && guard.rules.length === 0

  return ok({
    ...base,
    docker: { ok: true, binary: ctx.dockerBin, version: version.stdout.trim() },
    nodes,
    registry: {
      container: REGISTRY.container,
      state: registryView?.state ?? 'missing',
      reachable: registryOk,
      address: REGISTRY.hostHost,
    },
    networks,
    egressGuard: {
      present: guardPresent,
      rules: guard.rules.map((r) => r.join(' ')),
      ...(guard.error ? { detail: guard.error } : {}),
    },
    volumes,
    healthy,
    down,
  })
}

async function nodeStatus(ctx: LabContext, c: ContainerView): Promise<LabNodeStatus> {
  const name = c.labels[NODE_LABEL] ?? c.name.replace(`${PREFIX}-`, '')
  const layout = labLayout(MAX_NODES).nodes.find((n) => n.name === name)
  const mgmtIp = c.networks[MGMT_NETWORK.name]?.ip || layout?.mgmtIp
  const fabricIp = c.networks[FABRIC_NETWORK.name]?.ip || layout?.fabricIp
  const ips = { ...(mgmtIp ? { mgmtIp } : {}), ...(fabricIp ? { fabricIp } : {}) }
  if (!c.running) {
    return { name, container: c.name, state: c.state, ...ips, sshReachable: false, dockerReady: false }
  }
  const [banner, info] = await Promise.all([
    mgmtIp ? sshBanner(mgmtIp, 22, 2_000) : Promise.resolve(undefined),
    ctx.runner.probe(ctx.docker.exec(c.name, 'docker', 'info', '--format', '{{.ServerVersion}} {{.Driver}}'), 15_000),
  ])
  const [dockerVersion, storageDriver] = info.code === 0 ? info.stdout.trim().split(/\s+/) : []
  return {
    name,
    container: c.name,
    state: c.state,
    ...ips,
    sshReachable: banner !== undefined,
    ...(banner ? { sshBanner: banner } : {}),
    dockerReady: info.code === 0,
    ...(dockerVersion ? { dockerVersion } : {}),
    ...(storageDriver ? { storageDriver } : {}),
    ...(info.code !== 0 ? { detail: (info.stderr || info.stdout).trim().split('\n').slice(-1)[0] ?? '' } : {}),
  }
}
