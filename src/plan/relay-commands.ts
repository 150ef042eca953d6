/**
 * `image.distribution: relay`: the image crosses the runner's link once. The runner streams
 * `docker save` into one command on the head, which loads the archive into the head's own docker
 * and, from the same bytes at the same time, into every worker's `docker load` over SSH on the
 * fabric (`relayFanOut`): the stream is read once, no image is saved twice, and all loads overlap.
 * A head that already holds the image passes it on with `docker save IMAGE | ssh <worker> docker
 * load` (`relayToWorker`). Both need node-to-node SSH without a prompt (a key the worker accepts,
 * the worker's fabric IP in the head's known_hosts); the host checks verify it first
 * (RELAY_SSH_FAILED).
 */
import { type Argv, type Cmd, argv, pipe, shScript } from '../command/shell.js'
import type { Manifest, ManifestNode } from '../manifest/schema.js'

/** Where the head reaches a worker over the fabric: the worker's SSH user and port, its fabric IP. */
export function fabricSshTarget(m: Manifest, worker: ManifestNode): { user: string; ip: string; port: number } {
  return { user: worker.ssh.user ?? m.ssh.user, ip: worker.fabricIp, port: worker.ssh.port ?? m.ssh.port }
}

/** Options of the head's ssh to a worker: never a prompt, host key checked, a bounded connect. */
export const RELAY_SSH_OPTIONS = ['-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=yes', '-o', 'ConnectTimeout=10'] as const

/**
 * The ciphers the head's ssh offers a worker over the fabric when the manifest names none
 * (`ssh.fabricCiphers`): AES-GCM first (hardware AES on x86 and on Arm server cores; on the lab
 * `aes128-gcm@openssh.com` moved 1.6× the bytes of chacha20-poly1305, OpenSSH's default, per core),
 * then every other cipher OpenSSH enables by default, so a worker that accepts any default accepts
 * the list.
 */
export const DEFAULT_FABRIC_CIPHERS = [
  'aes128-gcm@openssh.com',
  'aes256-gcm@openssh.com',
  'chacha20-poly1305@openssh.com',
  'aes128-ctr',
  'aes192-ctr',
  'aes256-ctr',
] as const

/** The fabric cipher preference of a manifest, as one comma-separated word (what FABRIC_SSH_SH reads as $pref). */
export const fabricCiphers = (m: Manifest): string => (m.ssh.fabricCiphers ?? DEFAULT_FABRIC_CIPHERS).join(',')

/**
 * POSIX sh, for the head's scripts that open SSH to a worker. Reads `$pref` (comma-separated
 * ciphers, most wanted first) and keeps those the head's ssh knows (`ssh -Q cipher`, in the order
 * given) in `$cph`. Defines `fssh ERRFILE ssh-arguments...`: ssh with `-c $cph` (the worker's sshd
 * takes the first of them it also accepts), its stderr into ERRFILE; if the worker accepts none of
 * them (`no matching cipher`, before any byte of stdin is read), once more with ssh's own defaults,
 * appending to ERRFILE. An ssh without `-Q` or a list it knows nothing of: ssh's defaults straight.
 */
export const FABRIC_SSH_SH = `cph=; sshq=$(ssh -Q cipher 2>/dev/null)
for c in $(printf '%s' "$pref" | tr ',' ' '); do
  printf '%s\\n' "$sshq" | grep -qxF -e "$c" && cph=\${cph:+$cph,}$c
done
fssh() {
  fssh_e=$1; shift
  if [ -n "$cph" ]; then
    ssh -c "$cph" "$@" 2>"$fssh_e"; fssh_r=$?
    if [ "$fssh_r" != 255 ] || ! grep -q 'no matching cipher' "$fssh_e"; then return "$fssh_r"; fi
  fi
  ssh "$@" 2>>"$fssh_e"
}
`

/** On the head: stream `image` from the head's docker into `worker`'s docker over the fabric. */
export function relayToWorker(m: Manifest, worker: ManifestNode, image: string): Cmd {
  const t = fabricSshTarget(m, worker)
  return pipe(argv('docker', 'save', image), argv('ssh', ...RELAY_SSH_OPTIONS, '-p', String(t.port), '-l', t.user, t.ip, 'docker', 'load'))
}

/**
 * The head's fan-out (POSIX sh, run by `sh -c`). stdin: a `docker save` archive.
 *   $1 = N, then N triples "port user ip" (the workers' SSH over the fabric), then the ssh option words.
 * One FIFO per worker, each read by `ssh <worker> docker load` in the background; `tee -p` copies
 * stdin into every FIFO and into the head's own `docker load` (-p: a worker whose load or SSH
 * ends early is dropped from the copy; the others go on; a tee without -p, such as busybox's, is
 * used as it is). Between the copy and each target sits a buffer of up to 32 MiB (RELAY_BUFFER_PY,
 * when the head has python3; else `cat`): tee writes to every target in turn and waits for the
 * slowest, so without it the head's load and each worker's ssh + load advanced in lockstep, each
 * one's stall (a layer's extraction, a descheduled sshd) stalling all; with it each target runs at
 * its own pace and only the slowest bounds the whole. Output, one record per line, tabs:
 *   relay  head <exit code of the head's docker load>
 *   relay  <worker ip> <exit code of its ssh + docker load>
 *   log    <head | worker ip> <line>      (the last 20 lines of a target that failed)
 *   error  <why the fan-out could not start>
 *   end
 */
/**
 * stdin to stdout through a bounded in-memory queue (32 MiB in 1 MiB reads): a reader thread keeps
 * reading while the writer waits on a slow target. A target that goes away ends it (exit 1), so
 * the pipe from tee closes and `tee -p` drops that target as before.
 */
