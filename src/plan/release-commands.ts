/**
 * Builders for the commands that keep releases on a node: the per-release directory under the
 * node's state dir, the `current` / `previous` pointers, pruning, the audit log. Each returns data
 * (a `Cmd`); the fixed scripts take every value as a positional argument.
 *
 * Layout on a node:
 *   /var/lib/vllm-ray-deploy/<cluster>/releases/<id>/   one directory per release (see src/deploy/release-files.ts)
 *   /var/lib/vllm-ray-deploy/<cluster>/current          symlink to releases/<id>, moved by rename
 *   /var/lib/vllm-ray-deploy/<cluster>/previous         symlink to the release current named before
 *   /var/lib/vllm-ray-deploy/<cluster>/audit.jsonl      one JSON line per rollout
 */
import { type Argv, type Cmd, and, argv, shScript, toFile } from '../command/shell.js'
import type { Manifest, ManifestNode } from '../manifest/schema.js'
import { NODE_STATE_DIR, headOf, runLaunchScript, runNodeContainer, startVllm } from './node-commands.js'

export const clusterStateDir = (m: Manifest): string => `${NODE_STATE_DIR}/${m.cluster}`
export const releaseDir = (m: Manifest, release: string): string => `${clusterStateDir(m)}/releases/${release}`
export const auditLogPath = (m: Manifest): string => `${clusterStateDir(m)}/audit.jsonl`

/** Files of a release directory the tool writes and reads by name. */
export const RELEASE_FILE = {
  start: 'start.sh',
  serve: 'serve.sh',
  launch: 'launch.sh',
  env: 'env',
  secretEnv: 'secret.env',
  manifest: 'manifest.json',
  imageId: 'image-id',
  fingerprint: 'fingerprint',
  info: 'release.json',
  /** The weights manifest the release was verified against (with `model:`). */
  weights: 'weights.json',
  sums: 'SHA256SUMS',
  /** What the image-contents probe read in the release's image (src/deploy/image-contents-memo.ts; not a starting file). */
  imageContents: 'image-contents.json',
  /** The smoke's figures of the release (written after its smoke, outside SHA256SUMS; src/smoke/performance.ts). */
  performance: 'performance.json',
} as const

/**
 * Writes a release directory from a JSON document on stdin, `{"files": {name: {content, mode}}}`:
 * into a temporary directory first, with SHA256SUMS over every file, then renamed into place (a
 * reader never sees half a release). A directory of the same id is replaced whole.
 */
export const WRITE_RELEASE_PY = [
  'import hashlib, json, os, shutil, sys',
  'root, rid = sys.argv[1], sys.argv[2]',
  'doc = json.load(sys.stdin)',
  'rel = os.path.join(root, "releases")',
  'os.makedirs(rel, mode=0o755, exist_ok=True)',
  'tmp, final, old = (os.path.join(rel, p) for p in (".tmp-" + rid, rid, ".old-" + rid))',
  'shutil.rmtree(tmp, ignore_errors=True)',
  'os.mkdir(tmp, 0o755)',
  'sums = []',
  'for name in sorted(doc["files"]):',
  '    f = doc["files"][name]',
  '    data = f["content"].encode()',
  '    p = os.path.join(tmp, name)',
  '    fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, int(f["mode"], 8))',
  '    os.write(fd, data); os.fsync(fd); os.close(fd)',
  '    os.chmod(p, int(f["mode"], 8))',
  '    sums.append("%s  %s\\n" % (hashlib.sha256(data).hexdigest(), name))',
  'with open(os.path.join(tmp, "SHA256SUMS"), "w") as fh: fh.write("".join(sums))',
  'if os.path.lexists(final):',
  '    shutil.rmtree(old, ignore_errors=True); os.rename(final, old)',
  'os.rename(tmp, final)',
  'shutil.rmtree(old, ignore_errors=True)',
  'print("wrote %s (%d files)" % (final, len(sums)))',
].join('\n')

export const writeReleaseFiles = (m: Manifest, release: string): Argv => argv('python3', '-c', WRITE_RELEASE_PY, clusterStateDir(m), release)

/** The release's secret env (`NAME=value` lines on stdin) into a 0600 file beside it. */
export function writeReleaseSecretEnv(m: Manifest, release: string): Cmd {
  const file = `${releaseDir(m, release)}/${RELEASE_FILE.secretEnv}`
  return and(argv('install', '-m', '600', '/dev/null', file), toFile(argv('cat'), file))
}

