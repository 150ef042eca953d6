/**
 * The image gate: the release's image on every node, delivered by the manifest's distribution mode
 * (src/deploy/distribution: pull, load, relay, preloaded), skipped on a node that already has the
 * exact image ID. A mode that sends the image from this machine is checked here, once, to have it.
 * Every node must end on one image ID, or the gate fails with IMAGE_MISSING / IMAGE_MISMATCH.
 */
import { argv } from '../command/shell.js'
import type { Manifest, ManifestNode } from '../manifest/schema.js'
import { type Finding, problemOf } from '../preflight/finding.js'
import { fail, ok, problem, type Result } from '../result/result.js'
import { IMAGE_IDENTITY_FORMAT, imageIdentityOf } from '../plan/release-commands.js'
import { type ImageIdentity, type NodeMachine, imagePlatformFindings, parseImageIdentity } from '../preflight/checks/image-platform.js'
import { LocalTransport } from '../transport/local.js'
import { DISTRIBUTIONS, distributionOf } from './distribution/index.js'
import type { ImageAction } from './distribution/types.js'
import { type Transport, succeeded } from '../transport/transport.js'

export type { ImageAction } from './distribution/types.js'

/** The one image ID every node has, or the Problem (the first error finding); what was done on each node either way. */
export type ImageGateResult = Result<string> & {
  readonly actions: ReadonlyMap<string, { readonly action: ImageAction; readonly imageId?: string; readonly detail?: string }>
  /** Image bytes this machine sent to the nodes (load, relay). */
  readonly bytesSent: number
  readonly findings: readonly Finding[]
}

export interface ImageGateOptions {
  readonly manifestPath: string
  /** Only check that every node has this exact image ID (a rollback starting a release from its files). */
  readonly expectId?: string
  readonly onProgress?: (m: string) => void
  /** Aborting it ends a transfer in flight (the gate then fails; the caller reports the cancel). */
  readonly signal?: AbortSignal
  /** Each node's CPU (`uname -m` from the host facts): an image built for another architecture fails the gate, before any transfer where it can. */
  readonly nodeMachines?: readonly NodeMachine[]
}

const short = (id: string | undefined): string => (id ? id.replace(/^sha256:/, '').slice(0, 12) : '(none)')

async function inspect(t: Transport, image: string): Promise<ImageIdentity | undefined> {
  const r = await t.run(imageIdentityOf(image), { timeoutMs: 60_000 })
  return succeeded(r) ? parseImageIdentity(r.stdout) : undefined
}

/** The image ID and platform this machine's docker has for `image` (the source of `load` and `relay`). */
async function localImage(image: string): Promise<ImageIdentity | undefined> {
  const docker = process.env.VRD_DOCKER || 'docker'
  const r = await new LocalTransport().run(argv(docker, 'image', 'inspect', '--format', IMAGE_IDENTITY_FORMAT, image), { timeoutMs: 30_000 })
  return r.code === 0 ? parseImageIdentity(r.stdout) : undefined
}

