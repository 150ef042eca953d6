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

/** Runs inside the container (`docker exec <c> python3 -c ...`): versions, vLLM's IP, Ray's identity. */
export const CONTAINER_PY = String.raw`
import json, os, platform, socket, glob
out = {"python": platform.python_version()}
# The installed distribution's version, read from its metadata: importing ray costs about a second of
# CPU per node (and a real vllm imports torch), while the metadata is what __version__ holds. The
# import stays as the fallback for a package without metadata (a source tree on PYTHONPATH).
try:
    from importlib.metadata import version as dist_version
except Exception:
    dist_version = None
for mod in ("ray", "vllm"):
    try:
        out[mod] = dist_version(mod)
        continue
    except Exception:
        pass
    try:
        m = __import__(mod)
        out[mod] = getattr(m, "__version__", "unknown")
    except Exception as e:
        out[mod + "_error"] = type(e).__name__
ip = os.environ.get("VLLM_HOST_IP", "")
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
out["vllm_ip"] = ip
out["vllm_ip_source"] = src
for path in sorted(glob.glob("/tmp/ray/session_latest/node_ip_address.json*")):
    try:
        with open(path) as f:
            data = json.load(f)
        vals = [v for v in (data.values() if isinstance(data, dict) else [data]) if isinstance(v, str)]
        if vals:
            out["ray_node_ip"] = vals[0]
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
 * The host-side probe. Reads one JSON argument (container, peers, ray flag); CONTAINER_PY, RAY_PY and
 * ENV_NAMES are defined in front of it by `probeCommand`.
 */
export const NODE_PROBE_PY = String.raw`
import json, subprocess, sys, socket, shutil
args = json.loads(sys.argv[1])
out = {"errors": []}

def run(cmd, timeout=10):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except FileNotFoundError:
        return 127, "", cmd[0] + ": not found"
    except subprocess.TimeoutExpired:
        return 124, "", " ".join(cmd[:3]) + ": timed out after %ss" % timeout

def route(to):
    code, so, se = run(["ip", "-j", "route", "get", to], 5)
    if code != 0:
        return {"to": to, "error": (se or so).strip() or "exit %d" % code}
    try:
        r = json.loads(so)[0]
    except Exception as e:
        return {"to": to, "error": "unreadable ip route output: %s" % e}
    res = {"to": to}
    for k in ("dev", "prefsrc", "gateway"):
        if r.get(k):
            res[{"prefsrc": "src", "gateway": "via"}.get(k, k)] = r[k]
    return res

out["hostname"] = socket.gethostname()
code, so, se = run(["ip", "-j", "addr"], 5)
ifaces = []
if code == 0:
    for i in json.loads(so):
        ifaces.append({
            "name": i.get("ifname"),
            "up": "UP" in i.get("flags", []) or i.get("operstate") == "UP",
            "addresses": ["%s/%s" % (a["local"], a["prefixlen"]) for a in i.get("addr_info", []) if a.get("local")],
            "altnames": i.get("altnames", []),
        })
else:
    out["errors"].append("ip -j addr: " + (se or so).strip())
out["interfaces"] = ifaces
out["default_route"] = route("8.8.8.8")

peers = []
for p in args["peers"]:
    r = route(p["ip"])
    reach, detail = None, ""
    if "error" not in r:
        if shutil.which("ping"):
            c, so2, se2 = run(["ping", "-n", "-c", "1", "-W", "2", p["ip"]], 5)
            reach = c == 0
            lines = (se2 or so2).strip().splitlines()
            detail = "ping: ok" if reach else "ping: " + (lines[-1] if lines else "no reply")
        else:
            try:
                s = socket.create_connection((p["ip"], p.get("port", 22)), 3)
                s.close()
                reach, detail = True, "tcp/%s: ok" % p.get("port", 22)
            except ConnectionRefusedError:
                reach, detail = True, "tcp/%s: refused, so the host answered" % p.get("port", 22)
            except Exception as e:
                reach, detail = False, "tcp/%s: %s" % (p.get("port", 22), e)
    peers.append({"peer": p["name"], "ip": p["ip"], "route": r, "reachable": reach, "detail": detail})
out["peers"] = peers

gpus = []
code, so, se = run(["nvidia-smi", "--query-gpu=index,name,uuid", "--format=csv,noheader"], 15)
if code == 0:
    for line in so.strip().splitlines():
        parts = [x.strip() for x in line.split(",")]
        if len(parts) >= 2 and parts[0].isdigit():
            gpus.append({"index": int(parts[0]), "name": parts[1], "uuid": parts[2] if len(parts) > 2 else None})
else:
    out["errors"].append("nvidia-smi: " + ((se or so).strip() or "exit %d" % code))
out["gpus"] = gpus

name = args["container"]
code, so, se = run(["docker", "inspect", "--type", "container", name], 15)
if code == 0:
    c = json.loads(so)[0]
    env = {}
    for kv in c.get("Config", {}).get("Env") or []:
        k, _, v = kv.partition("=")
        if k in ENV_NAMES:
            env[k] = v
    cont = {
        "name": name,
        "running": bool(c.get("State", {}).get("Running")),
        "status": c.get("State", {}).get("Status"),
        "image_ref": c.get("Config", {}).get("Image"),
        "image_id": c.get("Image"),
        "network_mode": c.get("HostConfig", {}).get("NetworkMode"),
        "env": env,
    }
    if cont["running"]:
        # On the head, Ray's view comes from the same Python process (RAY_PY after CONTAINER_PY).
        program = CONTAINER_PY + ("\n" + RAY_PY if args.get("ray") else "")
        code, so, se = run(["docker", "exec", name, "python3", "-c", program], 90 if args.get("ray") else 60)
        lines = so.splitlines()
        ray_at = [i for i, l in enumerate(lines) if l.startswith("@@ray ")]
        ray_lines = [lines[i] for i in ray_at]
        # CONTAINER_PY's line is the last one before Ray's (the last line on a worker).
        inside_lines = [l for l in lines[: ray_at[0] if ray_at else len(lines)] if l.strip()]
        try:
            cont["inside"] = json.loads(inside_lines[-1])
        except Exception:
            out["errors"].append("probe inside %s failed: %s" % (name, (se or so).strip()[-500:]))
        if args.get("ray"):
            try:
                r = json.loads(ray_lines[-1][len("@@ray "):])
            except Exception:
                r = {"nodes_error": ((se or so).strip()[-800:] or "exit %d" % code)}
            if "nodes" in r:
                out["ray_nodes"] = r["nodes"]
            else:
                out["ray_error"] = r.get("nodes_error") or "no node list"
            if "status" in r:
                out["ray_status"] = r["status"]
    out["container"] = cont
elif "No such" in (se + so) or "no such" in (se + so):
    out["container"] = None
else:
    out["docker_error"] = "docker inspect %s: %s" % (name, (se or so).strip() or "exit %d" % code)
print(json.dumps(out))
`
