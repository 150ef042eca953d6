/**
 * Log signatures of Ray cluster failures outside the networking families: nodes running different
 * Ray or Python versions, a container whose /dev/shm is smaller than Ray's object store, a node's
 * death seen from an actor, an owner or a task, a node registered under Docker's default-bridge
 * address, and workers that cannot register with their raylet. Each wording, with the Ray versions
 * it comes from, is in src/preflight/WORDINGS.md; patterns are case-insensitive and take the
 * spelling variants of older releases.
 */

import { isDockerDefaultBridge, isSelfAddress } from '../net/ipv4.js'
import { comparePinWithRay } from './placement-pin.js'
import type { RuleHit, SignatureRule } from './signature-rules.js'
import { nodeEvidence } from './line-node.js'

/** `[10.0.0.1](http://10.0.0.1/)` (GitHub's auto-link, pasted back) → `10.0.0.1`; trailing punctuation off. */
const bareAddress = (text: string): string => text.replace(/^\[([^\]]+)\]\([^)]*\)$/, '$1').replace(/[.,;:'"`]+$/, '')

/** `Ray: 2.12.0 Python: 3.11.11 Ray location: /x` → [['Ray', '2.12.0'], ['Python', '3.11.11'], ...]. */
function versionPairs(text: string): [string, string][] {
  return [...text.matchAll(/([A-Z][\w]*(?: location| commit)?): (\S+)/g)].map((m) => [m[1]!, m[2]!.replace(/[`'"]+$/, '')])
}

/** Docker's default bridge (docker0) hands out 172.17.0.0/16; a node known by such an address is a container other hosts cannot reach. */

const BRIDGE_FIX =
  "Run the node's Ray container with --network host (or pass --node-ip-address=<the host's fabric IP> to ray start and publish Ray's ports), so Ray registers an address the other nodes can reach instead of the container's 172.17.x bridge address; NCCL_SOCKET_IFNAME / GLOO_SOCKET_IFNAME must then name the fabric interface, not eth0 or docker0."

function bridgeHit(ip: string, where: string): RuleHit {
  return {
    key: ip,
    severity: 'warning',
    message: `${where} ${ip}, an address on Docker's default bridge (docker0, 172.17.0.0/16): it exists only inside that host, so Ray processes and NCCL on other nodes cannot reach it.`,
    evidence: { 'Address on the bridge': ip, 'Seen in': where },
    fix: BRIDGE_FIX,
  }
}

const NODE_DEAD_FIX = (ip: string | undefined) =>
  `Find why the node${ip ? ` ${ip}` : ''} died: its raylet log (/tmp/ray/session_latest/logs/raylet.out), dmesg for OOM kills (on a GB10 the GPU and the host share memory), and the network to the head; bring it back (ray start --address=<head>:<port> --node-ip-address=<its fabric IP>) before starting vLLM again.`

export const RAY_CLUSTER_RULES: readonly SignatureRule[] = [
  {
    // vLLM's Ray data-parallel start (v1/engine/utils.py CoreEngineActorManager, 0.9 on): `assert dp_master_ip_key in nodes[0], f"The DP master
    // node (ip: {dp_master_ip}) is missing or dead"` — the incident's family for data parallelism: vLLM asks Ray for node:<DP master IP> and no Ray
    // node with resources has it. Before 0.11 the assertion's message was a tuple: "AssertionError: ('The DP master node (ip: %s) is missing or
    // dead', '10.0.0.1')". Loopback at --data-parallel-size 1, where vLLM drops the address it derived and falls back to VLLM_DP_MASTER_IP's
    // default (vllm-project/vllm#51712, fix PR #51720); 0.0.0.0 where it could not infer one (a Slurm launcher's notes, 2026: fixed with an
    // explicit --data-parallel-address).
    code: 'VLLM_PIN_NOT_IN_RAY',
    pattern: /The DP master node \(ip: ([^)\s]*)\) is missing or dead|\('The DP master node \(ip: %s\) is missing or dead', '([^']*)'\)/,
    hit: (m, _line, ray, context): RuleHit => {
      const ip = m[1] ?? m[2] ?? ''
      const nowhere = isSelfAddress(ip)
      const cmp = comparePinWithRay(ip, ray)
      return {
        key: `dp-master:${ip}`,
        severity: 'error',
        message: `vLLM's Ray data-parallel start looked for its DP master at node:${ip}, and no Ray node with free resources has that address${nowhere ? `: ${ip} is no node's address, a default vLLM fell back to (the DP master address was not set, or at --data-parallel-size 1 vLLM replaced it with VLLM_DP_MASTER_IP's default)` : ' (Ray registered the head under another address, or that node died)'}.`,
        evidence: { 'DP master address': ip, ...cmp.evidence, ...nodeEvidence(context) },
        fix: `Name the head by the address Ray registered for it (\`ray list nodes\`${cmp.rayHead ? `: ${cmp.rayHead}` : ''}): --data-parallel-address <that IP>${nowhere ? ', and VLLM_DP_MASTER_IP=<the same IP>, which vLLM reads at --data-parallel-size 1 (vllm-project/vllm#51712)' : ''}; or start Ray on the head with --node-ip-address=<the DP master IP>. Both must name the same address; if that node died, bring it back first.`,
      }
    },
  },
  {
    // Ray 0.x–2.x (services.py / _private/utils.py check_version_info): "Version mismatch: The cluster was started with:
    //   Ray: 2.12.0  Python: 3.11.11  This process on node 10.123.3.87 was started with:  Ray: 2.42.0  Python: 3.9.21"
    // (the block is joined into one line by paste-normalise; 0.x adds "Ray location:", "Cloudpickle:", "Pyarrow:").
    code: 'RAY_VERSION_MISMATCH',
    pattern: /Version mismatch: The cluster was started with:?(.*?)(?:This process on (?:Ray )?node (\S+) was started with:?(.*))?$/i,
    hit: (m) => {
      const cluster = versionPairs(m[1] ?? '')
      const own = versionPairs(m[3] ?? '')
      const node = m[2] !== undefined ? bareAddress(m[2]) : undefined
      const differ = cluster
        .filter(([k, v]) => !/location/i.test(k) && own.some(([k2, v2]) => k2 === k && v2 !== v))
        .map(([k, v]) => `${k} ${v} vs ${own.find(([k2]) => k2 === k)?.[1]}`)
      const show = (pairs: [string, string][]) =>
        pairs
          .filter(([k]) => !/location/i.test(k))
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')
      return {
        key: `version:${node ?? '?'}:${differ.join(';')}`,
        severity: 'error',
        message: `A Ray process${node ? ` on ${node}` : ''} runs ${differ.length > 0 ? `other versions than the cluster it joins (${differ.join('; ')})` : 'other versions than the cluster it joins'}, so Ray refused it.`,
        evidence: {
          ...(cluster.length > 0 ? { 'Cluster (head) started with': show(cluster) } : {}),
          ...(own.length > 0 ? { [`This process${node ? ` (node ${node})` : ''}`]: show(own) } : {}),
          ...(differ.length > 0 ? { Differs: differ.join('; ') } : {}),
        },
        fix: "Run one image on every node and for the driver (same Ray and Python, down to the patch release Ray checks): compare `ray --version` and `python -V` inside each node's container, pull the same image digest everywhere, and start vllm serve inside that image. RAY_IGNORE_VERSION_MISMATCH only hides the check, not the incompatibility.",
      }
    },
  },
  {
    // Ray 1.x–2.x services.py: "WARNING: The object store is using /tmp instead of /dev/shm because /dev/shm has only 67108864 bytes
    //   available. This will harm performance! (2020: "This may slow down performance!") ... passing '--shm-size=5.04gb' to 'docker run' ..."
    code: 'RAY_SHM_TOO_SMALL',
    pattern: /object store is using (\S+) instead of \/dev\/shm because \/dev\/shm has only (\d+) bytes available(?:.*?--shm-size=([\d.]+\s*[gm]b))?/i,
    hit: (m) => {
      const bytes = Number(m[2])
      return {
        key: 'shm-fallback',
        severity: 'warning',
        message: `This container's /dev/shm has only ${(bytes / 2 ** 20).toFixed(0)} MiB, less than Ray's object store, so Ray put the store on ${m[1]} (disk): large objects and vLLM's start-up will be slow, and the raylet can fail under load.`,
        evidence: {
          '/dev/shm available': `${bytes} bytes (${(bytes / 2 ** 30).toFixed(2)} GiB)`,
          'Object store placed on': m[1] ?? '',
          ...(m[3] ? { 'Ray suggests': `--shm-size=${m[3]}` } : {}),
        },
        fix: `Give every node's Ray container a larger /dev/shm: docker run --shm-size=${m[3] ?? '<≥ 30% of RAM>'} (or --ipc=host); in Kubernetes mount an emptyDir with medium: Memory at /dev/shm.`,
      }
    },
  },
  {
    // Ray 1.3+ services.py / resource_spec.py: "ValueError: The configured object store size (63.99 GB) exceeds /dev/shm size (63.99 GB).
    //   This will harm performance. Consider deleting files in /dev/shm or increasing its size with --shm-size in Docker. ..."
    code: 'RAY_SHM_TOO_SMALL',
    pattern: /configured object store size \(([\d.]+) ?GB\) exceeds \/dev\/shm size \(([\d.]+) ?GB\)/i,
    hit: (m) => ({
      key: 'shm-exceeds',
      severity: 'error',
      message: `Ray refused to start: the object store it was configured for (${m[1]} GB) does not fit in this container's /dev/shm (${m[2]} GB).`,
      evidence: { 'Object store size': `${m[1]} GB`, '/dev/shm size': `${m[2]} GB` },
      fix: "Enlarge /dev/shm in every node's Ray container (docker run --shm-size=<object store + 10%> or --ipc=host), or start Ray with a smaller --object-store-memory; RAY_OBJECT_STORE_ALLOW_SLOW_STORAGE=1 only moves the store to disk.",
    }),
  },
  {
    // The raylet's plasma store (store_runner.cc; Arrow's plasma before): "System memory request exceeds memory available in /dev/shm.
    //   The request is for 10200547328 bytes, and the amount available is 9663676416 bytes. ..." (FATAL in older releases; WARNING and
    //   a clamped store in newer ones, where the raylet can still crash under load).
    code: 'RAY_SHM_TOO_SMALL',
    pattern: /System memory request exceeds memory available in (\S+?)\.?(?: The request is for (\d+) bytes, and the amount available is (\d+) bytes)?/i,
    hit: (m) => {
      const gib = (b: string | undefined) => (b !== undefined ? `${(Number(b) / 2 ** 30).toFixed(2)} GiB` : undefined)
      return {
        key: 'shm-store-request',
        severity: 'error',
        message: `The raylet's object store asked for more shared memory than ${m[1]} has${m[2] ? ` (${gib(m[2])} wanted, ${gib(m[3])} available)` : ''}: the raylet fails or runs with a smaller store than configured.`,
        evidence: { 'Store directory': m[1] ?? '', ...(m[2] ? { Requested: `${m[2]} bytes (${gib(m[2])})`, Available: `${m[3]} bytes (${gib(m[3])})` } : {}) },
        fix: `Give every node's Ray container a /dev/shm larger than the object store: docker run --shm-size=${m[2] ? `${Math.ceil((Number(m[2]) * 1.1) / 2 ** 30)}g` : '<store + 10%>'} (or --ipc=host), or start Ray with a smaller --object-store-memory.`,
      }
    },
  },
  {
    // Ray Python (older): "The actor died because its node has died."; GCS (2.x gcs_actor_manager.cc): "The actor is dead because its node has died. Node Id: <hex>"
    code: 'RAY_NODE_DEAD',
    pattern: /The actor (?:died|is dead) because its node has died\.?(?: Node Id: ([0-9a-f]+))?/i,
    hit: (m) => ({
      key: `actor-node:${m[1] ?? '?'}`,
      severity: 'error',
      message: `A Ray actor died because the node it ran on died${m[1] ? ` (node ${m[1].slice(0, 12)}…)` : ''}; for vLLM that is a worker node lost mid-run.`,
      evidence: { ...(m[1] ? { 'Node id': m[1] } : {}) },
      fix: NODE_DEAD_FIX(undefined),
    }),
  },
  {
    // Ray 2.x: "The actor is dead because its owner has died. Owner Id: <hex> Owner Ip address: <ip> Owner worker exit type: SYSTEM_ERROR
    //   Worker exit detail: Owner's node has crashed."
    code: 'RAY_NODE_DEAD',
    pattern:
      /The actor (?:died|is dead) because its owner has died\.?(?: Owner Id: (\w+))?(?: Owner Ip address: (\S+))?(?: Owner worker exit type: (\w+))?(?: Worker exit detail: (.*))?/i,
    hit: (m) => {
      const ip = m[2]
      const nodeCrashed = /node has crashed|node (?:has )?died/i.test(m[4] ?? '')
      return {
        key: `owner:${m[1] ?? ip ?? '?'}`,
        severity: 'error',
        message: nodeCrashed
          ? `A Ray actor died with its owner, whose node${ip ? ` (${ip})` : ''} crashed.`
          : `A Ray actor died because its owner${ip ? ` on ${ip}` : ''} (the driver or worker that created it, e.g. vLLM's engine) died${m[3] ? ` (${m[3]})` : ''}.`,
        evidence: {
          ...(ip ? { 'Owner address': ip } : {}),
          ...(m[3] ? { 'Owner exit type': m[3] } : {}),
          ...(m[4] ? { 'Exit detail': m[4].trim() } : {}),
        },
        fix: nodeCrashed
          ? NODE_DEAD_FIX(ip)
          : `The owner's failure comes first: read the log of the process that created the actor${ip ? ` on ${ip}` : ''} (vLLM's EngineCore, the driver) for its own error or an OOM kill.`,
      }
    },
  },
  {
    // Ray 2.5x (PR #58638): "Task failed because the node it was running on is dead or unavailable. Node IP: 127.0.0.1, node ID: <hex>. ..."
    code: 'RAY_NODE_DEAD',
    pattern: /Task failed because the node it was running on is dead or unavailable\.?(?: Node IP: ([^,\s]+), node ID: ([0-9a-f]+))?/i,
    hit: (m) => ({
      key: `task-node:${m[2] ?? m[1] ?? '?'}`,
      severity: 'error',
      message: `A Ray task failed because its node${m[1] ? ` ${m[1]}` : ''} is dead or unavailable.`,
      evidence: { ...(m[1] ? { 'Node address': m[1] } : {}), ...(m[2] ? { 'Node id': m[2] } : {}) },
      fix: NODE_DEAD_FIX(m[1]),
    }),
  },
  {
    // ray start: "Local node IP: 172.17.0.3"; flags and hints: "--node-ip-address=172.17.0.3", "ray start --address='172.17.0.2:6379'",
    // Ray 0.x "ray start --redis-address 172.17.0.2:6379"; the driver: "Connecting to existing Ray cluster at address: 172.17.0.2:6379".
    code: 'RAY_BRIDGE_ADDRESS',
    pattern:
      /(Local node IP: |--node-ip-address[= ]['"]?|ray start .*?--(?:redis-)?address[= ]['"]?|Connecting to existing Ray cluster at address: |(?:connection to redis|Failed to connect to GCS at address) |trying to connect to \(?)(172\.17\.\d{1,3}\.\d{1,3})\b/i,
    hit: (m) => {
      const what = /Local node IP/i.test(m[1] ?? '')
        ? 'Ray registered this node as'
        : /node-ip-address/i.test(m[1] ?? '')
          ? 'The node identity given to Ray (--node-ip-address) is'
          : /redis|GCS/i.test(m[1] ?? '')
            ? "A node tried the head's GCS at"
            : /trying to connect/i.test(m[1] ?? '')
              ? "A rank timed out connecting to torch's rendezvous (c10d) at"
              : 'Ray nodes are told to join the head at'
      return bridgeHit(m[2] ?? '', what)
    },
  },
  {
    // NCCL: "Bootstrap : Using eth0:172.17.2.7<0>", "NET/Socket : Using [0]docker0:172.17.0.1<0>" (NCCL skips docker* only by default).
    code: 'RAY_BRIDGE_ADDRESS',
    pattern: /(?:Bootstrap|NET\/Socket) : Using (?:\[\d+\])?([\w.-]+):(\d{1,3}(?:\.\d{1,3}){3})</i,
    hit: (m) => {
      const iface = m[1] ?? ''
      const ip = m[2] ?? ''
      if (!isDockerDefaultBridge(ip) && !/^docker\d/i.test(iface)) return null
      return { ...bridgeHit(ip, `NCCL's socket interface is ${iface}, with`), key: `nccl:${iface}:${ip}` }
    },
  },
  {
    // Ray's process prefix names the node's registered address: "(RayWorkerWrapper pid=438, ip=172.17.0.6) ..."
    code: 'RAY_BRIDGE_ADDRESS',
    pattern: /^/,
    hit: (_m, _line, _ray, context) =>
      context.prefixIp !== undefined && isDockerDefaultBridge(context.prefixIp)
        ? bridgeHit(context.prefixIp, "A Ray worker's log prefix shows its node registered as")
        : null,
  },
  {
    // Ray 2.x core_worker.cc (2025): "Failed to register worker to Raylet: IOError: [RayletClient] Unable to register worker with raylet.
    //   Failed to read data from the socket: End of file worker_id=…"; newer core_worker_process.cc: "... to Raylet: IOError: Failed to read …";
    // older: "Failed to register worker 0100… to Raylet. IOError: [RayletClient] Unable to register worker with raylet. No such file or directory".
    code: 'RAY_WORKER_REGISTER_FAILED',
    pattern: /Failed to register worker(?: ([0-9a-f]{8,}))? to (?:the )?Raylet[.:]?\s*(.*?)(?:\s*worker_id=([0-9a-f]+))?\s*$/i,
    hit: (m) => {
      const reason = (m[2] ?? '').replace(/^(?:IOError: )?(?:\[RayletClient\] )?(?:Unable to register worker with raylet\.\s*)?/i, '').trim()
      const eof = /End of file|Connection reset/i.test(reason)
      const nosock = /No such file or directory/i.test(reason)
      return {
        key: `register:${reason}`,
        severity: 'error',
        message: `A Ray worker process could not register with its raylet${reason ? ` (${reason})` : ''}, so no actor or task can start on that node${eof ? ': the raylet closed the connection — it died or refused the worker' : nosock ? ': the raylet socket is not where the worker looks' : ''}.`,
        evidence: { ...(reason ? { 'Raylet answer': reason } : {}), ...(m[3] || m[1] ? { 'Worker id': (m[3] ?? m[1])! } : {}) },
        fix: nosock
          ? "Run the worker in the same container (same /tmp/ray) as that node's raylet and do not clean /tmp/ray under a running Ray; restart Ray on the node (ray stop; ray start ...)."
          : "Read the raylet's log on that node (/tmp/ray/session_latest/logs/raylet.out, raylet.err): the usual causes are a raylet killed by the OOM killer, a ray/Python in the worker that differs from the raylet's, a runtime_env that fails, or ports taken by another Ray (one Ray per container; ray stop first). Restart Ray on the node once the cause is gone.",
      }
    },
  },
  {
    // The raylet's side of the same (src/ray/raylet/worker_pool.cc, Ray 2.x: RAY_LOG(ERROR) << "Some workers of the worker process(" << pid << ") have
    // not registered within the timeout. " << "The process is dead, probably it crashed during start." / "The process is still alive, probably
    // it's hanging during start."): worker processes the raylet started never came back to register (RLinf/RLinf#227, 2025: the whole inherited
    // environment given to every worker through the runtime env, past the kernel's argument limit, so each died at exec).
    code: 'RAY_WORKER_REGISTER_FAILED',
    // (as people quote it: "Some workers ... have not registered", "Some workers have not registered", the pid left out)
    pattern:
      /Some workers(?: of the worker process\((\d+)\))?(?: \.\.\.| …)? have not registered within the timeout\.?\s*(?:The process is (dead|still alive))?/,
    hit: (m) => {
      const dead = m[2] === 'dead'
      const alive = m[2] === 'still alive'
      return {
        key: `raylet-register-timeout:${m[2] ?? ''}`,
        severity: 'error',
        message: `Ray's raylet started worker processes that never registered with it within its timeout${dead ? ': they died while starting' : alive ? ': they hung while starting' : ''}, so no actor or task (vLLM's workers among them) can start on that node.`,
        evidence: { ...(m[1] ? { 'Worker process (first seen)': m[1] } : {}), ...(m[2] ? { 'The process': m[2] } : {}) },
        fix: `Read the worker's own start-up error on that node (/tmp/ray/session_latest/logs/worker-*.err and python-core-worker-*.log; raylet.out for the command it ran): usual causes are a runtime_env too large to start a process with (a whole os.environ passed as env_vars: pass only the variables the workers need), an import that fails in the worker's Python, a Python or ray in the worker other than the raylet's, ${alive ? 'a worker blocked on a file system or a lock while importing, ' : ''}or memory.`,
      }
    },
  },
  {
    // Ray's file-system monitor (src/ray/common/file_system_monitor.cc, 2.x: RAY_LOG_EVERY_MS(ERROR, …)): "<path> is over 95% full, available
    // space: 21.7165 GB; capacity: 491.586 GB. Object creation will fail if spilling is required." (bytes before Ray 2.9: "available space:
    // 60427313152; capacity: 1599538507776"), and "<path> has no capacity, object creation will fail if spilling is required." The threshold is
    // local_fs_capacity_threshold (RAY_local_fs_capacity_threshold, 0.95). Logged every 10 s while it lasts, on healthy runs too (a large disk at
    // 95 % still has room): a warning with the numbers; a disk that then fills stops the raylet (vllm#721, abdshomad's validation report, 2025).
    code: 'DISK_SPACE_LOW',
    pattern:
      /(\/\S+|\S+\.\.\.) (?:is over ([\d.]+)\\?% full(?:,\s*available space: (\d+(?:\.\d+)?(?: ?[KMGT]i?B)?);\s*capacity: (\d+(?:\.\d+)?(?: ?[KMGT]i?B)?))?|has no capacity, object creation will fail if spilling is required)/,
    hit: (m, _line, _ray, context) => {
      const size = (v: string | undefined) => (v && /^\d+$/.test(v) ? `${(Number(v) / 1e9).toFixed(1)} GB` : v)
      const [path = '?', pct, free, capacity] = [m[1], m[2], size(m[3]), size(m[4])]
      return {
        key: `ray-fs:${path}`,
        severity: 'warning',
        message: `Ray's session directory ${path} is ${pct ? `over ${pct}% full` : 'on a file system with no capacity'}${free ? ` (${free} free of ${capacity})` : ''}: Ray can no longer spill objects there, and a disk that fills stops the raylet, after which the head marks the node dead.`,
        evidence: {
          Path: path,
          ...(pct ? { 'Full over': `${pct}%` } : {}),
          ...(free ? { 'Free space': free } : {}),
          ...(capacity ? { Capacity: capacity } : {}),
          ...nodeEvidence(context),
        },
        fix: `Free the disk that holds ${path} (old /tmp/ray/session_* directories of earlier runs: ray stop, then remove them; old images and caches), or start Ray on every node with --temp-dir=<a disk with room>; the warning's threshold is RAY_local_fs_capacity_threshold (0.95).`,
      }
    },
  },
]
