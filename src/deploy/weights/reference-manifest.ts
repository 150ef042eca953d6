/**
 * The weights stage's reference manifest: the runner's directory hashed here, or, for a hub or
 * nodes source, the head's copy once it holds the files (a hub source is downloaded first); then
 * every node compared with it.
 */
import { findingOf } from '../../preflight/finding.js'
import { resolve } from 'node:path'
import type { ManifestNode } from '../../manifest/schema.js'
import { type Problem, type Result, fail, ok } from '../../result/result.js'
import { outcome, succeeded } from '../../transport/transport.js'
import { type NodeListing, compareNode, describeNode, manifestOfListing } from './compare.js'
import type { Cmd } from '../../command/shell.js'
import { type Delivery, mb, tail } from './delivery.js'
import { HUB_MISMATCH_FIX, hubDigestMismatches } from './hub-listing.js'
import { type WeightsManifest, totalBytes, weightsIdentity, weightsManifest } from './weights-manifest.js'
import { pinnedRevision } from './weights-plan.js'
import { PENDING_SHA256, hashRunnerDir, hashRunnerFile, rememberRunnerHashes, runnerHashCacheFile } from './runner-hash.js'

/** model.source.runner.dir, relative to the run's working directory. */
export const runnerDirOf = (d: Delivery): string => resolve(d.run.cwd ?? process.cwd(), d.model.source.runner!.dir)

/**
 * The reference from the source itself: a runner's directory hashed (`lazy`: files the runner's
 * cache does not know are hashed as they are sent, see `resolvePending`); a hub source downloaded (no reference yet).
 */
export async function referenceFromSource(d: Delivery, lazy = false): Promise<Result<WeightsManifest | undefined>> {
  if (d.kind === 'runner') return referenceFromRunner(d, lazy)
  if (d.kind === 'hub') {
    const p = await fetchFromHub(d)
    if (p) return fail(p)
  }
  return ok(undefined)
}

async function referenceFromRunner(d: Delivery, lazy: boolean): Promise<Result<WeightsManifest>> {
  const dir = runnerDirOf(d)
  d.say(lazy ? `listing ${dir} on the runner (hashes from its cache; any other file is hashed as it is sent)` : `hashing ${dir} on the runner`)
  const h = await hashRunnerDir(dir, runnerHashCacheFile(dir, d.run.env), lazy)
  if (!h.ok) return h
  const reference = h.value
  const pending = reference.files.filter((f) => f.sha256 === PENDING_SHA256).length
  d.say(
    `${reference.files.length} files, ${mb(totalBytes(reference.files))}, ${pending > 0 ? `${pending} not hashed yet` : `identity ${weightsIdentity(reference).slice(0, 19)}…`}`,
  )
  return ok(reference)
}

/**
 * A lazy runner reference made ready to compare: a file not hashed yet that some node holds at the
 * same size is hashed now (its hash decides whether it moves); any other is sent to every node
 * anyway and hashed as it is.
 */
export async function resolvePending(d: Delivery, ref: WeightsManifest, listings: ReadonlyMap<string, NodeListing>): Promise<Result<WeightsManifest>> {
  const dir = runnerDirOf(d)
  const files = []
  for (const f of ref.files) {
    const held = f.sha256 === PENDING_SHA256 && [...listings.values()].some((l) => l.files.get(f.path)?.size === f.size)
    if (!held) {
      files.push(f)
      continue
    }
    const h = await hashRunnerFile(dir, f.path, f.size)
    if (!h.ok) return h
    d.runnerHashes.set(f.path, h.value)
    files.push({ ...f, sha256: h.value.sha256 })
  }
  return ok(weightsManifest(files))
}

/** The reference with the hashes computed while sending filled in (a file never sent in full keeps PENDING_SHA256). */
export const withSentHashes = (d: Delivery, ref: WeightsManifest): WeightsManifest =>
  weightsManifest(ref.files.map((f) => (f.sha256 === PENDING_SHA256 && d.runnerHashes.has(f.path) ? { ...f, sha256: d.runnerHashes.get(f.path)!.sha256 } : f)))

/** The hashes computed in this run kept in the runner's cache (a runner source). */
export async function rememberSentHashes(d: Delivery): Promise<void> {
  if (d.kind !== 'runner') return
  await rememberRunnerHashes(runnerHashCacheFile(runnerDirOf(d), d.run.env), d.runnerHashes)
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
  // A problem the download itself named (the token, the revision, a file not the hub's) is the stop.
  const named = fetched.find((x): x is Problem => typeof x === 'object')
  if (named) return named
  const bad = fetched.filter((x): x is string => typeof x === 'string')
  if (bad.length > 0)
    return {
      code: 'WEIGHTS_FETCH_FAILED',
      message: `the hub download of ${hub.repo}@${hub.revision} failed: ${bad.join('; ')}`,
      evidence: { Repository: hub.repo, Revision: hub.revision },
      fix: "Check the token (hf-token / HF_TOKEN), the revision and the node's link to the hub, then deploy again: files already downloaded are kept.",
    }
  return undefined
}

