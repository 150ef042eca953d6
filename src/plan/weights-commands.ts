/**
 * The commands of the weights stage (model.path on every node), as argv data:
 *
 * - `listWeights`: on a node, every regular file under the model directory (names starting with
 *   `.` left out at any depth, as on the runner: .vrd-verified, a hub client's .cache) with its size and
 *   SHA-256 (a file whose size, mtime, ctime and inode match the node's own record of its last
 *   verification is not hashed again, the others by the node's fastest hasher: src/plan/node-sha256.ts),
 *   every `.partial` left by a cut transfer with its size, and the free bytes there. POSIX sh +
 *   coreutils (`stat -c`, `df -P`).
 * - `receiveWeightsStream`: on a node, stdin = several files' bytes (each from an offset, then
 *   the sender's SHA-256), each appended to `<file>.partial` and hashed as it arrives, renamed to
 *   `<file>` only when the hashes and the size agree; a short stream keeps the .partial (the next
 *   deploy resumes from its size), a wrong one is removed. On the head it can pass the same stream
 *   on to workers over the fabric as it arrives.
 * - `sendWeightsStreamToWorker`: on the head, the files a worker lacks from the head's copy, one
 *   stream over one SSH connection (SSH options and target as the image relay's, src/plan/relay-commands.ts).
 */
import { type Argv, argv, render, shScript } from '../command/shell.js'
import type { Manifest, ManifestNode } from '../manifest/schema.js'
import { NODE_SHA256_SH } from './node-sha256.js'
import { FABRIC_SSH_SH, RELAY_SSH_OPTIONS, SHARE_UP_SH, fabricCiphers, fabricShareOptions, fabricSshTarget, shareUpFile } from './relay-commands.js'
import { RELEASE_FILE, releaseDir } from './release-commands.js'
import { RECEIVE_WEIGHTS_PY } from './weights-receiver-py.js'

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
${NODE_SHA256_SH}d=$1
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
  if [ -z "$sum" ]; then
    [ -n "$hasher" ] || pick_hasher
    sum=$(sha <"$f" | cut -c1-64)
  fi
  printf '%s\\t%s\\t%s\\n' "$key" "$sum" "$f" >>"$new"
  printf 'file\\t%s\\t%s\\t%s\\n' "\${key%% *}" "$sum" "$f"
