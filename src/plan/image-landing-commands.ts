/**
 * `image.distribution: relay`, landed first (issue 40). A `docker load` fed by a stream is bound by
 * the stream: dockerd untars the whole archive into a temp directory before it registers a layer
 * (moby's image/tarexport Load: `os.MkdirTemp("", "docker-import-")`, then `Untar(inTar, tmpDir)`),
 * so a streamed load is the transfer, with sshd's decryption and dockerd's untar taking turns on the
 * same cores, and then the load proper. Landed first, the archive crosses the link into a file on
 * every node at once (the head writes its file and passes the same bytes on to each worker, which
 * writes its own), each receiver hashing the bytes as it writes them; then every node runs
 * `docker load -i` from its own file at once, and the file is removed.
 *
 * The runner frames its `docker save` stream (LANDING_FRAME) and ends it with the SHA-256 and the
 * size of the archive: a receiver keeps its file only when the end mark came and both agree with
 * what it wrote. A stream cut anywhere (the runner cancelled, a connection lost, the head's
 * receiver killed) ends without the mark, and every receiver removes its file; a receiver stopped
 * by a signal removes it too.
 */
import { createHash } from 'node:crypto'
import { type Argv, render, shScript, argv } from '../command/shell.js'
import type { Manifest, ManifestNode } from '../manifest/schema.js'
import { FAN_HELPERS_SH, FAN_REPORT_SH, RELAY_SSH_OPTIONS, fabricCiphers, fabricSshTarget, fanToWorkersSh } from './relay-commands.js'
import { clusterStateDir } from './release-commands.js'

/** The stream's frames: `D` + 4-byte big-endian length + that many bytes; at the end `E` + the 32-byte SHA-256 + the 8-byte size. */
export const LANDING_FRAME = { data: 0x44, end: 0x45, maxData: 0xffffffff } as const

/** Where the archive lands on every node: beside the release state (its disk), in a directory of its own. */
export const landingDir = (m: Manifest): string => `${clusterStateDir(m)}/image-landing`

/** The archive's file on every node: named by the image reference, so `plan` shows the same path the deploy uses. */
export const landedArchive = (m: Manifest, image: string): string => `${landingDir(m)}/${createHash('sha256').update(image).digest('hex').slice(0, 16)}.tar`

/**
 * The free space a landing needs: the image's size as docker reports it (a `docker save` archive is
 * that plus its tar headers and configs) with 10 % and 64 MiB to spare.
 */
export const landingNeeds = (imageBytes: number): number => imageBytes + Math.ceil(imageBytes / 10) + (64 << 20)

/**
 * Receives the framed stream on stdin into argv[1] (created 0600, truncated), hashing as it writes;
 * argv[2..]: FIFOs the frames are passed on to as read (a FIFO whose reader went away is dropped).
 * Exit 0 and `landed <size> <sha256>` on stdout only when the end mark came and the size and the
 * hash agree; otherwise (a cut stream, a wrong hash, a signal) the file is removed and the exit is
 * non-zero with the reason on stderr. No single quote in the text: it sits in a heredoc.
 */
export const LAND_PY = `import hashlib, os, queue, signal, struct, sys, threading
try:
    import fcntl
except ImportError:
    fcntl = None
CHUNK = 1 << 20
path = sys.argv[1]
fd = -1
def remove():
    try:
        os.unlink(path)
    except OSError:
        pass
def fail(why, code=1):
    remove()
    sys.stderr.write("landing " + path + ": " + why + "\\n")
    sys.stderr.flush()
    os._exit(code)
for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(s, lambda n, f: fail("stopped by signal %d" % n, 128 + n))
try:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
except OSError as e:
    fail("cannot create the file: %s" % e)
outs = []
for p in sys.argv[2:]:
    try:
        outs.append(os.open(p, os.O_WRONLY))
    except OSError:
        pass
for f in [0] + outs:
    try:
        fcntl.fcntl(f, 1031, CHUNK)  # F_SETPIPE_SZ (Linux): fewer, larger reads and writes
    except Exception:
        pass
h = hashlib.sha256()
work = queue.Queue(maxsize=16)
def hashing():
    while True:
        b = work.get()
        if b is None:
            return
        h.update(b)
hasher = threading.Thread(target=hashing, daemon=True)
hasher.start()
def write_all(f, b):
    m = memoryview(b)
    while m:
        m = m[os.write(f, m):]
def pass_on(*parts):
    for f in list(outs):
        try:
            for b in parts:
                write_all(f, b)
        except OSError:
            outs.remove(f)
            os.close(f)
def readn(n):
    parts = []
    while n > 0:
        b = os.read(0, min(n, CHUNK))
        if not b:
            fail("the stream ended before its end mark: the transfer was cut")
        parts.append(b)
        n -= len(b)
    return parts[0] if len(parts) == 1 else b"".join(parts)
size = 0
try:
    while True:
        t = readn(1)
        if t == b"D":
            head = readn(4)
            b = readn(struct.unpack(">I", head)[0])
            work.put(b)
            write_all(fd, b)
            pass_on(t, head, b)
            size += len(b)
        elif t == b"E":
            tail = readn(40)
            pass_on(t, tail)
            break
        else:
            fail("not a landing stream (frame %r)" % t)
except OSError as e:
    fail("write failed: %s" % e)
for f in outs:
    os.close(f)
work.put(None)
hasher.join()
os.close(fd)
want, total = tail[:32].hex(), struct.unpack(">Q", tail[32:])[0]
if total != size:
    fail("%d bytes written, the sender sent %d" % (size, total))
if h.hexdigest() != want:
    fail("SHA-256 %s, the sender sent %s" % (h.hexdigest(), want))
print("landed %d %s" % (size, want))
`

