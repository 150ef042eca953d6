/**
 * A Hugging Face hub download onto one node, as data. Pure: a repo at a pinned revision, a
 * destination directory and the release image in; the step that downloads it out, and a parser
 * for what that step prints.
 *
 * The download is the user's real one: `huggingface_hub.snapshot_download` (the client vLLM itself
 * uses), run by `python3` in a throw-away container of the release image (vLLM images carry
 * huggingface_hub), `dest` bind-mounted at the same path and `local_dir=dest`.
 *
 * The token never appears in argv, an environment dump or a log line: it reaches the node on the
 * step's stdin (StepInput `secret-value`), is written to a 0600 file (`umask 077` and
 * `install -m 600`, as the release's secret.env), bind-mounted read-only into the container and
 * read by the client through `HF_TOKEN_PATH` (huggingface_hub/constants.py: `HF_TOKEN_PATH =
 * os.getenv("HF_TOKEN_PATH", HF_HOME/token)`, read by utils/_auth.py `_get_token_from_file`). The
 * file is removed when the step ends, however it ends (trap on EXIT, INT, TERM).
 *
 * Resuming, as huggingface_hub does it (read in 2.4.0, file_download.py): with `local_dir`, every
 * finished file is recorded in `dest/.cache/huggingface/download/<file>.metadata` (commit + etag),
 * so a rerun skips finished files without downloading them again (and with a commit-hash revision
 * and the tree cache present, asks the hub nothing per file); a file cut off mid-way is written to
 * a process-unique `<etag>.<random>.incomplete` that is deleted on failure (huggingface_hub PR
 * #4228), so an interrupted download resumes file by file, and the file in flight starts over
 * (within one run, a dropped connection resumes with a Range request). Model shards are a few GB
 * each, so an interruption costs at most one shard.
 *
 * The step prints one JSON line (`{"vrd-hub": 1, ...}`): the hub's own listing of the revision
 * (`HfApi.list_repo_tree(recursive=True)`: path, size, git blob id, and for LFS files the sha256
 * and size the hub stores), the commit the revision resolved to, and which files this run fetched
 * (new inode or mtime after the download); or the error, classified. `parseHubDownload` validates
 * it into a listing the weights stage builds its manifest from, or a Problem.
 */
import { option } from '../../command/option-words.js'
import { type Cmd, and, argv, shScript } from '../../command/shell.js'
import { type Problem, type Result, fail, ok } from '../../result/result.js'

/** A hub repository at a pinned revision (`model.source.hub` in the manifest). */
export interface HubSource {
  /** `org/name`. */
  readonly repo: string
  /** A 40-hex commit (immutable), or a tag or branch (resolved on the hub at download time). */
  readonly revision: string
}

export interface HubDownloadInput extends HubSource {
  /** Absolute directory on the node the files land in (`model.path`). */
  readonly dest: string
  /** The release image (its ID or reference): it runs the download. */
  readonly image: string
  /**
   * Where the token's 0600 file goes on the node while the step runs (e.g. under the release's
   * state dir). Absent: no token (a public repo); the step then reads no stdin.
   */
  readonly tokenFile?: string
  /** `HF_ENDPOINT` (a mirror); absent: the client's default, https://huggingface.co. */
  readonly endpoint?: string
}

/** Where a hub step's stdin comes from: the named secret's raw value, never included here. */
export interface HubStepInput {
  readonly kind: 'secret-value'
  readonly name: typeof HF_TOKEN_ENV
}

export interface HubStep {
  readonly action: 'hub-download'
  readonly description: string
  readonly cmd: Cmd
  readonly stdin?: HubStepInput
}

/** The environment variable the CLI reads the token from, and the stdin source's name. */
export const HF_TOKEN_ENV = 'HF_TOKEN'
/** The container of a download in flight: one per node, removed before a new one starts. */
export const HUB_DOWNLOAD_CONTAINER = 'vrd-hub-download'
/** Where the token file is mounted inside the download container. */
const TOKEN_DIR_IN_CONTAINER = '/run/vrd-hub'
const TOKEN_IN_CONTAINER = `${TOKEN_DIR_IN_CONTAINER}/token`

