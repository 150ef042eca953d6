/**
 * What a hub download step (hub.ts) printed, read: the hub's own listing of the revision (path,
 * size, git blob id, the SHA-256 of each LFS file) and what the run fetched, or the problem the
 * step reported, classified with its fix. Pure. The listing is what the weights stage checks a
 * downloaded copy against (hubDigestMismatches), so the hub, not the node, is the reference.
 */
import { option } from '../../command/option-words.js'
import { type Result, fail, ok } from '../../result/result.js'
import { COMMIT, HF_TOKEN_ENV, type HubDownloadInput } from './hub.js'

/** One file of the revision as the hub lists it. */
export interface HubFile {
  readonly path: string
  /** Bytes (for an LFS file, the file's own size, not its pointer's). */
  readonly size: number
  /** The git blob id (sha1 of the blob, or of the LFS pointer). */
  readonly blobId: string
  /** The hub's SHA-256 of the content, for LFS files (the ones that hold the weights). */
  readonly sha256?: string
}

export interface HubListing {
  readonly repo: string
  readonly revision: string
  /** The commit the revision resolved to (the revision itself when it is one). */
  readonly commit: string
  /** huggingface_hub's version in the image. */
  readonly client: string
  readonly files: readonly HubFile[]
  /** Files this run wrote (0 when everything was already there). */
  readonly fetched: readonly string[]
  readonly bytes: number
}

const FIX: Record<string, string> = {
  unauthorized: `the hub refused the token: give a valid token with read access to the repo (${HF_TOKEN_ENV} or ${option('hf-token-file', 'F')}; a fine-grained token needs "read" on it)`,
  forbidden: 'the token has no access to this repo: accept its licence on the hub page (gated models) or use a token of an account that has access',
  gated: "the repo is gated: accept its conditions on the hub with the token's account, then deploy again",
  'not-found':
    'check model.source.hub.repo (org/name, as on the hub page); the hub answers the same for a private repo the token cannot read, so check the token too',
  'revision-not-found': 'check model.source.hub.revision: a commit SHA (40 hex), tag or branch that exists in the repo',
  unreachable: 'the node could not reach the hub: check its DNS, proxy and route to the endpoint, or use distribution: relay from a node that can',
  'no-client': 'the release image has no huggingface_hub: use a vLLM image (it carries it) or install huggingface_hub in the image',
  http: 'the hub answered with an error: see the evidence; try again later if it is a 5xx',
  'no-space':
    'free space on the file system that holds model.path on this node (the evidence says how much is needed), or point model.path at a larger one; nothing was downloaded',
  failed: 'see the evidence; the download resumes from the files already finished when you deploy again',
  oversized:
    'the hub (or the mirror at model.source.hub.endpoint) sent more bytes for a file than its own listing says the file has; the partial file was removed: check the endpoint, then deploy again',
}

const CODE: Record<string, string> = {
  unauthorized: 'HUB_UNAUTHORIZED',
  forbidden: 'HUB_FORBIDDEN',
  gated: 'HUB_GATED',
  'not-found': 'HUB_REPO_NOT_FOUND',
  'revision-not-found': 'HUB_REVISION_NOT_FOUND',
  unreachable: 'HUB_UNREACHABLE',
  'no-client': 'HUB_CLIENT_MISSING',
  http: 'HUB_HTTP_ERROR',
  'no-space': 'DISK_SPACE_LOW',
  failed: 'HUB_DOWNLOAD_FAILED',
  oversized: 'HUB_RESPONSE_TOO_LONG',
}

const str = (v: unknown): v is string => typeof v === 'string'
const size = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0
/** Keeps at most 300 characters of the node's text, with every secret given blanked out. */
const bounded = (s: string, secrets: readonly string[]): string => {
  let t = s.slice(0, 300)
  for (const x of secrets) if (x.length >= 4) t = t.split(x).join('***')
  return t
}

