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
import { type Argv, shScript } from '../command/shell.js'
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
 * given) in `$cph`: two processes (ssh, awk) per script, not one `grep` per cipher. Defines `fssh ERRFILE ssh-arguments...`: ssh with `-c $cph` (the worker's sshd
 * takes the first of them it also accepts), its stderr into ERRFILE; if the worker accepts none of
 * them (`no matching cipher`, before any byte of stdin is read), once more with ssh's own defaults,
 * appending to ERRFILE. An ssh without `-Q` or a list it knows nothing of: ssh's defaults straight.
 */
export const FABRIC_SSH_SH = `cph=$(ssh -Q cipher </dev/null 2>/dev/null | awk -v p="$pref" '{ k[$0] = 1 } END { n = split(p, a, ","); s = ""; for (i = 1; i <= n; i++) if (a[i] in k) s = s (s == "" ? "" : ",") a[i]; print s }')
fssh() {
  fssh_e=$1; shift
  if [ -n "$cph" ]; then
    ssh -c "$cph" "$@" 2>"$fssh_e"; fssh_r=$?
    if [ "$fssh_r" != 255 ] || ! grep -q 'no matching cipher' "$fssh_e"; then return "$fssh_r"; fi
  fi
  ssh "$@" 2>>"$fssh_e"
}
`

/**
 * One OpenSSH connection from the head to a worker that several streams share (ControlMaster):
 * each stream's `ssh` with these options hands its stdin, stdout and stderr to the connection's
 * master (OpenSSH passes the descriptors, so the bytes are not copied once more) and runs its
 * command as a channel of its own, as the runner's streams to a node share its one SSH connection.
 * `%C` (a hash of the head, the worker's address, port and user) gives each worker its own socket
 * under one path. Where no master listens (never opened, or it went away) ssh connects by itself
 * as before, so sharing can only save connections, never lose a stream.
 */
export const fabricShareOptions = (controlPath: string): string[] => ['-o', `ControlPath=${controlPath}-%C`, '-o', 'ControlMaster=no']

/**
 * The file the open script (OPEN_FABRIC_SHARE_SCRIPT) writes once every master it started is up or
 * has failed: the streams may start before it (the runner's bytes and the receivers' start-up then
 * overlap the key exchange) and their `ssh` to a worker waits for it (SHARE_UP_SH), so it joins the
 * master rather than racing it with a connection of its own. `closeFabricShare` removes it.
 */
export const shareUpFile = (controlPath: string): string => `${controlPath}.up`

/**
 * POSIX sh: `share_up` waits until the file in $up exists (none given: at once), at most 15 s (the
 * masters' ConnectTimeout is 10 s); after that the stream's ssh connects by itself, as without a master.
 */
export const SHARE_UP_SH = `share_up() {
  [ -n "$up" ] || return 0
  su_i=0
  while [ ! -e "$up" ] && [ "$su_i" -lt 1500 ]; do sleep 0.01; su_i=$((su_i + 1)); done
}
`

/** Seconds a shared connection stays up with no stream on it: a cancelled stage leaves nothing behind for longer. */
export const FABRIC_SHARE_PERSIST_SECONDS = 30

/**
 * On the head (POSIX sh): $1 the fabric cipher preference, $2 the control path, $3 N, N triples
 * "port user ip", then the ssh option words. Opens a master connection to every worker at once
 * (`ssh -M -N -f`: it goes to the background once authenticated; ControlPersist ends it
 * FABRIC_SHARE_PERSIST_SECONDS after its last stream, `closeFabricShare` at once). Output per
 * worker: `share <ip> <exit code>` (0: its streams share it; else each connects by itself), then
 * the last lines of ssh's messages as `log <ip> <line>`.
 */
