/**
 * A node's listing of its model directory (src/plan/weights-commands.ts `listWeights`) read, and
 * compared with the weights manifest: per file ok, missing, truncated (shorter, or a .partial left
 * by a cut transfer: resumed from its size) or corrupted (the size is right or too large, the
 * SHA-256 is not). Pure.
 */
import { type Problem, type Result, fail, ok } from '../../result/result.js'
import { type WeightsFile, type WeightsManifest, badFilePath, totalBytes, weightsManifest } from './weights-manifest.js'

export interface NodeListing {
  readonly files: ReadonlyMap<string, { readonly size: number; readonly sha256: string }>
  /** `.partial` files by the path they will become, with their size. */
  readonly partials: ReadonlyMap<string, number>
  /** Free bytes where the model directory is (or would be). */
  readonly freeBytes?: number
}

/** Parse the listing; a listing that did not reach its `end` record is an error (it was cut). */
export function parseListing(stdout: string, node: string): Result<NodeListing> {
  const files = new Map<string, { size: number; sha256: string }>()
  const partials = new Map<string, number>()
  let freeBytes: number | undefined
  let complete = false
  for (const line of stdout.split('\n')) {
    const f = line.replace(/\r$/, '').split('\t')
    if (f[0] === 'file' && f.length === 4 && /^\d+$/.test(f[1]!) && /^[0-9a-f]{64}$/.test(f[2]!) && !badFilePath(f[3]!))
      files.set(f[3]!, { size: Number(f[1]), sha256: f[2]! })
    else if (f[0] === 'partial' && f.length === 3 && /^\d+$/.test(f[1]!) && !badFilePath(f[2]!)) partials.set(f[2]!, Number(f[1]))
    else if (f[0] === 'free' && f.length === 2 && /^\d+$/.test(f[1]!)) freeBytes = Number(f[1])
    else if (f[0] === 'end' && f.length === 1) complete = true
  }
  if (!complete) {
    const problem: Problem = {
      code: 'WEIGHTS_LISTING_FAILED',
      message: `the listing of the model directory on ${node} did not finish`,
      evidence: { Node: node, Output: stdout.trim().slice(-300) || '(none)' },
      fix: `Check that ${node} has sh, find, stat, sha256sum and df (coreutils), and that the model directory is readable by the SSH user.`,
    }
    return fail(problem)
  }
  return ok({ files, partials, ...(freeBytes !== undefined && { freeBytes }) })
}

/** The files of a listing as a weights manifest (the reference when the head's copy is the source). */
export const manifestOfListing = (l: NodeListing): WeightsManifest =>
  weightsManifest([...l.files].map(([path, f]) => ({ path, size: f.size, sha256: f.sha256 })))

export type FileStatus = 'ok' | 'missing' | 'truncated' | 'corrupted'

export interface FileCheck {
  readonly file: WeightsFile
  readonly status: FileStatus
  /** Bytes already there to resume from (a .partial of the right length so far); 0 otherwise. */
  readonly resumeFrom: number
  /** What the node has, for evidence. */
  readonly have?: { readonly size: number; readonly sha256?: string }
}

export interface NodeWeights {
  readonly node: string
  readonly checks: readonly FileCheck[]
  /** Files to send (not ok). */
  readonly bad: readonly FileCheck[]
  readonly okFiles: number
  /** Bytes still to move to this node (a resumed file counts only its rest). */
  readonly bytesNeeded: number
  readonly freeBytes?: number
}

export function checkFile(file: WeightsFile, l: NodeListing): FileCheck {
  const have = l.files.get(file.path)
  const partial = l.partials.get(file.path)
  const resumeFrom = partial !== undefined && partial < file.size ? partial : 0
  if (have?.size === file.size && have.sha256 === file.sha256) return { file, status: 'ok', resumeFrom: 0, have }
  if (!have && partial === undefined) return { file, status: 'missing', resumeFrom: 0 }
  if (!have) return { file, status: 'truncated', resumeFrom, have: { size: partial! } }
  if (have.size < file.size) return { file, status: 'truncated', resumeFrom, have }
  return { file, status: 'corrupted', resumeFrom, have }
}

export function compareNode(node: string, w: WeightsManifest, l: NodeListing): NodeWeights {
  const checks = w.files.map((f) => checkFile(f, l))
  const bad = checks.filter((c) => c.status !== 'ok')
  return {
    node,
    checks,
    bad,
    okFiles: checks.length - bad.length,
    bytesNeeded: totalBytes(bad.map((c) => c.file)) - bad.reduce((n, c) => n + c.resumeFrom, 0),
    ...(l.freeBytes !== undefined && { freeBytes: l.freeBytes }),
  }
}

/** `3 ok, 1 missing, 1 corrupted (model-00002.safetensors)`: a node's state in one line. */
export function describeNode(n: NodeWeights): string {
  const counts = new Map<FileStatus, number>()
  for (const c of n.checks) counts.set(c.status, (counts.get(c.status) ?? 0) + 1)
  const parts = (['ok', 'missing', 'truncated', 'corrupted'] as const).filter((s) => counts.get(s)).map((s) => `${counts.get(s)} ${s}`)
  const names = n.bad.slice(0, 3).map((c) => c.file.path)
  return `${parts.join(', ') || 'no files'}${names.length ? ` (${names.join(', ')}${n.bad.length > 3 ? ', …' : ''})` : ''}`
}
