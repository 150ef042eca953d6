/**
 * A rollback's weights: the files at model.path on every node checked against the TARGET release's
 * weights.json before anything stops. The release serves what the path holds, so a rollback after
 * a deploy that changed the model would otherwise serve the newer files under the older name.
 *
 * `decideRestore` (pure) says what to do from every node's comparison with weights.json and the
 * target release's source: every node matches → verified; a source that can deliver the files that
 * differ (the hub at its revision, a runner directory that still holds them, the head's copy over
 * the fabric when it matches) → re-deliver them as the weights stage does, then verify; otherwise
 * refuse with ROLLBACK_WEIGHTS_CHANGED before anything stops.
 */
import { type Finding, problemOf } from '../../preflight/finding.js'
import type { Problem } from '../../result/result.js'
import { type NodeListing, type NodeWeights, manifestOfListing } from './compare.js'
import { type Delivery, type WeightsOutcome, type WeightsRun, listAll, mb, startDelivery, stopWith } from './delivery.js'
import { type WeightsManifest, weightsIdentity } from './weights-manifest.js'
import type { WeightsSourceKind } from './weights-plan.js'
import { compareAll, referenceFromSource } from './reference-manifest.js'
import { planDelivery, sendAll } from './send.js'
import { verified, verifyAll } from './transfer.js'

export type RestoreAction = 'verified' | 'redelivered' | 'refused'

export type RestoreDecision = { readonly action: 'verified' } | { readonly action: 'redeliver' } | { readonly action: 'refuse'; readonly why: string }

export interface RestoreInput {
  readonly kind: WeightsSourceKind
  readonly distribution: 'relay' | 'each'
  readonly head: string
  /** Every node compared with the target's weights.json. */
  readonly nodes: ReadonlyMap<string, NodeWeights>
  /** A runner source: its directory's manifest as hashed now, or why it could not be read. */
  readonly runner?: WeightsManifest | string
  /** This build can plan a hub download. */
  readonly hubAvailable: boolean
}

/** What a rollback does about the weights. Pure. */
export function decideRestore(i: RestoreInput): RestoreDecision {
  const bad = [...i.nodes.values()].flatMap((n) => n.bad)
  if (bad.length === 0) return { action: 'verified' }
  if (i.kind === 'hub') return i.hubAvailable ? { action: 'redeliver' } : { action: 'refuse', why: 'this build has no hub download planner' }
  if (i.kind === 'nodes') {
    const headOk = (i.nodes.get(i.head)?.bad.length ?? 1) === 0
    return i.distribution === 'relay' && headOk
      ? { action: 'redeliver' }
      : { action: 'refuse', why: 'model.source.nodes has no copy of the files to deliver them from' }
  }
  if (typeof i.runner !== 'object') return { action: 'refuse', why: `the runner's directory cannot be read (${i.runner ?? 'not hashed'})` }
  const have = new Map(i.runner.files.map((f) => [f.path, f]))
  const gone = [...new Set(bad.map((c) => c.file))].filter((f) => have.get(f.path)?.sha256 !== f.sha256 || have.get(f.path)?.size !== f.size)
  if (gone.length === 0) return { action: 'redeliver' }
  return {
    action: 'refuse',
    why: `the runner's directory no longer holds ${gone.length === 1 ? 'the file' : `${gone.length} files`} the release needs (${gone
      .slice(0, 3)
      .map((f) => f.path)
      .join(', ')}${gone.length > 3 ? ', …' : ''})`,
  }
}

export type RestoreOutcome = WeightsOutcome & {
  readonly action: RestoreAction
  /** In words, for the report: verified N files, moved X bytes, or why it refused. */
  readonly detail: string
}

/** The target release and its weights.json. */
export interface RestoreTarget {
  readonly release: string
  readonly expected: WeightsManifest
}

/** Check every node against the target's weights.json; re-deliver what differs when the source can. */
export async function restoreWeights(run: WeightsRun, target: RestoreTarget): Promise<RestoreOutcome> {
  const d = startDelivery(run)
  const { expected } = target
  const id = weightsIdentity(expected)
  d.say(`checking ${d.model.path} on every node against release ${target.release}'s weights.json (${expected.files.length} files, ${id.slice(0, 19)}…)`)
  const first = await listAll(d)
  if (!first.ok) return { ...stopWith(d, first.problem, expected), action: 'refused', detail: first.problem.message }
  compareAll(d, expected, first.value)
  const runner = await runnerManifest(d)
  const decision = decideRestore({
    kind: d.kind,
    distribution: d.model.distribution,
    head: d.head.name,
    nodes: d.befores,
    ...(runner !== undefined && { runner }),
    hubAvailable: !!run.hub,
  })
  if (decision.action === 'verified') {
    const out = verified(d, expected)
    return { ...out, action: 'verified', detail: `verified ${expected.files.length} files on every node against weights.json, 0 bytes moved` }
  }
  if (decision.action === 'refuse') return refuse(d, target, first.value, decision.why)
  return redeliver(d, target)
}

