/**
 * The weights stage's work on the nodes: the reference manifest (a runner directory hashed here,
 * or the head's verified copy after a hub download or for files already on the nodes), every
 * node's listing compared with it, the free space checked, only the files a node lacks moved
 * (runner → node over its SSH transport, or head → worker over the fabric), each received into a
 * .partial and renamed only once its SHA-256 matches, then every node listed again: each must match.
 */
import { problemOf } from '../../preflight/finding.js'
import { headOf } from '../../plan/node-commands.js'
import { type Problem, ok } from '../../result/result.js'
import { type NodeListing, compareNode, describeNode } from './compare.js'
import { type Delivery, type WeightsOutcome, type WeightsRun, listAll, mb, startDelivery, stopWith, weightsReport } from './delivery.js'
import { type WeightsManifest, totalBytes, weightsManifestText } from './weights-manifest.js'
import {
  checkHubDigests,
  compareAll,
  referenceFromHead,
  referenceFromSource,
  rememberSentHashes,
  resolvePending,
  withSentHashes,
} from './reference-manifest.js'
import { type FabricShare, closeEarly, planDelivery, sendAll, shareEarly } from './send.js'

export type { HubPlanner, HubStep, NodeWeightsReport, WeightsOutcome, WeightsReport, WeightsRun } from './delivery.js'
export { hashRunnerDir, runnerHashCacheFile } from './runner-hash.js'

export async function deliverWeights(run: WeightsRun): Promise<WeightsOutcome> {
  const d = startDelivery(run)

  // 1. The reference: the runner's directory, or the head's copy once it holds the files.
  const source = await referenceFromSource(d, true)
  if (!source.ok) return stopWith(d, source.problem)
  // While the nodes are listed, the head opens the fabric connection its streams may share; the stage owns it until the streams take it.
  const held: Held = { early: shareEarly(d, source.value && totalBytes(source.value.files)) }
  try {
    return await deliverFrom(d, source.value, held)
  } finally {
    if (held.early) await closeEarly(d, held.early)
    await held.closed
  }
}

/** The shared fabric connections the stage owns: opening before the streams take them, closing after they end. */
interface Held {
  early?: FabricShare
  closed?: Promise<void>
}

async function deliverFrom(d: Delivery, source: WeightsManifest | undefined, held: Held): Promise<WeightsOutcome> {
  const first = await listAll(d)
  if (!first.ok) return stopWith(d, first.problem, source)
  // A hub download is checked against the hub's own digests before the head's copy is the reference.
  const digests = await checkHubDigests(d, first.value)
  if (digests) return stopWith(d, digests)
  const reference = source ? await resolvePending(d, source, first.value) : referenceFromHead(d, first.value)
  if (!reference.ok) return stopWith(d, reference.problem)
  let ref = reference.value
  compareAll(d, ref, first.value)

  // 2. Room for what is missing.
  const short = roomProblem(d)
  if (short) return stopWith(d, short, ref)

  // 3. Move only what is missing: the head first, then the workers at once.
  const plan = planDelivery(d)
  const sends = [...plan.first, ...plan.after]
  const early = held.early
  held.early = undefined
  held.closed = (await sendAll(d, plan, early)).closed
  // The hashes the runner computed while sending complete the reference; the next deploy takes them from its cache.
  ref = withSentHashes(d, ref)
  await rememberSentHashes(d)
  if (d.run.signal?.aborted)
    return stopWith(
      d,
      { code: 'CANCELLED', message: 'cancelled during the weights transfer; a cut file resumes on the next deploy', evidence: {}, fix: 'Deploy again.' },
      ref,
    )
  if (sends.length === 0) d.say('every node already holds every file: 0 bytes moved')

  // 4. Every node now matches the reference.
  const after = sends.length > 0 ? await listAll(d) : first
  if (!after.ok) return stopWith(d, after.problem, ref)
  verifyAll(d, ref, after.value)
  const error = d.findings.find((f) => f.severity === 'error')
  if (error) return stopWith(d, problemOf(error), ref)
  return verified(d, ref)
}

/** A DISK_SPACE_LOW finding for each node without room for what it lacks, and the problem that stops on them. */
function roomProblem(d: Delivery): Problem | undefined {
  const { model } = d
  const short = [...d.befores.values()].filter((v) => v.freeBytes !== undefined && v.bytesNeeded > v.freeBytes)
  if (short.length === 0) return undefined
  for (const v of short)
    d.findings.push({
      code: 'DISK_SPACE_LOW',
      severity: 'error',
      node: v.node,
      message: `${v.node} has ${mb(v.freeBytes!)} free under ${model.path} but the model needs ${mb(v.bytesNeeded)} more.`,
      evidence: { Path: model.path, 'Free bytes': String(v.freeBytes), 'Bytes to move': String(v.bytesNeeded) },
      fix: `Free space on ${v.node}'s file system holding ${model.path}, or point model.path at a larger one.`,
    })
  return {
    code: 'DISK_SPACE_LOW',
    message: `not enough free space for the model on ${short.map((v) => v.node).join(', ')}`,
    evidence: {},
    fix: d.findings.at(-1)!.fix,
  }
}

/** A WEIGHTS_MISMATCH finding for each node whose listing after the transfer differs from the reference. */
export function verifyAll(d: Delivery, ref: WeightsManifest, listings: ReadonlyMap<string, NodeListing>): void {
  const { m, model, kind, failures } = d
  for (const n of m.nodes) {
    const v = compareNode(n.name, ref, listings.get(n.name)!)
    if (v.bad.length === 0) continue
    d.findings.push({
      code: 'WEIGHTS_MISMATCH',
      severity: 'error',
      node: n.name,
      message: `${n.name}'s copy of the model at ${model.path} does not match the weights manifest: ${describeNode(v)}.`,
      evidence: Object.fromEntries(
        v.bad
          .slice(0, 5)
          .map((c) => [
            c.file.path,
            `expected ${c.file.size} bytes ${c.file.sha256.slice(0, 12)}, ${c.have ? `found ${c.have.size} bytes ${c.have.sha256?.slice(0, 12) ?? '(partial)'}` : 'missing'}`,
          ]),
      ),
      fix:
        kind === 'nodes' && model.distribution === 'each'
          ? `Put the same files on ${n.name} as on ${headOf(m).name} (model.distribution: relay repairs a worker from the head).`
          : `Deploy again: only the files that differ are sent.${failures.length ? ` The transfer said: ${failures.slice(0, 2).join('; ')}` : ''}`,
    })
  }
}

/** The outcome once every node matches: the report, and its summary line. */
export function verified(d: Delivery, ref: WeightsManifest): WeightsOutcome {
  const rep = weightsReport(d, ref)
  d.say(
    `every node verified (${ref.files.length} files, ${mb(rep.totalBytes)}): ${mb(d.moved.runner)} from the runner, ${mb(d.moved.fabric)} over the fabric, ${rep.filesDownloaded > 0 ? `${rep.filesDownloaded} files downloaded from the hub, ` : ''}${rep.filesSkipped} files skipped, in ${(rep.durationMs / 1000).toFixed(1)} s`,
  )
  return { ...ok(ref), report: rep, findings: d.findings }
}

export const weightsText = weightsManifestText