export const OPEN_FABRIC_SHARE_SCRIPT = `set -u
pref=$1; cp=$2; n=$3; shift 3
${FABRIC_SSH_SH}d=$(mktemp -d 2>/dev/null) || exit 1
trap 'rm -rf "$d"' EXIT
i=0
while [ "$i" -lt "$n" ]; do
  i=$((i + 1))
  p=$1; u=$2; h=$3
  printf '%s\n' "$h" >"$d/ip$i"
  (
    shift $((3 * (n - i + 1)))
    fssh "$d/e$i" "$@" -o ControlMaster=yes -o ControlPath="$cp-%C" -o ControlPersist=${FABRIC_SHARE_PERSIST_SECONDS} -N -f -p "$p" -l "$u" "$h" </dev/null >/dev/null
    echo "$?" >"$d/rc$i"
  ) &
  shift 3
done
wait
: >"$cp.up"
i=0
while [ "$i" -lt "$n" ]; do
  i=$((i + 1))
  h=$(cat "$d/ip$i"); rc=$(cat "$d/rc$i" 2>/dev/null || echo 255)
  printf 'share\t%s\t%s\n' "$h" "$rc"
  [ "$rc" = 0 ] || tail -n 3 "$d/e$i" | tr '\t\r' '  ' | cut -c1-300 | awk -v h="$h" '{ print "log\t" h "\t" $0 }'
done
`

/** On the head: one shared connection to each of `workers` under `controlPath` (see OPEN_FABRIC_SHARE_SCRIPT). */
export function openFabricShare(m: Manifest, workers: readonly ManifestNode[], controlPath: string): Argv {
  const triples = workers.flatMap((w) => {
    const t = fabricSshTarget(m, w)
    return [String(t.port), t.user, t.ip]
  })
  return shScript(OPEN_FABRIC_SHARE_SCRIPT, fabricCiphers(m), controlPath, String(workers.length), ...triples, ...RELAY_SSH_OPTIONS)
}

/**
 * On the head (POSIX sh): $1 the control path, then triples "port user ip": `ssh -O exit` to each
 * worker's master (it ends once its last stream has; its socket is removed). Never fails.
 */
export const CLOSE_FABRIC_SHARE_SCRIPT = `cp=$1; shift
rm -f "$cp.up"
while [ $# -ge 3 ]; do
  ssh -o ControlPath="$cp-%C" -O exit -p "$1" -l "$2" "$3" </dev/null >/dev/null 2>&1
  shift 3
done
exit 0
`

/** On the head: close the shared connections `openFabricShare` opened. */
export function closeFabricShare(m: Manifest, workers: readonly ManifestNode[], controlPath: string): Argv {
  const triples = workers.flatMap((w) => {
    const t = fabricSshTarget(m, w)
    return [String(t.port), t.user, t.ip]
  })
  return shScript(CLOSE_FABRIC_SHARE_SCRIPT, controlPath, ...triples)
}

/** The records of OPEN_FABRIC_SHARE_SCRIPT: per worker IP, its exit code and the last lines of ssh's messages. Pure. */
export function parseFabricShare(stdout: string): Map<string, { code: number; log: string[] }> {
  const out = new Map<string, { code: number; log: string[] }>()
  for (const line of stdout.split('\n')) {
    const f = line.replace(/\r$/, '').split('\t')
    if (f[0] === 'share' && f.length === 3 && f[1] && /^\d+$/.test(f[2]!)) out.set(f[1], { code: Number(f[2]), log: out.get(f[1])?.log ?? [] })
    else if (f[0] === 'log' && f.length >= 3 && f[1])
      out.set(f[1], { code: out.get(f[1])?.code ?? 255, log: [...(out.get(f[1])?.log ?? []), f.slice(2).join(' ')] })
  }
  return out
}

/**
 * On the head (POSIX sh): $1 the fabric cipher preference, $2 the image, then ssh's arguments up to
 * the worker. `docker save` into the worker's `docker load` over the fabric; fails when either
 * does (ssh's and docker's messages on stderr).
 */
export const RELAY_TO_WORKER_SCRIPT = `set -u
pref=$1; img=$2; shift 2
${FABRIC_SSH_SH}e=$(mktemp) || exit 1
s=$(mktemp) || exit 1
{ docker save "$img"; echo "$?" >"$s"; } | fssh "$e" "$@" docker load
rc=$?
[ "$(cat "$s")" = 0 ] || rc=1
cat "$e" >&2; rm -f "$e" "$s"
exit "$rc"
`

