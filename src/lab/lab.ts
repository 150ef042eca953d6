/**
 * `lab up` and `lab down`: simulated DGX Spark nodes in Docker on this machine.
 *
 * up (idempotent; a second run reuses everything and only checks):
 *   keys → images → egress guard → networks → registry → nodes (wait for sshd) → workload image
 *   → known_hosts, ssh_config, manifest.yml, lab.json
 * down: containers, networks, volumes and the egress rules; `purge` also images and cache.
 */
import { existsSync } from 'node:fs'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import type { LabContext } from './lab-context.js'
import { labContext } from './lab-context.js'
import { type ContainerView, type ImageView, parseContainerInspect, parseNetworkInspect } from './docker-inspect.js'
import { guardRules, iptablesCommands, labRulesIn } from './host-commands.js'
import { ensureNodeImage, ensureRegistryImage, inspectImage, secs } from './images.js'
import { ensureClientKey, ensureHostKey, type PinnedNode, writeSshFiles } from './keys.js'
import type { Cmd } from '../command/shell.js'
import { ok } from '../result/result.js'
import { type LabResult, labFail, tail } from './lab-problem.js'
import type { LabDownOptions, LabInfo, LabNodeInfo, LabUpOptions } from './lab-types.js'
import {
  DEFAULT_NODES,
  IMAGES,
  INSTANCE,
  LABEL,
  type LabLayout,
  type LabNetwork,
  type LabNodeLayout,
  PREFIX,
  REGISTRY,
  labLayout,
  validateNodeCount,
} from './layout.js'
import { withLabLock } from './lab-lock.js'
import { renderLabManifest } from './lab-manifest.js'
import { CONFIG_LABEL, PRIVILEGED_LABEL, ROLE_LABEL, fabricAttachment, nodeContainerSpec, privilegeProbeSpec, registryContainerSpec } from './node-container.js'
import { requireDocker, requireRoot, requireUpTools } from './preconditions.js'
import { httpStatus, sshBanner, waitFor } from './probes.js'
import { type StepOptions, lines } from './lab-runner.js'
import { ensureWorkloadImage } from './workload-image.js'

export const SSH_USER = 'root'
export const SSH_PORT = 22
const NODE_READY_TIMEOUT_MS = 120_000

// ---------------------------------------------------------------------------------------------
// reading what exists

/** Names of the lab's objects of one kind: by this instance's label, and by name prefix in case a label was lost. */
async function namesByFilter(
  ctx: LabContext,
  what: string,
  list: (filter: string) => Cmd,
  prefixFilter: string,
  keep: (name: string, byLabel: boolean) => boolean,
): Promise<LabResult<string[]>> {
  const names = new Set<string>()
  for (const filter of [INSTANCE.labelFilter, prefixFilter]) {
    const r = await ctx.runner.step(`list lab ${what}`, list(filter))
    if (!r.ok) return r
    for (const n of lines(r.value.stdout)) if (keep(n, filter === INSTANCE.labelFilter)) names.add(n)
  }
  return ok([...names])
}

const prefixed = (n: string, byLabel: boolean): boolean => n.startsWith(`${PREFIX}-`) || byLabel

/** Every container the lab made (by label, and by name prefix in case a label was lost). */
export async function labContainers(ctx: LabContext): Promise<LabResult<ContainerView[]>> {
  const names = await namesByFilter(
    ctx,
    'containers',
    (f) => ctx.docker.containersByFilter(f),
    `name=^${PREFIX}-`,
    () => true,
  )
  if (!names.ok) return names
  if (names.value.length === 0) return ok([])
  const r = await ctx.runner.probe(ctx.docker.containerInspect(names.value))
  return ok(parseContainerInspect(r.stdout))
}

const labNetworkNames = (ctx: LabContext) => namesByFilter(ctx, 'networks', (f) => ctx.docker.networkNamesByFilter(f), `name=${PREFIX}-`, prefixed)
const labVolumeNames = (ctx: LabContext) => namesByFilter(ctx, 'volumes', (f) => ctx.docker.volumesByFilter(f), `name=${PREFIX}-`, prefixed)

export async function labGuardRules(ctx: LabContext): Promise<{ rules: string[][]; error?: string }> {
  const r = await ctx.runner.probe(iptablesCommands.list())
  if (r.code !== 0) return { rules: [], error: tail(r.stderr || r.stdout, 3) }
  return { rules: labRulesIn(r.stdout) }
}