done
if [ -w . ]; then cat "$new" >"$old.tmp" 2>/dev/null && mv -f "$old.tmp" "$old"; fi
printf 'end\\n'
`

export const listWeights = (dir: string): Argv => shScript(LIST_WEIGHTS_SCRIPT, dir)

/** One file of a stream: its bytes from `offset` follow in the stream, then 64 hex digits of the sender's SHA-256 of the whole file. */
export interface StreamFile {
  readonly path: string
  readonly size: number
  /** The SHA-256 the file must have, or `-` when only the sender's own (in the stream) is known yet. */
  readonly sha256: string
  readonly offset: number
}

/**
 * The receiver of a weights stream (bash). Arguments:
 *   $1 dir, $2 the fabric cipher preference (FABRIC_SSH_SH's $pref), $3 the file that says the
 *   shared connections are up (SHARE_UP_SH; empty: none to wait for), $4 N (workers the stream is
 *   passed on to as it arrives), N triples "port user ip", then K and K ssh option words, then the
 *   command line the workers run (the same receiver with N = 0), then per file: path size sha256 offset.
 * stdin, per file in order: its bytes from the offset, then the sender's 64-hex SHA-256 of the
 * whole file (computed as it read the bytes). Each file is appended to `<file>.partial` as it
 * arrives and hashed in the same pass (the .partial's earlier bytes read first on a resume); the
 * .partial becomes `<file>` only when its size, the hash computed here and the sender's agree (and
 * the expected one, unless `-`), and the node's verification record (.vrd-verified) gets its line,
 * so the listing after the transfer reads no byte again. With N > 0 the whole stream is copied
 * into `ssh <worker> <receiver>` for each worker as it arrives (a worker whose receiver went away
 * is dropped from the copy; the rest go on). Where the node's python3 works, one Python process
 * does all of it (src/plan/weights-receiver-py.ts: one read per byte, hashlib's SHA-256; it says
 * `ready` on fd 3 before it reads a byte, so no python3 is started first only to test it); else a
 * bash loop with `tee -a` into the node's fastest hasher (src/plan/node-sha256.ts) and `tee -p`
 * into the workers. Output, one record per line, tabs:
 *   ok    <path> <bytes received> <sha256>
 *   short <path> <bytes received>          (the .partial kept: the next deploy resumes)
 *   bad   <path> <bytes received> <sha256 here> <sha256 sent>   (the .partial removed)
 *   fail  <path> <why>                     (nothing written; the file's bytes skipped)
 *   fwd   <worker ip> <exit code of its ssh + receiver>
 *   at    <worker ip> <a record of the worker's receiver>
 *   log   <worker ip> <line>               (the last lines of a worker that failed)
 *   end
 */
export const RECEIVE_WEIGHTS_STREAM_SCRIPT = `set -u
dir=$1; pref=$2; up=$3; nf=$4; shift 4
fwd=("\${@:1:$((3 * nf))}"); shift $((3 * nf))
no=$1; shift; opts=("\${@:1:$no}"); shift "$no"
remote=$1; shift
RECVPY=$(cat <<'PYEOF'
${RECEIVE_WEIGHTS_PY}PYEOF
)
${NODE_SHA256_SH}skip() { head -c "$1" >/dev/null; }
receive() {
  while [ $# -ge 4 ]; do
    rel=$1; size=$2; want=$3; off=$4; shift 4
    f=$dir/$rel; p=$f${PARTIAL_SUFFIX}; n=$((size - off))
    if ! mkdir -p "$(dirname "$f")" 2>/dev/null || { [ "$off" = 0 ] && ! : 2>/dev/null >"$p"; }; then
      skip $((n + 64)); printf 'fail\t%s\tcannot write %s\n' "$rel" "$p"; continue
    fi
    have=$(stat -c %s "$p" 2>/dev/null || echo 0)
    if [ "$have" != "$off" ]; then
      skip $((n + 64)); printf 'fail\t%s\t%s holds %s bytes but the sender starts at %s\n' "$rel" "$p" "$have" "$off"; continue
    fi
    sum=$({ cat "$p" && head -c "$n" | tee -a "$p"; } | sha | cut -c1-64)
    sent=$(head -c 64)
    now=$(stat -c %s "$p" 2>/dev/null || echo 0)
    got=$((now - off))
    if [ "$now" -lt "$size" ]; then
      [ "$now" = 0 ] && rm -f "$p"
      printf 'short\t%s\t%s\n' "$rel" "$got"; continue
    fi
    if [ "$now" = "$size" ] && [ "$sum" = "$sent" ] && { [ "$want" = - ] || [ "$sum" = "$want" ]; } && mv -f "$p" "$f"; then
      printf '%s\t%s\t%s\n' "$(stat -c '%s %.9Y %.9Z %i' "$f")" "$sum" "$rel" >>"$dir/${WEIGHTS_VERIFIED_FILE}" 2>/dev/null
      printf 'ok\t%s\t%s\t%s\n' "$rel" "$got" "$sum"
    else
      rm -f "$p"
      printf 'bad\t%s\t%s\t%s\t%s\n' "$rel" "$got" "$sum" "$sent"
    fi
  done
}
t=$(mktemp -d 2>/dev/null) || { printf 'fail\t-\tmktemp -d failed\n'; exit 1; }
trap 'rm -rf "$t"' EXIT
trap 'exit 143' TERM INT HUP
if [ "$nf" -eq 0 ]; then
  python3 -c "$RECVPY" "$dir" ${WEIGHTS_VERIFIED_FILE} ${PARTIAL_SUFFIX} 0 "$@" 3>"$t/ready" 2>"$t/py"
  if [ -s "$t/ready" ]; then cat "$t/py" >&2; else pick_hasher; receive "$@"; fi
  printf 'end\n'; exit 0
fi
${FABRIC_SSH_SH}${SHARE_UP_SH}fifos=()
for ((i = 0; i < nf; i++)); do
  mkfifo "$t/f$i" || { printf 'fail\t-\tmkfifo failed in %s\n' "$t"; exit 1; }
  (share_up; fssh "$t/e$i" "\${opts[@]}" -p "\${fwd[3 * i]}" -l "\${fwd[3 * i + 1]}" "\${fwd[3 * i + 2]}" "$remote" <"$t/f$i" >"$t/o$i"; echo "$?" >"$t/rc$i") &
  fifos+=("$t/f$i")
done
python3 -c "$RECVPY" "$dir" ${WEIGHTS_VERIFIED_FILE} ${PARTIAL_SUFFIX} "$nf" "\${fifos[@]}" "$@" 3>"$t/ready" 2>"$t/py"
if [ -s "$t/ready" ]; then cat "$t/py" >&2; else
  pick_hasher
  # -p (GNU coreutils 8.24+): a worker whose receiver went away is dropped from the copy; the rest go on.
  if tee -p </dev/null >/dev/null 2>&1; then teeopt=-p; else teeopt=; fi
  tee $teeopt "\${fifos[@]}" | receive "$@"
fi
wait
for ((i = 0; i < nf; i++)); do
  h=\${fwd[3 * i + 2]}; rc=$(cat "$t/rc$i" 2>/dev/null || echo 255)
  printf 'fwd\t%s\t%s\n' "$h" "$rc"
  awk -v h="$h" '{ print "at\t" h "\t" $0 }' "$t/o$i"
  [ "$rc" = 0 ] || tail -n 20 "$t/e$i" | tr '\t\r' '  ' | cut -c1-400 | awk -v h="$h" '{ print "log\t" h "\t" $0 }'
done
printf 'end\n'
`

const fileArgs = (files: readonly StreamFile[]): string[] => files.flatMap((f) => [f.path, String(f.size), f.sha256, String(f.offset)])

/** The head's ssh options to a worker: the relay's, and the shared connection's under `share` (its control path) when one was opened. */
const fabricOptions = (share?: string): string[] => [...RELAY_SSH_OPTIONS, ...(share ? fabricShareOptions(share) : [])]

/**
 * The receiver's command on a node (bash -c): every file of the stream, passed on to `forward` as
 * it arrives (over the connections shared under `share`, when given: src/plan/relay-commands.ts).
 */
export function receiveWeightsStream(m: Manifest, dir: string, files: readonly StreamFile[], forward: readonly ManifestNode[] = [], share?: string): Argv {
  const opts = fabricOptions(share)
  const targets = forward.flatMap((w) => {
    const t = fabricSshTarget(m, w)
    return [String(t.port), t.user, t.ip]
  })
  const remote = forward.length > 0 ? render(receiveWeightsStream(m, dir, files)) : ''
  return argv(
    'bash',
    '-c',
    RECEIVE_WEIGHTS_STREAM_SCRIPT,
    'bash',
    dir,
    fabricCiphers(m),
    share ? shareUpFile(share) : '',
    String(forward.length),
    ...targets,
    String(opts.length),
    ...opts,
    remote,
    ...fileArgs(files),
  )
}

/**
 * On the head (bash): $1 dir, $2 the fabric cipher preference, $3 the shared connections' up file
 * (or empty), $4 port, $5 user, $6 ip (the worker over the fabric), $7 K and K ssh option words, then the worker's receiver command line, then per
 * file path size sha256 offset. The stream a receiver reads, from the head's verified copy, into
 * one SSH connection (ssh's messages on stderr).
 */
export const SEND_WEIGHTS_STREAM_SCRIPT = `set -u
dir=$1; pref=$2; up=$3; port=$4; user=$5; ip=$6; no=$7; shift 7
opts=("\${@:1:$no}"); shift "$no"
remote=$1; shift
${FABRIC_SSH_SH}${SHARE_UP_SH}send() {
  while [ $# -ge 4 ]; do
    tail -c +$(($4 + 1)) "$dir/$1" | head -c $(($2 - $4)); printf '%s' "$3"; shift 4
  done
}
e=$(mktemp) || exit 1
share_up
send "$@" | fssh "$e" "\${opts[@]}" -p "$port" -l "$user" "$ip" "$remote"
rc=$?
cat "$e" >&2; rm -f "$e"
exit "$rc"
`

/** On the head: the files a worker lacks, from the head's copy, over the fabric into the worker's receiver (one SSH connection, or a channel of the one shared under `share`). */
export function sendWeightsStreamToWorker(m: Manifest, dir: string, worker: ManifestNode, files: readonly StreamFile[], share?: string): Argv {
  const t = fabricSshTarget(m, worker)
  const opts = fabricOptions(share)
  return argv(
    'bash',
    '-c',
    SEND_WEIGHTS_STREAM_SCRIPT,
    'bash',
    dir,
    fabricCiphers(m),
    share ? shareUpFile(share) : '',
    String(t.port),
    t.user,
    t.ip,
    String(opts.length),
    ...opts,
    render(receiveWeightsStream(m, dir, files)),
    ...fileArgs(files),
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
