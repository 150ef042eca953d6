/**
 * The facts probe: a fixed Python 3 program (stdlib only) that runs on a node's host, reads
 * stdin-free arguments from one JSON argv value, and prints one JSON document. It is sent as the
 * program text on stdin (`python3 - <args-json>`), so one SSH round trip gathers everything.
 * Every sub-command has its own timeout; a failing part is recorded, never fatal.
 *
 * Inside the container it applies vLLM's own IP rule (`vllm/utils/network_utils.py:get_ip`):
 * VLLM_HOST_IP if set, else the source address of a UDP "connect" to 8.8.8.8:80 (a route lookup;
 * no packet is sent).
 */

/** Environment variables that matter for Ray/vLLM networking, read from the container. */
export const ENV_OF_INTEREST = [
  'VLLM_HOST_IP',
  'VLLM_HOST_PORT',
  'VLLM_USE_RAY_V2_EXECUTOR_BACKEND',
  'VLLM_USE_V1',
  'NCCL_SOCKET_IFNAME',
  'GLOO_SOCKET_IFNAME',
  'TP_SOCKET_IFNAME',
  'NCCL_IB_HCA',
  'NCCL_IB_DISABLE',
  'UCX_NET_DEVICES',
  'RAY_ADDRESS',
  'RAY_NODE_IP_ADDRESS',
  'RAY_OVERRIDE_NODE_IP_ADDRESS',
  'MASTER_ADDR',
  'HOST_IP',
  'CUDA_VISIBLE_DEVICES',
  'NVIDIA_VISIBLE_DEVICES',
] as const

/**
 * Runs inside the container (`docker exec <c> python3 -c ...`): versions, vLLM's IP, Ray's identity.
 * Prints the container's facts in the facts document's own field names (src/preflight/facts.ts).
 */