const REPO_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*\/[A-Za-z0-9][A-Za-z0-9._-]*$/
const REVISION = /^[A-Za-z0-9][A-Za-z0-9._/-]*$/
export const COMMIT = /^[0-9a-f]{40}$/

/** The Python run in the container: argv repo, revision, dest. Prints one `{"vrd-hub": 1, ...}` line. */
export const HUB_DOWNLOAD_PY = String.raw`
import inspect, json, os, sys
repo, revision, dest = sys.argv[1:4]
os.environ.pop("HF_TOKEN", None)  # the token comes from HF_TOKEN_PATH only
def out(doc):
    doc["vrd-hub"] = 1
    print(json.dumps(doc), flush=True)
def failed(kind, err, status=None):
    out({"error": {"kind": kind, "type": type(err).__name__, "status": status, "message": str(err).splitlines()[0][:300] if str(err) else ""}})
    sys.exit(1)
try:
    import huggingface_hub
    from huggingface_hub import HfApi, snapshot_download
    try:
        from huggingface_hub.errors import GatedRepoError, HfHubHTTPError, RepositoryNotFoundError, RevisionNotFoundError
    except ImportError:  # before 0.23 the errors lived in utils
        from huggingface_hub.utils import GatedRepoError, HfHubHTTPError, RepositoryNotFoundError, RevisionNotFoundError
except Exception as e:
    failed("no-client", e)
def seen():
    s = {}
    for root, dirs, files in os.walk(dest):
        dirs[:] = [d for d in dirs if not (root == dest and d == ".cache")]
        for f in files:
            p = os.path.join(root, f)
            st = os.stat(p)
            s[os.path.relpath(p, dest)] = (st.st_ino, st.st_mtime_ns)
    return s
try:
    before = seen()
    api = HfApi()
    commit = revision if len(revision) == 40 and all(c in "0123456789abcdef" for c in revision) else api.repo_info(repo, revision=revision).sha
    kw = {}
    if "local_dir_use_symlinks" in inspect.signature(snapshot_download).parameters:
        kw["local_dir_use_symlinks"] = False  # before 0.23 "auto" left big files as links into the throw-away cache
    snapshot_download(repo, revision=commit, local_dir=dest, **kw)
    tree = [f for f in api.list_repo_tree(repo, revision=commit, recursive=True) if hasattr(f, "blob_id")]
except RevisionNotFoundError as e:
    failed("revision-not-found", e, 404)
except GatedRepoError as e:
    failed("gated", e, e.response.status_code if e.response is not None else None)
except RepositoryNotFoundError as e:
    failed("not-found", e, e.response.status_code if e.response is not None else None)
except HfHubHTTPError as e:
    status = e.response.status_code if e.response is not None else None
    failed("unauthorized" if status == 401 else "forbidden" if status == 403 else "http", e, status)
except Exception as e:
    failed("unreachable" if "connect" in type(e).__name__.lower() or "timeout" in type(e).__name__.lower() else "failed", e)
after = seen()
files = []
for f in tree:
    lfs = f.lfs
    local = os.path.join(dest, f.path)
    files.append({"path": f.path, "size": f.size, "blobId": f.blob_id, "sha256": lfs.sha256 if lfs is not None else None,
                  "localSize": os.path.getsize(local) if os.path.isfile(local) else None})
fetched = sorted(p for p in after if before.get(p) != after[p])
out({"repo": repo, "revision": revision, "commit": commit, "client": huggingface_hub.__version__, "files": files, "fetched": fetched})
`

/** Runs "$@" with the token (stdin) in a 0600 file for as long as it runs; the file is gone after. */
const WITH_TOKEN_FILE =
  't=$1; shift; umask 077; mkdir -p "$(dirname "$t")"; trap \'rm -f -- "$t"\' EXIT; trap \'exit 143\' INT TERM; install -m 600 /dev/null "$t"; cat > "$t"; "$@"'