export async function imageGate(m: Manifest, image: string, transports: ReadonlyMap<string, Transport>, opts: ImageGateOptions): Promise<ImageGateResult> {
  const progress = opts.onProgress ?? (() => {})
  const actions = new Map<string, { action: ImageAction; imageId?: string; detail?: string }>()
  const findings: Finding[] = []
  let bytesSent = 0
  const nodes = m.nodes.filter((n) => transports.has(n.name))
  // A rollback checks its release's exact image ID as a preloaded one; otherwise the manifest's mode.
  const dist = opts.expectId ? DISTRIBUTIONS.preloaded : distributionOf(m)
  const distribution = dist.name
  // This machine's image is read while the nodes are (all only read).
  const local = dist.fromRunner ? localImage(image) : undefined
  const seen = new Map(await Promise.all(nodes.map(async (n) => [n.name, await inspect(transports.get(n.name)!, opts.expectId ?? image)] as const)))
  const before = new Map([...seen].map(([name, seenId]) => [name, seenId?.id] as const))

  let want: string | undefined = opts.expectId
  if (local) {
    // The one check that this machine has the image, before any node is touched.
    const mine = await local
    want = mine?.id
    if (!want) {
      findings.push({
        code: 'IMAGE_MISSING',
        severity: 'error',
        node: null,
        message: `image.distribution is ${distribution}, but ${image} is not in this machine's docker.`,
        evidence: { image, 'this machine': '(no such image)' },
        fix: `Build or pull ${image} on the runner before the deploy, or use image.distribution: pull.`,
      })
      return { ...fail(problemOf(findings[0]!)), actions, bytesSent, findings }
    }
    // An image of another CPU architecture than a node's stops here, before a byte is sent.
    findings.push(...(mine?.platform ? imagePlatformFindings(image, { node: null, platform: mine.platform }, opts.nodeMachines ?? []) : []))
    if (findings.length > 0) return { ...fail(problemOf(findings[0]!)), actions, bytesSent, findings }
  }
  await dist.deliver({
    m,
    image,
    manifestPath: opts.manifestPath,
    transports,
    nodes,
    before,
    ...(want && { want }),
    actions,
    findings,
    addBytes: (n) => {
      bytesSent += n
    },
    progress,
    ...(opts.signal && { signal: opts.signal }),
  })
  // Every node ends on one image ID: read again where the delivery touched the node; a node it left
  // alone (present: it already held the wanted ID) keeps the ID just read, without another round trip.
  const readAgain = async (n: ManifestNode): Promise<ImageIdentity | undefined> =>
    actions.get(n.name)?.action === 'present' && seen.get(n.name) ? seen.get(n.name) : inspect(transports.get(n.name)!, opts.expectId ?? image)
  const read = new Map(await Promise.all(nodes.map(async (n) => [n.name, await readAgain(n)] as const)))
  const after = new Map([...read].map(([name, r]) => [name, r?.id] as const))
  // Each node's own copy against its CPU (a pull of a single-platform image of another architecture succeeds with a warning).
  for (const [name, r] of read) if (r?.platform) findings.push(...imagePlatformFindings(image, { node: name, platform: r.platform }, opts.nodeMachines ?? []))
  const ids = oneImage({
    image,
    nodes,
    actions,
    after,
    findings,
    progress,
    distribution,
    ...(want && { want }),
    ...(opts.expectId && { expectId: opts.expectId }),
  })
  const imageId = ids.size === 1 ? [...ids][0] : undefined
  const error = findings.find((f) => f.severity === 'error')
  const verdict: Result<string> =
    imageId && !error
      ? ok(imageId)
      : fail(error ? problemOf(error) : problem('IMAGE_MISSING', `the nodes do not hold one image ID for ${image}`, 'Put the image on every node.'))
  return { ...verdict, actions, bytesSent, findings }
}

/** Every node read back after the image step: one image ID everywhere, or IMAGE_MISSING / IMAGE_MISMATCH. */
function oneImage(c: {
  image: string
  nodes: readonly ManifestNode[]
  actions: Map<string, { action: ImageAction; imageId?: string; detail?: string }>
  after: ReadonlyMap<string, string | undefined>
  findings: Finding[]
  progress: (m: string) => void
  distribution: string
  want?: string
  expectId?: string
}): Set<string> {
  const { image, nodes, actions, after, findings, progress, distribution, want } = c
  const opts = { expectId: c.expectId }
  for (const n of nodes) {
    const a = actions.get(n.name)!
    const id = after.get(n.name)
    actions.set(n.name, { ...a, ...(id && { imageId: id }) })
    progress(`[${n.name}] image: ${a.action}${id ? ` ${short(id)}` : ''}${a.detail ? ` (${a.detail})` : ''}`)
    if (!id) {
      findings.push({
        code: 'IMAGE_MISSING',
        severity: 'error',
        node: n.name,
        message: `${n.name} does not have ${opts.expectId ? `image ${short(opts.expectId)} of that release` : image} after the image step.`,
        evidence: { image: opts.expectId ?? image, [`${n.name} result`]: a.detail ?? a.action },
        fix: opts.expectId
          ? `Load that image on ${n.name} again (docker pull or docker load of the image the release names in image-id), or roll back to another release.`
          : `Check that ${n.name} can ${distribution === 'pull' ? `pull ${image} (registry reachable, credentials)` : 'receive the image'}; image.distribution is ${distribution}.`,
      })
    }
  }
  const ids = new Set([...after.values()].filter((x): x is string => !!x))
  if (want && ids.size === 1 && !ids.has(want)) ids.add(want)
  if (ids.size > 1) {
    findings.push({
      code: 'IMAGE_MISMATCH',
      severity: 'error',
      node: null,
      message: `After the image step the nodes have ${ids.size} different image IDs for ${image}.`,
      evidence: Object.fromEntries([
        ...(want ? [['wanted', want] as const] : []),
        ...nodes.map((n) => [`${n.name} image ID`, after.get(n.name) ?? '(none)'] as const),
      ]),
      fix: `Make ${image} name one image everywhere (pin it by digest: image.digest), then deploy again.`,
    })
  }
  return ids
}
