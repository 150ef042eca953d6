"""Drive real vLLM through the scenarios of issue 37 and keep everything it printed and served.

    python3 run.py OUTDIR BATCH [BATCH ...]      (BATCH: A, B or C; see BATCHES at the end)

Each scenario gets OUTDIR/<scenario>/: command.txt (the exact argv and the environment it added),
server.log (stdout and stderr together, as vLLM printed them), outcome.json (ready/exited/killed,
seconds, exit code) and, for a served model, http/<name>.{request,response}.http with the raw bytes."""

import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # nothing to clean up in the checkout
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rawhttp  # noqa: E402

OUT = sys.argv[1]
MODEL = os.environ.get("TINY_MODEL", "/tmp/tiny-llama")
SERVED = "tiny-llama"
HOST = "127.0.0.1"
T0 = time.monotonic()


def vllm_cmd():
    return ["vllm"] if shutil.which("vllm") else [sys.executable, "-m", "vllm.entrypoints.cli.main"]


def ray_cmd():
    return ["ray"] if shutil.which("ray") else [sys.executable, "-m", "ray.scripts.scripts"]


def log(msg):
    print(f"[{time.monotonic() - T0:7.1f}s] {msg}", flush=True)


class Proc:
    def __init__(self, scen, argv, env=None, name="server"):
        self.dir = os.path.join(OUT, scen)
        os.makedirs(self.dir, exist_ok=True)
        self.name, self.argv, self.scen = name, argv, scen
        self.env_extra = env or {}
        with open(os.path.join(self.dir, f"command-{name}.txt" if name != "server" else "command.txt"), "w") as f:
            f.write(" ".join(f"{k}={shlex.quote(v)}" for k, v in self.env_extra.items()))
            f.write((" " if self.env_extra else "") + " ".join(shlex.quote(a) for a in argv) + "\n")
        self.logf = open(os.path.join(self.dir, f"{name}.log"), "wb")
        self.t = time.monotonic()
        self.p = subprocess.Popen(
            argv, stdout=self.logf, stderr=subprocess.STDOUT, env={**os.environ, **self.env_extra}, start_new_session=True
        )
        log(f"{scen}/{name}: started pid {self.p.pid}: {' '.join(argv)}")

    def elapsed(self):
        return round(time.monotonic() - self.t, 1)

    def stop(self, how="SIGTERM", grace=25, group=True):
        if self.p.poll() is None:
            try:
                self.p.send_signal(signal.SIGTERM if how == "SIGTERM" else signal.SIGINT)
                self.p.wait(grace)
            except subprocess.TimeoutExpired:
                pass
        if self.p.poll() is None:
            how += "+SIGKILL"
        try:  # whatever the process group left (engine core, workers): ours, started in its own session
            if group:
                os.killpg(self.p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            self.p.wait(10)
        except subprocess.TimeoutExpired:
            pass
        self.logf.close()
        return how

    def outcome(self, **kw):
        rec = {"scenario": self.scen, "process": self.name, "seconds": self.elapsed(), "returncode": self.p.returncode, **kw}
        with open(os.path.join(self.dir, f"outcome-{self.name}.json" if self.name != "server" else "outcome.json"), "w") as f:
            json.dump(rec, f, indent=1)
        log(f"{self.scen}/{self.name}: {rec}")
        return rec


def serve(scen, port, extra, env=None, model=MODEL, name="server"):
    argv = vllm_cmd() + ["serve", model, "--port", str(port)] + extra
    return Proc(scen, argv, env, name)


def wait(proc, port, timeout):
    """Until /health answers 200, the process exits or timeout: 'ready', 'exited' or 'timeout'."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.p.poll() is not None:
            return "exited"
        if port and rawhttp.status_of(HOST, port, "/health") == 200:
            return "ready"
        time.sleep(1)
    return "timeout"


def finish(p, port, timeout, note=None):
    state = wait(p, port, timeout)
    how = None if state == "exited" else p.stop()
    return p.outcome(state=state, stopped_by=how, **({"note": note} if note else {}))


def parallel(items):
    """items: (proc, port, timeout): watch them together, each until it exits, is ready or its time is up."""
    start = time.monotonic()
    pending = {i: (p, port, start + t) for i, (p, port, t) in enumerate(items)}
    states = {}
    while pending:
        for i, (p, port, end) in list(pending.items()):
            if p.p.poll() is not None:
                states[i] = "exited"
            elif port and rawhttp.status_of(HOST, port, "/health", timeout=1.0) == 200:
                states[i] = "ready"
            elif time.monotonic() > end:
                states[i] = "timeout"
            else:
                continue
            del pending[i]
            how = None if states[i] == "exited" else p.stop()
            p.outcome(state=states[i], stopped_by=how)
        time.sleep(1)
    return states


def ray(scen, args, name, env=None):
    p = Proc(scen, ray_cmd() + args, env, name)
    try:
        p.p.wait(120)
    except subprocess.TimeoutExpired:
        pass
    # `ray start` leaves the cluster's daemons running: never kill its process group
    return p.outcome(state="exited" if p.p.poll() is not None else "timeout", stopped_by=p.stop(group=args[0] != "start"))


def endpoints(scen, port, full=True):
    d = os.path.join(OUT, scen, "http")
    s = lambda name, method, path, **k: rawhttp.save(d, name, HOST, port, method, path, **k)  # noqa: E731
    s("health", "GET", "/health")
    s("metrics-before", "GET", "/metrics")
    s("version", "GET", "/version")
    s("models", "GET", "/v1/models")
    comp = {"model": SERVED, "max_tokens": 16, "temperature": 0, "seed": 0}
    s("completion", "POST", "/v1/completions", body={**comp, "prompt": "Hello, my name is"})
    chat = {**comp, "messages": [{"role": "user", "content": "Say hello in one word."}]}
    s("chat", "POST", "/v1/chat/completions", body=chat)
    streamed = {"stream": True, "stream_options": {"include_usage": True}}
    s("completion-stream", "POST", "/v1/completions", body={**comp, **streamed, "prompt": "Hello, my name is"})
    s("chat-stream", "POST", "/v1/chat/completions", body={**chat, **streamed})
    if full:
        s("completion-ignore-eos", "POST", "/v1/completions", body={**comp, "prompt": "The capital of France is", "max_tokens": 32, "ignore_eos": True})
        s("error-unknown-model", "POST", "/v1/completions", body={**comp, "model": "no-such-model", "prompt": "Hi"})
        s("error-too-long", "POST", "/v1/completions", body={**comp, "prompt": "Hi", "max_tokens": 100000})
        s("error-bad-json", "POST", "/v1/chat/completions", raw_body=b'{"model": "tiny-llama", "messages": [')
        s("error-missing-field", "POST", "/v1/chat/completions", body={"model": SERVED})
        s("error-stream-unknown-model", "POST", "/v1/chat/completions", body={**chat, **streamed, "model": "no-such-model"})
        s("not-found", "GET", "/v1/nothing-here")
        s("ping", "GET", "/ping")
        s("load", "GET", "/load")
    time.sleep(2)
    s("metrics-after", "GET", "/metrics")


def healthy(scen, port, extra, env=None, ready_timeout=360, during=None):
    p = serve(scen, port, ["--served-model-name", SERVED] + extra, env)
    state = wait(p, port, ready_timeout)
    log(f"{scen}: {state} after {p.elapsed()} s")
    ready_s = p.elapsed()
    if state == "ready":
        endpoints(scen, port)
        if during:
            during()
    how = p.stop()
    return p.outcome(state=state, ready_seconds=ready_s, stopped_by=how)


# ---------------------------------------------------------------- batches

def batch_a1():
    # 1. start-up failures that come before the GPU (run together; nothing else runs on the GPU yet)
    blocker = socket.socket()
    blocker.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    blocker.bind(("0.0.0.0", 8105))
    blocker.listen(1)
    with open(os.path.join(OUT, "blocker.txt"), "w") as f:
        f.write("port 8105 held by a plain listening socket (python: bind 0.0.0.0:8105, listen) before vllm serve --port 8105\n")
    items = [
        (serve("port-in-use", 8105, ["--served-model-name", SERVED]), 8105, 150),
        (serve("missing-model-offline", 8106, [], {"HF_HUB_OFFLINE": "1"}, model="acme-org/no-such-model-7b"), 8106, 150),
        (serve("max-model-len-too-long", 8107, ["--served-model-name", SERVED, "--max-model-len", "1000000"]), 8107, 150),
        (serve("tp-larger-than-gpus-mp", 8108, ["--served-model-name", SERVED, "-tp", "2"]), 8108, 150),
    ]
    parallel(items)
    blocker.close()
    shutil.move(os.path.join(OUT, "blocker.txt"), os.path.join(OUT, "port-in-use", "blocker.txt"))


def batch_h():
    # 2. the healthy server, alone on the GPU (its own batch: it matters most, so it runs first)
    healthy("healthy-default", 8101, ["--gpu-memory-utilization", "0.15"])


def batch_a2():
    # 3. failures at load and at the memory check
    for name, cut in (("corrupt-safetensors-truncated", "truncate"), ("corrupt-safetensors-header", "header")):
        d = f"/tmp/{name}"
        shutil.copytree(MODEL, d, dirs_exist_ok=True)
        st = os.path.join(d, "model.safetensors")
        if cut == "truncate":
            os.truncate(st, os.path.getsize(st) // 2)
        else:
            with open(st, "r+b") as f:
                f.write(b"\xff" * 8 + b"garbage!")
        os.makedirs(os.path.join(OUT, name), exist_ok=True)
        with open(os.path.join(OUT, name, "corruption.txt"), "w") as f:
            f.write({"truncate": "model.safetensors truncated to half its size (os.truncate)\n",
                     "header": "model.safetensors: first 16 bytes overwritten with b'\\xff'*8 + b'garbage!' (header length)\n"}[cut])
    parallel([
        (serve("corrupt-safetensors-truncated", 8109, ["--served-model-name", SERVED, "--enforce-eager", "--gpu-memory-utilization", "0.1"], model="/tmp/corrupt-safetensors-truncated"), 8109, 200),
        (serve("corrupt-safetensors-header", 8110, ["--served-model-name", SERVED, "--enforce-eager", "--gpu-memory-utilization", "0.1"], model="/tmp/corrupt-safetensors-header"), 8110, 200),
    ])
    parallel([(serve("gpu-memory-utilization-too-low", 8111, ["--served-model-name", SERVED, "--gpu-memory-utilization", "0.01"]), 8111, 240)])


def ray_status(scen, name):
    ray(scen, ["status", "-v"], name)


def batch_b():
    env = {"RAY_USAGE_STATS_ENABLED": "0"}
    ray("ray-head", ["start", "--head", "--node-ip-address", "127.0.0.1", "--port", "6379", "--num-gpus", "1",
                     "--include-dashboard=false", "--disable-usage-stats"], "ray-start", env)
    ray_status("ray-head", "ray-status-idle")
    ray_env = {"VLLM_HOST_IP": "127.0.0.1", "RAY_ADDRESS": "127.0.0.1:6379"}
    healthy("healthy-ray", 8201, ["--gpu-memory-utilization", "0.15", "--distributed-executor-backend", "ray"], ray_env,
            during=lambda: ray_status("healthy-ray", "ray-status-serving"))
    ray_status("healthy-ray", "ray-status-after")
    p = serve("tp-larger-than-gpus-ray", 8203, ["--served-model-name", SERVED, "-tp", "2", "--distributed-executor-backend", "ray"], ray_env)
    state = wait(p, 8203, 45)
    if state != "exited":
        ray_status("tp-larger-than-gpus-ray", "ray-status-waiting")
        state = wait(p, 8203, 30)
    p.outcome(state=state, stopped_by=None if state == "exited" else p.stop())
    # The seed bug. In 0.24 only the classic executor (VLLM_USE_RAY_V2_EXECUTOR_BACKEND=0) pins bundle 0 to
    # node:<get_ip()> (ray_utils.initialize_ray_cluster, require_gpu_on_driver=True); the V2 executor, the
    # default there, passes require_gpu_on_driver=False: capture both.
    for scen, port, v2 in (("seed-bug-placement-group", 8202, "0"), ("seed-bug-v2-default", 8205, None)):
        seed = {"VLLM_HOST_IP": "127.0.0.2", "RAY_ADDRESS": "127.0.0.1:6379", **({"VLLM_USE_RAY_V2_EXECUTOR_BACKEND": v2} if v2 else {})}
        p = serve(scen, port, ["--served-model-name", SERVED, "--distributed-executor-backend", "ray",
                               "--gpu-memory-utilization", "0.15"], seed)
        state = wait(p, port, 50)
        if state == "timeout":
            ray_status(scen, "ray-status-waiting")
            state = wait(p, port, 25)
        if state == "ready":
            endpoints(scen, port, full=False)
        p.outcome(state=state, stopped_by=None if state == "exited" else p.stop(),
                  note="Ray's only node is 127.0.0.1 (ray start --node-ip-address 127.0.0.1); VLLM_HOST_IP=127.0.0.2")
    ray("ray-head", ["stop", "--force"], "ray-stop")


def batch_c():
    nccl = {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1", "NVSHMEM_DISABLE_NVLS": "1"}
    nn = lambda rank, addr, port: ["--served-model-name", SERVED, "-tp", "2", "--nnodes", "2", "--node-rank", str(rank),  # noqa: E731
                                   "--master-addr", addr, "--master-port", str(port), "--gpu-memory-utilization", "0.1"]
    a = serve("native-missing-rank", 8301, nn(0, "127.0.0.1", 29511), nccl)
    b = serve("native-wrong-master", 8302, nn(1, "127.0.0.3", 29512) + ["--headless"], nccl)
    c = serve("native-master-not-local", 8303, nn(0, "10.255.255.1", 29513), nccl)
    d0 = serve("native-two-ranks-one-gpu", 8304, nn(0, "127.0.0.1", 29514), {**nccl, "CUDA_VISIBLE_DEVICES": "0"}, name="rank0")
    d1 = serve("native-two-ranks-one-gpu", 8305, nn(1, "127.0.0.1", 29514) + ["--headless"], {**nccl, "CUDA_VISIBLE_DEVICES": "0"}, name="rank1")
    parallel([(a, 8301, 90), (b, None, 90), (c, 8303, 90), (d0, 8304, 150), (d1, None, 150)])


def batch_d():
    """Ray with no VLLM_HOST_IP: what get_ip() finds on this machine against Ray's 127.0.0.1."""
    ray("ray-head-d", ["start", "--head", "--node-ip-address", "127.0.0.1", "--port", "6379", "--num-gpus", "1",
                       "--include-dashboard=false", "--disable-usage-stats"], "ray-start", {"RAY_USAGE_STATS_ENABLED": "0"})
    p = serve("ray-no-host-ip", 8204, ["--served-model-name", SERVED, "--distributed-executor-backend", "ray",
                                       "--gpu-memory-utilization", "0.15"], {"RAY_ADDRESS": "127.0.0.1:6379"})
    state = wait(p, 8204, 70)
    if state == "ready":
        endpoints("ray-no-host-ip", 8204, full=False)
    p.outcome(state=state, stopped_by=None if state == "exited" else p.stop())
    ray("ray-head-d", ["stop", "--force"], "ray-stop")


def batch_m():
    """Unmeetable memory fraction: another process holds 70 GiB of the GPU, then --gpu-memory-utilization 0.9."""
    hog = subprocess.Popen([sys.executable, "-c", "import torch,time; x=torch.empty(70*2**30, dtype=torch.uint8, device='cuda'); print('holding 70 GiB', flush=True); time.sleep(300)"], start_new_session=True)
    time.sleep(20)
    os.makedirs(os.path.join(OUT, "gpu-memory-unmeetable"), exist_ok=True)
    with open(os.path.join(OUT, "gpu-memory-unmeetable", "hog.txt"), "w") as f:
        f.write("another process (torch.empty(70*2**30, uint8, cuda)) holds 70 GiB of the 80 GiB H100 before vllm serve\n")
    p = serve("gpu-memory-unmeetable", 8112, ["--served-model-name", SERVED, "--gpu-memory-utilization", "0.9", "--enforce-eager"])
    state = wait(p, 8112, 120)
    p.outcome(state=state, stopped_by=None if state == "exited" else p.stop())
    os.killpg(hog.pid, signal.SIGKILL)


BATCHES = {"M": batch_m, "H": batch_h, "A1": batch_a1, "A2": batch_a2, "B": batch_b, "C": batch_c, "D": batch_d}

if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    for b in sys.argv[2:]:
        log(f"batch {b}")
        try:
            BATCHES[b]()
        except Exception as e:  # keep what the other scenarios captured
            log(f"batch {b} broke: {type(e).__name__}: {e}")
