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
import { LabError, tail } from './lab-error.js'
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
import { lines } from './lab-runner.js'
import { ensureWorkloadImage } from './workload-image.js'

export const SSH_USER = 'root'
export const SSH_PORT = 22
const NODE_READY_TIMEOUT_MS = 120_000

// ---------------------------------------------------------------------------------------------
// reading what exists

/** Every container the lab made (by label, and by name prefix in case a label was lost). */
export async function labContainers(ctx: LabContext): Promise<ContainerView[]> {
  const names = new Set<string>()
  for (const filter of [INSTANCE.labelFilter, `name=^${PREFIX}-`]) {
    const r = await ctx.runner.step('list lab containers', ctx.docker.containersByFilter(filter))
    for (const n of lines(r.stdout)) names.add(n)
  }
  if (names.size === 0) return []
  const r = await ctx.runner.probe(ctx.docker.containerInspect([...names]))
  return parseContainerInspect(r.stdout)
}

async function labNetworkNames(ctx: LabContext): Promise<string[]> {
  const names = new Set<string>()
  for (const filter of [INSTANCE.labelFilter, `name=${PREFIX}-`]) {
    const r = await ctx.runner.step('list lab networks', ctx.docker.networkNamesByFilter(filter))
    for (const n of lines(r.stdout)) if (n.startsWith(`${PREFIX}-`) || filter === INSTANCE.labelFilter) names.add(n)
  }
  return [...names]
}

async function labVolumeNames(ctx: LabContext): Promise<string[]> {
  const names = new Set<string>()
  for (const filter of [INSTANCE.labelFilter, `name=${PREFIX}-`]) {
    const r = await ctx.runner.step('list lab volumes', ctx.docker.volumesByFilter(filter))
    for (const n of lines(r.stdout)) if (n.startsWith(`${PREFIX}-`) || filter === INSTANCE.labelFilter) names.add(n)
  }
  return [...names]
}

export async function labGuardRules(ctx: LabContext): Promise<{ rules: string[][]; error?: string }> {
  const r = await ctx.runner.probe(iptablesCommands.list())
  if (r.code !== 0) return { rules: [], error: tail(r.stderr || r.stdout, 3) }
  return { rules: labRulesIn(r.stdout) }
}

// ---------------------------------------------------------------------------------------------
// up

