/**
 * Log signatures of the processes a 2026 start runs, in the wordings of the newest releases (vLLM 0.34's
 * v1 engine and executors, Ray 2.60's `ray start`, driver and dashboard): an engine that did not come up
 * within its ready timeout, a worker process that died (its exit code), a Ray worker that did not start, a
 * data-parallel start without room for its ranks, a port range with no free port, and a driver whose Ray
 * version or node address the cluster does not know. Each names the value to change. Wordings with their
 * source files and versions in src/preflight/WORDINGS.md ("Swept from the newest sources").
 */

import type { LineContext, RuleHit, SignatureRule } from './signature-rules.js'
import { nodeEvidence as node } from './line-node.js'
import { SHARDS_LOADED, SHARDS_LOADED_AFTER } from './signature-rules-weights.js'

/** A worker's exit code as vLLM prints it (a negative code is the signal that ended it) and what usually sent it. */
export function exitMeaning(code: number): string | undefined {
  if (code === -9 || code === 137) return 'SIGKILL: the kernel OOM killer or a container memory limit is the usual sender'
  if (code === -11 || code === 139) return 'SIGSEGV: a crash inside a native library (CUDA, NCCL, a kernel)'
  if (code === -6 || code === 134) return 'SIGABRT: an abort, e.g. the NCCL watchdog after a collective timed out'
  if (code === -15 || code === 143) return 'SIGTERM: stopped from outside (docker stop, a scheduler, a health check)'
  return undefined
}

const WORKER_DIED_FIX =
  "Read that worker's own lines above (its traceback, or nothing when it was killed); for SIGKILL check the node's kernel log for the OOM killer (dmesg | grep -i oom) and lower --gpu-memory-utilization or --max-model-len, or give the container more memory; for SIGABRT after a timeout see the NCCL/rendezvous findings of the same node."

function workerDied(m: RegExpExecArray, context: LineContext): RuleHit {
  const code = m[2] !== undefined ? Number(m[2]) : undefined
  const meaning = code !== undefined ? exitMeaning(code) : undefined
  const who = m[1] ? `worker process ${m[1]}` : `Ray worker rank ${m[3]}`
  return {
    key: `worker-died:${m[1] ?? m[3]}`,
    severity: 'error',
    message: `vLLM's ${who} died while the engine ran${code !== undefined ? ` (exit code ${code}${meaning ? `, ${meaning.split(':')[0]}` : ''})` : ''}, so the executor shut the engine down.`,
    evidence: {
      Worker: m[1] ?? `rank ${m[3]}`,
      ...(code !== undefined ? { 'Exit code': String(code) } : {}),
      ...(meaning ? { 'Exit code means': meaning } : {}),
      ...node(context),
    },
    fix: WORKER_DIED_FIX,
  }
}