/** Removes a download container left by an interrupted run, then runs "$@". */
const FRESH_CONTAINER = 'docker rm -f "$1" >/dev/null 2>&1 || true; shift; "$@"'

/** Rejects what the planner must not put on a command line (bugs or unvalidated input). */
function checkInput(i: HubDownloadInput): void {
  if (!REPO_ID.test(i.repo)) throw new Error(`not a hub repo id (org/name): ${JSON.stringify(i.repo)}`)
  if (!REVISION.test(i.revision) || i.revision.includes('..')) throw new Error(`not a hub revision: ${JSON.stringify(i.revision)}`)
  for (const [what, p] of [
    ['dest', i.dest],
    ['tokenFile', i.tokenFile],
  ] as const)
    if (p !== undefined && (!p.startsWith('/') || p.includes(':') || p.split('/').includes('..')))
      throw new Error(`${what} must be an absolute path without ':' or '..': ${JSON.stringify(p)}`)
  if (i.endpoint !== undefined && !/^https?:\/\/[^\s]+$/.test(i.endpoint)) throw new Error(`not an http(s) endpoint: ${JSON.stringify(i.endpoint)}`)
}

/** The `docker run` of the download, in a throw-away container of the release image. */
export function hubDownloadDockerRun(i: HubDownloadInput): string[] {
  const env: Record<string, string> = {
    HF_HUB_DISABLE_TELEMETRY: '1',
    HF_HUB_DISABLE_PROGRESS_BARS: '1',
    HF_HUB_OFFLINE: '0',
    ...(i.endpoint && { HF_ENDPOINT: i.endpoint }),
    // HF_TOKEN_PATH (huggingface_hub ≥ 0.17) and HF_HOME/token (older clients) both name the mounted file.
    ...(i.tokenFile && { HF_TOKEN_PATH: TOKEN_IN_CONTAINER, HF_HOME: TOKEN_DIR_IN_CONTAINER }),
  }
  return [
    'docker',
    'run',
    '--rm',
    '--name',
    HUB_DOWNLOAD_CONTAINER,
    '--network',
    'host',
    '--entrypoint',
    'python3',
    '-v',
    `${i.dest}:${i.dest}`,
    ...(i.tokenFile ? ['-v', `${i.tokenFile}:${TOKEN_IN_CONTAINER}:ro`] : []),
    ...Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
    i.image,
    '-c',
    HUB_DOWNLOAD_PY,
    i.repo,
    i.revision,
    i.dest,
  ]
}

/** Plans the download of `repo@revision` into `dest` on one node. */
export function planHubDownload(i: HubDownloadInput): HubStep[] {
  checkInput(i)
  const run = shScript(FRESH_CONTAINER, HUB_DOWNLOAD_CONTAINER, ...hubDownloadDockerRun(i))
  const download: Cmd = i.tokenFile ? shScript(WITH_TOKEN_FILE, i.tokenFile, ...run.argv) : run
  return [
    {
      action: 'hub-download',
      description: `download ${i.repo}@${i.revision} from ${i.endpoint ?? 'the Hugging Face hub'} into ${i.dest} (huggingface_hub in ${i.image}${i.tokenFile ? `, token from ${HF_TOKEN_ENV} in a 0600 file` : ''})`,
      cmd: and(argv('mkdir', '-p', i.dest), download),
      ...(i.tokenFile && { stdin: { kind: 'secret-value', name: HF_TOKEN_ENV } as const }),
    },
  ]
}

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
  failed: 'see the evidence; the download resumes from the files already finished when you deploy again',
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
  failed: 'HUB_DOWNLOAD_FAILED',
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
      message: `the hub download of ${input.repo}@${input.revision} on ${run.node} failed: ${kind.replace(/-/g, ' ')}${size(e.status) ? ` (HTTP ${e.status})` : ''}`,
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

/** The run's problem in one line (for progress), token-free by construction of the Problem. */
export const describeHubProblem = (p: Problem): string => `${p.code}: ${p.message}. Fix: ${p.fix}`