/** On the head: stream `image` from the head's docker into `worker`'s docker over the fabric. */
export function relayToWorker(m: Manifest, worker: ManifestNode, image: string): Argv {
  const t = fabricSshTarget(m, worker)
  return shScript(RELAY_TO_WORKER_SCRIPT, fabricCiphers(m), image, ...RELAY_SSH_OPTIONS, '-p', String(t.port), '-l', t.user, t.ip)
}

/**
 * The head's fan-out (POSIX sh, run by `sh -c`). stdin: a `docker save` archive.
 *   $1 = the fabric cipher preference (FABRIC_SSH_SH's $pref), $2 = N, then N triples "port user ip"
 *   (the workers' SSH over the fabric), then the ssh option words.
 * One FIFO per target: the head's own `docker load` and, per worker, `ssh <worker> docker load`,
 * each in the background. Where the head's python3 works, one Python process (RELAY_FAN_PY) reads
 * stdin in 1 MiB reads and writes each read into every FIFO from a queue of up to 32 MiB per
 * target, so each target runs at its own pace and only the slowest bounds the whole (without the
 * queues the head's load and each worker's ssh + load advanced in lockstep, each one's stall, a
 * layer's extraction or a descheduled sshd, stalling all), and a target that goes away is dropped
 * while the others go on. Without python3, `tee -p` copies stdin into the FIFOs (-p: a target that
 * ends early is dropped; a tee without -p, such as busybox's, is used as it is). Output, one record
 * per line, tabs:
 *   relay  head <exit code of the head's docker load>
 *   relay  <worker ip> <exit code of its ssh + docker load>
 *   log    <head | worker ip> <line>      (the last 20 lines of a target that failed)
 *   error  <why the fan-out could not start>
 *   end
 */
/**
 * The head's fan-out scripts (relay's docker load, the landing's receivers) share these pieces: the log helpers and the
 * scratch directory, the loop that starts one `ssh <worker> <remote>` per worker fed from its own FIFO, and the report.
 */
export const FAN_HELPERS_SH = `flat() { tr '\\t\\r' '  ' | cut -c1-400; }
logs() { tail -n 20 "$2" 2>/dev/null | flat | awk -v t="$1" '{ print "log\\t" t "\\t" $0 }'; }
d=$(mktemp -d 2>/dev/null) || { printf 'error\\t%s\\n' 'mktemp -d failed on the head'; exit 1; }
trap 'rm -rf "$d"' EXIT
`

/** One background `ssh <worker> <remote>` per worker (args: port user host, for each), each reading FIFO `$d/f<i>`. */
export const fanToWorkersSh = (remote: string): string => `${FABRIC_SSH_SH}i=0
while [ "$i" -lt "$n" ]; do
  i=$((i + 1))
  p=$1; u=$2; h=$3
  printf '%s\\n' "$h" >"$d/ip$i"
  mkfifo "$d/f$i" || { printf 'error\\t%s\\n' "mkfifo failed in $d"; exit 1; }
  (
    shift $((3 * (n - i + 1)))
    fssh "$d/w$i.err" "$@" -p "$p" -l "$u" "$h" ${remote} <"$d/f$i" >"$d/w$i.log"
    echo "$?" >"$d/w$i.rc"
    cat "$d/w$i.err" >>"$d/w$i.log"
  ) &
  shift 3
done
`

/** After the head's own part (exit status in `rc`): wait for the workers, print `relay\thost\texit` for each, then `end`. */
export const FAN_REPORT_SH = `wait
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

/**
 * argv: the FIFO paths. stdin into every one of them, each through its own bounded queue (32 MiB,
 * 1 MiB reads shared by all queues, never copied): a writer thread per target, the reader waits
 * only while some live target's queue is full. A target whose reader went away is dropped; when
 * every target is gone the fan stops reading (exit 1), so the sender sees the stream end.
 * The bytes cross one process once, where `tee` (8 KiB reads) and a buffer process per target
 * (RELAY_BUFFER_PY before) copied them three times.
 */
export const RELAY_FAN_PY = `import collections, os, sys, threading
LIMIT, CHUNK = 32 << 20, 1 << 20
try:
    import fcntl