/**
 * The head's landing fan-out (POSIX sh). stdin: the runner's framed stream.
 *   $1 the fabric cipher preference, $2 the archive's path, $3 the workers' remote command line
 *   (LAND_PY into the same path, rendered by the one quoting function), $4 N, then N triples
 *   "port user ip", then the ssh option words.
 * Per worker `ssh <worker> <$3>` reads its own FIFO; one LAND_PY on the head writes the head's file
 * and passes every frame into the FIFOs. The records are RELAY_FAN_OUT_SCRIPT's (`relay <target>
 * <exit>`, `log`, `error`, `end`), so parseRelayFanOut reads both; an exit 0 means the target's
 * file is there and verified.
 */
export const LAND_FAN_OUT_SCRIPT = `set -u
LANDPY=$(cat <<'PYEOF'
${LAND_PY}PYEOF
)
pref=$1; file=$2; remote=$3; n=$4; shift 4
${FAN_HELPERS_SH}trap 'rm -f "$file"; exit 143' TERM INT HUP
if [ "$n" -gt 0 ]; then
  command -v ssh >/dev/null 2>&1 || { printf 'error\\t%s\\n' 'ssh is not installed on the head'; exit 1; }
fi
${fanToWorkersSh('"$remote"')}if [ "$n" -gt 0 ]; then
  python3 -c "$LANDPY" "$file" "$d"/f* >"$d/head.log" 2>&1; rc=$?
else
  python3 -c "$LANDPY" "$file" >"$d/head.log" 2>&1; rc=$?
fi
${FAN_REPORT_SH}`

/** On a worker, over the head's ssh: receive the framed stream into `file` (LAND_PY, no pass-on). */
export const landOnWorker = (file: string): Argv => argv('python3', '-c', LAND_PY, file)

/** On the head, stdin = the runner's framed `docker save`: land it here and on every worker at once. */
export function landFanOut(m: Manifest, workers: readonly ManifestNode[], file: string): Argv {
  const triples = workers.flatMap((w) => {
    const t = fabricSshTarget(m, w)
    return [String(t.port), t.user, t.ip]
  })
  return shScript(LAND_FAN_OUT_SCRIPT, fabricCiphers(m), file, render(landOnWorker(file)), String(workers.length), ...triples, ...RELAY_SSH_OPTIONS)
}

/**
 * On every node before a landing: make the landing directory, remove what an earlier landing that
 * was killed outright left there (a deploy holds the cluster's lock, so no other landing runs), and
 * say the free space under it and whether python3 (the receiver) works. Records: `free <bytes>`,
 * `python yes|no`, or `nodir`.
 */
export const LANDING_PROBE_SCRIPT = `mkdir -p "$1" 2>/dev/null && [ -w "$1" ] || { echo nodir; exit 0; }
rm -f "$1"/*.tar 2>/dev/null
k=$(df -Pk "$1" 2>/dev/null | awk 'NR == 2 { print $4 }')
case "$k" in ''|*[!0-9]*) ;; *) echo "free $((k * 1024))" ;; esac
if python3 -c 'import hashlib, struct, threading' >/dev/null 2>&1; then echo 'python yes'; else echo 'python no'; fi
`
export const landingProbe = (m: Manifest): Argv => shScript(LANDING_PROBE_SCRIPT, landingDir(m))

export interface LandingProbe {
  /** Free bytes under the landing directory (absent: not read). */
  readonly freeBytes?: number
  readonly python: boolean
  /** The directory could be made and written. */
  readonly dir: boolean
}

export function parseLandingProbe(stdout: string): LandingProbe {
  const lines = stdout.split('\n').map((l) => l.trim())
  const free = lines.map((l) => /^free (\d+)$/.exec(l)?.[1]).find((v) => v !== undefined)
  return {
    ...(free !== undefined && { freeBytes: Number(free) }),
    python: lines.includes('python yes'),
    dir: !lines.includes('nodir') && lines.length > 0 && lines.some((l) => l.startsWith('python')),
  }
}

/** Why a node cannot take a landing of `needBytes`, or undefined when it can. */
export function landingRefused(p: LandingProbe, needBytes: number, dir: string): string | undefined {
  if (!p.dir) return `${dir} cannot be made or written`
  if (!p.python) return 'python3 (the receiver that hashes as it writes) does not work'
  if (p.freeBytes === undefined) return `the free space under ${dir} could not be read`
  if (p.freeBytes < needBytes) return `${(p.freeBytes / 1e6).toFixed(0)} MB free under ${dir}, the archive needs ${(needBytes / 1e6).toFixed(0)} MB`
  return undefined
}

/** On a node: `docker load -i` the landed archive, then remove it whatever the load did. */
export const loadLanded = (file: string): Argv => shScript('docker load -i "$1"; rc=$?; rm -f "$1"; exit "$rc"', file)

/** On a node: remove the landed archive (after a failure or a cancel: nothing half-done stays). */
export const removeLanded = (file: string): Argv => argv('rm', '-f', file)