export const RELAY_BUFFER_PY = `import collections, os, sys, threading
LIMIT, CHUNK = 32 << 20, 1 << 20
q = collections.deque(); st = {"size": 0, "eof": False}; cv = threading.Condition()
def reader():
    while True:
        b = os.read(0, CHUNK)
        with cv:
            while st["size"] >= LIMIT:
                cv.wait()
            if not b:
                st["eof"] = True; cv.notify_all(); return
            q.append(b); st["size"] += len(b); cv.notify_all()
threading.Thread(target=reader, daemon=True).start()
while True:
    with cv:
        while not q and not st["eof"]:
            cv.wait()
        if not q:
            break
        b = q.popleft(); st["size"] -= len(b); cv.notify_all()
    try:
        while b:
            b = b[os.write(1, b):]
    except OSError:
        os._exit(1)
os._exit(0)
`

export const RELAY_FAN_OUT_SCRIPT = `set -u
BUFPY=$(cat <<'PYEOF'
${RELAY_BUFFER_PY}PYEOF
)
if command -v python3 >/dev/null 2>&1; then buf() { python3 -c "$BUFPY"; }; else buf() { cat; }; fi
n=$1; shift
flat() { tr '\\t\\r' '  ' | cut -c1-400; }
logs() { tail -n 20 "$2" 2>/dev/null | flat | awk -v t="$1" '{ print "log\\t" t "\\t" $0 }'; }
d=$(mktemp -d 2>/dev/null) || { printf 'error\\t%s\\n' 'mktemp -d failed on the head'; exit 1; }
trap 'rm -rf "$d"' EXIT
trap 'exit 143' TERM INT HUP
if [ "$n" -eq 0 ]; then
  docker load >"$d/head.log" 2>&1; rc=$?
  printf 'relay\\thead\\t%s\\n' "$rc"; [ "$rc" -eq 0 ] || logs head "$d/head.log"
  printf 'end\\n'; exit "$rc"
fi
command -v ssh >/dev/null 2>&1 || { printf 'error\\t%s\\n' 'ssh is not installed on the head'; exit 1; }
i=0
while [ "$i" -lt "$n" ]; do
  i=$((i + 1))
  p=$1; u=$2; h=$3
  printf '%s\\n' "$h" >"$d/ip$i"
  mkfifo "$d/f$i" || { printf 'error\\t%s\\n' "mkfifo failed in $d"; exit 1; }
  (
    shift $((3 * (n - i + 1)))
    buf <"$d/f$i" | ssh "$@" -p "$p" -l "$u" "$h" docker load >"$d/w$i.log" 2>&1
    echo "$?" >"$d/w$i.rc"
  ) &
  shift 3
done
# -p (GNU coreutils 8.24+): go on past a reader that went away. A tee without it (busybox) still
# relays; only a target that fails mid-stream then ends the copy for all.
if tee -p </dev/null >/dev/null 2>&1; then teeopt=-p; else teeopt=; fi
tee $teeopt "$d"/f* | buf | docker load >"$d/head.log" 2>&1
rc=$?
wait
printf 'relay\\thead\\t%s\\n' "$rc"
[ "$rc" -eq 0 ] || logs head "$d/head.log"
bad=$rc
i=0
while [ "$i" -lt "$n" ]; do
  i=$((i + 1))
  h=$(cat "$d/ip$i"); w=$(cat "$d/w$i.rc" 2>/dev/null || echo 255)
  printf 'relay\\t%s\\t%s\\n' "$h" "$w"
  [ "$w" = 0 ] || { logs "$h" "$d/w$i.log"; bad=1; }
done
printf 'end\\n'
exit "$bad"
`

/** On the head, stdin = the runner's `docker save`: load it here and into every worker at once. */
export function relayFanOut(m: Manifest, workers: readonly ManifestNode[]): Argv {
  const triples = workers.flatMap((w) => {
    const t = fabricSshTarget(m, w)
    return [String(t.port), t.user, t.ip]
  })
  return shScript(RELAY_FAN_OUT_SCRIPT, String(workers.length), ...triples, ...RELAY_SSH_OPTIONS)
}

export interface RelayTargetResult {
  readonly code: number | null
  readonly log: readonly string[]
}

export interface RelayFanOutReport {
  readonly head?: RelayTargetResult
  /** By worker fabric IP. */
  readonly workers: ReadonlyMap<string, RelayTargetResult>
  /** Why the fan-out could not start, when it said so. */
  readonly error?: string
  /** The script ran to its end (an `end` record). */
  readonly complete: boolean
}

/** Parse the fan-out's records; anything else on stdout (never expected) is ignored. */
export function parseRelayFanOut(stdout: string): RelayFanOutReport {
  const codes = new Map<string, number | null>()
  const logs = new Map<string, string[]>()
  let error: string | undefined
  let complete = false
  for (const line of stdout.split('\n')) {
    const f = line.replace(/\r$/, '').split('\t')
    if (f[0] === 'relay' && f.length === 3 && f[1]) codes.set(f[1], /^\d+$/.test(f[2]!) ? Number(f[2]) : null)
    else if (f[0] === 'log' && f.length >= 3 && f[1]) logs.set(f[1], [...(logs.get(f[1]) ?? []), f.slice(2).join(' ')])
    else if (f[0] === 'error' && f.length >= 2) error = f.slice(1).join(' ')
    else if (f[0] === 'end' && f.length === 1) complete = true
  }
  const result = (t: string): RelayTargetResult | undefined => (codes.has(t) ? { code: codes.get(t)!, log: logs.get(t) ?? [] } : undefined)
  const workers = new Map<string, RelayTargetResult>()
  for (const t of codes.keys()) if (t !== 'head') workers.set(t, result(t)!)
  const head = result('head')
  return { ...(head && { head }), workers, ...(error !== undefined && { error }), complete }
}
