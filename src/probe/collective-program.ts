/**
 * The fabric collective: a small all-reduce run in the release's own image on every node at once
 * (one rank per node, `--network host`, the release's env), so the fabric is tested the way vLLM's
 * workers will use it: the rendezvous on the head's fabric IP, the data ports between the nodes,
 * the interface NCCL_SOCKET_IFNAME / GLOO_SOCKET_IFNAME pick, and for NCCL the transport it chooses.
 *
 * - torch in the image with CUDA: `torch.distributed` with backend `nccl` (NCCL_DEBUG=INFO, so its
 *   init lines say which network it chose; src/preflight/nccl-init.ts reads them).
 * - torch without CUDA: backend `gloo`.
 * - no torch (the lab's vLLM stand-in carries none: a CPU torch is not on PyPI and the CUDA one is
 *   3 GB per node image, src/lab/workload/README.md): the same shape in the standard library, a
 *   TCP rendezvous on the head's port (as torch's TCPStore: rank 0 serves it, every rank registers
 *   the address of its own listening socket, on an ephemeral port of its fabric IP as Gloo's pairs
 *   do) and a ring all-reduce (reduce-scatter, then all-gather) over one TCP connection to each
 *   neighbour. It reports `impl: "stdlib"`, never claims to be Gloo.
 *
 * Every path prints one line `VRD_COLLECTIVE {json}` on stdout at the end; a watchdog prints a
 * failed one when the whole run exceeds its time (a hang: an MTU mismatch, a port dropped), naming
 * the stage it hung in, and exits. What comes back is a document from outside: the zod schema
 * below checks it.
 */
import { z } from 'zod'

export const COLLECTIVE_MARK = 'VRD_COLLECTIVE '

/** The stdlib path's buffer at most (its adds are pure Python). */
export const STDLIB_MAX_BYTES = 4 * 1024 * 1024

/** What the program is told, as its one argument (JSON). */
export interface CollectiveArgs {
  readonly rank: number
  readonly world: number
  /** The head's fabric IP and the rendezvous port on it. */
  readonly addr: string
  readonly port: number
  /** This node's fabric IP (the stdlib path listens there). */
  readonly ip: string
  /** Bytes of the all-reduced buffer (float32 / uint32 lanes). */
  readonly bytes: number
  readonly iters: number
  /** Seconds each wait may take (rendezvous, a connection, an all-reduce); the whole run is bounded by `collectiveWholeSeconds`. */
  readonly timeout: number
}

/** The program's watchdog: the whole run, after which it reports a hang and exits. */
export const collectiveWholeSeconds = (timeout: number): number => 2 * timeout + 5