// ---------------------------------------------------------------------------------------------
// up

export async function labUp(opts: LabUpOptions = {}): Promise<LabResult<LabInfo>> {
  const context = labContext(opts)
  if (!context.ok) return context
  const ctx = context.value
  const started = Date.now()
  // The count asked for first: a wrong input is told before this machine is looked at.
  if (opts.nodes !== undefined) {
    const nodes = validateNodeCount(opts.nodes)
    if (!nodes.ok) return nodes
  }
  const serverVersion = await requireUpTools(ctx)
  if (!serverVersion.ok) return serverVersion
  return withLabLock(ctx.paths.lock, 'lab up', () => upLocked(ctx, opts, started, serverVersion.value))
}

/** `lab up` holding the lab's lock: the steps in the order the header of this file gives. */
async function upLocked(ctx: LabContext, opts: LabUpOptions, started: number, serverVersion: string): Promise<LabResult<LabInfo>> {
  const changed: string[] = []
  const existing = await labContainers(ctx)
  if (!existing.ok) return existing
  const existingNodes = existing.value.filter((c) => c.labels[ROLE_LABEL] === 'node')
  const count = validateNodeCount(opts.nodes ?? Math.min(Math.max(existingNodes.length, DEFAULT_NODES), 4))
  if (!count.ok) return count
  const layout = labLayout(count.value)
  ctx.progress(`lab up: ${count.value} node(s) in ${ctx.paths.root}`)

  // Keys first: the nodes read them when they boot.
  const pins = await ensureKeys(ctx, layout)
  if (!pins.ok) return pins

  const nodeImage = await withImagesLock(ctx, async () => {
    const image = await ensureNodeImage(ctx, changed)
    if (!image.ok) return image
    const registry = await ensureRegistryImage(ctx, changed)
    return registry.ok ? image : registry
  })
  if (!nodeImage.ok) return nodeImage

  const infra = await ensureInfrastructure(ctx, layout, existing.value, changed)
  if (!infra.ok) return infra
  const privileged = await ensureNodes(ctx, layout, pins.value, nodeImage.value, existing.value, changed)
  if (!privileged.ok) return privileged

  const workloadImage = await withImagesLock(ctx, () => ensureWorkloadImage(ctx, changed))
  if (!workloadImage.ok) return workloadImage

  const nodes = nodeInfos(layout, pins.value)
  await writeFile(
    ctx.paths.manifest,
    renderLabManifest({
      nodes,
      sshUser: SSH_USER,
      sshPort: SSH_PORT,
      fabricInterface: layout.fabricIfname,
      fabricSubnet: layout.fabric.subnet,
      imageRef: workloadImage.value.ref,
      sshConfigPath: ctx.paths.sshConfig,
    }),
  )
  const info: LabInfo = {
    dir: ctx.paths.root,
    manifestPath: ctx.paths.manifest,
    sshKeyPath: ctx.paths.sshKey,
    knownHostsPath: ctx.paths.knownHosts,
    sshConfigPath: ctx.paths.sshConfig,
    sshUser: SSH_USER,
    sshPort: SSH_PORT,
    nodes,
    networks: { mgmt: layout.mgmt, fabric: layout.fabric },
    registry: { container: layout.registry.container, nodeAddress: layout.registry.nodeHost, hostAddress: layout.registry.hostHost },
    workloadImage: workloadImage.value,
    privileged: privileged.value,
    docker: { binary: ctx.dockerBin, serverVersion },
    durationMs: Date.now() - started,
    changed,
  }
  await writeFile(ctx.paths.state, `${JSON.stringify(info, null, 2)}\n`)
  ctx.progress(`lab up: ready in ${secs(started)}${changed.length ? ` (${changed.length} change(s))` : ' (nothing to change)'}`)
  return ok(info)
}

/** The client key, every node's host key, and the SSH files that pin them. */
async function ensureKeys(ctx: LabContext, layout: LabLayout): Promise<LabResult<PinnedNode[]>> {
  await mkdir(ctx.paths.root, { recursive: true })
  const clientKey = await ensureClientKey(ctx)
  if (!clientKey.ok) return clientKey
  const pins: PinnedNode[] = []
  for (const node of layout.nodes) {
    const hostKey = await ensureHostKey(ctx, node)
    if (!hostKey.ok) return hostKey
    pins.push({ node, hostKey: hostKey.value })
  }
  await writeSshFiles(ctx, clientKey.value, pins, SSH_USER)
  return ok(pins)
}