/** A runner source's directory hashed, only when a node differs (a hub or nodes source: undefined). */
async function runnerManifest(d: Delivery): Promise<WeightsManifest | string | undefined> {
  if (d.kind !== 'runner' || [...d.befores.values()].every((n) => n.bad.length === 0)) return undefined
  const r = await referenceFromSource(d)
  return r.ok ? r.value : r.problem.message
}

/** The files that differ delivered again as the weights stage does, then every node verified. */
async function redeliver(d: Delivery, target: RestoreTarget): Promise<RestoreOutcome> {
  const { expected } = target
  const failed = (p: Problem): RestoreOutcome => ({ ...stopWith(d, p, expected), action: 'refused', detail: p.message })
  if (d.kind === 'hub') {
    const hub = d.model.source.hub!
    d.say(`downloading ${hub.repo}@${hub.revision} again, the source release ${target.release} names`)
    const fetched = await referenceFromSource(d)
    if (!fetched.ok) return failed(fetched.problem)
    const again = await listAll(d)
    if (!again.ok) return failed(again.problem)
    compareAll(d, expected, again.value)
  }
  await sendAll(d, planDelivery(d))
  if (d.run.signal?.aborted)
    return failed({ code: 'CANCELLED', message: 'cancelled during the weights transfer of a rollback', evidence: {}, fix: 'Roll back again.' })
  const after = await listAll(d)
  if (!after.ok) return failed(after.problem)
  verifyAll(d, expected, after.value)
  // verifyAll's fix is a deploy's; here the next step is the rollback again.
  for (const [i, f] of d.findings.entries())
    if (f.code === 'WEIGHTS_MISMATCH')
      d.findings[i] = {
        ...f,
        fix: `Roll back again: only the files that still differ are sent${d.failures.length ? ` (the transfer said: ${d.failures.slice(0, 2).join('; ')})` : ''}.`,
      }
  const error = d.findings.find((f) => f.severity === 'error')
  if (error) return failed(problemOf(error))
  const out = verified(d, expected)
  const moved = d.moved.runner + d.moved.fabric
  return {
    ...out,
    action: 'redelivered',
    detail: `delivered ${out.report.filesSent} files again (${mb(d.moved.runner)} from the runner, ${mb(d.moved.fabric)} over the fabric${d.kind === 'hub' ? ', after a hub download' : ''}; ${moved} bytes), then verified ${expected.files.length} files on every node against weights.json`,
  }
}

/** ROLLBACK_WEIGHTS_CHANGED on every node that differs; nothing is moved and nothing stops. */
function refuse(d: Delivery, target: RestoreTarget, listings: ReadonlyMap<string, NodeListing>, why: string): RestoreOutcome {
  const { model, kind } = d
  const want = weightsIdentity(target.expected)
  const fix =
    kind === 'runner'
      ? `Put release ${target.release}'s files back in ${model.source.runner!.dir} on this machine and roll back again, or deploy the model you want under a new release id.`
      : kind === 'hub'
        ? `Roll back with a build that has the hub source, or deploy release ${target.release}'s manifest again under a new release id.`
        : `Put release ${target.release}'s files at ${model.path} on every node (weights.json in its release directory lists them) and roll back again, or deploy the model you want under a new release id.`
  const findings: Finding[] = [...d.befores.values()]
    .filter((n) => n.bad.length > 0)
    .map((n) => ({
      code: 'ROLLBACK_WEIGHTS_CHANGED',
      severity: 'error',
      node: n.node,
      message: `${n.node}'s files at ${model.path} are not release ${target.release}'s (${n.bad.length} of ${n.checks.length} differ), and ${why}; nothing was stopped.`,
      evidence: {
        'Release weights id': want,
        'Weights id on the node': weightsIdentity(manifestOfListing(listings.get(n.node)!)),
        ...Object.fromEntries(
          n.bad
            .slice(0, 5)
            .map((c) => [
              c.file.path,
              `expected ${c.file.size} bytes ${c.file.sha256.slice(0, 12)}, ${c.have ? `found ${c.have.size} bytes ${c.have.sha256?.slice(0, 12) ?? '(partial)'}` : 'missing'}`,
            ]),
        ),
      },
      fix,
    }))
  d.findings.push(...findings)
  const message = `the model files at ${model.path} differ from release ${target.release}'s weights.json on ${findings.map((f) => f.node).join(', ')}, and ${why}`
  return {
    ...stopWith(d, { code: 'ROLLBACK_WEIGHTS_CHANGED', message, evidence: findings[0]!.evidence, fix }, target.expected),
    action: 'refused',
    detail: message,
  }
}
