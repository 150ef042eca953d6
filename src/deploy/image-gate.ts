/**
 * The image gate: the release's image on every node, as the manifest says (pull on each node, load
 * streamed from this machine, relay: sent once to the head which passes it on over the fabric, or
 * preloaded and only checked), in parallel, skipped on a node that
 * already has the exact image ID. Every node must end on one image ID, or the gate fails with
 * IMAGE_MISMATCH.
 */
import { argv } from '../command/shell.js'
import { stdinProvider } from '../execute/inputs.js'
import type { Manifest } from '../manifest/schema.js'
import type { Finding } from '../preflight/finding.js'
import { imageIdOf } from '../plan/release-commands.js'
import { loadImage, pullImage } from '../plan/node-commands.js'
import { LocalTransport } from '../transport/local.js'
import { relayImage } from './relay.js'
import { type Transport, outcome, succeeded } from '../transport/transport.js'

export type ImageAction = 'present' | 'pulled' | 'up-to-date' | 'loaded' | 'relayed' | 'failed'

export interface ImageGateResult {
  readonly ok: boolean
  /** The one image ID every node has (when ok). */
  readonly imageId?: string
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
}

const short = (id: string | undefined): string => (id ? id.replace(/^sha256:/, '').slice(0, 12) : '(none)')

async function inspect(t: Transport, image: string): Promise<string | undefined> {
  const r = await t.run(imageIdOf(image), { timeoutMs: 60_000 })
  return succeeded(r) ? r.stdout.trim() || undefined : undefined
}

/** The image ID this machine's docker has for `image` (the source of `load`). */
async function localImageId(image: string): Promise<string | undefined> {
  const docker = process.env.VRD_DOCKER || 'docker'
  const r = await new LocalTransport().run(argv(docker, 'image', 'inspect', '--format', '{{.Id}}', image), { timeoutMs: 30_000 })
  return r.code === 0 ? r.stdout.trim() : undefined
}

export async function imageGate(m: Manifest, image: string, transports: ReadonlyMap<string, Transport>, opts: ImageGateOptions): Promise<ImageGateResult> {
  const progress = opts.onProgress ?? (() => {})
  const actions = new Map<string, { action: ImageAction; imageId?: string; detail?: string }>()
  const findings: Finding[] = []
  let bytesSent = 0
  const nodes = m.nodes.filter((n) => transports.has(n.name))
  const before = new Map(await Promise.all(nodes.map(async (n) => [n.name, await inspect(transports.get(n.name)!, opts.expectId ?? image)] as const)))

  let want: string | undefined = opts.expectId
  const distribution = opts.expectId ? 'preloaded' : m.image.distribution
  if (distribution === 'load' || distribution === 'relay') {
    want = await localImageId(image)
    if (!want) {
      findings.push({
        code: 'IMAGE_MISSING',
        severity: 'error',
        node: null,
        message: `image.distribution is ${distribution}, but ${image} is not in this machine's docker.`,
        evidence: { image, 'this machine': '(no such image)' },
        fix: `Build or pull ${image} on the runner before the deploy, or use image.distribution: pull.`,
      })
      return { ok: false, actions, bytesSent, findings }
    }
  }
  if (distribution === 'relay') {
    // The runner sends the image once, to the head; the head passes it on over the fabric.
    const skip = new Set(nodes.filter((n) => want && before.get(n.name) === want).map((n) => n.name))
    const relayed = await relayImage(m, image, transports, { onProgress: progress, skip, ...(opts.signal && { signal: opts.signal }) })
    bytesSent += relayed.bytesSent
    for (const x of relayed.findings) findings.push(x)
    for (const n of nodes)
      actions.set(
        n.name,
        skip.has(n.name)
          ? { action: 'present', imageId: before.get(n.name)! }
          : relayed.imageIds.has(n.name)
            ? { action: 'relayed' }
            : { action: 'failed', detail: 'the relay did not deliver it' },
      )
  }
  const stdin = stdinProvider(opts.manifestPath, process.env, { onImageBytes: (_node, b) => (bytesSent += b) })
  await Promise.all(
    nodes.map(async (n) => {
      const t = transports.get(n.name)!
      const has = before.get(n.name)
      if (distribution === 'relay') return
      if (distribution === 'preloaded' || (want && has === want)) {
        actions.set(n.name, has ? { action: 'present', imageId: has } : { action: 'failed', detail: `${opts.expectId ?? image} is not on ${n.name}` })
        if (has) progress(`[${n.name}] image: ${short(has)} already present, nothing sent`)
        return
      }
      if (distribution === 'pull') {
        progress(`[${n.name}] image: docker pull ${image}`)
        const r = await t.run(pullImage(image), { timeoutMs: m.ssh.commandTimeoutSeconds * 1000, ...(opts.signal && { signal: opts.signal }) })
        if (!succeeded(r)) return void actions.set(n.name, { action: 'failed', detail: `docker pull ${outcome(r)}: ${r.stderr.trim().slice(-300)}` })
        actions.set(n.name, { action: /Image is up to date/.test(r.stdout) ? 'up-to-date' : 'pulled' })
        return
      }
      progress(`[${n.name}] image: docker save ${image} | ssh | docker load (node has ${short(has)}, want ${short(want)})`)
      const input = await stdin(
        { kind: 'image-archive', image },
        { id: `${n.name}/image`, node: n.name, action: 'image', description: '', cmd: loadImage(), command: 'docker load', timeoutSeconds: 3600 },
      )
      const r = await t.run(loadImage(), { timeoutMs: m.ssh.commandTimeoutSeconds * 1000, stdin: input, ...(opts.signal && { signal: opts.signal }) })
      actions.set(n.name, succeeded(r) ? { action: 'loaded' } : { action: 'failed', detail: `docker load ${outcome(r)}: ${r.stderr.trim().slice(-300)}` })
    }),
  )
  // Every node ends on one image ID.
  const after = new Map(await Promise.all(nodes.map(async (n) => [n.name, await inspect(transports.get(n.name)!, opts.expectId ?? image)] as const)))
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
  const imageId = ids.size === 1 ? [...ids][0] : undefined
  return { ok: !findings.some((f) => f.severity === 'error') && !!imageId, ...(imageId && { imageId }), actions, bytesSent, findings }
}