export const CONTAINER_PY = String.raw`
import json, os, platform, re, socket, glob
versions = {"python": platform.python_version()}
out = {"versions": versions}
# The installed distribution's version, read from its metadata: importing ray costs about a second of
# CPU per node (and a real vllm imports torch), while the metadata is what __version__ holds. The
# import stays as the fallback for a package without metadata (a source tree on PYTHONPATH).
try:
    from importlib.metadata import version as dist_version
except Exception:
    dist_version = None
def meta(name):
    try:
        return dist_version(name)
    except Exception:
        return None
for mod in ("ray", "vllm"):
    v = meta(mod)
    if v is None:
        try:
            m = __import__(mod)
            v = getattr(m, "__version__", "unknown")
        except Exception as e:
            out.setdefault("importErrors", {})[mod] = type(e).__name__
    if v is not None:
        versions[mod] = v
# torch and the NCCL its wheel links (nvidia-nccl-cu12/cu13), from metadata only: no import.
for key, names in (("torch", ("torch",)), ("nccl", ("nvidia-nccl-cu13", "nvidia-nccl-cu12", "nvidia-nccl-cu11"))):
    for n in names:
        v = meta(n)
        if v:
            versions[key] = v
            break
# The running vllm serve (the lowest PID of its kind: the process the launch started; its children
# re-title themselves or share its argv). Its environment is what vLLM reads, where os.environ here is
# only the container's configured one.
def is_vllm_serve(argv):
    for i, a in enumerate(argv[:4]):
        if a.rsplit("/", 1)[-1] == "vllm" and argv[i + 1:i + 2] == ["serve"]:
            return True
        if a == "-m" and argv[i + 1:i + 2] == ["vllm.entrypoints.openai.api_server"]:
            return True
        if a == "-m" and argv[i + 1:i + 3] == ["vllm.entrypoints.cli.main", "serve"]:
            return True
    return False
proc = None
for pid in sorted(int(d) for d in os.listdir("/proc") if d.isdigit()):
    if pid == os.getpid():
        continue
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            argv = [a.decode("utf-8", "replace") for a in f.read().split(b"\0")]
    except Exception:
        continue
    if argv and argv[-1] == "":
        argv.pop()
    if is_vllm_serve(argv):
        # Values of secret-bearing flags (--api-key, --hf-token, ...) never leave the node.
        secret = re.compile(r"^--?[\w-]*(key|token|secret|password)$", re.I)
        shown = []
        for i, a in enumerate(argv[:400]):
            name, eq, _ = a.partition("=")
            if eq and secret.match(name):
                a = name + "=<redacted>"
            elif i > 0 and secret.match(argv[i - 1]) and "=" not in argv[i - 1]:
                a = "<redacted>"
            shown.append(a)
        proc = {"pid": pid, "argv": shown}
        try:
            with open("/proc/%d/environ" % pid, "rb") as f:
                pairs = [kv.decode("utf-8", "replace").partition("=") for kv in f.read().split(b"\0") if kv]
            proc["env"] = {k: v for k, _, v in pairs if k in ENV_NAMES}
        except Exception as e:
            proc["envError"] = "%s: %s" % (type(e).__name__, e)
        break
if proc is not None:
    # The master address and port as argparse reads them (--flag v, --flag=v, vLLM's --flag_name), for one connect.
    flags = {}
    argv = proc["argv"]
    for i, a in enumerate(argv):
        name, eq, val = a.partition("=")
        name = name.replace("_", "-") if name.startswith("--") else name
        if name in ("--master-addr", "--master-port", "--nnodes", "-n"):
            flags["--nnodes" if name == "-n" else name] = val if eq else (argv[i + 1] if i + 1 < len(argv) else "")
        elif a.startswith("-n") and a[2:].isdigit():
            flags["--nnodes"] = a[2:]
    try:
        nnodes = int(flags.get("--nnodes", "1"))
    except ValueError:
        nnodes = 1
    if nnodes > 1:
        m_ip = flags.get("--master-addr") or "127.0.0.1"
        try:
            m_port = int(flags.get("--master-port") or "29501")
        except ValueError:
            m_port = None
        if m_port is not None:
            res = {"ip": m_ip, "port": m_port}
            try:
                s = socket.create_connection((m_ip, m_port), 2)
                s.close()
                res["state"] = "open"
            except ConnectionRefusedError:
                res["state"] = "refused"
            except socket.timeout:
                res["state"], res["detail"] = "timeout", "no answer within 2 s"
            except Exception as e:
                res["state"], res["detail"] = "error", ("%s" % e)[:200]
            proc["master"] = res
    out["vllmProcess"] = proc
penv = (proc or {}).get("env")
ip = (penv if penv is not None else os.environ).get("VLLM_HOST_IP", "")
src = "VLLM_HOST_IP" if ip else "default-route"
if not ip:
    for fam, dst in ((socket.AF_INET, ("8.8.8.8", 80)), (socket.AF_INET6, ("2001:4860:4860::8888", 80))):
        try:
            s = socket.socket(fam, socket.SOCK_DGRAM)
            s.connect(dst)
            ip = s.getsockname()[0]
            s.close()
            break
        except Exception:
            pass
    if not ip:
        ip, src = "0.0.0.0", "unknown"
out["vllmIp"] = ip
out["vllmIpSource"] = src
for path in sorted(glob.glob("/tmp/ray/session_latest/node_ip_address.json*")):
    try:
        with open(path) as f:
            data = json.load(f)
        vals = [v for v in (data.values() if isinstance(data, dict) else [data]) if isinstance(v, str)]
        if vals:
            out["rayNodeIp"] = vals[0]
            break
    except Exception:
        pass
print(json.dumps(out))
`

