/**
 * The log lines that name a Ray/vLLM multi-node failure, old and new wordings (every pattern has a
 * real line in test/preflight/fixtures, whose README names where each came from). Each rule turns a
 * matching line into the parts of a finding; `signatures.ts` adds where the line was and dedupes.
 */

import type { RayView } from './facts.js'
import { EVIDENCE, type FindingCode, type Severity } from './finding.js'
import { clusterGpus, gpuShortfallPhrase, gpusRequested } from './demand-count.js'
import { MEMORY_RULES } from './signature-rules-memory.js'
import { MEMORY_KILLER_RULES } from './signature-rules-memory-killers.js'
import { EVICTION_RULES } from './signature-rules-eviction.js'
import { NCCL_RULES } from './signature-rules-nccl.js'
import { NETWORK_RULES } from './signature-rules-network.js'
import { NATIVE_RULES } from './signature-rules-native.js'
import { RAY_CLUSTER_RULES } from './signature-rules-ray.js'
import { GPU_CONTAINER_RULES } from './signature-rules-gpu.js'
import { GPU_HEALTH_RULES } from './signature-rules-gpu-health.js'
import { ENGINE_RULES } from './signature-rules-engine.js'
import { PLACEMENT_RULES } from './signature-rules-placement.js'
import { PROCESS_RULES } from './signature-rules-processes.js'
import { SNAPSHOT_RULES } from './signature-rules-snapshot.js'
import { STARTUP_RULES } from './signature-rules-startup.js'
import { WEIGHTS_RULES } from './signature-rules-weights.js'
import { comparePinWithRay, nodePinsIn, pinMismatchFix } from './placement-pin.js'

export interface RuleHit {
  /** Distinct evidence: the same code and key is reported once per log. */
  readonly key: string
  readonly severity: Severity
  readonly message: string
  readonly evidence: Readonly<Record<string, string>>
  readonly fix: string
}

export interface SignatureRule {
  readonly code: FindingCode
  readonly pattern: RegExp
  /** The finding's parts, or null when the line, read in full, is not this family after all. */
  readonly hit: (m: RegExpExecArray, line: string, ray: RayView | undefined, context: LineContext) => RuleHit | null
}

/** What the paste normaliser took off the line: the node Ray's prefix named. */
export interface LineContext {
  readonly prefixIp?: string
  /**
   * What earlier lines of the same log said, for the families that need two lines (the master address
   * on one, the fabric interface on another). One map per watcher; rules own their keys.
   */
  readonly memory?: Map<string, string>
}

const GPU_FIX =
  'Check `ray status`: every node must have joined with its GPUs (total GPU ≥ TP × PP) and no earlier vLLM may still hold them (stop it, or ray stop/start to drop a leaked placement group).'

const IFNAME_FIX =
  "Set GLOO_SOCKET_IFNAME and NCCL_SOCKET_IFNAME to the fabric interface in every node's container before ray start (-e GLOO_SOCKET_IFNAME=<iface> -e NCCL_SOCKET_IFNAME=<iface>), so Gloo binds a routable address instead of resolving the hostname."

/**
 * The request a placement line names (`specs=[…]`, `placement_group_specs=[…]`, `resource request
 * {…}`) is on the line and closed. Only then may a rule say it carries no node: pin.
 */
