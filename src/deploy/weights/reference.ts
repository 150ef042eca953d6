/**
 * The weights stage's reference manifest: the runner's directory hashed here, or, for a hub or
 * nodes source, the head's copy once it holds the files (a hub source is downloaded first); then
 * every node compared with it.
 */
import { resolve } from 'node:path'
import type { ManifestNode } from '../../manifest/schema.js'
import { type Problem, type Result, fail, ok } from '../../result/result.js'
import { outcome, succeeded } from '../../transport/transport.js'
import { type NodeListing, compareNode, describeNode, manifestOfListing } from './compare.js'
import { type Delivery, mb, tail } from './delivery.js'
import { type WeightsManifest, totalBytes, weightsIdentity } from './manifest.js'
import { pinnedRevision } from './plan.js'
import { hashRunnerDir, runnerHashCacheFile } from './runner-hash.js'

/** model.source.runner.dir, relative to the run's working directory. */
export const runnerDirOf = (d: Delivery): string => resolve(d.run.cwd ?? process.cwd(), d.model.source.runner!.dir)

/** The reference from the source itself: a runner's directory hashed; a hub source downloaded (no reference yet). */
export async function referenceFromSource(d: Delivery): Promise<Result<WeightsManifest | undefined>> {
  if (d.kind === 'runner') return referenceFromRunner(d)
  if (d.kind === 'hub') {
    const p = await fetchFromHub(d)
    if (p) return fail(p)
  }
  return ok(undefined)
}

async function referenceFromRunner(d: Delivery): Promise<Result<WeightsManifest>> {
  const dir = runnerDirOf(d)
  d.say(`hashing ${dir} on the runner`)
  const h = await hashRunnerDir(dir, runnerHashCacheFile(dir, d.run.env))
  if (!h.ok) return h
  const reference = h.value
  d.say(`${reference.files.length} files, ${mb(totalBytes(reference.files))}, identity ${weightsIdentity(reference).slice(0, 19)}…`)
  return ok(reference)
}

/** The hub download on the head (relay) or on every node (each); a problem if it cannot run or fails. */
async function fetchFromHub(d: Delivery): Promise<Problem | undefined> {
  const { m, model, run } = d
  const hub = model.source.hub!
  if (!pinnedRevision(hub.revision))
    d.findings.push({
      code: 'WEIGHTS_REVISION_NOT_PINNED',
      severity: 'warning',
      node: null,
      message: `model.source.hub.revision ${hub.revision} is a tag or a branch: what it names can move, and the release then names the words, not the files.`,
      evidence: { Repository: hub.repo, Revision: hub.revision },
      fix: `Set model.source.hub.revision to the commit (40 hex digits) shown on the repository's page for ${hub.revision}.`,
    })
  if (!run.hub)
    return {
      code: 'WEIGHTS_HUB_UNAVAILABLE',
      message: 'this build has no hub download planner for model.source.hub',
      evidence: { Repository: hub.repo },
      fix: 'Use model.source.runner or model.source.nodes, or a build of the tool with the hub source.',
    }
  const fetchers = model.distribution === 'relay' ? [d.head] : m.nodes
  const fetched = await Promise.all(fetchers.map((n) => fetchOnNode(d, n)))
  const bad = fetched.filter((x): x is string => !!x)
  if (bad.length > 0)
    return {
      code: 'WEIGHTS_FETCH_FAILED',
      message: `the hub download of ${hub.repo}@${hub.revision} failed: ${bad.join('; ')}`,
      evidence: { Repository: hub.repo, Revision: hub.revision },
      fix: "Check the token (hf-token / HF_TOKEN), the revision and the node's link to the hub, then deploy again: files already downloaded are kept.",
    }
  return undefined
}

/** The hub download's steps on one node, in order; what failed, or undefined. */
async function fetchOnNode(d: Delivery, n: ManifestNode): Promise<string | undefined> {
  const { m, model, run } = d
  const hub = model.source.hub!
  for (const step of run.hub!(m, n, model.path, run.env)) {
    d.say(`[${n.name}] ${step.description ?? 'hub download'}: ${hub.repo}@${hub.revision}`)
    const r = await run.transports.get(n.name)!.run(step.cmd, {
      timeoutMs: (step.timeoutSeconds ?? m.ssh.commandTimeoutSeconds) * 1000,
      ...(step.stdin !== undefined && { stdin: step.stdin }),
      ...d.sig,
    })
    if (!succeeded(r)) return `${n.name}: ${outcome(r)}: ${tail(r)}`
  }
  return undefined
}

/** The head's listing as the reference, when the source gave none (hub, nodes). */
export function referenceFromHead(d: Delivery, listings: ReadonlyMap<string, NodeListing>): Result<WeightsManifest> {
  const { head, model } = d
  const reference = manifestOfListing(listings.get(head.name)!)
  if (reference.files.length === 0)
    return fail({
      code: 'WEIGHTS_MISSING',
      message: `${model.path} on the head ${head.name} holds no files`,
      evidence: { Node: head.name, Path: model.path },
      fix: d.kind === 'nodes' ? `Put the model at ${model.path} on every node first, or use model.source.runner or hub.` : 'Deploy again.',
    })
  d.say(`reference: ${head.name}'s ${reference.files.length} files, ${mb(totalBytes(reference.files))}, identity ${weightsIdentity(reference).slice(0, 19)}…`)
  return ok(reference)
}

/** Every node compared with the reference before anything moves (kept in d.befores). */
export function compareAll(d: Delivery, ref: WeightsManifest, listings: ReadonlyMap<string, NodeListing>): void {
  for (const n of d.m.nodes) {
    const v = compareNode(n.name, ref, listings.get(n.name)!)
    d.befores.set(n.name, v)
    d.say(`[${n.name}] ${describeNode(v)}${v.bytesNeeded > 0 ? `; ${mb(v.bytesNeeded)} to move` : ''}`)
  }
}