/** The egress guard (before any lab container can send a packet), both networks, the registry. */
async function ensureInfrastructure(ctx: LabContext, layout: LabLayout, existing: readonly ContainerView[], changed: string[]): Promise<LabResult<void>> {
  const guard = await ensureEgressGuard(ctx, layout, changed)
  if (!guard.ok) return guard
  for (const net of [layout.mgmt, layout.fabric]) {
    const made = await ensureNetwork(ctx, net, changed)
    if (!made.ok) return made
  }
  return ensureRegistry(ctx, layout, existing, changed)
}

/** Nodes beyond the wanted count go, the wanted ones are (re)made and started, and all answer SSH; whether they run privileged. */
async function ensureNodes(
  ctx: LabContext,
  layout: LabLayout,
  pins: readonly PinnedNode[],
  nodeImage: ImageView,
  existing: readonly ContainerView[],
  changed: string[],
): Promise<LabResult<boolean>> {
  const existingNodes = existing.filter((c) => c.labels[ROLE_LABEL] === 'node')
  // Nodes beyond the wanted count go (with their docker volume).
  const wanted = new Set(layout.nodes.map((n) => n.container))
  const extra = existingNodes.filter((c) => !wanted.has(c.name))
  if (extra.length > 0) {
    const removed = await ctx.runner.step('remove extra nodes', ctx.docker.removeContainers(extra.map((c) => c.name)))
    if (!removed.ok) return removed
    const vols = extra.map((c) => `${c.name}-docker`)
    await ctx.runner.probe(ctx.docker.volumeRemove(vols))
    changed.push(...extra.map((c) => `removed ${c.name}`))
  }

  const privileged = await decidePrivileged(ctx, existingNodes)
  for (const node of layout.nodes) {
    const hostKey = pins.find((p) => p.node.name === node.name)!.hostKey
    const made = await ensureNode(ctx, layout, node, { hostKey, nodeImage, privileged, existing }, changed)
    if (!made.ok) return made
  }
  const ready = await waitForNodes(ctx, layout.nodes)
  return ready.ok ? ok(privileged) : ready
}

function nodeInfos(layout: LabLayout, pins: readonly PinnedNode[]): LabNodeInfo[] {
  return pins.map(({ node, hostKey }) => ({
    name: node.name,
    role: node.role,
    container: node.container,
    hostname: node.name,
    mgmtIp: node.mgmtIp,
    fabricIp: node.fabricIp,
    mgmtInterface: layout.mgmtIfname,
    fabricInterface: layout.fabricIfname,
    sshHost: node.mgmtIp,
    hostKey,
    gpus: 1,
  }))
}

/**
 * The images (and the build cache) are shared by every lab instance on this machine: one instance
 * checks or builds them at a time, and another one waits for it (a first build takes minutes).
 */
const IMAGES_WAIT_MS = 30 * 60_000
function withImagesLock<T>(ctx: LabContext, fn: () => Promise<LabResult<T>>): Promise<LabResult<T>> {
  return withLabLock(ctx.paths.imagesLock, 'lab images', fn, {
    waitMs: IMAGES_WAIT_MS,
    onWait: (holder) => ctx.progress(`lab up: waiting for another lab's image build (${holder})`),
  })
}

async function ensureEgressGuard(ctx: LabContext, layout: LabLayout, changed: string[]): Promise<LabResult<void>> {
  for (const rule of guardRules([layout.mgmt, layout.fabric])) {
    const present = await ctx.runner.probe(iptablesCommands.check(rule))
    if (present.code === 0) continue
    const inserted = await ctx.runner.step('install the egress guard', iptablesCommands.insert(rule), {
      fix: "the lab needs iptables and docker's DOCKER-USER chain (dockerd started with iptables enabled)",
    })
    if (!inserted.ok) return inserted
    changed.push(`egress guard on ${rule[1]}`)
  }
  return ok(undefined)
}

