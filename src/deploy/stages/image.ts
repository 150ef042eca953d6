/**
 * The release's image on every node (the image gate), and what decides the release's content: for
 * a new release its fingerprint (the same content already running is `unchanged`), for an existing
 * one its own manifest snapshot and image ID, read from its files on the nodes.
 */
import { option } from '../../command/option-words.js'
import { type Finding, problemOf } from '../../preflight/finding.js'
import { headOf, imageRef, vllmHealth } from '../../plan/node-commands.js'
import { RELEASE_FILE, readReleaseFile } from '../../plan/release-commands.js'
import { problem } from '../../result/result.js'
import { outcome, succeeded } from '../../transport/transport.js'
import { imageGate } from '../image-gate.js'
import { releaseFiles, releaseFingerprint } from '../release-files.js'
import { readSnapshot } from '../snapshot.js'
import { type Stage, type StageInput, proceed, stop } from './stage.js'
import type { NodeMachine } from '../../preflight/checks/image-platform.js'
import type { FactsBundle } from '../../preflight/facts.js'
import { readLaunchScript } from './before.js'
import type { PlannedPart, StagePlanInput } from './plan-parts.js'
import { distributionOf } from '../distribution/index.js'

const cancelled = (message: string) => stop(problem('CANCELLED', message, 'Run the deploy again when it may go on.'), { cancelled: true })

/** The stage's part of `plan`, beside its run. */
const imagePart = ({ m, image }: StagePlanInput): PlannedPart[] => [
  {
    name: 'image',
    description: `${image} on every node (image.distribution: ${m.image.distribution}); a node that already has this exact image ID is skipped, every node must end on one image ID, and an image built for another CPU architecture than a node's (uname -m) is refused (for load and relay before anything is sent)`,
    parallel: distributionOf(m).parallel,
    steps: m.nodes.flatMap((n) => distributionOf(m).planSteps(m, n, image)),
  },
]

/** The gate on every node; `nodeMachines` (uname -m per node) lets it refuse an image of another CPU architecture. */
async function runImage(ctx: StageInput<'m' | 'expectImageId'>, nodeMachines: readonly NodeMachine[]) {
  const { m, o, io } = ctx
  if (io.cancelled) return cancelled('cancelled before anything changed')
  const img = await imageGate(m, imageRef(m), o.transports, {
    manifestPath: o.manifestPath,
    onProgress: io.progress,
    ...(ctx.expectImageId !== undefined && { expectId: ctx.expectImageId }),
    ...(o.signal && { signal: o.signal }),
    nodeMachines,
  })
  const image = { bytesSent: img.bytesSent, actions: Object.fromEntries([...img.actions].map(([k, v]) => [k, v.action])) }
  if (io.cancelled) return { ...cancelled('cancelled during the image transfer; no container was touched'), adds: { image } }
  if (!img.ok) {
    const message = ctx.source === 'new' ? img.findings.map((f) => f.message).join(' ') : "the release's image is not on every node"
    return stop(problem(img.findings[0]?.code ?? 'IMAGE_MISSING', message, img.findings[0]?.fix ?? 'Put the image on every node.'), {
      adds: { image },
      findings: img.findings,
    })
  }
  return proceed({ imageId: img.value, image })
}

const machinesOf = (facts: FactsBundle): NodeMachine[] => facts.nodes.map((f) => ({ node: f.node, ...(f.host?.machine && { machine: f.host.machine }) }))

const untouched = (ctx: StageInput<never>) =>
  ctx.source === 'new' ? 'nothing was changed on the nodes (the image gate comes first)' : 'nothing was changed on the nodes'

export const imageStage: Stage<'m' | 'expectImageId' | 'hostFacts', 'imageId' | 'image'> = {
  name: 'image',
  needs: ['m', 'expectImageId', 'hostFacts'],
  adds: ['imageId', 'image'],
  plan: imagePart,
  untouched,
  run: (ctx) => runImage(ctx, machinesOf(ctx.hostFacts)),
}

/** The same gate where no host facts were read (the lab's scenarios start straight from it): no CPU check. */
export const imageStageWithoutFacts: Stage<'m' | 'expectImageId', 'imageId' | 'image'> = {
  name: 'image',
  needs: ['m', 'expectImageId'],
  adds: ['imageId', 'image'],
  plan: imagePart,
  untouched,
  run: (ctx) => runImage(ctx, []),
}