/**
 * Runs inside the head container, appended to CONTAINER_PY (one Python start-up, one `import ray`):
 * Ray's own node list and the text of `ray status`, as one `@@ray {...}` line. The node list is
 * `ray.nodes()`'s own source, the GCS node table (`ray._private.state`), read the way Ray's CLI
 * tools read it (`internal_api.get_state_from_address`) instead of through `ray.init`, which
 * would start and register a whole driver (about a second on the lab). `ray status` is Ray's own
 * click command, run in-process with its stdout captured: the same text as the CLI. Never fails:
 * each half reports its error instead.
 */
export const RAY_NODES_PY = String.raw`
import io, contextlib
ray_out = {}
try:
    import ray
    from ray._private.internal_api import get_state_from_address
    ray_out["nodes"] = [{"NodeID": n["NodeID"], "Alive": n["Alive"], "NodeManagerAddress": n["NodeManagerAddress"],
      "NodeManagerHostname": n.get("NodeManagerHostname"), "Resources": n.get("Resources", {})} for n in get_state_from_address("auto").node_table()]
except BaseException as e:
    ray_out["nodes_error"] = ("%s: %s" % (type(e).__name__, e))[-800:]
try:
    from ray.scripts.scripts import status as ray_status_cli
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        ray_status_cli.main(args=[], prog_name="ray status", standalone_mode=False)
    ray_out["status"] = buf.getvalue()
except BaseException as e:
    ray_out["status_error"] = ("%s: %s" % (type(e).__name__, e))[-800:]
print("@@ray " + json.dumps(ray_out))
`

/**
 * The host-side probe. Reads one JSON argument (see `ProbeArgs` in probe-command.ts); CONTAINER_PY,
 * RAY_PY and ENV_NAMES are defined in front of it by `probeCommand`. Prints one JSON document whose
 * fields are the facts document's own (src/preflight/facts.ts: NodeFacts), plus the head's Ray view.
 * Everything is read-only; each sub-command has its own timeout, and a failing part is recorded,
 * never fatal.
 */