async function ensureNetwork(ctx: LabContext, net: LabNetwork, changed: string[]): Promise<LabResult<void>> {
  const r = await ctx.runner.probe(ctx.docker.networkInspect(net.name))
  if (r.code === 0) {
    const found = parseNetworkInspect(r.stdout)[0]
    if (found?.subnets.includes(net.subnet) && found.internal === net.internal && found.bridge === net.bridge) return ok(undefined)
    return labFail(
      'conflict',
      `docker network ${net.name} exists but is not the lab's (want subnet ${net.subnet}, bridge ${net.bridge}, internal ${net.internal}; found ${JSON.stringify(found)})`,
      'vllm-ray-deploy lab down   (removes it), then lab up again',
    )
  }
  const made = await ctx.runner.step(`create network ${net.name}`, ctx.docker.networkCreate(net, { [LABEL]: INSTANCE.labelValue }), {
    fix: `another docker network may already use ${net.subnet}: docker network ls, then remove it`,
  })
  if (!made.ok) return made
  changed.push(`network ${net.name}`)
  return ok(undefined)
}

/** Steps run one after another until one fails: each a description and its command (and options). */
async function steps(ctx: LabContext, list: readonly (readonly [string, Cmd, StepOptions?])[]): Promise<LabResult<void>> {
  for (const [what, cmd, opts] of list) {
    const r = await ctx.runner.step(what, cmd, opts)
    if (!r.ok) return r
  }
  return ok(undefined)
}

async function ensureRegistry(ctx: LabContext, layout: LabLayout, existing: readonly ContainerView[], changed: string[]): Promise<LabResult<void>> {
  const spec = registryContainerSpec(layout, IMAGES.registry)
  const imageId = (await inspectImage(ctx, IMAGES.registry))?.id
  const current = existing.find((c) => c.name === spec.name)
  if (current && current.labels[CONFIG_LABEL] === spec.labels?.[CONFIG_LABEL] && current.imageId === imageId) {
    if (!current.running) {
      const started = await ctx.runner.step('start the lab registry', ctx.docker.start(spec.name))
      if (!started.ok) return started
      changed.push(`started ${spec.name}`)
    }
  } else {
    const made = await steps(ctx, [
      ...(current ? [['remove the outdated lab registry', ctx.docker.removeContainers([spec.name])] as const] : []),
      ['create the registry volume', ctx.docker.volumeCreate(layout.registry.volume, { [LABEL]: INSTANCE.labelValue })],
      [
        'create the lab registry',
        ctx.docker.create(spec),
        { fix: `port ${layout.registry.hostHost} may be taken on this machine: ss -ltnp | grep ':${layout.registry.hostHost.split(':')[1]} '` },
      ],
      ['start the lab registry', ctx.docker.start(spec.name)],
    ])
    if (!made.ok) return made
    changed.push(`registry ${spec.name}`)
  }
  const url = `http://${layout.registry.hostHost}/v2/`
  const answers = await waitFor(async () => ((await httpStatus(url))?.status === 200 ? true : undefined), 30_000)
  if (!answers) {
    const logs = await ctx.runner.probe(ctx.docker.logs(spec.name, 20))
    return labFail('not-ready', `the lab registry does not answer at ${url}`, undefined, tail(logs.stdout + logs.stderr))
  }
  return ok(undefined)
}

/**
 * `--privileged` where the host can grant it; otherwise the unprivileged node flags. Decided
 * once per lab (kept on the node containers), or forced by VRD_LAB_PRIVILEGED=always|never.
 */
async function decidePrivileged(ctx: LabContext, existingNodes: readonly ContainerView[]): Promise<boolean> {
  const mode = (process.env.VRD_LAB_PRIVILEGED ?? 'auto').toLowerCase()
  if (['always', 'yes', 'true', '1'].includes(mode)) return true
  if (['never', 'no', 'false', '0'].includes(mode)) return false
  const known = existingNodes.map((c) => c.labels[PRIVILEGED_LABEL]).find((v) => v === 'true' || v === 'false')
  if (known) return known === 'true'
  const probe = await ctx.runner.probe(ctx.docker.runOnce(privilegeProbeSpec(IMAGES.node), '/bin/true'), 60_000)
  const works = probe.code === 0
  ctx.progress(
    works
      ? 'nodes run with --privileged'
      : 'this host cannot grant --privileged (no CAP_SYS_RESOURCE in the bounding set?): nodes get all other capabilities, unconfined',
  )
  return works
}

/** What one node's container is made from, beside its layout. */
interface NodeMaking {
  readonly hostKey: string
  readonly nodeImage: ImageView
  readonly privileged: boolean
  readonly existing: readonly ContainerView[]
}

