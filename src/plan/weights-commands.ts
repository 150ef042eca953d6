/**
 * The commands of the weights stage (model.path on every node), as argv data:
 *
 * - `listWeights`: on a node, every regular file under the model directory (names starting with
 *   `.` left out at any depth, as on the runner: .vrd-verified, a hub client's .cache) with its size and
 *   SHA-256 (a file whose size, mtime, ctime and inode match the node's own record of its last
 *   verification is not hashed again), every `.partial` left by a cut transfer with its size, and
 *   the free bytes there. POSIX sh + coreutils (`stat -c`, `sha256sum`, `df -P`).
 * - `receiveWeightsFile`: on a node, stdin = one file's bytes from an offset: appended to
 *   `<file>.partial`, which becomes `<file>` only when its size and SHA-256 are the manifest's.
 *   A short stream keeps the .partial (the next deploy resumes from its size); a wrong one is removed.
 * - `sendWeightsFileToWorker`: on the head, the same over the fabric: `tail -c +N file | ssh worker
 *   <receive>` (SSH options and target as the image relay's, src/plan/relay-commands.ts).
 */
import { type Argv, type Cmd, argv, pipe, render, shScript } from '../command/shell.js'
import type { Manifest, ManifestNode } from '../manifest/schema.js'
import { RELAY_SSH_OPTIONS, fabricSshTarget } from './relay-commands.js'
import { RELEASE_FILE, releaseDir } from './release-commands.js'

/** The node's record of its last verification, inside the model directory (never part of the model). */
export const WEIGHTS_VERIFIED_FILE = '.vrd-verified'
/** Suffix of a file being received. */
export const PARTIAL_SUFFIX = '.partial'

/**
 * $1 = model directory. Output, one record per line, tabs:
 *   file   <size> <sha256> <path relative to the directory>
 *   partial <size> <path of the file it will become>
 *   free   <bytes free on the directory's file system (or its nearest existing parent)>
 *   end
 */
export const LIST_WEIGHTS_SCRIPT = `set -u
d=$1
p=$d
while [ ! -d "$p" ]; do p=$(dirname "$p"); done
free=$(df -Pk "$p" | awk 'NR==2 { printf "%.0f", $4 * 1024 }')
printf 'free\\t%s\\n' "$free"
if [ ! -d "$d" ]; then printf 'end\\n'; exit 0; fi
cd "$d" || exit 1
old=${WEIGHTS_VERIFIED_FILE}
new=$(mktemp) || exit 1
trap 'rm -f "$new"' EXIT
find . -name '.?*' -prune -o -type f -print | sed 's|^\\./||' | sort | while IFS= read -r f; do
  case "$f" in
    *${PARTIAL_SUFFIX}) printf 'partial\\t%s\\t%s\\n' "$(stat -c %s "$f")" "\${f%${PARTIAL_SUFFIX}}"; continue ;;
  esac
  key=$(stat -c '%s %.9Y %.9Z %i' "$f")
  sum=
  [ -f "$old" ] && sum=$(awk -F '\\t' -v k="$key" -v f="$f" '$1 == k && $3 == f { print $2; exit }' "$old")
  [ -n "$sum" ] || sum=$(sha256sum <"$f" | cut -d ' ' -f 1)
  printf '%s\\t%s\\t%s\\n' "$key" "$sum" "$f" >>"$new"
  printf 'file\\t%s\\t%s\\t%s\\n' "\${key%% *}" "$sum" "$f"
done
if [ -w . ]; then cat "$new" >"$old.tmp" 2>/dev/null && mv -f "$old.tmp" "$old"; fi
printf 'end\\n'
`

export const listWeights = (dir: string): Argv => shScript(LIST_WEIGHTS_SCRIPT, dir)

/**
 * $1 = model directory, $2 = file (relative), $3 = its size, $4 = its SHA-256, $5 = the offset the
 * sender starts at (0: start afresh). stdin: the bytes from $5. Output: `ok`, or `short <size>`
 * (exit 4, the .partial kept for the next deploy); a mismatch exits 5 with the .partial removed.
 */
export const RECEIVE_WEIGHTS_SCRIPT = `set -u
f=$1/$2; p=$f${PARTIAL_SUFFIX}
mkdir -p "$(dirname "$f")" || exit 1
if [ "$5" = 0 ]; then : >"$p" || exit 1; fi
have=$(stat -c %s "$p" 2>/dev/null || echo 0)
if [ "$have" != "$5" ]; then echo "$p holds $have bytes but the sender starts at $5" >&2; exit 3; fi
cat >>"$p" || exit 1
size=$(stat -c %s "$p")
if [ "$size" -lt "$3" ]; then printf 'short\\t%s\\n' "$size"; exit 4; fi
sum=$(sha256sum <"$p" | cut -d ' ' -f 1)
if [ "$size" = "$3" ] && [ "$sum" = "$4" ]; then mv -f "$p" "$f" && printf 'ok\\n'; exit $?; fi
rm -f "$p"
echo "received $size bytes with SHA-256 $sum, expected $3 bytes with $4" >&2
exit 5
`

export interface WeightsFileRef {
  readonly path: string
  readonly size: number
  readonly sha256: string
}

export const receiveWeightsFile = (dir: string, file: WeightsFileRef, offset: number): Argv =>
  shScript(RECEIVE_WEIGHTS_SCRIPT, dir, file.path, String(file.size), file.sha256, String(offset))

/** On the head: one file from its model directory into `worker`'s over the fabric, from `offset`. */
export function sendWeightsFileToWorker(m: Manifest, dir: string, worker: ManifestNode, file: WeightsFileRef, offset: number): Cmd {
  const t = fabricSshTarget(m, worker)
  return pipe(
    argv('tail', '-c', `+${offset + 1}`, `${dir}/${file.path}`),
    argv('ssh', ...RELAY_SSH_OPTIONS, '-p', String(t.port), '-l', t.user, t.ip, render(receiveWeightsFile(dir, file, offset))),
  )
}

/** Exit status of `readReleaseWeights` for a release that keeps no weights.json. */
export const NO_RELEASE_WEIGHTS = 3

/**
 * A release's weights.json on a node; exit 3 (NO_RELEASE_WEIGHTS) when it has none (a release
 * written before the weights stage existed, or without `model:`).
 */
export const readReleaseWeights = (m: Manifest, release: string): Argv =>
  shScript(`[ -f "$1" ] || exit ${NO_RELEASE_WEIGHTS}\ncat "$1"`, `${releaseDir(m, release)}/${RELEASE_FILE.weights}`)