/** An existing release: on every node, with its own manifest snapshot and image ID. */
export const snapshotStage: Stage<'m' | 'release' | 'states', 'm' | 'expectImageId' | 'releaseFilesFor'> = {
  name: 'snapshot',
  needs: ['m', 'release', 'states'],
  adds: ['m', 'expectImageId', 'releaseFilesFor'],
  untouched: () => 'nothing was changed on the nodes',
  async run(ctx) {
    const { m, o, io, release } = ctx
    const missing = m.nodes.filter((n) => !ctx.states.get(n.name)?.releases.includes(release)).map((n) => n.name)
    if (missing.length > 0) {
      const f: Finding = {
        code: 'RELEASE_NOT_FOUND',
        severity: 'error',
        node: missing.length === 1 ? missing[0]! : null,
        message: `Release ${release} is not on ${missing.join(', ')}.`,
        evidence: Object.fromEntries(m.nodes.map((n) => [`${n.name} releases`, ctx.states.get(n.name)?.releases.join(', ') || '(none)'])),
        fix: `Roll back to a release every node keeps (a rollback with ${option('to', 'RELEASE')}), or deploy it again.`,
      }
      return stop(problemOf(f), { findings: [f] })
    }
    const head = o.transports.get(headOf(m).name)!
    const r = await head.run(readReleaseFile(m, release, RELEASE_FILE.manifest), { timeoutMs: 30_000 })
    if (!succeeded(r)) {
      return stop(
        problem('RELEASE_SNAPSHOT_UNREADABLE', `release ${release} has no ${RELEASE_FILE.manifest} on ${headOf(m).name} (${outcome(r)})`, 'Deploy it again.'),
      )
    }
    const snap = readSnapshot(release, r.stdout)
    if (!snap.ok) return stop(snap.problem)
    for (const note of snap.value.notes) io.progress(`release ${release}'s manifest snapshot: ${note}`)
    const idFile = await head.run(readReleaseFile(m, release, RELEASE_FILE.imageId), { timeoutMs: 30_000 })
    // An existing release's files are verified on the nodes, never written: there is nothing to write them from.
    return proceed({ m: snap.value.manifest, expectImageId: idFile.stdout.trim(), releaseFilesFor: undefined })
  },
}

/** Running healthy: the containers `current` recorded run, and vLLM answers /health. */
async function runningHealthy(ctx: StageInput<'m' | 'states'>): Promise<boolean> {
  const running = [...ctx.states.values()].every((s) => s.container?.running && s.container.id === s.currentContainer)
  if (!running) return false
  return succeeded(await ctx.o.transports.get(headOf(ctx.m).name)!.run(vllmHealth(ctx.m), { timeoutMs: 30_000 }))
}

/**
 * A new release's fingerprint. Unchanged (same fingerprint as current everywhere, running healthy):
 * nothing is restarted, only the gates run. A release id names one content: the release the cluster
 * falls back on is never rewritten with other content.
 */
type FingerprintNeeds = 'm' | 'release' | 'imageId' | 'states' | 'current' | 'previousRelease' | 'weights' | 'weightsManifest' | 'imageContents'

export const fingerprintStage: Stage<FingerprintNeeds, 'fingerprint' | 'release' | 'unchanged' | 'releaseFilesFor'> = {
  name: 'fingerprint',
  needs: ['m', 'release', 'imageId', 'states', 'current', 'previousRelease', 'weights', 'weightsManifest', 'imageContents'],
  adds: ['fingerprint', 'release', 'unchanged', 'releaseFilesFor'],
  untouched: () => 'nothing was changed on the nodes',
  async run(ctx) {
    const { m, o, io, current } = ctx
    const launchScript = await readLaunchScript(m, o.manifestPath)
    const spec = {
      manifest: m,
      imageId: ctx.imageId,
      ...(launchScript !== undefined && { launchScript }),
      ...(ctx.weightsManifest && { weights: ctx.weightsManifest }),
    }
    const fingerprint = releaseFingerprint(spec)
    io.progress(`fingerprint ${fingerprint.slice(0, 19)}…, current ${current?.fingerprint?.slice(0, 19) ?? '(none)'}…`)
    if (!o.force && current?.current && current.fingerprint === fingerprint) {
      if (await runningHealthy(ctx)) {
        io.progress(
          `unchanged: release ${current.current} already runs this exact content; no image bytes moved, no container restarted${ctx.weights ? `, ${ctx.weights.bytesMoved.runner + ctx.weights.bytesMoved.fabric} weight bytes moved` : ''}`,
        )
        return proceed({ fingerprint, release: current.current, unchanged: true, releaseFilesFor: undefined })
      }
      io.progress('same content as current, but it is not running healthy: redeploying it')
    }
    const headState = ctx.states.get(headOf(m).name)
    if ((ctx.release === ctx.previousRelease || ctx.release === headState?.previous) && current?.fingerprint !== fingerprint) {
      const message = `release ${ctx.release} already exists on the nodes with other content; give this deploy a new release id (${option('release')})`
      return stop(problem('RELEASE_ID_TAKEN', message, `Give this deploy a new release id (${option('release')}).`), {
        at: 'release-files',
        adds: { fingerprint },
      })
    }
    const meta = { who: o.who, createdAt: new Date().toISOString(), ...(o.run && { run: o.run }) }
    // The image's contents go with the release, so the next deploy of this image ID need not read them again.
    const withContents = { ...spec, ...(ctx.imageContents && { imageContents: ctx.imageContents }) }
    const releaseFilesFor = (rel: string, node: string) =>
      JSON.stringify({ files: releaseFiles({ ...withContents, release: rel }, m.nodes.find((n) => n.name === node)!, meta) })
    return proceed({ fingerprint, release: ctx.release, unchanged: false, releaseFilesFor })
  },
}