async function ensureNode(ctx: LabContext, layout: LabLayout, node: LabNodeLayout, m: NodeMaking, changed: string[]): Promise<LabResult<void>> {
  const spec = nodeContainerSpec(layout, node, {
    image: IMAGES.node,
    privileged: m.privileged,
    nodeFilesDir: ctx.paths.nodeFiles,
    labDir: ctx.paths.root,
    hostKey: m.hostKey,
  })
  const fabric = fabricAttachment(layout, node)
  const current = m.existing.find((c) => c.name === node.container)
  if (
    current &&
    current.labels[CONFIG_LABEL] === spec.labels?.[CONFIG_LABEL] &&
    current.imageId === m.nodeImage.id &&
    current.networks[fabric.network]?.ip === fabric.ip
  ) {
    if (current.running) return ok(undefined)
    ctx.progress(`${node.name}: starting`)
    const started = await ctx.runner.step(`start ${node.container}`, ctx.docker.start(node.container))
    if (!started.ok) return started
    changed.push(`started ${node.container}`)
    return ok(undefined)
  }
  if (current) {
    ctx.progress(`${node.name}: recreating (image or settings changed; its docker volume is kept)`)
    const removed = await ctx.runner.step(`remove the outdated ${node.container}`, ctx.docker.removeContainers([node.container]))
    if (!removed.ok) return removed
  } else {
    ctx.progress(`${node.name}: creating (${node.mgmtIp} mgmt, ${node.fabricIp} fabric)`)
  }
  const made = await steps(ctx, [
    [`create volume ${node.dockerVolume}`, ctx.docker.volumeCreate(node.dockerVolume, { [LABEL]: INSTANCE.labelValue })],
    [`create ${node.container}`, ctx.docker.create(spec)],
    [`attach ${node.container} to the fabric`, ctx.docker.networkConnect(fabric.network, node.container, fabric.ip, fabric.aliases)],
    [`start ${node.container}`, ctx.docker.start(node.container)],
  ])
  if (!made.ok) return made
  changed.push(`node ${node.container}`)
  return ok(undefined)
}

/** sshd starts last in the node's init, so an SSH banner means the nested dockerd is up too. */
async function waitForNodes(ctx: LabContext, nodes: readonly LabNodeLayout[]): Promise<LabResult<void>> {
  const started = Date.now()
  const ready = await firstFailure(nodes.map((node) => waitForNode(ctx, node)))
  if (!ready.ok) return ready
  ctx.progress(`nodes ready (sshd and nested dockerd) in ${secs(started)}`)
  return ok(undefined)
}

/** All ok once every one is; the first Problem as soon as it comes (the others are left to finish). */
function firstFailure(waits: readonly Promise<LabResult<void>>[]): Promise<LabResult<void>> {
  return new Promise((resolve, reject) => {
    let left = waits.length
    if (left === 0) resolve(ok(undefined))
    for (const w of waits) {
      w.then((r) => {
        if (!r.ok) resolve(r)
        else if (--left === 0) resolve(ok(undefined))
      }, reject)
    }
  })
}

/** One node's SSH banner, or why it did not come: its container stopped, or no banner in time. */
async function waitForNode(ctx: LabContext, node: LabNodeLayout): Promise<LabResult<void>> {
  let stopped: string | undefined
  const banner = await waitFor(
    async () => {
      const b = await sshBanner(node.mgmtIp, SSH_PORT, 1_000)
      if (b) return b
      const state = await ctx.runner.probe(ctx.docker.containerInspect([node.container]))
      const view = parseContainerInspect(state.stdout)[0]
      // A stopped container ends the wait: waitFor stops at the first defined answer.
      if (view && !view.running) stopped = view.state
      return stopped === undefined ? undefined : ''
    },
    NODE_READY_TIMEOUT_MS,
    150,
  )
  if (stopped !== undefined) return nodeFailure(ctx, node, `the container stopped (${stopped})`)
  if (!banner) return nodeFailure(ctx, node, `no SSH banner from ${node.mgmtIp}:22 after ${NODE_READY_TIMEOUT_MS / 1000} s`)
  return ok(undefined)
}

async function nodeFailure(ctx: LabContext, node: LabNodeLayout, what: string): Promise<LabResult<never>> {
  const logs = await ctx.runner.probe(ctx.docker.logs(node.container, 30))
  return labFail(
    'not-ready',
    `${node.name} did not come up: ${what}`,
    `look at: ${ctx.dockerBin} logs ${node.container}; ${ctx.dockerBin} exec ${node.container} cat /var/log/dockerd.log`,
    tail(`${logs.stdout}\n${logs.stderr}`, 30),
  )
}

// ---------------------------------------------------------------------------------------------
// down