/**
 * The hub download's steps on one node, in order: undefined when they ran and the hub's listing
 * was read (kept in d.hubListings), the problem the step reported, or what failed.
 */
async function fetchOnNode(d: Delivery, n: ManifestNode): Promise<Problem | string | undefined> {
  const { m, model, run } = d
  const hub = model.source.hub!
  const t = run.transports.get(n.name)!
  for (const step of run.hub!(m, n, model.path, run.env)) {
    d.say(`[${n.name}] ${step.description ?? 'hub download'}: ${hub.repo}@${hub.revision}`)
    const r = await t.run(step.cmd, {
      timeoutMs: (step.timeoutSeconds ?? m.ssh.commandTimeoutSeconds) * 1000,
      ...(step.stdin !== undefined && { stdin: step.stdin }),
      ...d.sig,
    })
    const cutOff = r.cancelled || r.timedOut || r.code === null
    if (cutOff) {
      // A step cut off (cancel, timeout, lost connection) can leave its container running: remove it now.
      if (step.cleanup) {
        const c = await t.run(step.cleanup, { timeoutMs: 60_000 })
        d.say(`[${n.name}] ${succeeded(c) ? 'removed the download container and the token file' : `could not remove the download container: ${outcome(c)}`}`)
      }
      return `${n.name}: ${outcome(r)}: ${tail(r)}`
    }
    if (step.read) {
      const listing = step.read(r)
      if (!listing.ok) {
        const p = listing.problem
        if (p.code === 'WEIGHTS_DIGEST_MISMATCH') {
          d.findings.push(findingOf({ ...p, code: 'WEIGHTS_DIGEST_MISMATCH', message: `${p.message}.` }, n.name))
          if (step.discard && p.evidence.file) await discard(d, n, step.discard, [p.evidence.file])
        }
        return p
      }
      d.hubListings.set(n.name, listing.value)
      if (step.discard) d.hubDiscard.set(n.name, step.discard)
      d.say(
        `[${n.name}] hub ${hub.repo}@${listing.value.commit.slice(0, 12)}: ${listing.value.files.length} files listed, ${listing.value.fetched.length} downloaded now`,
      )
    } else if (!succeeded(r)) return `${n.name}: ${outcome(r)}: ${tail(r)}`
  }
  return undefined
}

/** Removes files that are not the hub's from one node (the next deploy downloads them again). */
async function discard(d: Delivery, n: ManifestNode, cmd: (paths: readonly string[]) => Cmd, paths: readonly string[]): Promise<void> {
  const r = await d.run.transports.get(n.name)!.run(cmd(paths), { timeoutMs: 60_000 })
  d.say(`[${n.name}] ${succeeded(r) ? `removed ${paths.join(', ')} (not the hub's bytes)` : `could not remove ${paths.join(', ')}: ${outcome(r)}`}`)
}

/**
 * Every node that downloaded from the hub checked against the hub's own SHA-256 of each LFS file,
 * before its copy becomes the reference: a WEIGHTS_DIGEST_MISMATCH finding per node whose bytes
 * are not the hub's (those files removed), and the problem that stops on them.
 */
export async function checkHubDigests(d: Delivery, listings: ReadonlyMap<string, NodeListing>): Promise<Problem | undefined> {
  const { model } = d
  const bad: string[] = []
  for (const [node, hubListing] of d.hubListings) {
    const mismatches = hubDigestMismatches(hubListing, listings.get(node)?.files ?? new Map())
    if (mismatches.length === 0) {
      d.say(
        `[${node}] every file matches the hub's digests (${hubListing.files.length} files; ${hubListing.files.filter((f) => f.sha256).length} by SHA-256, the rest by git blob id)`,
      )
      continue
    }
    bad.push(node)
    const discardCmd = d.hubDiscard.get(node)
    if (discardCmd)
      await discard(
        d,
        d.m.nodes.find((x) => x.name === node)!,
        discardCmd,
        mismatches.map((x) => x.path),
      )
    d.findings.push({
      code: 'WEIGHTS_DIGEST_MISMATCH',
      severity: 'error',
      node,
      message: `${node} downloaded ${mismatches.length === 1 ? `${mismatches[0]!.path}, which is` : `${mismatches.length} files that are`} not the bytes the hub lists for ${hubListing.repo}@${hubListing.commit.slice(0, 12)}.`,
      evidence: Object.fromEntries(
        mismatches.slice(0, 5).map((x) => [x.path, `hub sha256 ${x.hub}, ${node} has ${x.found ? `sha256 ${x.found}` : 'no such file'}`]),
      ),
      fix: HUB_MISMATCH_FIX,
    })
  }
  if (bad.length === 0) return undefined
  const first = d.findings.at(-1)!
  return {
    code: 'WEIGHTS_DIGEST_MISMATCH',
    message: `the hub download on ${bad.join(', ')} is not the bytes the hub lists for ${model.source.hub!.repo}: ${first.message}`,
    evidence: first.evidence,
    fix: first.fix,
  }
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