export const NODE_PROBE_PY = String.raw`
import calendar, json, os, re, subprocess, sys, socket, shutil, threading, time
args = json.loads(sys.argv[1])
# Host facts another probe of this deploy already read and that a release's start does not change
# (docker's engine and runtimes, the NVIDIA container tooling, the OOM guards, the driver's CUDA
# version): taken as given instead of read again (see KNOWN_HOST in probe-command.ts).
known = globals().get("KNOWN_HOST") or {}
started_at = None
out = {"errors": []}
host = {}

def run(cmd, timeout=10, stdin=None):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **({"input": stdin} if stdin is not None else {"stdin": subprocess.DEVNULL}))
        return p.returncode, p.stdout, p.stderr
    except FileNotFoundError:
        return 127, "", cmd[0] + ": not found"
    except subprocess.TimeoutExpired:
        return 124, "", " ".join(cmd[:3]) + ": timed out after %ss" % timeout

def flat(text, n=400):
    return " ".join(text.split())[:n]

def read(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except Exception:
        return None

def number(text):
    try:
        return int(text)
    except Exception:
        return None

def route_of(to, r):
    res = {"to": to}
    for k in ("dev", "prefsrc", "gateway"):
        if r.get(k):
            res[{"prefsrc": "src", "gateway": "via"}.get(k, k)] = r[k]
    return res

def route(to):
    code, so, se = run(["ip", "-j", "route", "get", to], 5)
    if code != 0:
        return {"to": to, "error": (se or so).strip() or "exit %d" % code}
    try:
        r = json.loads(so)[0]
    except Exception as e:
        return {"to": to, "error": "unreadable ip route output: %s" % e}
    return route_of(to, r)

def routes(targets):
    # Every lookup in one ip process (-batch: one JSON list per line, each naming its dst; -force: a
    # failing lookup does not end the rest): a node's peers cost one process, not one each. A target
    # the batch did not answer is asked alone, so its error is the one ip gives for it.
    got = {}
    if len(set(targets)) > 1:
        code, so, se = run(["ip", "-j", "-force", "-batch", "-"], 5, "".join("route get %s\n" % t for t in targets))
        for line in so.splitlines():
            try:
                r = json.loads(line)[0]
            except Exception:
                continue
            if isinstance(r, dict) and r.get("dst") in targets and r["dst"] not in got:
                got[r["dst"]] = route_of(r["dst"], r)
    return {t: got.get(t) or route(t) for t in targets}

# Ports are probed on threads while the rest runs: a dropped port costs its timeout once, not per port.
ports = []
def probe_port(p):
    res = {"peer": p["peer"], "ip": p["ip"], "port": p["port"], "purpose": p["purpose"]}
    try:
        s = socket.create_connection((p["ip"], p["port"]), 2)
        s.close()
        res["state"] = "open"
    except ConnectionRefusedError:
        res["state"] = "refused"
    except socket.timeout:
        res["state"] = "timeout"
        res["detail"] = "no answer within 2 s"
    except Exception as e:
        res["state"] = "error"
        res["detail"] = flat(str(e), 200)
    ports.append(res)
threads = [threading.Thread(target=probe_port, args=(p,)) for p in args.get("ports", [])]

# Head -> worker SSH over the fabric (relay), every worker on its own thread while the rest runs:
# one handshake's time in all, not one per worker one after the other.
relay = [None] * len(args.get("relay", []))
def probe_relay(i, t):
    c, so2, se2 = run(["ssh"] + args.get("sshOptions", []) + ["-p", str(t["port"]), "-l", t["user"], t["ip"], "true"], 15)
    relay[i] = {"ip": t["ip"], "code": c, "output": flat(se2 or so2)}
relay_threads = [threading.Thread(target=probe_relay, args=(i, t)) for i, t in enumerate(args.get("relay", []))]
for t in threads + relay_threads:
    t.start()

out["hostname"] = socket.gethostname()
host["kernel"] = os.uname().release
host["machine"] = os.uname().machine

def sysnet(name, key):
    return read("/sys/class/net/%s/%s" % (name, key))

ifaces = []
code, so, se = run(["ip", "-j", "addr"], 5)
if code == 0:
    for i in json.loads(so):
        ifaces.append({
            "name": i.get("ifname"),
            "up": "UP" in i.get("flags", []) or i.get("operstate") == "UP",
            "flags": i.get("flags", []),
            "addresses": ["%s/%s" % (a["local"], a["prefixlen"]) for a in i.get("addr_info", []) if a.get("local")],
        })
else:
    out["errors"].append("ip -j addr: " + (se or so).strip())
    # Without iproute2 (a minimal host), the kernel still lists its links.
    try:
        for name in sorted(os.listdir("/sys/class/net")):
            ifaces.append({"name": name, "up": sysnet(name, "operstate") == "up", "addresses": []})
    except Exception:
        pass
for i in ifaces:
    state = sysnet(i["name"], "operstate")
    if state:
        i["operstate"] = state
    mtu = number(sysnet(i["name"], "mtu"))
    if mtu is not None:
        i["mtu"] = mtu
    # -1 (virtio, no carrier) and EINVAL (loopback, virtual links): the kernel does not know the speed.
    speed = number(sysnet(i["name"], "speed"))
    if speed is not None and speed > 0:
        i["speedMbps"] = speed
out["interfaces"] = ifaces
looked_up = routes(["8.8.8.8"] + [p["ip"] for p in args["peers"]])
out["defaultRoute"] = looked_up["8.8.8.8"]

peers = []
for p in args["peers"]:
    r = looked_up[p["ip"]]
    peer = {"peer": p["name"], "ip": p["ip"], "route": r}
    if "error" not in r:
        if shutil.which("ping"):
            c, so2, se2 = run(["ping", "-n", "-c", "1", "-W", "2", p["ip"]], 5)
            lines = (se2 or so2).strip().splitlines()
            peer["reachable"] = c == 0
            peer["detail"] = "ping: ok" if c == 0 else "ping: " + (lines[-1] if lines else "no reply")
        else:
            try:
                s = socket.create_connection((p["ip"], p.get("port", 22)), 3)
                s.close()
                peer["reachable"], peer["detail"] = True, "tcp/%s: ok" % p.get("port", 22)
            except ConnectionRefusedError:
                peer["reachable"], peer["detail"] = True, "tcp/%s: refused, so the host answered" % p.get("port", 22)
            except Exception as e:
                peer["reachable"], peer["detail"] = False, "tcp/%s: %s" % (p.get("port", 22), e)
    peers.append(peer)
out["peers"] = peers

gpus = []
fields = ["index", "name", "uuid", "memory.total", "memory.free", "driver_version"]
code, so, se = run(["nvidia-smi", "--query-gpu=" + ",".join(fields), "--format=csv,noheader,nounits"], 15)
if code == 0:
    unified = False
    for line in so.strip().splitlines():
        parts = [x.strip() for x in line.split(",")]
        if len(parts) < 2 or not parts[0].isdigit():
            continue
        g = {"index": int(parts[0]), "name": parts[1]}
        if len(parts) > 2 and parts[2]:
            g["uuid"] = parts[2]
        total = number(parts[3]) if len(parts) > 3 else None
        free = number(parts[4]) if len(parts) > 4 else None
        if total is not None:
            g["memoryTotalMiB"] = total
        if free is not None:
            g["memoryFreeMiB"] = free
        if len(parts) > 5 and parts[5] and "driverVersion" not in host:
            host["driverVersion"] = parts[5]
        # GB10 (DGX Spark) shares the host's memory; its driver reports no memory of its own ([N/A]).
        if total is None or "GB10" in parts[1]:
            unified = True
        gpus.append(g)
    if gpus:
        host["unifiedMemory"] = unified
    if known.get("cudaVersion"):
        host["cudaVersion"] = known["cudaVersion"]
    else:
        c2, so2, se2 = run(["nvidia-smi"], 15)
        m = re.search(r"CUDA Version:\s*([0-9.]+)", so2)
        if m:
            host["cudaVersion"] = m.group(1)
else:
    host["gpuError"] = {"missing": code == 127, "error": flat((se or so).strip() or "exit %d" % code)}
    out["errors"].append("nvidia-smi: " + host["gpuError"]["error"])
out["gpus"] = gpus
m = re.search(r"Kernel Module(?: for \S+)?\s+([0-9][0-9.]*)", read("/proc/driver/nvidia/version") or "")
if m:
    host["driverVersion"] = m.group(1)

meminfo = read("/proc/meminfo") or ""
for key, name in (("MemTotal", "memTotalBytes"), ("MemAvailable", "memAvailableBytes")):
    m = re.search(r"^%s:\s+(\d+) kB" % key, meminfo, re.M)
    if m:
        host[name] = int(m.group(1)) * 1024

try:
    host["rdmaDevices"] = sorted(os.listdir("/sys/class/infiniband"))
except FileNotFoundError:
    host["rdmaDevices"] = []
except Exception:
    pass

code, so, se = run(["dmesg"], 3)
dmesg = so if code == 0 else None

docker = {"ok": False}

def docker_root_free(root):
    try:
        st = os.statvfs(root)
        docker["rootFreeBytes"] = st.f_bavail * st.f_frsize
    except Exception as e:
        out["errors"].append("free space under %s: %s" % (root, e))

# The legacy prestart hook: dockerd registers its --gpus device driver when this is on its PATH.
hook = shutil.which("nvidia-container-runtime-hook")
if hook:
    docker["nvidiaHook"] = hook
kd = known.get("docker")
if kd and kd.get("ok") and kd.get("rootDir"):
    docker.update({k: v for k, v in kd.items() if k not in ("rootFreeBytes", "nvidiaHook")})
    # Free space is read again: an image may have landed since.
    docker_root_free(kd["rootDir"])
else:
    # dockerd's socket where the CLI would ask it (docker_api); the CLI where not, or where that failed.
    def engine(info):
        return isinstance(info, dict) and info.get("ServerVersion") and str(info.get("DockerRootDir", "")).startswith("/")
    api = docker_api("/info", 15)
    info = api[1] if api and api[0] == 200 and engine(api[1]) else None
    code, so, se = (0, "", "") if info else run(["docker", "info", "--format", "{{json .}}"], 15)
    if code == 0 and not info:
        try:
            info = json.loads(so)
        except Exception:
            pass
    if engine(info):
        docker.update({"ok": True, "version": info["ServerVersion"], "rootDir": info["DockerRootDir"], "runtimes": sorted((info.get("Runtimes") or {}).keys())})
        # CDI: the spec directories dockerd reads (none: CDI is off) and the CDI devices it found there.
        if "CDISpecDirs" in info:
            docker["cdiSpecDirs"] = [str(d) for d in (info.get("CDISpecDirs") or [])]
        if isinstance(info.get("DiscoveredDevices"), list):
            docker["cdiDevices"] = sorted(str(d.get("ID")) for d in info["DiscoveredDevices"] if isinstance(d, dict) and d.get("Source") == "cdi" and d.get("ID"))
        docker_root_free(info["DockerRootDir"])
    else:
        docker["missing"] = code == 127
        err = (se or so).strip()
        if isinstance(info, dict) and info.get("ServerErrors"):
            err = "; ".join(str(e) for e in info["ServerErrors"])
        docker["error"] = "exit %d: %s" % (code, flat(err or "docker info printed no server version"))
host["docker"] = docker

# The NVIDIA container tooling besides docker: nvidia-cdi-hook (docker 29.2+ serves --gpus through CDI
# with it), the NVIDIA runtime's mode, and each CDI spec dockerd or the runtime would read. A spec names
# the driver's files by version (libcuda.so.580.95.05): after a driver upgrade they are gone.
if "nvidiaContainer" in known:
    nv = known["nvidiaContainer"]
else:
    nv = {"cdiSpecs": []}
    cdi_hook = shutil.which("nvidia-cdi-hook")
    if cdi_hook:
        nv["cdiHook"] = cdi_hook
    section = None
    for line in (read("/etc/nvidia-container-runtime/config.toml") or "").splitlines():
        s = line.strip()
        if s.startswith("["):
            section = s.strip("[]").strip()
        elif section == "nvidia-container-runtime":
            m = re.match(r'mode\s*=\s*"([^"]*)"', s)
            if m:
                nv["runtimeMode"] = m.group(1)
    RUNTIME_STATE = ("/dev/", "/run/", "/var/run/", "/proc/", "/sys/", "/tmp/")
    # dockerd's directories and CDI's defaults (the NVIDIA runtime's), lowest priority first: a later spec of a kind wins.
    spec_dirs, seen = [], set()
    for d in (docker.get("cdiSpecDirs") or []) + ["/etc/cdi", "/var/run/cdi"]:
        real = os.path.realpath(d)
        if real not in seen:
            seen.add(real)
            spec_dirs.append(d)
    for d in spec_dirs:
        try:
            names = sorted(n for n in os.listdir(d) if n.endswith((".yaml", ".yml", ".json")))
        except Exception:
            continue
        for n in names[:20]:
            path = os.path.join(d, n)
            try:
                with open(path, errors="replace") as f:
                    text = f.read(4000000)
            except Exception as e:
                nv["cdiSpecs"].append({"path": path, "driverVersions": [], "hostPaths": 0, "missing": [], "missingCount": 0, "error": flat(str(e), 200)})
                continue
            if n.endswith(".json"):
                try:
                    doc = json.loads(text)
                except Exception as e:
                    nv["cdiSpecs"].append({"path": path, "driverVersions": [], "hostPaths": 0, "missing": [], "missingCount": 0, "error": flat("not JSON: %s" % e, 200)})
                    continue
                kind = doc.get("kind") if isinstance(doc, dict) else None
                found = []
                def walk(x):
                    if isinstance(x, dict):
                        for k, v in x.items():
                            if k == "hostPath" and isinstance(v, str):
                                found.append(v)
                            else:
                                walk(v)
                    elif isinstance(x, list):
                        for v in x:
                            walk(v)
                walk(doc)
                paths = sorted(set(found))
            else:
                # YAML without a YAML library: the top-level kind and every hostPath value, quoted or not.
                m = re.search(r'^kind:\s*["\']?([^"\'\s]+)', text, re.M)
                kind = m.group(1) if m else None
                paths = sorted(set(re.findall(r'hostPath:\s*["\']?([^"\'\s]+)', text)))
            if kind is not None and "nvidia" not in str(kind):
                continue
            versions = set()
            for p in paths:
                m = re.search(r"\.so\.(\d{3,}\.\d+(?:\.\d+)?)$", p) or re.search(r"/firmware/nvidia/(\d{3,}\.\d+(?:\.\d+)?)/", p)
                if m:
                    versions.add(m.group(1))
            # Device nodes and sockets are runtime state, absent on an idle host: only files count.
            files = [p for p in paths if p.startswith("/") and not p.startswith(RUNTIME_STATE)]
            missing = [p for p in files if not os.path.lexists(p)]
            spec = {"path": path, "driverVersions": sorted(versions), "hostPaths": len(files), "missing": missing[:5], "missingCount": len(missing)}
            if kind:
                spec["kind"] = kind
            nv["cdiSpecs"].append(spec)
host["nvidiaContainer"] = nv

# A user-space OOM killer that acts before the kernel's (which on unified memory may come too late):
# each known one's systemd unit state, and whether a process of that name runs (in a container too).
if "oomGuards" in known:
    guards = known["oomGuards"]
else:
    GUARDS = ["earlyoom", "systemd-oomd", "nohang", "nohang-desktop"]
    guards = {"running": []}
    code, so, se = run(["systemctl", "is-active"] + [g + ".service" for g in GUARDS], 5)
    states = so.split()
    if len(states) == len(GUARDS):
        guards["units"] = dict(zip(GUARDS, states))
    else:
        guards["unitsError"] = flat((se or so).strip() or "exit %d" % code, 200)
    running = set()
    try:
        for d in os.listdir("/proc"):
            if d.isdigit():
                comm = read("/proc/%s/comm" % d)
                if comm in GUARDS or comm == "oomd":
                    running.add(comm)
    except Exception:
        pass
    guards["running"] = sorted(running)
host["oomGuards"] = guards

# The tool's own data directories (the release state: releases, the lock, the audit log): free
# space on the filesystem that holds each, read at its nearest existing ancestor before a first deploy.
data_dirs = []
for d in args.get("dataDirs", []):
    at = d["path"]
    while not os.path.isdir(at) and at not in ("/", ""):
        at = os.path.dirname(at)
    try:
        st = os.statvfs(at or "/")
        data_dirs.append({"label": d["label"], "path": d["path"], "statPath": at or "/", "freeBytes": st.f_bavail * st.f_frsize, "totalBytes": st.f_blocks * st.f_frsize})
    except Exception as e:
        out["errors"].append("free space under %s: %s" % (d["path"], e))
if data_dirs:
    host["dataDirs"] = data_dirs

for t in relay_threads:
    t.join()
if args.get("relay"):
    host["relay"] = relay
out["host"] = host

name = args["container"]
if docker["ok"]:
    # The container's inspect document from dockerd's socket (404: none of that name, as the CLI's
    # "No such container"), else from the CLI.
    api = docker_api("/containers/%s/json" % name, 15) if re.match(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$", name) else None
    if api and api[0] == 200 and isinstance(api[1], dict):
        code, so, se, c = 0, "", "", api[1]
    elif api and api[0] == 404:
        code, so, se, c = 1, "", "Error: No such container: %s" % name, None
    else:
        code, so, se = run(["docker", "inspect", "--type", "container", name], 15)
        c = json.loads(so)[0] if code == 0 else None
    if code == 0:
        env = {}
        for kv in c.get("Config", {}).get("Env") or []:
            k, _, v = kv.partition("=")
            if k in ENV_NAMES:
                env[k] = v
        cont = {"name": name, "running": bool(c.get("State", {}).get("Running")), "env": env, "versions": {}}
        if cont["running"]:
            started_at = c.get("State", {}).get("StartedAt")
        if c.get("Config", {}).get("Image"):
            cont["imageRef"] = c["Config"]["Image"]
        if c.get("Image"):
            cont["imageId"] = c["Image"]
        if cont["running"] and args.get("exec", True):
            # On the head, Ray's view comes from the same Python process (RAY_PY after CONTAINER_PY).
            program = "ENV_NAMES = %s\n" % json.dumps(ENV_NAMES) + CONTAINER_PY + ("\n" + RAY_PY if args.get("ray") else "")
            code, so, se = run(["docker", "exec", name, "python3", "-c", program], 90 if args.get("ray") else 60)
            lines = so.splitlines()
            ray_at = [i for i, l in enumerate(lines) if l.startswith("@@ray ")]
            # CONTAINER_PY's line is the last one before Ray's (the last line on a worker).
            inside_lines = [l for l in lines[: ray_at[0] if ray_at else len(lines)] if l.strip()]
            try:
                inside = json.loads(inside_lines[-1])
                inside.pop("importErrors", None)
                cont.update(inside)
            except Exception:
                out["errors"].append("probe inside %s failed: %s" % (name, (se or so).strip()[-500:]))
            if args.get("ray"):
                try:
                    r = json.loads(lines[ray_at[-1]][len("@@ray "):])
                except Exception:
                    r = {"nodes_error": ((se or so).strip()[-800:] or "exit %d" % code)}
                if "nodes" in r:
                    out["rayNodes"] = r["nodes"]
                else:
                    out["rayError"] = r.get("nodes_error") or "no node list"
                if "status" in r:
                    out["rayStatus"] = r["status"]
        out["container"] = cont
    elif "No such" in (se + so) or "no such" in (se + so):
        out["container"] = None
    else:
        out["errors"].append("docker inspect %s: %s" % (name, (se or so).strip() or "exit %d" % code))
# The kernel log's GPU out-of-memory and OOM-killer lines, since the release's container started
# (the start-up the lines belong to), else of the last hour: older ones are another run's.
if dmesg is not None:
    since = time.time() - args.get("kernelLogWindowSeconds", 3600)
    started = str((started_at or ""))[:19]
    try:
        since = calendar.timegm(time.strptime(started, "%Y-%m-%dT%H:%M:%S"))
    except Exception:
        pass
    try:
        boot = time.time() - float((read("/proc/uptime") or "0").split()[0])
    except Exception:
        boot = None
    pat = re.compile(r"NV_ERR_NO_MEMORY|Out of memory|oom-kill|invoked oom-killer")
    hits = []
    for l in dmesg.splitlines():
        if not pat.search(l):
            continue
        m = re.match(r"\s*\[\s*(\d+(?:\.\d+)?)\]", l)
        if m and boot is not None and boot + float(m.group(1)) < since:
            continue
        hits.append(l.strip()[:300])
    host["kernelLog"] = hits[-10:]
for t in threads:
    t.join()
out["ports"] = sorted(ports, key=lambda p: (p["peer"], p["port"]))
print(json.dumps(out))
`