export const COLLECTIVE_PY = `import json, os, socket, struct, sys, threading, time
A = json.loads(sys.argv[1])
rank, world, addr, port, ip = A["rank"], A["world"], A["addr"], A["port"], A["ip"]
nbytes, iters, tmo = A["bytes"], A["iters"], A["timeout"]
state = {"stage": "start", "done": False}
lock = threading.Lock()
def out(d):
    with lock:
        if state["done"]:
            return
        state["done"] = True
        d.update({"rank": rank, "world": world})
        sys.stderr.flush()
        sys.stdout.write("${COLLECTIVE_MARK}" + json.dumps(d) + "\\n")
        sys.stdout.flush()
def stage(s):
    state["stage"] = s
    sys.stderr.write("vrd-collective: rank %d: %s\\n" % (rank, s))
    sys.stderr.flush()
# Each wait is bounded by tmo and reports what it waited for; the watchdog bounds the whole run
# (a wait that never returns, as NCCL's on a dropped large message) after them.
whole = 2 * tmo + 5
def watchdog():
    time.sleep(whole)
    out({"ok": False, "stage": state["stage"], "error": "no result within %d s (hung in %s)" % (whole, state["stage"]), "hang": True})
    os._exit(3)
threading.Thread(target=watchdog, daemon=True).start()
def fail(e, **kw):
    d = {"ok": False, "stage": state["stage"], "error": (type(e).__name__ + ": " + str(e))[:600]}
    d.update(kw)
    out(d)
    os._exit(2)
def result(backend, impl, seconds):
    algbw = nbytes / seconds / 1e9 if seconds > 0 else None
    bus = algbw * 2 * (world - 1) / world if algbw is not None else None
    out({"ok": True, "backend": backend, "impl": impl, "bytes": nbytes, "iters": iters, "seconds": seconds, "algbwGBps": algbw, "busbwGBps": bus})
try:
    import torch
    import torch.distributed as dist
except ImportError:
    torch = None
if torch is not None:
    import datetime
    try:
        stage("init")
        cuda = torch.cuda.is_available()
        backend = "nccl" if cuda else "gloo"
        if cuda:
            torch.cuda.set_device(0)
        dist.init_process_group(backend, init_method="tcp://%s:%d" % (addr, port), rank=rank, world_size=world, timeout=datetime.timedelta(seconds=tmo))
        x = torch.ones(nbytes // 4, dtype=torch.float32, device="cuda" if cuda else "cpu")
        sync = torch.cuda.synchronize if cuda else (lambda: None)
        stage("first all_reduce")
        dist.all_reduce(x)
        sync()
        if not bool((x == world).all()):
            raise RuntimeError("all_reduce gave a wrong sum: %s, not %d" % (x[0].item(), world))
        stage("timed all_reduce")
        t = time.time()
        for _ in range(iters):
            dist.all_reduce(x)
        sync()
        secs = (time.time() - t) / iters
        stage("done")
        result(backend, "torch " + torch.__version__, secs)
        dist.destroy_process_group()
    except Exception as e:
        fail(e)
    sys.exit(0)
def recv_exact(s, n):
    b = bytearray(n)
    v = memoryview(b)
    got = 0
    while got < n:
        k = s.recv_into(v[got:], n - got)
        if k == 0:
            raise ConnectionError("connection closed by the peer after %d of %d bytes" % (got, n))
        got += k
    return b
def connect(host, p, who):
    deadline = time.time() + tmo
    while True:
        try:
            return socket.create_connection((host, p), timeout=max(1, deadline - time.time()))
        except ConnectionRefusedError as e:
            if time.time() >= deadline:
                fail(e, peer={"rank": who, "addr": "%s:%d" % (host, p)})
            time.sleep(0.2)
        except OSError as e:
            fail(e, peer={"rank": who, "addr": "%s:%d" % (host, p)})
try:
    stage("rendezvous")
    data = socket.socket()
    data.bind((ip, 0))
    data.listen(4)
    me = "%s:%d" % (ip, data.getsockname()[1])
    if rank == 0:
        srv = socket.socket()
        srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        srv.bind((addr, port))
        srv.listen(world)
        srv.settimeout(tmo)
        table, conns = {0: me}, []
        while len(table) < world:
            try:
                c, _ = srv.accept()
            except socket.timeout:
                raise TimeoutError("rendezvous: %d/%d ranks joined within %d s; missing ranks %s" % (len(table), world, tmo, sorted(set(range(world)) - set(table))))
            c.settimeout(tmo)
            r, a = recv_exact(c, 64).decode().rstrip().split(" ")
            table[int(r)] = a
            conns.append(c)
        doc = json.dumps(table).encode().ljust(4096)
        for c in conns:
            c.sendall(doc)
            c.close()
    else:
        c = connect(addr, port, 0)
        c.settimeout(tmo)
        c.sendall(("%d %s" % (rank, me)).encode().ljust(64))
        table = {int(k): v for k, v in json.loads(bytes(recv_exact(c, 4096)).decode()).items()}
        c.close()
    right, left = (rank + 1) % world, (rank - 1) % world
    nxt = None
    if world > 1:
        stage("connect")
        h, p = table[right].rsplit(":", 1)
        nxt = connect(h, int(p), right)
        nxt.settimeout(tmo)
        data.settimeout(tmo)
        try:
            prv, _ = data.accept()
        except socket.timeout:
            raise TimeoutError("no connection from rank %d (%s) to %s within %d s" % (left, table[left], me, tmo))
        prv.settimeout(tmo)
    # Pure Python adds on the CPU: a few MiB keep it to seconds; its bandwidth measures the CPU as much as the link.
    n = min(nbytes, ${STDLIB_MAX_BYTES}) // (4 * world) * 4
    total = n * world
    def allreduce(buf):
        if world == 1:
            return buf
        ch = [bytes(buf[i * n:(i + 1) * n]) for i in range(world)]
        for phase in ("reduce", "gather"):
            for s in range(world - 1):
                si = (rank - s + (1 if phase == "gather" else 0)) % world
                ri = (rank - s - 1 + (1 if phase == "gather" else 0)) % world
                err = []
                def send():
                    try:
                        nxt.sendall(ch[si])
                    except Exception as e:
                        err.append(e)
                th = threading.Thread(target=send)
                th.start()
                got = recv_exact(prv, n)
                th.join()
                if err:
                    raise err[0]
                if phase == "reduce":
                    ch[ri] = (int.from_bytes(ch[ri], "little") + int.from_bytes(got, "little")).to_bytes(n, "little")
                else:
                    ch[ri] = bytes(got)
        return b"".join(ch)
    stage("first all_reduce")
    one = struct.pack("<I", 1) * (total // 4)
    if allreduce(one) != struct.pack("<I", world) * (total // 4):
        raise RuntimeError("all_reduce gave a wrong sum")
    stage("timed all_reduce")
    t = time.time()
    for _ in range(iters):
        allreduce(one)
    secs = (time.time() - t) / iters
    stage("done")
    nbytes = total
    result("tcp", "stdlib", secs)
except Exception as e:
    fail(e)
`

