/**
 * The weights receiver's loop in Python (src/plan/weights-commands.ts runs it when the node's
 * python3 works; else its bash loop with `tee` and the node's `sha`). One process reads the stream
 * in 1 MiB reads and, per read, writes it to the file's `.partial`, feeds hashlib's SHA-256
 * (OpenSSL's: SHA-NI / ARMv8 SHA2, about 3× coreutils `sha256sum` on the lab) and, on the head,
 * writes it into every worker's FIFO. The bash loop moved each byte through `head -c`, `tee` and
 * `sha256sum` in 8 KiB pieces (three processes, two pipes); this reads it once. Same guarantees and
 * the same records as the bash loop (see RECEIVE_WEIGHTS_STREAM_SCRIPT): appended to `<file>.partial`
 * (its earlier bytes hashed first on a resume), renamed to `<file>` only when the size, the hash
 * computed here, the sender's (the 64 hex digits after the bytes) and the expected one (unless `-`)
 * agree; the node's `.vrd-verified` gets the file's line (`stat -c '%s %.9Y %.9Z %i'`'s format);
 * a short stream keeps the .partial, a wrong one is removed.
 *
 * Its first act, before it opens a FIFO or reads a byte: hashlib's SHA-256 of nothing checked (exit
 * 86 if wrong), then `ready` written to fd 3, which the script reads to know the stream is still
 * whole when python3 did not run (missing, broken, no working hashlib): it then falls back to the
 * bash loop. So no python3 is started only to choose the hasher.
 *
 * argv: dir, the node's record file name (.vrd-verified), the suffix of a file being received
 * (.partial), N, N FIFO paths (workers the whole stream is copied to as it is read; a FIFO whose
 * reader went away is dropped, as `tee -p` does), then per file: path size sha256 offset.
 * No single quote in the text: it sits in a heredoc.
 */
import { EMPTY_SHA256 } from './node-sha256.js'

export const RECEIVE_WEIGHTS_PY = `import hashlib, os, queue, sys, threading
try:
    import fcntl
except ImportError:
    fcntl = None
if hashlib.sha256(b"").hexdigest() != "${EMPTY_SHA256}":
    sys.exit(86)
try:
    os.write(3, b"ready")  # to the script: no byte of the stream read before this (else it falls back)
    os.close(3)
except OSError:
    pass
CHUNK = 1 << 20
a = sys.argv[1:]
top, verified, partial, nf = a[0], a[1], a[2], int(a[3])
outs = [os.open(p, os.O_WRONLY) for p in a[4:4 + nf]]
quads = a[4 + nf:]
for fd in [0] + outs:
    try:
        fcntl.fcntl(fd, 1031, CHUNK)  # F_SETPIPE_SZ (Linux): fewer, larger reads and writes
    except Exception:
        pass
work = queue.Queue(maxsize=16)

def hashing():
    """SHA-256 beside the reads and writes (hashlib lets go of the GIL): (hash, bytes), or (event, None) to say done."""
    while True:
        h, b = work.get()
        if b is None:
            h.set()
        else:
            h.update(b)

threading.Thread(target=hashing, daemon=True).start()

def digest(h):
    done = threading.Event()
    work.put((done, None))
    done.wait()
    return h.hexdigest()

def pass_on(b):
    for fd in list(outs):
        try:
            while b:
                b = b[os.write(fd, b):]
        except OSError:
            outs.remove(fd)
            os.close(fd)

def read(n):
    """Up to n bytes of the stream (none only at its end), passed on as read."""
    b = os.read(0, min(n, CHUNK))
    if b:
        pass_on(b)
    return b

def skip(n):
    while n > 0:
        b = read(n)
        if not b:
            return
        n -= len(b)

def take(n):
    out = b""
    while len(out) < n:
        b = read(n - len(out))
        if not b:
            break
        out += b
    return out

def say(*f):
    sys.stdout.write("\\t".join(str(x) for x in f) + "\\n")
    sys.stdout.flush()

def stamp(ns):
    return "%d.%09d" % divmod(ns, 1000000000)

def receive(rel, size, want, off):
    f = os.path.join(top, rel)
    p = f + partial
    n = size - off
    try:
        os.makedirs(os.path.dirname(f), exist_ok=True)
        if off == 0:
            open(p, "wb").close()
    except OSError:
        skip(n + 64)
        return say("fail", rel, "cannot write " + p)
    have = os.stat(p).st_size if os.path.exists(p) else 0
    if have != off:
        skip(n + 64)
        return say("fail", rel, "%s holds %d bytes but the sender starts at %d" % (p, have, off))
    h = hashlib.sha256()
    try:
        with open(p, "rb") as old:
            for b in iter(lambda: old.read(CHUNK), b""):
                work.put((h, b))
        fd = os.open(p, os.O_WRONLY | os.O_APPEND)
    except OSError:
        skip(n + 64)
        return say("fail", rel, "cannot write " + p)
    left = n
    while left > 0:
        b = read(left)
        if not b:
            break
        left -= len(b)
        work.put((h, b))
        try:
            m = memoryview(b)
            while fd >= 0 and m:
                m = m[os.write(fd, m):]
        except OSError:
            os.close(fd)
            fd = -1  # the rest is read and hashed, not written: the file ends short
    if fd >= 0:
        os.close(fd)
    sum_, sent = digest(h), take(64).decode("ascii", "replace")
    now = os.stat(p).st_size if os.path.exists(p) else 0
    got = now - off
    if now < size:
        if now == 0:
            os.remove(p)
        return say("short", rel, got)
    if now == size and sum_ == sent and want in ("-", sum_):
        try:
            os.replace(p, f)
        except OSError:
            pass
        else:
            st = os.stat(f)
            try:
                with open(os.path.join(top, verified), "a") as rec:
                    rec.write("%d %s %s %d\\t%s\\t%s\\n" % (st.st_size, stamp(st.st_mtime_ns), stamp(st.st_ctime_ns), st.st_ino, sum_, rel))
            except OSError:
                pass
            return say("ok", rel, got, sum_)
    try:
        os.remove(p)
    except OSError:
        pass
    say("bad", rel, got, sum_, sent)

for i in range(0, len(quads) - 3, 4):
    receive(quads[i], int(quads[i + 1]), quads[i + 2], int(quads[i + 3]))
while outs and read(CHUNK):
    pass
`