except ImportError:
    fcntl = None
def grow(fd):
    try:
        fcntl.fcntl(fd, 1031, CHUNK)  # F_SETPIPE_SZ (Linux): fewer, larger reads and writes
    except Exception:
        pass
cv = threading.Condition()
class Target:
    def __init__(self, path):
        self.path, self.q, self.size, self.eof, self.dead = path, collections.deque(), 0, False, False
def drain(t):
    try:
        fd = os.open(t.path, os.O_WRONLY)
    except OSError:
        fd = -1
    grow(fd)
    while True:
        with cv:
            while not t.q and not t.eof:
                cv.wait()
            if not t.q:
                break
            b = t.q.popleft()
            t.size -= len(b)
            cv.notify_all()
        try:
            if fd < 0:
                raise OSError("not open")
            m = memoryview(b)
            while m:
                m = m[os.write(fd, m):]
        except OSError:
            with cv:
                t.dead, t.size = True, 0
                t.q.clear()
                cv.notify_all()
            break
    if fd >= 0:
        os.close(fd)
targets = [Target(p) for p in sys.argv[1:]]
threads = [threading.Thread(target=drain, args=(t,)) for t in targets]
for th in threads:
    th.start()
grow(0)
gone = False
while True:
    with cv:
        while any(not t.dead and t.size >= LIMIT for t in targets):
            cv.wait()
        if all(t.dead for t in targets):
            gone = True
            break
    b = os.read(0, CHUNK)
    if not b:
        break
    with cv:
        for t in targets:
            if not t.dead:
                t.q.append(b)
                t.size += len(b)
        cv.notify_all()
with cv:
    for t in targets:
        t.eof = True
    cv.notify_all()
for th in threads:
    th.join()
sys.exit(1 if gone else 0)
`

export const RELAY_FAN_OUT_SCRIPT = `set -u
FANPY=$(cat <<'PYEOF'
${RELAY_FAN_PY}PYEOF
)
pref=$1; n=$2; shift 2
${FAN_HELPERS_SH}trap 'exit 143' TERM INT HUP
if [ "$n" -eq 0 ]; then
  docker load >"$d/head.log" 2>&1; rc=$?
  printf 'relay\\thead\\t%s\\n' "$rc"; [ "$rc" -eq 0 ] || logs head "$d/head.log"
  printf 'end\\n'; exit "$rc"
fi
command -v ssh >/dev/null 2>&1 || { printf 'error\\t%s\\n' 'ssh is not installed on the head'; exit 1; }
${fanToWorkersSh('docker load')}if python3 -c 'import threading' >/dev/null 2>&1; then
  mkfifo "$d/h" || { printf 'error\\t%s\\n' "mkfifo failed in $d"; exit 1; }
  docker load <"$d/h" >"$d/head.log" 2>&1 &
  hp=$!
  python3 -c "$FANPY" "$d/h" "$d"/f*
  wait "$hp"; rc=$?
else
  # -p (GNU coreutils 8.24+): go on past a reader that went away. A tee without it (busybox) still
  # relays; only a target that fails mid-stream then ends the copy for all.
  if tee -p </dev/null >/dev/null 2>&1; then teeopt=-p; else teeopt=; fi
  tee $teeopt "$d"/f* | docker load >"$d/head.log" 2>&1
  rc=$?
fi
${FAN_REPORT_SH}`

/** On the head, stdin = the runner's `docker save`: load it here and into every worker at once. */
export function relayFanOut(m: Manifest, workers: readonly ManifestNode[]): Argv {
  const triples = workers.flatMap((w) => {
    const t = fabricSshTarget(m, w)
    return [String(t.port), t.user, t.ip]
  })
  return shScript(RELAY_FAN_OUT_SCRIPT, fabricCiphers(m), String(workers.length), ...triples, ...RELAY_SSH_OPTIONS)
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