export interface LabDownResult {
  readonly containers: readonly string[]
  readonly networks: readonly string[]
  readonly volumes: readonly string[]
  readonly guardRules: number
  readonly images: readonly string[]
  readonly purgedCache: boolean
  readonly durationMs: number
}

export async function labDown(opts: LabDownOptions = {}): Promise<LabResult<LabDownResult>> {
  const context = labContext(opts)
  if (!context.ok) return context
  const ctx = context.value
  const started = Date.now()
  const root = requireRoot()
  if (!root.ok) return root
  const docker = await requireDocker(ctx)
  if (!docker.ok) return docker
  return withLabLock(ctx.paths.lock, 'lab down', () => downLocked(ctx, opts, started))
}

/** `lab down` holding the lab's lock. */
async function downLocked(ctx: LabContext, opts: LabDownOptions, started: number): Promise<LabResult<LabDownResult>> {
  const found = await labContainers(ctx)
  if (!found.ok) return found
  const containers = found.value.map((c) => c.name)
  if (containers.length > 0) {
    ctx.progress(`removing ${containers.join(', ')}`)
    const removed = await ctx.runner.step('remove the lab containers', ctx.docker.removeContainers(containers), { timeoutMs: 120_000 })
    if (!removed.ok) return removed
  }
  const networks = await labNetworkNames(ctx)
  if (!networks.ok) return networks
  if (networks.value.length > 0) {
    const removed = await ctx.runner.step('remove the lab networks', ctx.docker.networkRemove(networks.value))
    if (!removed.ok) return removed
  }
  const volumes = await labVolumeNames(ctx)
  if (!volumes.ok) return volumes
  if (volumes.value.length > 0) {
    const removed = await ctx.runner.step('remove the lab volumes', ctx.docker.volumeRemove(volumes.value), { timeoutMs: 120_000 })
    if (!removed.ok) return removed
  }

  const guard = await labGuardRules(ctx)
  const unguarded = await steps(
    ctx,
    guard.rules.map((rule) => ['remove the egress guard', iptablesCommands.remove(rule)] as const),
  )
  if (!unguarded.ok) return unguarded

  await rm(ctx.paths.manifest, { force: true })
  await rm(ctx.paths.state, { force: true })
  await rm(ctx.paths.build, { recursive: true, force: true })

  const images = opts.purge ? await purgeImages(ctx) : ok([])
  if (!images.ok) return images
  ctx.progress(`lab down: done in ${secs(started)}`)
  return ok({
    containers,
    networks: networks.value,
    volumes: volumes.value,
    guardRules: guard.rules.length,
    images: images.value,
    purgedCache: Boolean(opts.purge),
    durationMs: Date.now() - started,
  })
}

/** `down --purge`: the lab's images and its build cache; the images removed. */
async function purgeImages(ctx: LabContext): Promise<LabResult<string[]>> {
  const images = await labImages(ctx)
  if (!images.ok) return images
  if (images.value.length > 0) {
    ctx.progress(`removing ${images.value.length} image(s)`)
    // Removing a tag can take untagged parents with it, so a second name in the same batch
    // may already be gone: remove, list again, and fail only on what is really left.
    await ctx.runner.probe(ctx.docker.removeImages(images.value), 300_000)
    const left = await labImages(ctx)
    if (!left.ok) return left
    if (left.value.length > 0) {
      const removed = await ctx.runner.step('remove the lab images', ctx.docker.removeImages(left.value), { timeoutMs: 300_000 })
      if (!removed.ok) return removed
    }
  }
  if (existsSync(ctx.paths.cache)) await rm(ctx.paths.cache, { recursive: true, force: true })
  return images
}

/** Every image the lab made: its tags, the registry-qualified tags, and anything labelled. */
async function labImages(ctx: LabContext): Promise<LabResult<string[]>> {
  const refs = new Set<string>()
  for (const pattern of ['vrd-lab/*', `${REGISTRY.hostHost}/vrd-lab/*`]) {
    const r = await ctx.runner.step('list lab images', ctx.docker.imagesByReference(pattern))
    if (!r.ok) return r
    for (const l of lines(r.value.stdout)) if (!l.endsWith(':<none>')) refs.add(l)
  }
  const labelled = await ctx.runner.step('list labelled images', ctx.docker.imagesByLabel(LABEL))
  if (!labelled.ok) return labelled
  for (const id of lines(labelled.value.stdout)) refs.add(id)
  return ok([...refs])
}