const text = (max: number) => z.string().max(max)
const num = z.number().finite()

/** Which of the program's paths ran, in words, from its own line: `NCCL (torch 2.9.0)`, `Gloo (torch …)`, `stdlib TCP ring`. */
export function collectivePath(line: { readonly backend?: string | undefined; readonly impl?: string | undefined }): string {
  const torch = line.impl?.startsWith('torch ') ? ` (${line.impl})` : ''
  if (line.backend === 'nccl') return `NCCL${torch}`
  if (line.backend === 'gloo') return `Gloo${torch}`
  if (line.impl === 'stdlib' || line.backend === 'tcp') return 'stdlib TCP ring'
  return line.impl ?? line.backend ?? 'unknown path'
}

/** Bytes as the reports say them: `64 MiB`, `4 MiB`, `1.5 MiB`. */
export const mib = (bytes: number): string => {
  const v = bytes / 2 ** 20
  return `${Number.isInteger(v) ? v : v.toFixed(v < 10 ? 2 : 1)} MiB`
}

/** The one line the program prints. */
export const CollectiveLineSchema = z
  .object({
    ok: z.boolean(),
    rank: z.number().int().min(0),
    world: z.number().int().min(1),
    stage: text(100).optional(),
    error: text(1000).optional(),
    hang: z.boolean().optional(),
    peer: z
      .object({ rank: z.number().int().min(0), addr: text(100) })
      .strict()
      .optional(),
    backend: text(40).optional(),
    impl: text(100).optional(),
    bytes: num.optional(),
    iters: num.optional(),
    seconds: num.optional(),
    algbwGBps: num.nullable().optional(),
    busbwGBps: num.nullable().optional(),
  })
  .strict()
  .readonly()
export type CollectiveLine = z.output<typeof CollectiveLineSchema>

/** The program's line in a rank's output (the last one), or why there is none. */
export function readCollectiveLine(output: string): { readonly line?: CollectiveLine; readonly error?: string } {
  const raw = output
    .split('\n')
    .filter((l) => l.startsWith(COLLECTIVE_MARK))
    .pop()
  if (raw === undefined) return { error: 'no result line' }
  let doc: unknown
  try {
    doc = JSON.parse(raw.slice(COLLECTIVE_MARK.length))
  } catch {
    return { error: 'its result line is not JSON' }
  }
  const r = CollectiveLineSchema.safeParse(doc)
  return r.success ? { line: r.data } : { error: `its result line does not match: ${r.error.issues[0]?.message ?? 'invalid'}` }
}