/** Checks a release directory against its SHA256SUMS (before starting a release from its files). */
const VERIFY_SCRIPT = 'cd "$1" 2>/dev/null || { echo "release directory $1 is missing" >&2; exit 1; }; sha256sum --check --quiet --strict SHA256SUMS'
export const verifyRelease = (m: Manifest, release: string): Argv => shScript(VERIFY_SCRIPT, releaseDir(m, release))

export const runReleaseFile = (m: Manifest, release: string, file: string): Argv => argv('sh', `${releaseDir(m, release)}/${file}`)
export const readReleaseFile = (m: Manifest, release: string, file: string): Argv => argv('cat', `${releaseDir(m, release)}/${file}`)

/** The release's performance record from stdin, written whole (a temporary file renamed over it); fails when the release directory is missing. */
export const writeReleasePerformance = (m: Manifest, release: string): Argv =>
  shScript(
    'd=$1; [ -d "$d" ] || { echo "release directory $d is missing" >&2; exit 1; }; cat > "$d/.$2.tmp" && mv "$d/.$2.tmp" "$d/$2"',
    releaseDir(m, release),
    RELEASE_FILE.performance,
  )

/**
 * What a node holds, as `key=value` lines: the releases `current` and `previous` name, current's
 * fingerprint, image ID and image-contents record, the container (ID, running, start time, release label), every release.
 */
const STATE_SCRIPT = [
  'd=$1; c=$2; f=$3',
  'cur=$(readlink "$d/current" 2>/dev/null || true); prev=$(readlink "$d/previous" 2>/dev/null || true)',
  'echo "current=${cur##*/}"; echo "previous=${prev##*/}"',
  'if [ -n "$cur" ] && [ -f "$d/current/fingerprint" ]; then echo "fingerprint=$(cat "$d/current/fingerprint")"; fi',
  'if [ -n "$cur" ] && [ -f "$d/current/image-id" ]; then echo "image-id=$(cat "$d/current/image-id")"; fi',
  'if [ -n "$cur" ] && [ -f "$d/current/image-contents.json" ]; then printf "image-contents=%s\\n" "$(head -c 16384 "$d/current/image-contents.json" | tr -d "\\n")"; fi',
  'if [ -f "$d/current.container" ]; then echo "current-container=$(cat "$d/current.container")"; fi',
  'if out=$(docker inspect --format "{{.Id}} {{.State.Running}} {{.State.StartedAt}} {{.Image}} {{index .Config.Labels \\"io.vllm-ray-deploy.release\\"}}" "$c" 2>/dev/null); then echo "container=$out"; fi',
  'if [ -d "$d/releases" ]; then for r in $(ls -1t "$d/releases"); do echo "release=$r"; if [ -e "$d/releases/$r/$f" ]; then echo "failed-release=$r"; fi; done; fi',
].join('\n')
export const readNodeState = (m: Manifest): Argv => shScript(STATE_SCRIPT, clusterStateDir(m), m.container.name, FAILED_MARK)

/** In a release's directory: the release did not pass its gates (a deploy of it failed or was cancelled). */
export const FAILED_MARK = '.failed'

/** Marks a release that did not pass its gates, where its directory exists (prune and rollback read the mark). */
export const markReleaseFailed = (m: Manifest, release: string): Argv => shScript('[ ! -d "$1" ] || : > "$1/$2"', releaseDir(m, release), FAILED_MARK)

/**
 * Points `current` at a release (and `previous` at the one current named, when it differs), each by
 * writing a new symlink and renaming it over the old one: a reader sees the old or the new pointer.
 * The ID of the container now running is recorded beside it (`current.container`): a launch script's
 * containers carry no release label, and "unchanged" must mean these very containers still run.
 */
