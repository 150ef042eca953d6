/**
 * Verified teardown (issue 38): after the previous release's container is removed, every process of
 * that release on the node is gone and the GPU holds no process, or the launch is refused. A vLLM
 * whose workers survive a kill keeps their memory (vllm#55510); on a GB10, whose GPU and CPU share
 * 128 GB, the next start then fails or pushes the host over.
 *
 * The release is the one `current` names on the node (the stop comes before activate). Its
 * processes are found by the marker every release process inherits: `VRD_RELEASE=<release>` in
 * /proc/PID/environ (a launch script's environment, so whatever it started outside a container too),
 * and its containers by the release label. Only those are killed (SIGTERM, then SIGKILL); a GPU
 * process that is not the release's is never touched, only named. The script prints one JSON line
 * and exits 3 when something is left at the deadline.
 */
import { type Argv, argv } from '../command/shell.js'
import type { Manifest } from '../manifest/schema.js'
import { DOCKER_API_PY } from '../probe/docker-api-program.js'
import { LABEL_PREFIX } from './node-commands.js'
import { clusterStateDir } from './release-commands.js'

/** The exit code of a teardown that left a process behind. */
export const TEARDOWN_LEFT = 3

export const TEARDOWN_PY = [
  'import json, os, signal, subprocess, sys, time',
  DOCKER_API_PY,
  'state, cluster, label, deadline = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])',
  'try:',
  '    rel = os.path.basename(os.readlink(os.path.join(state, "current")))',
  'except OSError:',
  '    rel = ""',
  // Never this script nor what runs it.
  'mine, p = set(), os.getpid()',
  'while p > 1 and p not in mine:',
  '    mine.add(p)',
  '    try:',
  '        p = int(open("/proc/%d/stat" % p).read().rsplit(")", 1)[1].split()[1])',
  '    except (OSError, ValueError, IndexError):',
  '        break',
  'def words(pid):',
  '    try:',
  '        return open("/proc/%d/cmdline" % pid, "rb").read().replace(b"\\0", b" ").decode("utf-8", "replace").strip()[:300] or "?"',
  '    except OSError:',
  '        return "?"',
  'def marked():',
  '    if not rel:',
  '        return []',
  '    out = []',
  '    for d in os.listdir("/proc"):',
  '        if not d.isdigit() or int(d) in mine:',
  '            continue',
  '        try:',
  '            env = open("/proc/%s/environ" % d, "rb").read().split(b"\\0")',
  '        except OSError:',
  '            continue',
  '        c = [e for e in env if e.startswith(b"VRD_CLUSTER=")]',
  '        if ("VRD_RELEASE=" + rel).encode() in env and (not c or c[0] == ("VRD_CLUSTER=" + cluster).encode()):',
  '            out.append(int(d))',
  '    return out',
  'def gpu():',
  '    try:',
  '        r = subprocess.run(["nvidia-smi", "--query-compute-apps=pid,process_name,used_memory", "--format=csv,noheader,nounits"], capture_output=True, text=True, timeout=20)',
  '    except Exception:',
  '        return []',
  '    apps = []',
  '    for line in r.stdout.splitlines() if r.returncode == 0 else []:',
  '        f = [x.strip() for x in line.split(",")]',
  '        if len(f) >= 3 and f[0].isdigit() and os.path.exists("/proc/" + f[0]):',
  '            apps.append({"pid": int(f[0]), "name": f[1], "usedMiB": f[2]})',
  '    return apps',
  'removed = []',
  'if rel:',
  // Its containers: the release label, and this cluster's label or none (a launch script's own containers carry only the release's).
  // From dockerd's socket where the CLI would ask it (no docker CLI start), else `docker ps`: the same rows (full IDs from the socket).
  '    ckey = label.rsplit(".", 1)[0] + ".cluster"',
  '    q = json.dumps({"label": ["%s=%s" % (label, rel)]}).encode()',
  '    api = docker_api("/containers/json?all=1&filters=" + "".join(chr(b) if b < 128 and (chr(b).isalnum() or chr(b) in "-._~") else "%%%02X" % b for b in q))',
  '    if api and api[0] == 200 and isinstance(api[1], list):',
  '        rows = ["%s %s" % (c.get("Id", ""), (c.get("Labels") or {}).get(ckey, "")) for c in api[1] if isinstance(c, dict)]',
  '    else:',
  // `.Label "k"`: in `docker ps --format`, .Labels is one "k=v,k=v" string, which `index` cannot read (docker exits 1, printing nothing).
  '        fmt = "{{.ID}} {{.Label \\"%s\\"}}" % ckey',
  '        rows = subprocess.run(["docker", "ps", "-a", "--filter", "label=%s=%s" % (label, rel), "--format", fmt], capture_output=True, text=True).stdout.splitlines()',
  '    ids = [r.split()[0] for r in rows if r.split() and (len(r.split()) == 1 or r.split()[1] == cluster)]',
  '    for i in ids:',
  '        if subprocess.run(["docker", "rm", "-f", i], capture_output=True).returncode == 0:',
  '            removed.append(i[:12])',
  'killed, start = {}, time.monotonic()',
  'while True:',
  '    pids, apps = marked(), gpu()',
  '    waited = time.monotonic() - start',
  '    if (not pids and not apps) or waited > deadline:',
  '        break',
  '    sig = signal.SIGKILL if waited > min(10.0, deadline / 2) else signal.SIGTERM',
  '    for pid in pids:',
  '        killed.setdefault(pid, words(pid))',
  '        try:',
  '            os.kill(pid, sig)',
  '        except OSError:',
  '            pass',
  '    time.sleep(0.5)',
  'ours = set(pids)',
  'left = [{"pid": p, "command": words(p), "ours": True} for p in pids]',
  'left += [{"pid": a["pid"], "command": words(a["pid"]) if a["pid"] not in ours else a["name"], "ours": a["pid"] in ours, "gpuMiB": a["usedMiB"]} for a in apps if a["pid"] not in ours]',
  'avail = None',
  'try:',
  '    for line in open("/proc/meminfo"):',
  '        if line.startswith("MemAvailable:"):',
  '            avail = int(line.split()[1]) * 1024',
  'except OSError:',
  '    pass',
  'print(json.dumps({"release": rel, "containers": removed, "killed": [{"pid": p, "command": c} for p, c in killed.items() if p not in ours], "left": left, "memAvailableBytes": avail, "waitedSeconds": round(time.monotonic() - start, 1)}))',
  `sys.exit(${TEARDOWN_LEFT} if left else 0)`,
].join('\n')

/** The teardown check on a node, after the previous container was removed: `deploy.teardownTimeoutSeconds` at most. */
export const verifyTeardown = (m: Manifest): Argv =>
  argv('python3', '-c', TEARDOWN_PY, clusterStateDir(m), m.cluster, `${LABEL_PREFIX}.release`, String(m.deploy.teardownTimeoutSeconds))