function requestComplete(line: string): boolean {
  const m = /(?:placement_group_specs=|specs=|resource request |cannot be scheduled right now: )(?:defaultdict\(<class '\w+'>,\s*)?\s*([[{])/.exec(line)
  if (!m) return false
  let depth = 0
  for (const ch of line.slice(m.index + m[0].length - 1)) {
    if (ch === '{' || ch === '[') depth++
    else if (ch === '}' || ch === ']') {
      depth--
      if (depth === 0) return true
    }
  }
  return false
}

/** The shared story for a pending or timed-out placement group: which pin, and does Ray have it. */
function placementHit(what: string, line: string, ray: RayView | undefined, extra: Record<string, string>, severity: Severity = 'error'): RuleHit {
  const pin = nodePinsIn(line)[0]
  if (pin === undefined && /['"]node:/.test(line)) {
    return {
      key: 'cut-pin',
      severity,
      message: `${what}, but the line is cut inside its node: pin, so the pinned address cannot be read here.`,
      evidence: extra,
      fix: "Find the full line in the log (or `ray status` Demands) and compare its node:<ip> with Ray's NodeManagerAddress values; if none matches, start Ray with --node-ip-address=<that ip> or set VLLM_HOST_IP to the IP Ray registered.",
    }
  }
  if (pin === undefined && !requestComplete(line)) {
    return {
      key: 'unread-request',
      severity,
      message: `${what}; the request it names is not complete on this line (the paste may go on past it), so whether it pins a node cannot be told here.`,
      evidence: extra,
      fix: "Paste the whole request (it may be wrapped onto the next lines, or see `ray status` Demands) and compare any node:<ip> in it with Ray's NodeManagerAddress values; without a pin, check the cluster has the GPUs it asks for.",
    }
  }
  if (pin === undefined) {
    const wanted = gpusRequested(line.slice(line.search(/placement_group_specs=|specs=|resource request |cannot be scheduled right now: /)))
    const have = clusterGpus(ray)
    const phrase = gpuShortfallPhrase(wanted, have)
    return {
      key: 'no-pin',
      severity,
      message: `${what}, and it carries no node: pin, so the cluster lacks the resources it asks for${phrase ? ` (it ${phrase})` : ''}.`,
      evidence: {
        ...extra,
        ...(wanted !== undefined ? { 'GPUs requested (bundles × count)': String(wanted) } : {}),
        ...(have !== undefined ? { 'GPUs in the Ray cluster': String(have) } : {}),
      },
      fix: GPU_FIX,
    }
  }
  const cmp = comparePinWithRay(pin, ray)
  const message =
    cmp.found === false
      ? `${what} pinned to node:${pin}, and no alive Ray node has that address, so it can never be placed.`
      : cmp.found === true
        ? `${what} pinned to node:${pin}, which Ray does have, so the cluster lacks free GPUs for it.`
        : `${what} pinned to node:${pin}; compare that address with Ray's NodeManagerAddress values (ray.nodes()).`
  return {
    key: `node:${pin}`,
    severity,
    message,
    evidence: { ...extra, ...cmp.evidence },
    fix:
      cmp.found === true
        ? GPU_FIX
        : cmp.found === false
          ? pinMismatchFix(pin, cmp.rayHead)
          : `If no Ray node is ${pin}, start Ray on the head with --node-ip-address=${pin} or set VLLM_HOST_IP to the IP Ray registered; both must name the same address.`,
  }
}

/** The handshake's wording as vLLM means it: its source joins two literals without a blank, a cut paste keeps only the raise line. */
function handshakeWording(matched: string): string {
  if (!matched.startsWith('Timed out waiting for engines')) return matched
  const message = 'Timed out waiting for engines to send initial message on input socket'
  return matched.endsWith('"') ? `${message} (the raise in v1/engine/core_client.py; the message line is cut)` : message
}

/**
 * vLLM's engine deaths. A worker's own failure ("Worker failed with error '…'", "RPC call to <method> timed out") is the death when it is all the log
 * shows; before the engine's death line it names the same death (one finding), and after it, it is the cause the death line carries.
 */
function engineDeath(m: RegExpExecArray, memory: Map<string, string> | undefined): RuleHit | null {
  const worker = m[1] !== undefined || m[2] !== undefined || m[5] !== undefined
  if (worker && memory?.get('engineDead') !== undefined) return null
  memory?.set(worker ? 'engineWorker' : 'engineDead', '1')
  const key = worker || memory?.get('engineWorker') !== undefined ? 'worker-failed' : m[3] !== undefined ? 'handshake' : m[0]
  return {
    key,
    severity: 'error',
    message: m[5]
      ? "A follower node of vLLM's native multi-node mode (--node-rank > 0) built a full engine with a scheduler instead of running as a headless worker, and died on the leader's RPC."
      : m[3]
        ? `vLLM's API server and its engine processes never completed their start-up handshake${m[4] ? ` (an engine waited ${m[4]} min for the front-end)` : ''}: an engine died first (its cause is above), a data-parallel rank on another node cannot reach the front-end's address and port, or the engines were still starting when the front-end's wait ran out (weight loading or DeepGEMM warm-up past 10 minutes).`
        : m[1] !== undefined
          ? `vLLM's engine core died because a worker failed: ${m[1].slice(0, 200)}; the server will not come up or stops serving.`
          : m[2] !== undefined
            ? `A worker on some node stopped answering vLLM's ${m[2]} RPC, so the engine gave up: a hang (a collective that never completes across the nodes, a GPU fault, memory pressure on a node), not a crash with its own error.`
            : "vLLM's engine core died, so the server will not come up or stops serving; the cause is logged above this line.",
    evidence: {
      ...(m[1] !== undefined ? { 'Worker error': m[1].slice(0, 200) } : {}),
      ...(m[2] !== undefined ? { 'RPC that timed out': m[2] } : {}),
      ...(m[3] !== undefined ? { Handshake: handshakeWording(m[3]) } : {}),
      ...(m[5] !== undefined ? { [EVIDENCE.cause]: 'a follower node (--node-rank > 0) ran the API server path, not --headless' } : {}),
    },
    fix: m[5]
      ? 'Start every node with --node-rank > 0 with `vllm serve <model> … --nnodes N --node-rank R --master-addr <leader fabric ip> --headless`; `python -m vllm.entrypoints.openai.api_server` ignored --headless before vLLM PR #36875 (vllm-project/vllm#33910), so use the vllm serve entrypoint on the followers.'
      : m[3]
        ? "Read each engine's log above for its own error first; for data parallel over nodes, give every node the same --data-parallel-address (the head's fabric IP, not 127.0.0.1) and --data-parallel-rpc-port (open between the nodes), start the workers with --headless and their --data-parallel-start-rank, and the same --data-parallel-size everywhere. If the engines' logs show them still loading weights or warming up (DeepGEMM's JIT warm-up on large expert-parallel runs) when the wait ran out, give them longer: vLLM after PR #27444 reads VLLM_ENGINE_READY_TIMEOUT_S (seconds, 600 by default); older releases wait a fixed 10 minutes, so warm the DeepGEMM cache once or upgrade."
        : "Fix the root cause in the evidence (the other findings name the usual ones: weights, memory, placement group, rendezvous, Gloo/NCCL); a TimeoutError from an RPC or shm_broadcast means a worker on some node stopped answering: read that node's log at the same time.",
  }
}

export const SIGNATURE_RULES: readonly SignatureRule[] = [
  {
    // vLLM: "Waiting for creating a placement group of specs for 10 seconds. specs=[...]. Check `ray status` ..."; forks reword the
    // middle ("Waiting for creating a group of placement of specs for 70 seconds", gpustack's vLLM), so any words naming a placement.
    code: 'PLACEMENT_GROUP_PENDING',
    pattern: /Waiting for creating an? (?:[\w]+ ){0,4}?(?:placement|group)(?: [\w]+){0,4}? of specs(?: for (\d+) seconds)?/,
    hit: (m, line, ray) => placementHit('vLLM is waiting for a placement group', line, ray, m[1] ? { 'Waited so far': `${m[1]} s` } : {}),
  },
  {
    // Ray autoscaler: "(autoscaler +13s) Error: No available node types can fulfill resource request {...}. Add suitable node types ..."
    // (autoscaler/_private/resource_demand_scheduler.py); also quoted bare, the request left off or wrapped away at the line's end (vLLM's
    // docs, serving/distributed_troubleshooting.md, 2026; issue titles): then it is the line's last words, not prose quoting them; a
    // request is read only when it starts as Ray prints one ({...}, [...], defaultdict(...)).
    code: 'PLACEMENT_GROUP_PENDING',
    pattern: /No available node types can fulfill resource request(?: ((?:\{|\[|defaultdict\().*?))?(?:\. Add suitable node types|\s*$)/,
    hit: (m, line, ray) =>
      m[1]
        ? placementHit("Ray's autoscaler cannot fulfil a resource request", line, ray, { Request: m[1] })
        : {
            key: 'unread-request',
            severity: 'error',
            message:
              "Ray's autoscaler cannot fulfil a resource request; the request itself is not on the line, so whether it pins a node (vLLM's node:<ip>) cannot be told here.",
            evidence: { Request: 'not on the line' },
            fix: 'See `ray status` (Demands) for the request: a node:<ip> pin that no Ray node has is the usual cause when the cluster has the GPUs (nodes with several addresses): set VLLM_HOST_IP on each node to the address Ray registered for it (`ray list nodes`), or start Ray with --node-ip-address=<that address>; without a pin, the cluster lacks the GPUs it asks for.',
          },
  },
  {
    // Ray's scheduler (autoscaler/_private/autoscaler.py, 2.x; "(scheduler +2m2s)" or "(autoscaler +5s)"): "Warning: The following resource request
    // cannot be scheduled right now: {'GPU': 1.0, 'node:10.0.0.2': 0.001}. This is likely due to all cluster resources being claimed by actors. …"
    // A warning: it can clear when a node joins late.
    code: 'PLACEMENT_GROUP_PENDING',
    pattern: /The following resource request cannot be scheduled right now: (\{[^}]*\}?)/,
    hit: (m, line, ray) => placementHit("Ray's scheduler cannot place a resource request", line, ray, { Request: m[1] ?? '' }, 'warning'),
  },
  {
    // vLLM: "Cannot provide a placement group requiring 2.0 GPUs (placement_group_specs=[...]) within 1800 seconds."
    //   or: "Cannot provide a placement group of placement_group_specs=[...] within 1800 seconds. See `ray status` ..."
    code: 'PLACEMENT_GROUP_TIMEOUT',
    pattern: /Cannot provide a placement group (?:requiring ([\d.]+) GPUs|of placement_group_specs=)(?:.*?within (\d+) seconds)?/,
    hit: (m, line, ray) =>
      placementHit(`vLLM gave up${m[2] ? ` after ${m[2]} s` : ''} on a placement group`, line, ray, {
        ...(m[1] ? { 'GPUs requested': m[1] } : {}),
        ...(m[2] ? { Timeout: `${m[2]} s` } : {}),
      }),
  },
  {
    // vLLM: "Every node should have a unique IP address. Got 2 nodes with node ids [...] and 1 unique IP addresses {'192.168.0.110'}."
    code: 'UNIQUE_IP_ERROR',
    pattern: /Every node should have a unique IP address\. Got (\d+) nodes? with node ids (.*?) and (\d+) unique IP addresses? (\{[^}]*\}|\S+)/,
    hit: (m) => {
      const nodes = Number(m[1])
      const ips = Number(m[3])
      return {
        key: 'unique-ip',
        severity: 'error',
        message: `vLLM saw ${nodes} Ray node(s) but ${ips} distinct vLLM IP(s), so it refused to start.`,
        evidence: { 'Ray nodes': String(nodes), 'Distinct vLLM IPs': `${ips}: ${m[4] ?? ''}` },
        fix: `Set VLLM_HOST_IP in each node's container to that node's own Ray identity (the --node-ip-address it was started with)${ips > nodes ? '; more IPs than nodes means some node reports a vLLM IP that differs from its Ray identity' : '; never one value for all nodes'}.`,
      }
    },
  },
  {
    // torch Gloo: "Warning: Unable to resolve hostname to a (local) address. Using the loopback address as fallback. ..."
    code: 'GLOO_LOOPBACK',
    pattern: /Unable to resolve hostname to a \(local\) address\. Using the loopback address as fallback/,
    hit: () => ({
      key: 'loopback-fallback',
      severity: 'warning',
      message: "Gloo could not resolve this host's name and bound the loopback address, which peers on other nodes cannot reach.",
      evidence: {},
      fix: IFNAME_FIX,
    }),
  },
  {
    // torch Gloo: "RuntimeError: Gloo connectFullMesh failed with [...pair.cc:144] no error"
    //         or: "... timed out connecting: SO_ERROR: Connection refused, remote=[127.0.0.1]:14215"
    //         or (gloo pair.cc, 2019-2022): "[…/gloo/transport/tcp/pair.cc:761] connect [127.0.1.1]:60817: Connection refused"
    //            (pytorch/gloo#223: the hostname resolved to Debian's 127.0.1.1; ray-project/ray#24305: pair.cc:799, 127.0.0.1)
    code: 'GLOO_LOOPBACK',
    pattern: /Gloo connectFullMesh failed|remote=\[127\.\d{1,3}\.\d{1,3}\.\d{1,3}\]|pair\.cc:\d+\] connect \[127\.\d{1,3}\.\d{1,3}\.\d{1,3}\]/,
    hit: (_m, line): RuleHit => {
      const peer = /(?:remote=|\] connect )\[(127\.\d{1,3}\.\d{1,3}\.\d{1,3})\]/.exec(line)?.[1]
      return {
        key: peer ? 'remote-loopback' : 'connect-full-mesh',
        severity: 'error',
        message: peer
          ? `Gloo tried to reach a peer at ${peer}, so some rank advertised a loopback address (its hostname resolves to ${peer}${peer === '127.0.1.1' ? ", Debian's /etc/hosts entry for the host" : ''}) and the CPU group across nodes cannot form.`
          : "Gloo's connectFullMesh failed, so vLLM's CPU group across nodes could not form (usually the wrong or a loopback interface).",
        evidence: peer ? { 'Peer address': `${peer} (loopback)` } : {},
        fix: IFNAME_FIX,
      }
    },
  },
  {
    // NCCL: "NCCL INFO NET/Socket : Using [0]bond0:200.8.184.2<0>", "NCCL INFO Using network Socket", "[send] via NET/Socket/0"
    code: 'NCCL_SOCKET_FALLBACK',
    pattern: /NET\/Socket : Using (.*)$|Using network Socket\b|via NET\/Socket/,
    hit: (m, line) => {
      const host = /^\s*(?:\[\d+\]\s*)?(?:\([^)]*\)\s*)?(\S+?):\d+:\d+ \[\d+\] NCCL/.exec(line)?.[1]
      const ifaces = m[1]?.match(/\[\d+\][^\s<]+/g)?.join(' ')
      return {
        key: host ?? 'nccl',
        severity: 'warning',
        message: `NCCL${host ? ` on ${host}` : ''} is using TCP sockets (NET/Socket) instead of InfiniBand/RoCE, so tensor-parallel traffic will be slow.`,
        evidence: { ...(host ? { 'NCCL host': host } : {}), ...(ifaces ? { 'Socket interfaces': ifaces } : {}) },
        fix: 'Give the containers the RDMA devices: --device /dev/infiniband with --cap-add IPC_LOCK --ulimit memlock=-1 (or --privileged), set NCCL_IB_HCA to the Up RoCE device (ibdev2netdev), and make sure NCCL_IB_DISABLE is not 1; then NCCL logs "NET/IB : Using".',
      }
    },
  },
  {
    // Ray: global_state_accessor.cc old "..., while we can not find the matched Raylet address. ..."
    //      new "..., but we cannot find a local Raylet with the same address. ..."
    //      Python "..., and Ray expects this IP address to be either the GCS address or one of the Raylet addresses."
    code: 'RAY_IP_MISMATCH_WARNING',
    pattern:
      /This node has an IP address of ([^\s,]+),? (?:while we can ?not \w+ the matched Raylet address|but we cannot find a local Raylet with the same address|and Ray expects this IP address to be either the GCS address or one of the Raylet addresses)/i,
    hit: (m, line, ray) => {
      const ip = m[1] ?? '?'
      // Python side: "Connected to GCS at <addr> and found raylets at <a>, <b> but none of these match this node's IP <ip>."
      const seen = /Connected to GCS at (\S+) and found raylets at (.+?) but none of these match/i.exec(line)
      const alive = ray && !ray.error ? ray.nodes.filter((n) => n.alive && n.address !== '') : []
      const known = alive.some((n) => n.address === ip)
      return {
        key: ip,
        severity: 'warning',
        message: `A Ray process sees its machine as ${ip}, but no raylet on that machine registered under that address${alive.length > 0 ? (known ? '' : ' (Ray has no node with it)') : ''}.`,
        evidence: {
          'IP the process detected': ip,
          ...(seen ? { 'GCS it connected to': seen[1]!, 'Raylets it found': seen[2]! } : {}),
          ...(alive.length > 0 ? { 'Ray node addresses (NodeManagerAddress)': alive.map((n) => n.address).join(', ') } : {}),
        },
        fix: `Start Ray on that machine with --node-ip-address=<the address it should use> and run ray.init()/vllm serve inside the same container as the raylet, so the driver and the raylet agree on ${ip}.`,
      }
    },
  },
  {
    // vLLM (old): "ValueError: Ray does not allocate any GPUs on the driver node. Consider adjusting ..."
    code: 'DRIVER_NO_GPU',
    pattern: /Ray does not allocate any GPUs on the driver node/,
    hit: () => ({
      key: 'driver-no-gpu',
      severity: 'error',
      message: "vLLM's placement group left out the node running vllm serve, so its driver has no GPU.",
      evidence: {},
      fix: 'Run vllm serve inside the Ray head container on a GPU node (started with --gpus all); the driver must sit on a node that holds a GPU bundle.',
    }),
  },
  {
    // vLLM 0.6-0.28 (ray_utils.py _verify_bundles): "RuntimeError: driver node id <id> is not included in a placement group <pg id>.
    //   Node id -> bundles {…}. You don't have enough GPUs available in a current node. …" (a placement group that was made,
    //   or reused, without a bundle on the node running vllm serve).
    code: 'DRIVER_NO_GPU',
    pattern: /driver node id (\w+) is not included in a placement group (\S+?)\.?(?:\s|$)/,
    hit: (m, line) => {
      const bundles = /Node id -> bundles (\{.*?\})\./.exec(line)?.[1]
      const nodes = bundles ? [...bundles.matchAll(/'(\w{8,})'/g)].map((x) => x[1]!) : []
      return {
        key: `driver-not-in-pg:${m[1]}`,
        severity: 'error',
        message: `The node running vllm serve (Ray node ${m[1]!.slice(0, 12)}…) holds no bundle of vLLM's placement group ${m[2]}${nodes.length > 0 ? `, whose GPUs are all on ${nodes.length === 1 ? 'another node' : 'other nodes'}` : ''}: vLLM needs a GPU worker where its driver runs.`,
        evidence: {
          'Driver node id': m[1]!,
          'Placement group': m[2]!,
          ...(bundles ? { 'Bundles by node': bundles } : {}),
        },
        fix: "Run vllm serve on a node with a free GPU in Ray (the head's container, started with --gpus all), or remove the placement group it reused (an earlier vLLM's: stop it, or ray stop; ray start); `ray status` shows each node's free GPUs.",
      }
    },
  },
  {
    // vLLM (newer): "ValueError: Current node has no GPU available. current_node_resource={...}. ... current_node_id=... current_ip=..."; the
    // word is the platform's Ray resource (current_platform.ray_device_key): vllm-ascend's "Current node has no NPU available." on a cluster whose
    // Ray registered the NPUs as GPUs (vllm-project/vllm-ascend#3114, held-out batch 144: `ray status` with 16.0 GPU and no NPU).
    code: 'DRIVER_NO_GPU',
    pattern: /Current node has no (GPU|NPU|HPU|XPU|TPU) available/,
    hit: (m, line) => {
      const device = m[1]!
      const ip = /current_ip=['"]?([\d.]+)/.exec(line)?.[1]
      const leaked = line.includes('bundle_group_')
      return {
        key: 'current-node-no-gpu',
        severity: 'error',
        message: `The node running vllm serve${ip ? ` (${ip})` : ''} has no free ${device} in Ray${leaked ? ', and a placement group already holds its resources' : ''}.`,
        evidence: {
          ...(ip ? { 'Driver IP': ip } : {}),
          ...(device !== 'GPU' ? { 'Ray resource vLLM asks for': device } : {}),
          ...(leaked ? { 'Placement group already on the node': 'yes (bundle_group_ resources present)' } : {}),
        },
        fix: leaked
          ? `An earlier vLLM still holds the ${device} through its placement group: stop it (SIGTERM, not kill -9) or restart Ray (ray stop; ray start) on every node, then start vllm serve again.`
          : device !== 'GPU'
            ? `vLLM's platform asks Ray for '${device}' resources: start Ray on every node so it registers the accelerators under that name (without --num-gpus, which registers them as GPU; or ray start --resources='{"${device}": <count>}'), check with ray status, and run vllm serve on a node that has them.`
            : "Start the head's container with --gpus all so Ray registers its GPU (or ray start --num-gpus=<n>), and run vllm serve there.",
      }
    },
  },
  {
    // vLLM V1: "EngineDeadError", "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}",
    // "EngineCore failed to start.", "EngineCore encountered a fatal error." (core.py run_engine_core), "EngineDeadError: EngineCore
    // encountered an issue. See stack trace (above) for the root cause.", "EngineCore hit an exception" (early V1); a worker of the multiproc
    // executor (v1/executor/multiproc_executor.py): "WorkerProc failed to start." (logged) and "Exception: WorkerProc initialization failed due to
    // an exception in a background process. See stack trace for root cause." (raised to the engine). signatures.ts adds
    // the cause line: the exception before "See root cause above", or the first one after a death whose traceback follows.
    // The front-end's handshake wait (v1/engine/core_client.py, vLLM 0.8 until PR #27444) is two literals with no blank between them,
    // `raise TimeoutError("Timed out waiting for engines to send" "initial message on input socket.")`, so vLLM prints "…to sendinitial
    // message…" (vllm-project/vllm-ascend#3977); a paste cut below the traceback's last frame keeps only that raise line (vLLM PR #27444).
    code: 'ENGINE_DEAD',
    pattern:
      /EngineDeadError|EngineCore failed to start|Engine core initialization failed|EngineCore encountered (?:a fatal error|an issue)|EngineCore hit an exception|WorkerProc (?:initialization failed|failed to start)|Engine process failed to start|Engine loop has died|Background loop has errored already|Worker failed with error '(.*)', please check the stack trace|RPC call to (\w+) timed out|(Timed out waiting for engines to send(?: ?initial message|")|Did not receive response from front-end process within (\d+) minutes)|(collective_rpc should not be called on follower node)/,
    hit: (m, _line, _ray, context) => engineDeath(m, context.memory),
  },
  // Networking families: node dead, GCS unreachable, raylet unreachable, loopback identity, foreign bind.
  ...NETWORK_RULES,
  // Ray cluster families: version mismatch, /dev/shm, node death seen from actors and tasks, bridge address, worker registration.
  ...RAY_CLUSTER_RULES,
  // NCCL transport between nodes: verbs completion errors, QP setup, system/remote errors, no bootstrap interface.
  ...NCCL_RULES,
  // Memory: the NVIDIA driver (GB10 unified memory), the kernel's and Ray's OOM killers, CUDA and vLLM's start-up check.
  ...MEMORY_RULES,
  // The user-space memory killers (earlyoom, systemd-oomd) and an operator's memory guard.
  ...MEMORY_KILLER_RULES,
  ...EVICTION_RULES,
  // vLLM's native multi-node mode (--nnodes/--master-addr): torch's TCPStore rendezvous that never completes.
  ...NATIVE_RULES,
  // Model weights: the hub (offline, gated, missing repo/revision/file), corrupt or missing shards, a full disk.
  ...WEIGHTS_RULES,
  // The image and the executor (Ray missing, flags the image's vLLM lacks, TP over the GPUs, NCCL skew) and rendezvous ports and interfaces.
  ...STARTUP_RULES,
  // A container that cannot get its GPUs: the NVIDIA container tooling missing or misconfigured, a CDI spec left by a driver upgrade.
  ...GPU_CONTAINER_RULES,
  // A GPU or its driver that cannot be used: CUDA error 802 (Fabric Manager) and 803, nvidia-smi without a driver, Xid faults, a lost GPU, ECC.
  ...GPU_HEALTH_RULES,
  // The engine against the image and the node: GPU architecture, model architecture, flag values, Ray not running, GPUs short, NCCL's interface.
  ...ENGINE_RULES,
  // The newest releases' start-up processes (vLLM 0.34 engines and workers, Ray 2.60's CLI and driver): ready timeout, worker exits, DP room, ports.
  ...PROCESS_RULES,
  // A snapshot not whole on a node (huggingface_hub 2.x offline checks, transformers 5.x hub errors, vLLM 0.34's index check).
  ...SNAPSHOT_RULES,
  // Placement groups the launchers around vLLM waited for (RL trainers, Ray Train), and a traceback cut inside that wait.
  ...PLACEMENT_RULES,
]
