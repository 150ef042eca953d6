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
 * (new inode or mtime after the download); or the error, classified. hub-listing.ts reads it.
 */
import { type Cmd, and, argv, shScript } from '../../command/shell.js'

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
  /**
   * Run when the step was cancelled, timed out or lost its connection: the download container
   * (which outlives a killed `docker run` client, with the token file mounted in it) and the token
   * file are removed.
   */
  readonly cleanup: Cmd
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
import hashlib, inspect, json, os, shutil, sys, threading, time
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
    tree = [f for f in api.list_repo_tree(repo, revision=commit, recursive=True) if hasattr(f, "blob_id")]
    # Room first: the files not yet here in full, against the free space where they go.
    need = sum(f.size for f in tree if not (os.path.isfile(os.path.join(dest, f.path)) and os.path.getsize(os.path.join(dest, f.path)) == f.size))
    free = shutil.disk_usage(dest).free
    if need > free:
        failed("no-space", Exception(f"{need} bytes to download, {free} bytes free under {dest}"))
    # A body longer than any file the hub lists (a broken or hostile mirror sending without end) is
    # stopped before it fills the disk: the file in flight is removed and the step ends.
    limit = max((f.size for f in tree), default=0)
    def guard():
        partial = os.path.join(dest, ".cache", "huggingface", "download")
        while True:
            time.sleep(0.2)
            for root, _, names in os.walk(partial):
                for n in names:
                    p = os.path.join(root, n)
                    try:
                        got = os.path.getsize(p) if n.endswith(".incomplete") else 0
                        if got > limit:
                            # The process ends here: every file still in flight (other threads' too) is removed with it.
                            for r2, _, ns in os.walk(partial):
                                for n2 in ns:
                                    if n2.endswith(".incomplete"):
                                        try:
                                            os.remove(os.path.join(r2, n2))
                                        except OSError:
                                            pass
                            out({"error": {"kind": "oversized", "type": "OversizedBody", "status": None, "message": f"{os.path.relpath(p, dest)}: {got} bytes received, more than the largest file the hub lists ({limit} bytes)"}})
                            os._exit(1)
                    except OSError:
                        pass
    threading.Thread(target=guard, daemon=True).start()
    snapshot_download(repo, revision=commit, local_dir=dest, **kw)
except RevisionNotFoundError as e:
    failed("revision-not-found", e, 404)
except GatedRepoError as e:
    failed("gated", e, e.response.status_code if e.response is not None else None)
except RepositoryNotFoundError as e:
    failed("not-found", e, e.response.status_code if e.response is not None else None)
except HfHubHTTPError as e:
    status = e.response.status_code if e.response is not None else None
    failed("unauthorized" if status == 401 else "forbidden" if status == 403 else "http", e, status)
except OSError as e:
    if e.errno == 28 and "need" in globals():
        failed("no-space", Exception(f"[Errno 28] the disk under {dest} filled during the download, though {need} bytes were to come and {free} were free before it: a file longer than the hub lists, or another writer"))
    failed("unreachable" if "connect" in type(e).__name__.lower() or "timeout" in type(e).__name__.lower() else "failed", e)
except Exception as e:
    failed("unreachable" if "connect" in type(e).__name__.lower() or "timeout" in type(e).__name__.lower() else "failed", e)
def blob_id(p):
    # git's id of the file as a blob, what the hub lists for a file kept in git (not LFS)
    h = hashlib.sha1(b"blob %d\0" % os.path.getsize(p))
    with open(p, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()
after = seen()
files = []
for f in tree:
    lfs = f.lfs
    local = os.path.join(dest, f.path)
    here = os.path.isfile(local)
    files.append({"path": f.path, "size": f.size, "blobId": f.blob_id, "lfs": lfs is not None,
                  "sha256": (lfs.sha256 if hasattr(lfs, "sha256") else lfs.get("sha256")) if lfs is not None else None,
                  "localSize": os.path.getsize(local) if here else None,
                  "localBlobId": blob_id(local) if here and lfs is None else None})
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
  // bug: the manifest schema checks model.source.hub (repo, revision, endpoint) and the paths before a plan is made; this guards the argv
  if (!REPO_ID.test(i.repo)) throw new Error(`not a hub repo id (org/name): ${JSON.stringify(i.repo)}`)
  // bug: as above (schema-checked before a plan is made)
  if (!REVISION.test(i.revision) || i.revision.includes('..')) throw new Error(`not a hub revision: ${JSON.stringify(i.revision)}`)
  for (const [what, p] of [
    ['dest', i.dest],
    ['tokenFile', i.tokenFile],
  ] as const)
    if (p !== undefined && (!p.startsWith('/') || p.includes(':') || p.split('/').includes('..')))
      // bug: as above: model.path and the token file are schema-checked absolute paths
      throw new Error(`${what} must be an absolute path without ':' or '..': ${JSON.stringify(p)}`)
  // bug: as above (schema-checked before a plan is made)
  if (i.endpoint !== undefined && !/^https?:\/\/[^\s]+$/i.test(i.endpoint)) throw new Error(`not an http(s) endpoint: ${JSON.stringify(i.endpoint)}`)
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

/** Removes the download container and the token file, whatever state they are in. */
export const hubDownloadCleanup = (tokenFile?: string): Cmd =>
  shScript('docker rm -f "$1" >/dev/null 2>&1 || true; shift; [ $# -eq 0 ] || rm -f -- "$@"', HUB_DOWNLOAD_CONTAINER, ...(tokenFile ? [tokenFile] : []))

/**
 * Removes files a download wrote that are not the hub's (and huggingface_hub's record that they
 * are finished, `.cache/huggingface/download/<file>.metadata`), so the next run downloads them again.
 */
export function discardDownloaded(dest: string, paths: readonly string[]): Cmd {
  // bug: paths come from a listing parsed against the hub's own file list (relative by construction); guards the rm argv
  for (const p of paths) if (p === '' || p.startsWith('/') || p.split('/').includes('..')) throw new Error(`not a relative file path: ${JSON.stringify(p)}`)
  return argv('rm', '-f', '--', ...paths.flatMap((p) => [`${dest}/${p}`, `${dest}/.cache/huggingface/download/${p}.metadata`]))
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
      cleanup: hubDownloadCleanup(i.tokenFile),
    },
  ]
}