const ACTIVATE_SCRIPT = [
  'd=$1; new=$2; c=$3; f=$4',
  '[ -d "$d/releases/$new" ] || { echo "release $new is not on this node" >&2; exit 1; }',
  'rm -f "$d/releases/$new/$f"',
  'old=$(readlink "$d/current" 2>/dev/null || true); old=${old##*/}',
  'if [ -n "$old" ] && [ "$old" != "$new" ]; then ln -sfn "releases/$old" "$d/.previous.tmp"; mv -T "$d/.previous.tmp" "$d/previous"; fi',
  'ln -sfn "releases/$new" "$d/.current.tmp"; mv -T "$d/.current.tmp" "$d/current"',
  'touch "$d/releases/$new"',
  'docker inspect --format "{{.Id}}" "$c" > "$d/.current.container.tmp" 2>/dev/null || : > "$d/.current.container.tmp"; mv -f "$d/.current.container.tmp" "$d/current.container"',
  'echo "current=$new previous=$(basename "$(readlink "$d/previous" 2>/dev/null || echo -)")"',
].join('\n')
export const activateRelease = (m: Manifest, release: string): Argv => shScript(ACTIVATE_SCRIPT, clusterStateDir(m), release, m.container.name, FAILED_MARK)

/**
 * Keeps the newest `keep` releases that passed their gates, never one `current` or `previous`
 * names; of the releases that did not (FAILED_MARK), only the newest is kept (for a post-mortem).
 */
const PRUNE_SCRIPT = [
  'd=$1; keep=$2; f=$3',
  '[ -d "$d/releases" ] || exit 0',
  'cur=$(readlink "$d/current" 2>/dev/null || true); prev=$(readlink "$d/previous" 2>/dev/null || true)',
  'n=0; failed=0',
  'for r in $(ls -1t "$d/releases"); do',
  '  if [ "$r" = "${cur##*/}" ] || [ "$r" = "${prev##*/}" ]; then n=$((n + 1)); continue; fi',
  '  if [ -e "$d/releases/$r/$f" ]; then',
  '    failed=$((failed + 1))',
  '    if [ "$failed" -gt 1 ]; then rm -rf "$d/releases/$r"; echo "pruned $r (failed)"; fi',
  '    continue',
  '  fi',
  '  n=$((n + 1))',
  '  if [ "$n" -gt "$keep" ]; then rm -rf "$d/releases/$r"; echo "pruned $r"; fi',
  'done',
].join('\n')
export const pruneReleases = (m: Manifest): Argv => shScript(PRUNE_SCRIPT, clusterStateDir(m), String(m.deploy.releasesKept), FAILED_MARK)

/** Appends stdin (one JSON line) to the node's audit log. */
export const appendAudit = (m: Manifest): Cmd => and(argv('mkdir', '-p', clusterStateDir(m)), toFile(argv('cat'), auditLogPath(m), true))

/** The image ID a node has for `image` (a reference or an ID); fails when it has none. */
/** `docker image inspect`'s format for an image's ID and platform on one line, "<id> <os>/<arch>" (parseImageIdentity). */
export const IMAGE_IDENTITY_FORMAT = '{{.Id}} {{.Os}}/{{.Architecture}}'
/** An image's ID and the platform it was built for, as the image gate reads them on a node. */
export const imageIdentityOf = (image: string): Argv => argv('docker', 'image', 'inspect', '--format', IMAGE_IDENTITY_FORMAT, image)

/**
 * What a release's start.sh runs on `node`: the built-in launcher's `docker run` (with `ray start`, or
 * holding the container for vLLM's native mode), or
 * the user's launch script from the release directory. `image` is the image ID in the written file.
 */
export function releaseStartCmd(m: Manifest, node: ManifestNode, image: string, release: string): Cmd {
  const dir = releaseDir(m, release)
  return m.launch.mode === 'builtin'
    ? runNodeContainer(m, node, image, release, `${dir}/${RELEASE_FILE.secretEnv}`)
    : runLaunchScript(m, node, image, `${dir}/${RELEASE_FILE.launch}`, release)
}

/** What a release's serve.sh runs on `node` (the head; with the native executor, every node). */
export const releaseServeCmd = (m: Manifest, node: ManifestNode = headOf(m)): Cmd => startVllm(m, node)

/**
 * Free and total bytes of the filesystem holding `dir` (or its nearest existing ancestor), and that
 * directory: one line `FREE TOTAL PATH`. For a write that failed: what the node has left there.
 */
export const freeSpaceUnder = (dir: string): Argv =>
  shScript('p=$1; while [ ! -e "$p" ] && [ "$p" != / ]; do p=$(dirname -- "$p"); done; df -PB1 -- "$p" | awk -v p="$p" \'NR==2 { print $4, $2, p }\'', dir)