export const PROCESS_RULES: readonly SignatureRule[] = [
  {
    // A traceback through the front-end's start of its engines (vllm/entrypoints/cli/serve.py run_multi_api_server and run_api_server_worker_proc,
    // v1/engine/utils.py launch_core_engines and wait_for_engine_startup, 0.9–0.3x): the start failed there. Pastes cut it before its raise line
    // (vllm-project/vllm-ascend#10343: at shard 138 of 161 after 42 minutes; vllm-project/vllm#35547: shard 106 of 163 after 9½ minutes — both the
    // ready timeout, held-out batch 146). Where the last weight-loading progress line (remembered by the weights rules) was short of all the
    // shards, the weights were still loading.
    code: 'ENGINE_DEAD',
    pattern:
      /^\s*File "[^"]*\/vllm\/(?:entrypoints\/cli\/serve|v1\/engine\/utils)\.py", line \d+, in (run_multi_api_server|run_api_server_worker_proc|launch_core_engines|wait_for_engine_startup)\b/,
    hit: (m, _line, _ray, context) => {
      // (with no weights still loading, the traceback's own exception names the failure: the fallback and the engine's rules read it)
      const [done, of] = (context.memory?.get(SHARDS_LOADED) ?? '').split(' of ').map(Number)
      if (done === undefined || of === undefined || !(done < of)) return null
      const after = context.memory?.get(SHARDS_LOADED_AFTER)
      const loading = `${done} of ${of} shards${after ? ` after ${after}` : ''}`
      return {
        key: 'engine-start-failed',
        severity: 'error',
        message: `vLLM's front-end failed while starting its engines (a traceback through ${m[1]}), with the weights still loading (${loading}): the front-end's wait for its engines most often ran out first (VLLM_ENGINE_READY_TIMEOUT_S).`,
        evidence: { 'Failed in': m[1]!, 'Weights loaded when it failed': loading, ...node(context) },
        fix: "The weights load slower than vLLM waits for its engines (600 s by default): raise VLLM_ENGINE_READY_TIMEOUT_S (e.g. 3600) in every container, and load from a local disk of every node rather than network storage or a first download; the traceback's last line names the error if it is another.",
      }
    },
  },
  {
    // vLLM 0.34 v1/engine/core_client.py: "TimeoutError: Timed out waiting for engine core processes to start. This is often caused by slow weight loading
    // for large models. Waited 600s (configured by VLLM_ENGINE_READY_TIMEOUT_S). …"; elastic EP: "Timed out waiting for new engine core processes to start."
    code: 'ENGINE_DEAD',
    pattern: /Timed out waiting for (new )?engine core processes to start\.(?:.*?Waited (\d+)s)?/,
    hit: (m, _line, _ray, context) => ({
      key: 'engine-ready-timeout',
      severity: 'error',
      message: `vLLM's front-end gave up waiting for its engine processes${m[2] ? ` after ${m[2]} s` : ''} (VLLM_ENGINE_READY_TIMEOUT_S): they were still loading weights, or stuck on a rendezvous with another node, or died without a message.`,
      evidence: { ...(m[2] ? { 'Waited (VLLM_ENGINE_READY_TIMEOUT_S)': `${m[2]} s` } : {}), ...node(context) },
      fix: 'Look at the engine\'s last lines before the timeout: loading weights ("Loading safetensors checkpoint shards" still going) means a slow disk or download — put the weights on local disk of every node or raise VLLM_ENGINE_READY_TIMEOUT_S (e.g. 1800) in every container; a rendezvous or NCCL line that never completed means a node that cannot be reached (see those findings).',
    }),
  },
  {
    // vLLM 0.34 v1/executor/multiproc_executor.py: "Worker proc VllmWorker-1 died unexpectedly (exit code: -9), shutting down executor."; Ray executor v2
    // (ray_executor_v2.py): "RayWorkerProc rank=1 died unexpectedly, shutting down executor."
    code: 'ENGINE_DEAD',
    pattern: /Worker proc (\S+) died unexpectedly(?: \(exit code: (-?\d+)\))?|RayWorkerProc rank=(\d+) died unexpectedly/,
    hit: (m, _line, _ray, context) => workerDied(m, context),
  },
  {
    // vLLM 0.34 ray_executor_v2.py: "RuntimeError: Worker 1 failed to initialize: <the worker's error>"; "RuntimeError: Ray workers have not started
    // successfully."; v1/engine/core.py: "RuntimeError: Input socket thread died during startup"; v1/engine/utils.py: "RuntimeError: Frontend process failed
    // during engine core initialization. See root cause above."; v1/engine/coordinator.py: "DP Coordinator process failed to report ZMQ addresses within
    // timeout=30 seconds during startup." / "DP Coordinator process failed during startup."
    code: 'ENGINE_DEAD',
    pattern:
      /\bWorker (\d+) failed to initialize: (.*)$|Ray workers have not started successfully|Input socket thread died during startup|Frontend process failed during engine core initialization|DP Coordinator process failed (?:to report ZMQ addresses within timeout=(\d+) seconds )?during startup/,
    hit: (m, _line, _ray, context) => ({
      key: `startup:${m[1] ?? m[0].slice(0, 30)}`,
      severity: 'error',
      message: m[1]
        ? `vLLM's Ray worker ${m[1]} failed while it initialised, so the engine cannot start; its error is the evidence.`
        : `A vLLM start-up process died before the engine came up (${m[0]}); the cause is logged above this line.`,
      evidence: {
        ...(m[1] ? { Worker: m[1], 'Worker error': (m[2] ?? '').slice(0, 200) } : { 'Process that failed': m[0] }),
        ...(m[3] ? { 'Coordinator timeout': `${m[3]} s` } : {}),
        ...node(context),
      },
      fix: m[1]
        ? "Fix the worker's error (the other findings name the usual ones: weights missing on that node, no GPU for the actor, an import error in the image); the line after `ray::` names the node (ip=) it ran on."
        : 'Read the first error above this line (an engine, a worker or the coordinator logged it); for data parallel over nodes check that every node can reach the front-end address and ports (--data-parallel-address, --data-parallel-rpc-port).',
    }),
  },
  {
    // Which data-parallel load balancing the front-end chose, kept for the headless refusal below: vLLM engine/arg_utils.py (0.2x) turns a
    // non-headless node given --data-parallel-start-rank into hybrid LB (`if self.data_parallel_start_rank is not None and not headless:
    // self.data_parallel_hybrid_lb = True`) and any --data-parallel-rank into external LB, then warns "data_parallel_hybrid_lb is not eligible
    // when data_parallel_size_local = 1, autoswitch to data_parallel_external_lb." and logs "Inferred data_parallel_rank 2 from node_rank 1 for
    // external lb" (vllm PR #54694's run log). gpustack/gpustack#6221 (vLLM 0.29: the head given --data-parallel-start-rank 0), vllm-ascend PR
    // #16204 (vLLM 0.28: "a set start-rank infers hybrid LB; with local=1 that autoswitches to external LB, which forbids --headless").
    code: 'ENGINE_DEAD',
    pattern:
      /data_parallel_hybrid_lb is not eligible when|autoswitch to data_parallel_external_lb|Inferred data_parallel_rank (\d+) from node_rank (\d+) for external lb/,
    hit: (m, _line, _ray, context) => {
      context.memory?.set(
        'dpLbMode',
        m[1] !== undefined
          ? `external (vLLM inferred data-parallel rank ${m[1]} from node rank ${m[2]})`
          : 'external (switched from hybrid: one local data-parallel rank per node)',
      )
      return null
    },
  },
  {
    // vLLM 0.34 v1/engine/utils.py: "RuntimeError: Remote engine 1 must use --headless unless in external or hybrid dp lb mode" (a data-parallel node
    // started with the API server) and "… must not use --headless in external or hybrid dp lb mode".
    code: 'ENGINE_DEAD',
    pattern: /Remote engine (\d+) must (not )?use --headless/,
    hit: (m, _line, _ray, context) => {
      const mode = context.memory?.get('dpLbMode')
      return {
        key: `headless:${m[1]}`,
        severity: 'error',
        message: `vLLM's data-parallel engine ${m[1]} on another node was started ${m[2] ? 'with' : 'without'} --headless, which this load-balancing mode${mode ? ` (${mode.split(' (')[0]})` : ''} does not allow, so the front-end refused it.`,
        evidence: {
          'Remote engine': m[1]!,
          '--headless': m[2] ? 'set (not allowed here)' : 'missing',
          ...(mode ? { 'Load balancing the front-end chose': mode } : {}),
          ...node(context),
        },
        fix: m[2]
          ? 'Decide where the API servers run. One endpoint on the head, vLLM balancing internally: start the head with none of --data-parallel-start-rank, --data-parallel-rank, --data-parallel-hybrid-lb or --data-parallel-external-lb (vLLM turns a start rank on a non-headless node into hybrid, and hybrid with one local rank into external, load balancing) and keep --headless --data-parallel-start-rank R on the other nodes. An API server on every node (external or hybrid load balancing): drop --headless on the other nodes.'
          : 'Start every node but the front-end with `vllm serve <model> --headless --data-parallel-size N --data-parallel-size-local L --data-parallel-start-rank R --data-parallel-address <head fabric ip> --data-parallel-rpc-port P`.',
      }
    },
  },
  {
    // vLLM 0.34 v1/engine/utils.py (the DP handshake): "RuntimeError: Configuration mismatch detected for engine 1. All DP workers must have identical
    // configurations for parameters that affect collective communication (e.g., enable_eplb, …). Worker hash: <h>, Expected hash: <h> (engine 0)".
    code: 'VERSION_SKEW',
    pattern: /Configuration mismatch detected for engine (\d+)\.(?:.*?Worker hash: (\w+), Expected hash: (\w+))?/,
    hit: (m, _line, _ray, context) => ({
      key: `dp-config:${m[1]}`,
      severity: 'error',
      message: `vLLM's data-parallel engine ${m[1]} was started with settings that differ from engine 0's (those that shape the collectives: parallel sizes, EPLB, quantisation…), so the front-end refused it.`,
      evidence: { Engine: m[1]!, ...(m[2] ? { 'Its config hash': m[2], 'Expected hash': m[3]! } : {}), ...node(context) },
      fix: 'Start every node from the same command line and image (the same vllm serve flags and vLLM version; only --data-parallel-start-rank, --headless and addresses differ), then restart all DP nodes together.',
    }),
  },
  {
    // vLLM 0.34 ray_executor_v2.py: "ImportError: Using Ray backend requires installation of ray."
    code: 'IMAGE_LACKS_RAY',
    pattern: /Using Ray backend requires installation of ray/,
    hit: (_m, _line, _ray, context) => ({
      key: 'ray',
      severity: 'error',
      message: `vLLM was asked for the Ray executor but Ray is not installed in its environment${context.prefixIp ? ` on ${context.prefixIp}` : ''}.`,
      evidence: { Missing: 'ray (the package)', 'Executor asked for': 'ray (--distributed-executor-backend ray)', ...node(context) },
      fix: "Use an image with Ray installed, the same version on every node (pip install 'ray[default]==<the cluster's version>'), or deploy with the mp executor (--nnodes/--node-rank/--master-addr), which needs no Ray.",
    }),
  },
  {
    // vLLM 0.34 v1/engine/utils.py (data parallel over Ray): "ValueError: Not enough resources to allocate 2 placement groups, only created 1 placement
    // groups. Available resources: {…}" and "ValueError: Not enough resources to allocate 2 DP ranks on DP master node 10.0.0.1, possible to fit 1 DP ranks."
    code: 'GPU_SHORTFALL',
    pattern:
      /Not enough resources to allocate (\d+) placement groups, only created (\d+) placement groups(?:\. Available resources: (\{[^}]*\}?))?|Not enough resources to allocate (\d+) DP ranks on DP master node (\S+?), possible to fit (\d+) DP ranks/,
    hit: (m, _line, _ray, context) => {
      const wanted = m[1] ?? m[4]
      const got = m[2] ?? m[6]
      return {
        key: `dp:${wanted}/${got}`,
        severity: 'error',
        message: `vLLM's data-parallel start wanted ${wanted} ${m[1] ? 'placement groups (one per DP rank)' : `DP ranks on the DP master node ${m[5]}`} but the Ray cluster had room for ${got}: a node has not joined with its GPUs, or an earlier run still holds them.`,
        evidence: {
          'DP ranks wanted': wanted!,
          'DP ranks that fit': got!,
          ...(m[5] ? { 'DP master node': m[5] } : {}),
          ...(m[3] ? { 'Available resources': m[3].slice(0, 200) } : {}),
          ...node(context),
        },
        fix: 'Check `ray status` on the head: every node must have joined with its GPUs (data_parallel_size × TP × PP GPUs in all, data_parallel_size_local × TP on the master); stop an earlier vLLM that still holds them, or lower --data-parallel-size / --data-parallel-size-local to what the cluster has.',
      }
    },
  },
  {
    // vLLM 0.34 utils/network_utils.py: "RuntimeError: Could not find open port after 100 attempts starting from port 29500"; Ray 2.60 services.py (the
    // dashboard): "ValueError: Failed to bind to 0.0.0.0:8265 because it's already occupied. You can use `ray start --dashboard-port ...` …".
    code: 'PORT_IN_USE',
    pattern: /Could not find open port after (\d+) attempts starting from port (\d+)|Failed to bind to (\S+?):(\d+) because it's already occupied/,
    hit: (m, _line, _ray, context) => ({
      key: `port:${m[2] ?? m[4]}`,
      severity: 'error',
      message: m[1]
        ? `vLLM found no free port in ${m[1]} tries from ${m[2]} on this node: earlier vLLM or Ray processes (or another service) hold the range.`
        : `Ray's dashboard cannot listen on ${m[3]}:${m[4]}: another process (an earlier Ray, or another service) holds the port.`,
      evidence: { Port: m[2] ?? m[4]!, ...(m[1] ? { Attempts: m[1] } : { Address: m[3]! }), ...node(context) },
      fix: m[1]
        ? `Stop leftover vLLM/Ray processes on that node (ss -ltnp shows who holds ports from ${m[2]}), or start from another base port (VLLM_PORT, --master-port, --data-parallel-rpc-port).`
        : `Stop the old Ray (ray stop -f) or give this one another port (ray start --dashboard-port <free port>); find the holder with ss -ltnp 'sport = :${m[4]}'.`,
    }),
  },
  {
    // Ray 2.60 scripts.py (a `ray` CLI command against a running cluster): "RuntimeError: Ray version mismatch: cluster has Ray version 2.49.0 but local Ray
    // version is 2.60.0".
    code: 'RAY_VERSION_MISMATCH',
    pattern: /Ray version mismatch: cluster has Ray version (\S+) but local Ray version is (\S+?)\.?(?:\s|$)/,
    hit: (m, _line, _ray, context) => ({
      key: `ray-version:${m[1]}/${m[2]}`,
      severity: 'error',
      message: `This node's Ray (${m[2]}) is not the cluster's (${m[1]}): Ray refuses to mix versions.`,
      evidence: { 'Cluster Ray': m[1]!, 'This node Ray': m[2]!, ...node(context) },
      fix: `Run the same image (the same Ray ${m[1]}) on every node and the driver; pin ray==${m[1]} where the image differs, and restart the cluster after changing it.`,
    }),
  },
  {
    // Ray's driver (_private/worker.py): "Connecting to existing Ray cluster at address: 192.168.1.101:6379..." — kept for the GCS read below.
    code: 'RAY_GCS_UNREACHABLE',
    pattern: /Connecting to existing Ray cluster at address: (\S+?)\.*(?:\s|$)/,
    hit: (m, _line, _ray, context) => {
      context.memory?.set('rayExistingCluster', m[1]!)
      return null
    },
  },
  {
    // Ray 2.60 _private/node.py: "RuntimeError: Failed to connect to GCS. Last connection error: …" (a worker's `ray start --address`; "Failed to start GCS" on
    // the head, with its error file's lines); _private/worker.py: "ConnectionError: Failed to connect to Ray cluster at 10.0.0.1:6379"; the driver's
    // first read of the GCS it was pointed at (_private/services.py get_gcs_kv / ray 2.x): "ConnectionError: Could not read 'session_name' from GCS.
    // Did GCS start successfully?" after "Connecting to existing Ray cluster at address: 192.168.1.101:6379" — a head that is gone, or a stale
    // /tmp/ray/ray_current_cluster ray.init() fell back to (yiju-zhao/verl-vllm notes, 2026; modin's and others' handlers of the same words).
    code: 'RAY_GCS_UNREACHABLE',
    pattern:
      /Failed to connect to GCS\.\s+(?:Last (?:\d+ lines of error files|connection error: (.*))|$)|Failed to connect to Ray cluster at (\S+?)\.?(?:\s|$)|Could not read '([\w-]+)' from GCS\. Did GCS start successfully/,
    hit: (m, _line, _ray, context) => {
      // gRPC names the address it dialled inside the error: "… ipv4:10.0.0.1:6379: Failed to connect to remote host: Connection refused".
      const address = m[2] ?? /(?:ipv4:)?(\d{1,3}(?:\.\d{1,3}){3}:\d+)/.exec(m[1] ?? '')?.[1] ?? (m[3] ? context.memory?.get('rayExistingCluster') : undefined)
      return {
        key: `gcs:${address ?? 'connect'}`,
        severity: 'error',
        message: m[3]
          ? `A Ray driver joined an existing cluster${address ? ` at ${address}` : ''} but could not read '${m[3]}' from its GCS: no head is serving there (it is gone, or an address left by an earlier cluster was used).`
          : `This node could not reach the Ray head's GCS${address ? ` at ${address}` : ''}, so it cannot join or use the cluster.`,
        evidence: { ...(address ? { 'GCS address': address } : {}), ...(m[1] ? { 'Last connection error': m[1].slice(0, 200) } : {}), ...node(context) },
        fix: m[3]
          ? 'Point the driver at the running head (RAY_ADDRESS=<head fabric ip>:6379, or ray.init(address=...)) and check it with `ray status`; with no RAY_ADDRESS, ray.init() reads /tmp/ray/ray_current_cluster, which an earlier cluster may have left: remove it (ray stop cleans it) or start the head again.'
          : "Check that the head is up (ray status on the head) and that this node reaches the head's fabric address and port (nc -zv <head ip> 6379 from inside this node's container); use the head's --node-ip-address, not a Docker bridge or loopback address, and open the port between the nodes.",
      }
    },
  },
  {
    // Ray 2.60 _private/services.py (get_node_to_connect_for_driver): "RuntimeError: No node info found matching attributes: '10.0.0.3' when trying to
    // resolve node to connect to." — the driver's node address (RAY_NODE_IP / VLLM_HOST_IP / detected) is no raylet's; the successor of "This node has an
    // IP address of …, but we cannot find a local Raylet with the same address".
    code: 'RAY_IP_MISMATCH_WARNING',
    pattern: /No node info found matching attributes: '([^']*)' when trying to resolve node to connect to/,
    hit: (m, _line, ray, context) => {
      const alive = ray && !ray.error ? ray.nodes.filter((n) => n.alive && n.address !== '') : []
      return {
        key: `no-node:${m[1]}`,
        severity: 'error',
        message: `A Ray driver looked for a raylet at ${m[1]} on its machine and the cluster has none, so ray.init (and vllm serve with the Ray executor) failed.`,
        evidence: {
          'Address the driver looked for': m[1]!,
          ...(alive.length > 0 ? { 'Ray node addresses (NodeManagerAddress)': alive.map((n) => n.address).join(', ') } : {}),
          ...node(context),
        },
        fix: `Run the driver (vllm serve) inside the container where that node's raylet runs, and start that raylet with --node-ip-address=${m[1]} (or set the driver's address to the one ray start used: the same value in VLLM_HOST_IP and --node-ip-address).`,
      }
    },
  },
  {
    // torch c10d ProcessGroupNCCL.cpp (broadcastUniqueNCCLID, 1.x–2.11): "DistBackendError: [1] is setting up NCCL communicator and retrieving ncclUniqueId
    // from [0] via c10d key-value store by key '0', but store->get('0') got error: Socket Timeout. This may indicate a possible application crash on rank 0
    // or a network set up issue." (also "wait timeout after 600000ms", "Connection reset by peer", "Broken pipe"; 1.x spelt "retreiving").
    code: 'RENDEZVOUS_RANKS_MISSING',
    pattern:
      /\[(\d+)\] is setting up NCCL communicator and retr(?:ie|ei)ving ncclUniqueId from \[(\d+)\] via c10d key-value store by key '([^']*)', but store->get\('[^']*'\) got error: ([^.\n]*)/i,
    hit: (m, _line, _ray, context) => {
      const dropped = /reset|broken pipe|refused|closed/i.test(m[4] ?? '')
      return {
        key: `nccl-id:${m[2]}`,
        severity: 'error',
        message: dropped
          ? `Rank ${m[1]} lost torch's rendezvous store while it waited for rank ${m[2]}'s NCCL id (${m[4]}): rank ${m[2]} (the master, which hosts the store) died or restarted.`
          : `Rank ${m[1]} reached torch's rendezvous store but rank ${m[2]} never published its NCCL id (${m[4]}): rank ${m[2]} failed or hung before creating its NCCL communicator, or the ranks belong to different runs.`,
        evidence: { Rank: m[1]!, 'Waited for rank': m[2]!, 'Store key': m[3]!, 'Store error': (m[4] ?? '').trim(), ...node(context) },
        fix: `Read rank ${m[2]}'s log (the master node's) at the same time for its own error first; start all nodes together with the same --nnodes/--master-addr/--master-port and a fresh master port per attempt, and make sure no earlier run is still holding that port.`,
      }
    },
  },
  {
    // NCCL (include/alloc.h, CUDACHECK): "NCCL WARN Cuda failure 2 'out of memory'" (older: "Cuda failure 'out of memory'") — NCCL's own buffers did not fit;
    // torch repeats the WARN's text alone on its line after "ncclUnhandledCudaError: Call to CUDA function failed." and "Last error:"
    // (vllm-project/vllm#18446, 2025: V1's CUDA graphs left NCCL no room on eight GPUs).
    code: 'GPU_OUT_OF_MEMORY',
    pattern: /(?:NCCL WARN |^\s*(?:Last error:\s*)?)Cuda failure (?:2 )?'out of memory'/,
    hit: (_m, _line, _ray, context) => ({
      key: 'nccl-cuda-oom',
      severity: 'error',
      message: "NCCL could not allocate its buffers on the GPU: vLLM's memory share (--gpu-memory-utilization) left too little for NCCL's communicators.",
      evidence: { 'Reported by': 'NCCL (CUDA allocation)', ...node(context) },
      fix: 'Lower --gpu-memory-utilization (e.g. by 0.02–0.05) so NCCL has room for its buffers, or lower NCCL_BUFFSIZE / NCCL_NCHANNELS_PER_NET_PEER; on GB10 (unified memory) also free host memory.',
    }),
  },
  {
    // NCCL transport/net_ib.cc (ncclIbAsyncThreadMain): "NCCL WARN NET/IB : Got async event : port error" (ibv_event_type_str: also "local catastrophic
    // error", "QP fatal error", "CQ error", "… work queue error"): the HCA reported a failure under NCCL. The events a healthy fabric sends ("client
    // reregistration", "SM change", "LID change", "GID table change", "port active") are not read (DeepSpeedExamples#310, held-out batch 2).
    code: 'NCCL_TRANSPORT_ERROR',
    // NCCL ≥ 2.19 names the device and port and sorts the events: "NET/IB : mlx5_32:1 Got async error event: port error" (the non-fatal
    // kinds, llm-d/llm-d#191: a port that flapped under the collectives), "NET/IB : mlx5_0:1 async fatal event on QP (0x…): QP fatal error";
    // NCCL 2.31 (transport/net_ib/common.cc ncclIbAsyncThreadMain) a port's own: "NET/IB : roceP2p1s0f0:1 async fatal event: local catastrophic error".
    pattern:
      /NET\/IB : (?:([\w.-]+:\d+) )?(?:Got async (?:error )?event ?: |async fatal event(?: on (?:CQ|QP|SRQ)\b[^:]*)?: )([^\n]*?(?:port error|catastrophic error|fatal error|CQ error|work queue error|access violation|request error|path migration error))/,
    hit: (m, line, _ray, context) => ({
      key: `ib-async:${m[2]}`,
      severity: 'error',
      message: `An InfiniBand/RoCE port NCCL was using${m[1] ? ` (${m[1]})` : ''} reported "${m[2]}": the link went down or reset under the collectives.`,
      evidence: {
        'IB event': m[2]!,
        ...(m[1] ? { 'IB device:port': m[1] } : {}),
        ...(/^([\w.-]+):\d+:\d+/.exec(line) ? { 'NCCL host': /^([\w.-]+):/.exec(line)![1]! } : {}),
        ...node(context),
      },
      fix: 'Check the port on that node (ibstat / ibv_devinfo: State Active, the expected rate; dmesg for mlx5 link-down), the cable and the switch port; pin NCCL_IB_HCA to the ports that stay up.',
    }),
  },
]