export async function labUp(opts: LabUpOptions = {}): Promise<LabInfo> {
  const ctx = labContext(opts)
  const started = Date.now()
  const serverVersion = await requireUpTools(ctx)
  if (opts.nodes !== undefined) validateNodeCount(opts.nodes)
  return withLabLock(ctx.paths.lock, 'lab up', async () => {
    const changed: string[] = []
    const existing = await labContainers(ctx)
    const existingNodes = existing.filter((c) => c.labels[ROLE_LABEL] === 'node')
    const count = validateNodeCount(opts.nodes ?? Math.min(Math.max(existingNodes.length, DEFAULT_NODES), 4))
    const layout = labLayout(count)
    ctx.progress(`lab up: ${count} node(s) in ${ctx.paths.root}`)

    // Keys first: the nodes read them when they boot.
    await mkdir(ctx.paths.root, { recursive: true })
    const clientKey = await ensureClientKey(ctx)
    const pins: PinnedNode[] = []
    for (const node of layout.nodes) pins.push({ node, hostKey: await ensureHostKey(ctx, node) })
    await writeSshFiles(ctx, clientKey, pins, SSH_USER)

    const nodeImage = await withImagesLock(ctx, async () => {
      const image = await ensureNodeImage(ctx, changed)
      await ensureRegistryImage(ctx, changed)
      return image
    })

    // The guard goes in before any lab container can send a packet.
    await ensureEgressGuard(ctx, layout, changed)
    await ensureNetwork(ctx, layout.mgmt, changed)
    await ensureNetwork(ctx, layout.fabric, changed)
    await ensureRegistry(ctx, layout, existing, changed)

    // Nodes beyond the wanted count go (with their docker volume).
    const wanted = new Set(layout.nodes.map((n) => n.container))
    const extra = existingNodes.filter((c) => !wanted.has(c.name))
    if (extra.length > 0) {
      await ctx.runner.step('remove extra nodes', ctx.docker.removeContainers(extra.map((c) => c.name)))
      const vols = extra.map((c) => `${c.name}-docker`)
      await ctx.runner.probe(ctx.docker.volumeRemove(vols))
      changed.push(...extra.map((c) => `removed ${c.name}`))
    }

    const privileged = await decidePrivileged(ctx, existingNodes)
    for (const node of layout.nodes) {
      await ensureNode(ctx, layout, node, pins.find((p) => p.node.name === node.name)!.hostKey, nodeImage, privileged, existing, changed)
    }
    await waitForNodes(ctx, layout.nodes)

    const workloadImage = await withImagesLock(ctx, () => ensureWorkloadImage(ctx, changed))

    const nodes: LabNodeInfo[] = pins.map(({ node, hostKey }) => ({
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
    await writeFile(
      ctx.paths.manifest,
      renderLabManifest({
        nodes,
        sshUser: SSH_USER,
        sshPort: SSH_PORT,
        fabricInterface: layout.fabricIfname,
        fabricSubnet: layout.fabric.subnet,
        imageRef: workloadImage.ref,
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
      workloadImage,
      privileged,
      docker: { binary: ctx.dockerBin, serverVersion },
      durationMs: Date.now() - started,
      changed,
    }
    await writeFile(ctx.paths.state, `${JSON.stringify(info, null, 2)}\n`)
    ctx.progress(`lab up: ready in ${secs(started)}${changed.length ? ` (${changed.length} change(s))` : ' (nothing to change)'}`)
    return info
  })
}

/**
 * The images (and the build cache) are shared by every lab instance on this machine: one instance
 * checks or builds them at a time, and another one waits for it (a first build takes minutes).
 */
const IMAGES_WAIT_MS = 30 * 60_000
function withImagesLock<T>(ctx: LabContext, fn: () => Promise<T>): Promise<T> {
  return withLabLock(ctx.paths.imagesLock, 'lab images', fn, {
    waitMs: IMAGES_WAIT_MS,
    onWait: (holder) => ctx.progress(`lab up: waiting for another lab's image build (${holder})`),
  })
}

async function ensureEgressGuard(ctx: LabContext, layout: LabLayout, changed: string[]): Promise<void> {
  for (const rule of guardRules([layout.mgmt, layout.fabric])) {
    const present = await ctx.runner.probe(iptablesCommands.check(rule))
    if (present.code === 0) continue
    await ctx.runner.step('install the egress guard', iptablesCommands.insert(rule), {
      fix: "the lab needs iptables and docker's DOCKER-USER chain (dockerd started with iptables enabled)",
    })
    changed.push(`egress guard on ${rule[1]}`)
  }
}

async function ensureNetwork(ctx: LabContext, net: LabNetwork, changed: string[]): Promise<void> {
  const r = await ctx.runner.probe(ctx.docker.networkInspect(net.name))
  if (r.code === 0) {
    const found = parseNetworkInspect(r.stdout)[0]
    if (found?.subnets.includes(net.subnet) && found.internal === net.internal && found.bridge === net.bridge) return
    throw new LabError(
      'conflict',
      `docker network ${net.name} exists but is not the lab's (want subnet ${net.subnet}, bridge ${net.bridge}, internal ${net.internal}; found ${JSON.stringify(found)})`,
      'vllm-ray-deploy lab down   (removes it), then lab up again',
    )
  }
  await ctx.runner.step(`create network ${net.name}`, ctx.docker.networkCreate(net, { [LABEL]: INSTANCE.labelValue }), {
    fix: `another docker network may already use ${net.subnet}: docker network ls, then remove it`,
  })
  changed.push(`network ${net.name}`)
}

async function ensureRegistry(ctx: LabContext, layout: LabLayout, existing: readonly ContainerView[], changed: string[]): Promise<void> {
  const spec = registryContainerSpec(layout, IMAGES.registry)
  const imageId = (await inspectImage(ctx, IMAGES.registry))?.id
  const current = existing.find((c) => c.name === spec.name)
  if (current && current.labels[CONFIG_LABEL] === spec.labels?.[CONFIG_LABEL] && current.imageId === imageId) {
    if (!current.running) {
      await ctx.runner.step('start the lab registry', ctx.docker.start(spec.name))
      changed.push(`started ${spec.name}`)
    }
  } else {
    if (current) await ctx.runner.step('remove the outdated lab registry', ctx.docker.removeContainers([spec.name]))
    await ctx.runner.step('create the registry volume', ctx.docker.volumeCreate(layout.registry.volume, { [LABEL]: INSTANCE.labelValue }))
    await ctx.runner.step('create the lab registry', ctx.docker.create(spec), {
      fix: `port ${layout.registry.hostHost} may be taken on this machine: ss -ltnp | grep ':${layout.registry.hostHost.split(':')[1]} '`,
    })
    await ctx.runner.step('start the lab registry', ctx.docker.start(spec.name))
    changed.push(`registry ${spec.name}`)
  }
  const url = `http://${layout.registry.hostHost}/v2/`
  const ok = await waitFor(async () => ((await httpStatus(url))?.status === 200 ? true : undefined), 30_000)
  if (!ok) {
    const logs = await ctx.runner.probe(ctx.docker.logs(spec.name, 20))
    throw new LabError('not-ready', `the lab registry does not answer at ${url}`, undefined, tail(logs.stdout + logs.stderr))
  }
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

async function ensureNode(
  ctx: LabContext,
  layout: LabLayout,
  node: LabNodeLayout,
  hostKey: string,
  nodeImage: ImageView,
  privileged: boolean,
  existing: readonly ContainerView[],
  changed: string[],
): Promise<void> {
  const spec = nodeContainerSpec(layout, node, {
    image: IMAGES.node,
    privileged,
    nodeFilesDir: ctx.paths.nodeFiles,
    labDir: ctx.paths.root,
    hostKey,
  })
  const fabric = fabricAttachment(layout, node)
  const current = existing.find((c) => c.name === node.container)
  if (
    current &&
    current.labels[CONFIG_LABEL] === spec.labels?.[CONFIG_LABEL] &&
    current.imageId === nodeImage.id &&
    current.networks[fabric.network]?.ip === fabric.ip
  ) {
    if (!current.running) {
      ctx.progress(`${node.name}: starting`)
      await ctx.runner.step(`start ${node.container}`, ctx.docker.start(node.container))
      changed.push(`started ${node.container}`)
    }
    return
  }
  if (current) {
    ctx.progress(`${node.name}: recreating (image or settings changed; its docker volume is kept)`)
    await ctx.runner.step(`remove the outdated ${node.container}`, ctx.docker.removeContainers([node.container]))
  } else {
    ctx.progress(`${node.name}: creating (${node.mgmtIp} mgmt, ${node.fabricIp} fabric)`)
  }
  await ctx.runner.step(`create volume ${node.dockerVolume}`, ctx.docker.volumeCreate(node.dockerVolume, { [LABEL]: INSTANCE.labelValue }))
  await ctx.runner.step(`create ${node.container}`, ctx.docker.create(spec))
  await ctx.runner.step(`attach ${node.container} to the fabric`, ctx.docker.networkConnect(fabric.network, node.container, fabric.ip, fabric.aliases))
  await ctx.runner.step(`start ${node.container}`, ctx.docker.start(node.container))
  changed.push(`node ${node.container}`)
}

/** sshd starts last in the node's init, so an SSH banner means the nested dockerd is up too. */
async function waitForNodes(ctx: LabContext, nodes: readonly LabNodeLayout[]): Promise<void> {
  const started = Date.now()
  await Promise.all(
    nodes.map(async (node) => {
      const banner = await waitFor(
        async () => {
          const b = await sshBanner(node.mgmtIp, SSH_PORT, 1_000)
          if (b) return b
          const state = await ctx.runner.probe(ctx.docker.containerInspect([node.container]))
          const view = parseContainerInspect(state.stdout)[0]
          if (view && !view.running) throw await nodeFailure(ctx, node, `the container stopped (${view.state})`)
          return undefined
        },
        NODE_READY_TIMEOUT_MS,
        150,
      )
      if (!banner) throw await nodeFailure(ctx, node, `no SSH banner from ${node.mgmtIp}:22 after ${NODE_READY_TIMEOUT_MS / 1000} s`)
    }),
  )
  ctx.progress(`nodes ready (sshd and nested dockerd) in ${secs(started)}`)
}

async function nodeFailure(ctx: LabContext, node: LabNodeLayout, what: string): Promise<LabError> {
  const logs = await ctx.runner.probe(ctx.docker.logs(node.container, 30))
  return new LabError(
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

export async function labDown(opts: LabDownOptions = {}): Promise<LabDownResult> {
  const ctx = labContext(opts)
  const started = Date.now()
  requireRoot()
  await requireDocker(ctx)
  return withLabLock(ctx.paths.lock, 'lab down', async () => {
    const containers = (await labContainers(ctx)).map((c) => c.name)
    if (containers.length > 0) {
      ctx.progress(`removing ${containers.join(', ')}`)
      await ctx.runner.step('remove the lab containers', ctx.docker.removeContainers(containers), { timeoutMs: 120_000 })
    }
    const networks = await labNetworkNames(ctx)
    if (networks.length > 0) await ctx.runner.step('remove the lab networks', ctx.docker.networkRemove(networks))
    const volumes = await labVolumeNames(ctx)
    if (volumes.length > 0) await ctx.runner.step('remove the lab volumes', ctx.docker.volumeRemove(volumes), { timeoutMs: 120_000 })

    const guard = await labGuardRules(ctx)
    for (const rule of guard.rules) await ctx.runner.step('remove the egress guard', iptablesCommands.remove(rule))

    await rm(ctx.paths.manifest, { force: true })
    await rm(ctx.paths.state, { force: true })
    await rm(ctx.paths.build, { recursive: true, force: true })

    let images: string[] = []
    if (opts.purge) {
      images = await labImages(ctx)
      if (images.length > 0) {
        ctx.progress(`removing ${images.length} image(s)`)
        // Removing a tag can take untagged parents with it, so a second name in the same batch
        // may already be gone: remove, list again, and fail only on what is really left.
        await ctx.runner.probe(ctx.docker.removeImages(images), 300_000)
        const left = await labImages(ctx)
        if (left.length > 0) await ctx.runner.step('remove the lab images', ctx.docker.removeImages(left), { timeoutMs: 300_000 })
      }
      if (existsSync(ctx.paths.cache)) await rm(ctx.paths.cache, { recursive: true, force: true })
    }
    ctx.progress(`lab down: done in ${secs(started)}`)
    return {
      containers,
      networks,
      volumes,
      guardRules: guard.rules.length,
      images,
      purgedCache: Boolean(opts.purge),
      durationMs: Date.now() - started,
    }
  })
}

/** Every image the lab made: its tags, the registry-qualified tags, and anything labelled. */
async function labImages(ctx: LabContext): Promise<string[]> {
  const refs = new Set<string>()
  for (const pattern of ['vrd-lab/*', `${REGISTRY.hostHost}/vrd-lab/*`]) {
    const r = await ctx.runner.step('list lab images', ctx.docker.imagesByReference(pattern))
    for (const l of lines(r.stdout)) if (!l.endsWith(':<none>')) refs.add(l)
  }
  const labelled = await ctx.runner.step('list labelled images', ctx.docker.imagesByLabel(LABEL))
  for (const id of lines(labelled.stdout)) refs.add(id)
  return [...refs]
}