export interface HubRun {
  readonly node: string
  /** null: it never finished (killed, timed out, connection lost). */
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/**
 * What the download step printed on `node`, validated: the hub's listing, or a Problem with code,
 * evidence and fix. `secrets` (the token) are blanked out of any evidence drawn from the node's
 * text, so a client that echoed it could not carry it into a report.
 */
export function parseHubDownload(input: HubDownloadInput, run: HubRun, secrets: readonly string[] = []): Result<HubListing> {
  const where = { node: run.node, repo: input.repo, revision: input.revision, dest: input.dest, ...(input.endpoint && { endpoint: input.endpoint }) }
  const line = run.stdout
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('{') && l.includes('"vrd-hub"'))
  let doc: Record<string, unknown> | undefined
  try {
    doc = line ? (JSON.parse(line) as Record<string, unknown>) : undefined
  } catch {
    doc = undefined
  }
  if (doc?.['vrd-hub'] !== 1) {
    const tail = (run.stderr.trim() || run.stdout.trim()).split('\n').slice(-3).join(' | ')
    return fail({
      code: 'HUB_DOWNLOAD_FAILED',
      message: `the hub download on ${run.node} printed no result (${run.code === null ? 'it did not finish' : `exit ${run.code}`})`,
      evidence: { ...where, exit: run.code === null ? 'none' : String(run.code), output: bounded(tail, secrets) },
      fix: /no such image|unable to find image|pull access denied/i.test(tail)
        ? 'the release image is not on this node: the image stage runs before the weights stage; check it passed'
        : /executable file not found|python3.*not found/i.test(tail)
          ? FIX['no-client']!
          : FIX.failed!,
    })
  }
  const err = doc.error
  if (err !== undefined) {
    const e = (typeof err === 'object' && err !== null ? err : {}) as Record<string, unknown>
    const kind = str(e.kind) && e.kind in CODE ? e.kind : 'failed'
    return fail({
      code: CODE[kind]!,
      message: `the hub download of ${input.repo}@${input.revision} on ${run.node} failed: ${kind.replace(/-/g, ' ')}${size(e.status) ? ` (HTTP ${e.status})` : ''}${kind === 'failed' && str(e.type) ? ` (${bounded(e.type, secrets)}${str(e.message) && e.message ? `: ${bounded(e.message, secrets)}` : ''})` : ''}`,
      evidence: {
        ...where,
        ...(size(e.status) && { status: String(e.status) }),
        ...(str(e.type) && { error: bounded(e.type, secrets) }),
        ...(str(e.message) && { detail: bounded(e.message, secrets) }),
      },
      fix: FIX[kind]!,
    })
  }
  const bad = (what: string): Result<never> =>
    fail({
      code: 'HUB_LISTING_INVALID',
      message: `the hub download on ${run.node} printed a listing this tool cannot read: ${what}`,
      evidence: { ...where, line: bounded(line ?? '', secrets) },
      fix: 'report this with the evidence: the hub or its mirror answered in a shape huggingface_hub accepted but this tool does not know',
    })
  if (!str(doc.commit) || !COMMIT.test(doc.commit)) return bad('commit is not a 40-hex commit')
  if (!Array.isArray(doc.files) || !Array.isArray(doc.fetched)) return bad('files or fetched is not a list')
  const files: HubFile[] = []
  for (const f of doc.files as unknown[]) {
    const o = (typeof f === 'object' && f !== null ? f : {}) as Record<string, unknown>
    if (!str(o.path) || o.path === '' || o.path.startsWith('/') || o.path.split('/').includes('..'))
      return bad(`a file path is not relative: ${JSON.stringify(o.path)}`)
    if (!size(o.size)) return bad(`${o.path}: size is not a byte count`)
    if (!str(o.blobId) || !/^[0-9a-f]{40}$/.test(o.blobId)) return bad(`${o.path}: blob id is not 40 hex`)
    if (o.sha256 !== null && o.sha256 !== undefined && !(str(o.sha256) && /^[0-9a-f]{64}$/.test(o.sha256))) return bad(`${o.path}: sha256 is not 64 hex`)
    if (o.localSize !== o.size)
      return fail({
        code: 'HUB_FILE_INCOMPLETE',
        message: `${o.path} on ${run.node} is ${size(o.localSize) ? `${o.localSize} bytes` : 'missing'} after the download; the hub lists ${o.size}`,
        evidence: { ...where, file: o.path, expected: String(o.size), found: size(o.localSize) ? String(o.localSize) : 'missing' },
        fix: 'deploy again: the download fetches the files that are not complete; if it persists, check the disk space under the destination',
      })
    if (o.lfs === true && !str(o.sha256))
      return fail({
        code: 'HUB_DIGEST_MISSING',
        message: `the hub lists ${o.path} as an LFS file without its SHA-256: what ${run.node} downloaded cannot be checked against the source`,
        evidence: { ...where, file: o.path },
        fix: 'use a hub or mirror that lists the SHA-256 of every LFS file (huggingface.co does: the tree API returns lfs.oid), or deliver the weights with model.source.runner',
      })
    if (!str(o.sha256)) {
      // A file kept in git: the hub names it by its git blob id; the node computed the same id of what it holds.
      if (!str(o.localBlobId) || !/^[0-9a-f]{40}$/.test(o.localBlobId)) return bad(`${o.path}: the node reported no git blob id of its copy`)
      if (o.localBlobId !== o.blobId)
        return fail({
          code: 'WEIGHTS_DIGEST_MISMATCH',
          message: `${o.path} on ${run.node} is not the file the hub lists: its git blob id is ${o.localBlobId}, the hub's is ${o.blobId}`,
          evidence: { ...where, file: o.path, hub: `git blob ${o.blobId}`, node: run.node, found: `git blob ${o.localBlobId}` },
          fix: HUB_MISMATCH_FIX,
        })
    }
    files.push({ path: o.path, size: o.size, blobId: o.blobId, ...(str(o.sha256) && { sha256: o.sha256 }) })
  }
  const fetched = (doc.fetched as unknown[]).filter(str)
  return ok({
    repo: input.repo,
    revision: input.revision,
    commit: doc.commit,
    client: str(doc.client) ? doc.client : 'unknown',
    files,
    fetched,
    bytes: files.reduce((n, f) => n + f.size, 0),
  })
}

/** What to say and do about a node whose download differs from the hub's digests. */
export const HUB_MISMATCH_FIX =
  'the hub (or the mirror in model.source.hub.endpoint) served bytes that are not the revision it lists: check the mirror and the route to it, then deploy again (the file was removed so the next deploy downloads it again)'

/** One file that differs from the hub's own digest on one node. */
export interface HubDigestMismatch {
  readonly path: string
  /** The hub's SHA-256 of the file (LFS). */
  readonly hub: string
  /** The node's SHA-256 of what it holds; undefined: the node does not list the file. */
  readonly found?: string
}

/**
 * Every LFS file of the hub's listing checked against a node's own SHA-256 of what it downloaded
 * (the weights listing, src/plan/weights-commands.ts). Files kept in git were checked by their
 * git blob id in parseHubDownload. Pure.
 */
export function hubDigestMismatches(listing: HubListing, nodeFiles: ReadonlyMap<string, { readonly sha256: string }>): HubDigestMismatch[] {
  const out: HubDigestMismatch[] = []
  for (const f of listing.files) {
    if (f.sha256 === undefined) continue
    const have = nodeFiles.get(f.path)
    if (have?.sha256 !== f.sha256) out.push({ path: f.path, hub: f.sha256, ...(have && { found: have.sha256 }) })
  }
  return out
}
