/**
 * Log signatures of memory exhaustion, with the unified memory of a DGX Spark (GB10) in mind: there
 * the GPU and the host share one pool, so `gpu_memory_utilization` is not a hard cap, the NVIDIA
 * driver's `NV_ERR_NO_MEMORY` comes before host wedges, and the kernel's or Ray's OOM killer takes
 * processes the GPU's allocations starved. Read from the kernel log (dmesg), Ray's and vLLM's
 * output. Wordings in src/preflight/WORDINGS.md.
 */

import type { RuleHit, SignatureRule } from './signature-rules.js'
import { nodeEvidence } from './line-node.js'

/** A GPU that reports about 110–135 GiB in all is a GB10's unified memory (119.7 / 121.69 GiB visible of 128 GB). */
const looksUnified = (total: number | undefined, unit: string | undefined): boolean =>
  total !== undefined && (unit ?? 'GiB').startsWith('G') && total >= 110 && total <= 135

/** Ray's figures of a memory-monitor kill: the node (IP, ID), memory in use / total (fraction), the threshold. */
const RAY_MEMORY_ON_NODE =
  /Memory on the node(?: \(IP: ([^,\s)]+)(?:, ID: (\w+))?\))?(?:[^\n]*?was running)? was ([\d.]+ ?[KMGT]B)(?: used)? \/ ([\d.]+ ?[KMGT]B)(?: limit)? \(([\d.]+)\)(?:[,;] which exceeds the memory usage threshold of ([\d.]*\d))?/i

export const UNIFIED_FIX =
  'On a GB10 the model, the KV cache, CUDA graphs, NCCL buffers and the host share one memory pool: before vLLM starts, compare MemAvailable on that node with weights + KV cache, lower --gpu-memory-utilization (0.75–0.85 leaves the host room), --max-model-len and --max-num-seqs, stop other GPU processes and drop the page cache (sync; echo 3 > /proc/sys/vm/drop_caches); watch dmesg -w while vLLM starts.'

/**
 * What to do when a node ran out of host memory (the kernel's OOM killer, earlyoom, systemd-oomd, a memory guard): the GB10 advice (one pool
 * for the GPU and the host) where the log showed a GB10, else the host-memory advice for a discrete-GPU node.
 */
export function hostMemoryFix(line: string, memory: Map<string, string> | undefined): string {
  if (/\bGB10\b/.test(line) || memory?.has('unifiedMemory')) return UNIFIED_FIX
  return "The node ran out of host memory (RAM): see what held it (the kill's resident size, ps/top on the node), lower what vLLM keeps in host memory (--swap-space, --cpu-offload-gb, fewer API servers; weights load through the page cache), stop other processes on that node or give it or its container more memory. On a GB10 or another unified-memory node the GPU's allocations are host memory too: lower --gpu-memory-utilization and --max-model-len."
}

/**
 * What to do about a kill by Ray's memory monitor. It measures the node's host memory (RAM), not a
 * GPU's: the GB10 advice (one pool for GPU and host) only where the log showed a GB10.
 */
function rayKillFix(line: string, memory: Map<string, string> | undefined): string {
  if (/\bGB10\b/.test(line) || memory?.has('unifiedMemory'))
    return `${UNIFIED_FIX} Ray counts the GPU's share of unified memory as used host memory; RAY_memory_usage_threshold only moves the line.`
  return "Ray's memory monitor measures the node's host memory (RAM), not the GPU's: see what held it (`ray logs raylet.out -ip <node>` lists the top memory users at the kill), then give the node or its container more memory, lower what vLLM keeps in host memory (--swap-space, --cpu-offload-gb, fewer API servers), or place fewer Ray workers on that node; RAY_memory_usage_threshold only moves the line, and RAY_memory_monitor_refresh_ms=0 stops Ray's kills but leaves the kernel's OOM killer."
}

/** The kill's finding, for the "OOM kill reason" line that completes it (its key, who was killed, the node's memory then). */
function rememberRayKill(memory: Map<string, string> | undefined, key: string, who: string, use: string | undefined): void {
  memory?.set('rayOomKey', key)
  memory?.set('rayOomWho', who)
  if (use) memory?.set('rayOomUse', use)
  else memory?.delete('rayOomUse')
}

/**
 * Why Ray's memory monitor killed, as the raylet words it after "OOM kill reason: " (Ray 2.56+, src/ray/common/monitors/ in
 * ray-project/ray, 2026): the event monitor of resource isolation "user cgroup memory upper bound was met or exceeded" (the user
 * cgroup's memory.high reached), the PSI monitor "user cgroup memory pressure was detected", the threshold monitor "Memory usage
 * <n>B exceeded threshold of <n>B (<p>% of <n>B total)"; a write-up's paraphrase "exceeded threshold of 95%".
 */
function rayKillReason(reason: string): { why: string; fix?: string } {
  if (/user cgroup memory (?:upper bound|pressure)/i.test(reason))
    return {
      why: `the cgroup Ray runs its workers in (resource isolation, ray start --enable-resource-isolation) ${/pressure/i.test(reason) ? 'came under memory pressure' : 'reached its memory upper bound (memory.high)'}`,
      fix: "Resource isolation caps Ray's worker cgroup at the node's memory minus what it reserves for the system (--system-reserved-memory, 10% by default): lower what vLLM keeps in host memory (--swap-space, --cpu-offload-gb, fewer API servers), place fewer Ray workers on the node or give it more memory; a smaller --system-reserved-memory gives the workers more but leaves the OS and the raylet less.",
    }
  return { why: "the node's memory use passed Ray's kill threshold" }
}

/** vLLM's config check: the asked length against the model's config.json maximum. */
function overModelMaximum(m: RegExpExecArray): RuleHit {
  const derived = m[3]!.replace(/\.0$/, '')
  const maxLength = m[4] && m[4] !== 'None' ? m[4] : undefined
  return {
    key: `model:${m[1]}`,
    severity: 'error',
    message: `--max-model-len ${m[1]} is longer than the model's own maximum (${m[2]}=${derived}${maxLength ? `, model_max_length=${maxLength}` : ''} in its config.json), so vLLM refuses to start.`,
    evidence: { 'max_model_len asked': m[1]!, "Model's maximum": `${derived} (${m[2]})`, ...(maxLength ? { model_max_length: maxLength } : {}) },
    fix: `Set --max-model-len to ${derived} or less (or leave it out: vLLM then uses the model's maximum); VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 only for a model whose rope scaling really supports ${m[1]} tokens.`,
  }
}

/** vLLM V0's check: the asked length against the tokens the KV cache holds. */
function overKvTokens(holds: string, asked: string | undefined): RuleHit {
  return {
    key: `kv:${holds}`,
    severity: 'error',
    message: `--max-model-len${asked ? ` ${asked}` : ''} does not fit the KV cache: it holds ${holds} tokens on this GPU after the weights.`,
    evidence: { ...(asked ? { 'max_model_len asked': asked } : {}), 'Tokens the KV cache holds': holds },
    fix: `Lower --max-model-len to ${holds} or less, or give the KV cache more memory: raise --gpu-memory-utilization, or spread the model over more GPUs (tensor or pipeline parallel) so each holds less of the weights.`,
  }
}

/** vLLM V1's check: the KV cache one request of the asked length needs against what is left, with vLLM's own estimate. */
function overKvMemory(m: RegExpExecArray, asked: string | undefined): RuleHit {
  // (the size cut from a quote: "KV cache is needed, which is larger than the available KV cache memory." alone, velog.io, 2025)
  const [needed, available, estimate] = [m[6], m[7], m[8]]
  return {
    key: `kv-memory:${needed ?? ''}`,
    severity: 'error',
    message: `--max-model-len${asked ? ` ${asked}` : ''} needs ${needed ? `${needed} of KV cache for one request, more than` : 'more KV cache for one request than'}${available ? ` the ${available}` : ' what is'} left after the weights${estimate ? `; vLLM estimates ${estimate} tokens fit` : ''}.`,
    evidence: {
      ...(asked ? { 'max_model_len asked': asked } : {}),
      ...(needed ? { 'KV cache needed': needed } : {}),
      ...(available ? { 'KV cache available': available } : {}),
      ...(estimate ? { 'Estimated maximum model length': estimate } : {}),
    },
    fix: `Lower --max-model-len${estimate ? ` to ${estimate} or less` : ''}, or give the KV cache more memory: raise --gpu-memory-utilization, use --kv-cache-dtype fp8, or spread the model over more GPUs so each holds less of the weights.`,
  }
}

export const MEMORY_RULES: readonly SignatureRule[] = [
  {
    // NVIDIA driver (dmesg): "NVRM: nvCheckOkFailedNoLog: Check failed: Out of memory [NV_ERR_NO_MEMORY] (0x00000051) returned from
    //   _memdescAllocInternal(pMemDesc) @ mem_desc.c:1359"; "NVRM: _iovaspaceCreateMappingDataFromMemDesc: failed to allocate 0x176028 bytes …"
    code: 'NVRM_NO_MEMORY',
    // (the status string alone, the bracketed code cut off or wrapped away: "nvCheckOkFailedNoLog: Check failed: Out of memory"; the driver prints
    // "Check failed: <status string> [<status name>] (0x<code>) returned from <call> @ <file>:<line>", NV_ERR_NO_MEMORY's string being "Out of memory")
    pattern:
      /\[?NV_ERR_NO_MEMORY\]?(?:\s*\((0x[0-9a-f]+)\))?(?:.*?returned from (\w+))?|NVRM: (\w+): failed to allocate\s+(0x[0-9a-f]+|\d+) bytes|\bnvCheckOk\w*: Check failed: Out of memory\b/i,
    hit: (m) => ({
      key: 'nvrm',
      severity: 'warning',
      message:
        'The NVIDIA driver could not allocate memory (NV_ERR_NO_MEMORY). On a GB10 (unified memory) these lines come before vLLM start-up failures and whole-host wedges; on their own they are not proof (healthy start-ups print some too), so read them with the memory left on the node.',
      evidence: {
        ...(m[2] || m[3] ? { 'Driver function': (m[2] ?? m[3])! } : {}),
        ...(m[1] ? { 'Status code': m[1] } : {}),
        ...(m[4] ? { 'Allocation that failed': `${m[4]} bytes` } : {}),
      },
      fix: UNIFIED_FIX,
    }),
  },
  {
    // Linux OOM killer: "Out of memory: Killed process 3742074 (lmcache) total-vm:81306880kB, anon-rss:1058560kB, …" (4.x+),
    // "Out of memory: Kill process 1234 (python) score 900 or sacrifice child" (older), "Memory cgroup out of memory: Killed process …".
    code: 'OOM_KILLED',
    pattern: /(Memory cgroup out of memory|Out of memory): Kill(?:ed)? process (\d+) \(([^)]+)\)(?:.*?total-vm:(\d+)kB,\s*anon-rss:(\d+)kB)?/i,
    hit: (m, line, _ray, context) => {
      const cgroup = /cgroup/i.test(m[1] ?? '')
      const rss = m[5] !== undefined ? `${(Number(m[5]) / 2 ** 20).toFixed(2)} GiB` : undefined
      return {
        key: `kernel:${m[2]}`,
        severity: 'error',
        message: `The kernel's OOM killer killed ${m[3]} (pid ${m[2]})${cgroup ? " because its container's memory limit was reached" : ' because the machine ran out of memory'}${rss ? `; it held ${rss} resident` : ''}.`,
        evidence: {
          'Killed process': `${m[3]} (pid ${m[2]})`,
          ...(rss ? { 'Resident memory (anon-rss)': rss } : {}),
          Scope: cgroup ? 'container (memory cgroup)' : 'whole machine',
        },
        fix: cgroup
          ? "Raise or remove the container's memory limit (docker run --memory), or make the process need less."
          : hostMemoryFix(line, context.memory),
      }
    },
  },
  {
    // Linux: "<comm> invoked oom-killer: gfp_mask=…" and "oom-kill:constraint=CONSTRAINT_NONE,…,task=lmcache,pid=3742074,uid=0" (the lines before the kill);
    // also as a write-up quotes it, abridged and spaced ("oom-kill: ... global_oom, task_memcg=/system.slice/docker-….scope, task=VLLM::EngineCor,
    // pid=400721": jethac/dgx-spark-hijinks, 2026).
    code: 'OOM_KILLED',
    // (The trigger's name is read in hit: a pattern starting with a character class is scanned at every position of every line.)
    pattern: /oom-kill:\s*(?:constraint=(\w+))?.*?\btask=([^,\s]+),\s*pid=(\d+)| invoked oom-killer/i,
    hit: (found, _line, _ray, context) => {
      const m = [...found, /(?:^|\s)([\w.:/-]{1,64}) invoked oom-killer/i.exec(found.input)?.[1]]
      return m[3] === undefined && m[4] === undefined
        ? null
        : {
            key: m[3] ? `kernel:${m[3]}` : `invoked:${m[4]}`,
            severity: 'error',
            message: m[3]
              ? `The kernel's OOM killer chose ${m[2]} (pid ${m[3]}) to kill${m[1] ? ` (${m[1]})` : ''}.`
              : `The kernel's OOM killer ran (triggered by ${m[4]}): the machine ran out of memory.`,
            evidence: (m[3] ? { 'Killed process': `${m[2]} (pid ${m[3]})`, ...(m[1] ? { Constraint: m[1] } : {}) } : { 'Triggered by': m[4] ?? '' }) as Record<
              string,
              string
            >,
            fix: hostMemoryFix(found.input, context.memory),
          }
    },
  },
  {
    // Ray 2.60 raylet (threshold memory monitor): "Memory usage 128849018880B exceeded threshold of 122406567936B (95.0% of 128849018880B limit)"
    // ("… total)" in src/ray/common/monitors/threshold_memory_monitor.cc, 2026); logged
    // before a kill, and with "Memory usage above threshold but no workers are available for killing": kept as the evidence of the kill line after it.
    code: 'OOM_KILLED',
    pattern: /Memory usage (\d+)B exceeded threshold of (\d+)B \(([\d.]+)% of (\d+)B (?:limit|total)\)/,
    hit: (m, _line, _ray, context) => {
      const gb = (bytes: string | undefined): string => `${(Number(bytes) / 1e9).toFixed(2)}GB`
      context.memory?.set('rayMemoryUsage', `${gb(m[1])} / ${gb(m[4])} (threshold ${m[3]}%: ${gb(m[2])})`)
      return null
    },
  },
  {
    // Ray 2.0's memory monitor, in the raylet (node_manager.cc): "System memory low at node with IP 172.17.0.2. Used memory (23.63GB) / total
    // capacity (33.28GB) (0.709971) exceeds threshold 0.7, killing latest task with name … and id … " (ray-project/ray PR #27716, held-out batch
    // 158); the wording before "Memory on the node …" below.
    code: 'OOM_KILLED',
    pattern:
      /System memory low at node with IP ([\d.a-f:]+)\. Used memory \(([\d.]+ ?[KMGT]B)\) \/ total capacity \(([\d.]+ ?[KMGT]B)\) \(([\d.]+)\) exceeds threshold ([\d.]+)/,
    hit: (m, line, _ray, context) => ({
      key: `ray:${m[1]}`,
      severity: 'error',
      message: `Ray's memory monitor killed a task on ${m[1]}: the node's memory use (${m[2]} of ${m[3]}) passed Ray's kill threshold (${m[5]}).`,
      evidence: { Node: m[1]!, 'Memory in use': `${m[2]} / ${m[3]} (${m[4]})`, 'Kill threshold': m[5]! },
      fix: rayKillFix(line, context.memory),
    }),
  },
  {
    // Ray memory monitor (2.1+): "ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory.";
    // "Memory on the node (IP: 172.31.69.247, ID: …) where the task … was running was 54.86GB / 57.60GB (0.952354), which exceeds the memory usage threshold of 0.95.";
    // raylet summary: "2 Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed … at node (ID: …, IP: 172.24.0.226)".
    code: 'OOM_KILLED',
    // (a pasted exception wrapped by hand ends its first line at "… killed due to the node")
    // Ray 2.55+: "N worker(s) were killed due to the node running low on memory. Memory on the node (IP: 10.0.50.112, ID: …) was 28.62GB / 30.00GB
    // (0.954017), which exceeds the memory usage threshold of 0.950000" (no "where the task … was running"; the IP and ID may be left out).
    // Ray 2.60 (raylet binary's strings): "… was 118.20GB used / 121.69GB limit (0.971302)"; the raylet's own line "Ray killed 1 worker(s) based on the
    // killing policy", after "Memory usage 128849018880B exceeded threshold of 122406567936B (95.0% of 128849018880B limit)" (read into the evidence).
    pattern:
      /Memory on the node(?: \(IP: ([^,\s)]+)(?:, ID: (\w+))?\))?(?:[^\n]*?was running)? was ([\d.]+ ?[KMGT]B)(?: used)? \/ ([\d.]+ ?[KMGT]B)(?: limit)? \(([\d.]+)\)(?:[,;] which exceeds the memory usage threshold of ([\d.]*\d))?|(?:Task|Actor|(\d+) worker\(s\)) (?:was|were) killed due to the node(?: running low on memory|\s*$)|(\d+) Workers? \(tasks \/ actors\) killed due to memory pressure \(OOM\)(?:.*?IP: ([\d.a-f:]+)\))?|Ray killed (\d+) worker\(s\) based on the killing policy/i,
    hit: (m0, line, _ray, context) => {
      // The 2.55+ count comes first on the line: the figures after it are read from the same line.
      const more = m0[7] !== undefined ? RAY_MEMORY_ON_NODE.exec(line) : null
      const m = more ? [...more.slice(0, 7), m0[7], m0[8], m0[9]] : m0
      const ip = m[1] ?? m[9]
      const killed = m[7] ?? m[8] ?? m0[10]
      const usage = m[3] ? undefined : context.memory?.get('rayMemoryUsage')
      // no IP on the line: a provisional key, which the line naming the node completes (log-findings.ts)
      const key = ip ? `ray:${ip}` : 'ray:?'
      const who = `Ray's memory monitor killed ${killed ? `${killed} worker(s)` : 'a worker'}${ip ? ` on ${ip}` : ''}`
      // the "OOM kill reason: …" line after it (or later on the same line) completes this finding
      rememberRayKill(context.memory, key, who, m[3] ? `${m[3]} of ${m[4]}` : undefined)
      return {
        key,
        severity: 'error',
        message: `${who}: the node's memory use${m[3] ? ` (${m[3]} of ${m[4]})` : ''} passed Ray's kill threshold${m[6] ? ` (${m[6]})` : ''}.`,
        evidence: {
          ...(ip ? { Node: ip } : {}),
          ...(m[3] ? { 'Memory in use': `${m[3]} / ${m[4]} (${m[5]})` } : {}),
          ...(usage ? { 'Memory in use': usage } : {}),
          ...(m[6] ? { 'Kill threshold': m[6] } : {}),
          ...(killed ? { 'Workers killed': killed } : {}),
        },
        fix: rayKillFix(line, context.memory),
      }
    },
  },
  {
    // Why the monitor killed, the raylet's "OOM kill reason: <reason>" (Ray 2.56+; raylet.out joins the kill's lines with ";", a driver's
    // exception puts it on the line after "… were killed due to the node running low on memory. Memory on the node …"): completes the
    // kill's finding (its key is remembered) or, alone, is one.
    code: 'OOM_KILLED',
    pattern: /\bOOM kill reason: ([^;\n]*[^;\s])/,
    hit: (m, line, _ray, context) => {
      const reason = m[1]!.slice(0, 200)
      const { why, fix } = rayKillReason(reason)
      const who = context.memory?.get('rayOomWho') ?? `Ray's memory monitor killed a worker${context.prefixIp ? ` on ${context.prefixIp}` : ''}`
      const use = context.memory?.get('rayOomUse')
      return {
        key: context.memory?.get('rayOomKey') ?? (context.prefixIp ? `ray:${context.prefixIp}` : 'ray:?'),
        severity: 'error',
        message: `${who}: ${why}${use ? ` (node memory ${use})` : ''}.`,
        evidence: { 'Why Ray killed': reason, ...(context.prefixIp ? { Node: context.prefixIp } : {}) },
        fix: fix ?? rayKillFix(line, context.memory),
      }
    },
  },
  {
    // A GB10 named anywhere before the kill (nvidia-smi's "NVIDIA GB10", vLLM's device line, a DGX Spark prompt): Ray's kills are then read
    // as unified memory. Remembered only, no finding.
    code: 'OOM_KILLED',
    pattern: /\bGB10\b/,
    hit: (_m, _line, _ray, context) => {
      context.memory?.set('unifiedMemory', 'GB10')
      return null
    },
  },
  {
    // The raylet's own line for the kill (the memory monitor; ray/raylet/node_manager.cc and the worker killing policy):
    // Ray 2.2–2.54 "(raylet) node_manager.cc:3093: Killing worker with task Type=NORMAL_TASK, Language=PYTHON, Resources: {CPU: 1, },
    //   function_descriptor={…, function_name=hungry_hippo, …}, lease_id=…" (ray-project/ray PR #60752's example output; the "Memory on the node …"
    //   details follow it); Ray 2.55 "Killing 2 worker(s), kill details: …, suggestions: …"; Ray 2.60 "Killing 2 worker(s), kill details: …" and
    //   "Currently used memory: 118 bytes, threshold: 115 bytes, kill buffer: 0 bytes. Needed to free 3 bytes. Selected 1 workers to kill: …"
    //   (strings of the 2.55.1 and 2.60.0 raylet binaries). Not the lease clean-ups "Killing leased worker because its owner died." or
    //   "Killing leaked child process".
    code: 'OOM_KILLED',
    pattern:
      /Killing worker with task\b(?:.*?\bType=(\w+))?(?:.*?\bfunction_name=(\w+))?|Killing (\d+) worker\(s\), kill details:|Currently used memory: (\d+) bytes, threshold: (\d+) bytes\b.*?Selected (\d+) workers? to kill/,
    hit: (m, line, _ray, context) => {
      const killed = m[3] ?? m[6]
      const gb = (bytes: string): string => `${(Number(bytes) / 1e9).toFixed(2)}GB`
      const usage = m[4] ? `${gb(m[4])} (threshold ${gb(m[5]!)})` : context.memory?.get('rayMemoryUsage')
      const key = context.prefixIp ? `ray:${context.prefixIp}` : 'ray:?'
      const who = `Ray's memory monitor killed ${killed ? `${killed} worker(s)` : `a worker${m[2] ? ` running ${m[2]}` : ''}`}${context.prefixIp ? ` on ${context.prefixIp}` : ''}`
      rememberRayKill(context.memory, key, who, undefined)
      return {
        key,
        severity: 'error',
        message: `${who}: the node's memory use passed Ray's kill threshold.`,
        evidence: {
          ...(context.prefixIp ? { Node: context.prefixIp } : {}),
          ...(m[2] ? { 'Task killed': `${m[2]}${m[1] ? ` (${m[1]})` : ''}` } : {}),
          ...(killed ? { 'Workers killed': killed } : {}),
          ...(usage ? { 'Memory in use': usage } : {}),
        },
        fix: rayKillFix(line, context.memory),
      }
    },
  },
  {
    // The same message's second half where a paste wrapped or cut its head ("torch.OutOfMemoryError: CUDA out of memory." on a line of its own, or
    // gone): "Tried to allocate 136.00 MiB. GPU 0 has a total capacity of 22.36 GiB of which 120.88 MiB is free." (vllm-project/vllm#57475's fix PR,
    // wrapped at 72 columns), torch <= 2.0's "Tried to allocate 2.26 GiB (GPU 0; 6.00 GiB total capacity; …)": nothing else prints these words.
    code: 'GPU_OUT_OF_MEMORY',
    pattern:
      /(?<!out of memory\.? )\bTried to allocate ([\d.]+ [KMGT]iB)(?:\.? (?:GPU|NPU) (\d+) has a total capac\w* of ([\d.]+ [KMGT]iB)| \((?:GPU|NPU) (\d+); ([\d.]+ [KMGT]iB) total capacity)/,
    hit: (m, _line, _ray, context) => {
      const device = m[2] ?? m[4]!
      const total = m[3] ?? m[5]!
      return {
        key: `cuda:${device}`,
        severity: 'error',
        message: `The GPU ran out of memory allocating ${m[1]} on GPU ${device} (${total} in all).`,
        evidence: { 'Tried to allocate': m[1]!, 'GPU total': total, ...nodeEvidence(context) },
        fix: 'Lower --gpu-memory-utilization, --max-model-len or --max-num-seqs, use more tensor-parallel ranks or a quantised model, and make sure no other process holds the GPU (nvidia-smi); PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True helps fragmentation only.',
      }
    },
  },
  {
    // torch <= 2.0: "CUDA out of memory. Tried to allocate 2.26 GiB (GPU 0; 6.00 GiB total capacity; …)"; torch 2.1: "GPU 0 has a total capacty of …";
    // torch >= 2.2: "GPU 0 has a total capacity of 10.74 GiB of which 3.69 GiB is free."; C++/CUDA: "CUDA error: out of memory".
    // The same allocator on other accelerators: torch on ROCm "HIP out of memory. Tried to allocate 576.00 MiB (GPU 3; 15.98 GiB total capacity; …)",
    // "HIP error: out of memory" (hipErrorOutOfMemory); torch_npu (Ascend) "NPU out of memory. Tried to allocate 3.47 GiB (NPU 0; 60.97 GiB total
    // capacity; 58.92 GiB already allocated; 58.92 GiB current active; 1.66 GiB free; …)" (vllm-project/vllm-ascend#1987, #19; dev batch dev10b).
    code: 'GPU_OUT_OF_MEMORY',
    pattern:
      /(CUDA|HIP|NPU) out of memory\.?(?: Tried to allocate ([\d.]+ [KMGT]iB))?(?:.*?(?:\((?:GPU|NPU) (\d+); ([\d.]+) ([KMGT]iB) total capacity(?:[^)]*?; ([\d.]+ [KMGT]iB) free)?|GPU (\d+) has a total capac\w* of ([\d.]+) ([KMGT]iB)(?: of which ([\d.]+ [KMGT]iB) is free)?))?|(CUDA|HIP) error: out of memory|cudaErrorMemoryAllocation|hipErrorOutOfMemory/i,
    hit: (m, line) => {
      const total = m[4] ?? m[8]
      const unit = m[5] ?? m[9]
      const free = m[6] ?? m[10]
      const device = m[3] ?? m[7]
      const runtime = (m[1] ?? m[11] ?? (/^hip/i.test(m[0]) ? 'HIP' : 'CUDA')).toUpperCase()
      const accel = runtime === 'NPU' ? 'NPU' : 'GPU'
      const unified = looksUnified(total !== undefined ? Number(total) : undefined, unit) || /\bGB10\b/.test(line)
      return {
        key: `${runtime.toLowerCase()}:${device ?? '?'}`,
        severity: 'error',
        message: `${runtime === 'NPU' ? 'The NPU (torch_npu)' : runtime} ran out of memory${m[2] ? ` allocating ${m[2]}` : ''}${total ? ` on ${accel} ${device} (${total} ${unit} in all${free ? `, ${free} free` : ''})` : ''}${unified ? `; that size is ${runtime === 'HIP' ? "an AMD APU's (Strix Halo) unified memory" : 'a GB10, whose GPU memory is the host memory'}` : ''}.`,
        evidence: {
          ...(m[2] ? { 'Tried to allocate': m[2] } : {}),
          ...(total ? { [`${accel} total`]: `${total} ${unit}` } : {}),
          ...(free ? { 'Free then': free } : {}),
          ...(runtime !== 'CUDA' ? { Runtime: runtime === 'NPU' ? 'Ascend NPU (torch_npu)' : 'ROCm HIP' } : {}),
          // ROCm on a Strix Halo APU (gfx1151, lemonade-sdk/vllm-rocm#5: "127.00 GiB"): the same shared pool, not a GB10
          ...(unified
            ? {
                'Memory model':
                  runtime === 'HIP' ? 'unified (AMD APU, e.g. Strix Halo): the host shares this pool' : 'unified (GB10): the host shares this pool',
              }
            : {}),
        },
        fix: unified
          ? UNIFIED_FIX
          : 'Lower --gpu-memory-utilization, --max-model-len or --max-num-seqs, use more tensor-parallel ranks or a quantised model, and make sure no other process holds the GPU (nvidia-smi); PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True helps fragmentation only.',
      }
    },
  },
  {
    // torch's caching allocator, when a cudaMalloc (or an expandable segment's cuMemMap) fails, warns before it frees its cache and retries:
    // "[rank3]:[W814 16:06:55.441716306 CUDACachingAllocator.cpp:3933] memory allocation failed with OOM on device 3 while trying to allocate
    // 3177185280 bytes (free: 1243414528, total: 85094825984)." (wtdcode/vllm-backport#24, torch 2.10/2.11 builds); with
    // PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True: "expandable_segments: memory mapping failed with OOM on device 0 while trying to map
    // 20971520 bytes (free: 20250624, total: 51043958784)". A warning: the retry can succeed (vLLM DSv4 deployments document these on healthy
    // long-context serving); when the process then fails it is the cause, and torch's own "CUDA out of memory" usually follows.
    code: 'GPU_OUT_OF_MEMORY',
    pattern: /(?:memory allocation|memory mapping) failed with OOM on device (\d+) while trying to (?:allocate|map) (\d+) bytes \(free: (\d+), total: (\d+)\)/,
    hit: (m, line) => {
      const gib = (bytes: string): string => `${(Number(bytes) / 2 ** 30).toFixed(2)} GiB`
      const total = Number(m[4]) / 2 ** 30
      const unified = looksUnified(total, 'GiB')
      const expandable = /expandable_segments/.test(line)
      return {
        key: `allocator:${m[1]}`,
        severity: 'warning',
        message: `torch's caching allocator could not get ${gib(m[2]!)} on device ${m[1]} (${gib(m[3]!)} free of ${gib(m[4]!)})${expandable ? ' while mapping an expandable segment' : ''}; it frees its cache and retries, so this is the cause only if the process then failed (an out-of-memory error or a worker that died right after).`,
        evidence: {
          Device: m[1]!,
          'Tried to allocate': gib(m[2]!),
          'Free then': gib(m[3]!),
          'Device total': gib(m[4]!),
          ...(expandable ? { Allocator: 'expandable_segments' } : {}),
          ...(unified ? { 'Memory model': 'unified (GB10 or an APU): the host shares this pool' } : {}),
        },
        fix: unified
          ? UNIFIED_FIX
          : 'If the start failed here: lower --gpu-memory-utilization (0.8 leaves room for CUDA graphs and speculative decoding), --max-model-len or --max-num-seqs, or use more tensor-parallel ranks; check nothing else holds the GPU (nvidia-smi). If it went on, the retry succeeded and nothing needs changing.',
      }
    },
  },
  {
    // SGLang's tensor-parallel memory balance check (srt/model_executor/model_runner.py, init_torch_distributed; 0.2 to 2026): "The memory capacity
    // is unbalanced. Some GPUs may be occupied by other processes." raised as ValueError (older) or RuntimeError, since 0.4 with
    // "min_per_gpu_memory=16.28, local_gpu_memory=46.81, local_gpu_memory * 0.9=42.13" (2026: "pre_model_load_memory=…"); with
    // SGL_DISABLE_TP_MEMORY_INBALANCE_CHECK / SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK=0 it is logged as a warning and the start goes on.
    // Leftover processes or another tenant hold memory on one rank (al-engr.com's two-Spark MiniMax notes, 2026; ModelCloud and
    // cluster notes in the code index).
    code: 'GPU_OUT_OF_MEMORY',
    pattern: /The memory capacity is unbalanced\.(?: Some GPUs may be occupied by other processes\.)?\s*(.*)$/,
    hit: (m, line) => {
      const raised = /\b(?:Runtime|Value)Error:\s*The memory capacity/.test(line)
      const figures = [...m[1]!.matchAll(/(\w+(?: \* 0\.9)?)=([\d.]+)/g)].map((f) => `${f[1]}=${f[2]}`)
      return {
        key: 'sglang-balance',
        severity: raised ? 'error' : 'warning',
        message: `SGLang ${raised ? 'refused to start' : 'warned'}: the GPUs of its tensor-parallel ranks have unequal free memory (a rank has less than 90 % of this one's), so some GPU is held by another process (a server that did not exit, another tenant, a container that sees GPUs not its own).`,
        evidence: { Line: line.trim().slice(0, 240), ...(figures.length > 0 ? { 'Free memory (GiB)': figures.join(', ') } : {}) },
        fix: "Find what holds memory on the rank with less (nvidia-smi on every node; on a GB10 free -g too, the host shares the pool), stop it (a leftover server: pkill the old launch, then check the memory came back), and start again; only if the imbalance is expected, SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK=0 (older: SGL_DISABLE_TP_MEMORY_INBALANCE_CHECK=1) lets it start with the smaller rank's memory.",
      }
    },
  },
  {
    // vLLM (V1 worker): "ValueError: Free memory on device cuda:0 (85.92/121.69 GiB) on startup is less than desired GPU memory utilization (0.92, 111.95 GiB).
    //   Decrease GPU memory utilization or reduce GPU memory used by other processes." (older: "Free memory on device (61.05/119.7 GiB) …")
    code: 'GPU_OUT_OF_MEMORY',
    // vLLM 0.34 with weights held by another process: "… on startup is less than the engine's budget after excluding external process's weights (0.9, 100.5 GiB)."
    // As people quote it in notes and PRs, shortened around its numbers: "Free memory on cuda:0 (38.74/121.63 GiB) < desired utilization (0.35, 42.57 GiB)"
    // (rwlove/home-ops PR #13221), or cut in its middle: "Free memory on device cuda:0 (96.39/121.69 GiB) ... less than desired (0.8, 97.35 GiB)"
    // (tonyd2wild/DeepSeek-V4.1-Flash-vLLM-DGX-Spark#2, 2026). Not the start-up hint vLLM logs after sizing the KV cache, "Free memory on device (x/y GiB) on startup. Desired GPU
    // memory utilization is (u, z GiB). Actual usage is …" (gpu_worker.py 0.19–0.34): no "less than" there.
    pattern:
      /Free memory on (?:device(?: (\S+))?|(\w+:\d+)) \(([\d.]+)\/([\d.]+) GiB\)(?: on startup)?(?: (?:is less than|<)| (?:\.\.\.|…) (?:is )?less than) (?:(?:the )?desired(?: (?:GPU memory )?utilization)?|the engine's budget after excluding external process's weights) \(([\d.]+), ([\d.]+) GiB\)/i,
    hit: (found) => {
      const m = [found[0], found[1] ?? found[2], found[3], found[4], found[5], found[6]]
      const total = Number(m[3])
      const unified = looksUnified(total, 'GiB')
      const fits = Math.floor((Number(m[2]) / total) * 100) / 100
      return {
        key: `vllm-startup:${m[1] ?? ''}`,
        severity: 'error',
        message: `vLLM refused to start${m[1] ? ` on ${m[1]}` : ''}: ${m[2]} of ${m[3]} GiB were free, less than gpu_memory_utilization ${m[4]} asks for (${m[5]} GiB)${unified ? '; on a GB10 the host, its page cache and other containers use the same memory' : ''}.`,
        evidence: {
          'Free at start-up': `${m[2]} GiB of ${m[3]} GiB`,
          gpu_memory_utilization: `${m[4]} (${m[5]} GiB)`,
          'Largest value that fits now': String(fits),
          ...(unified ? { 'Memory model': 'unified (GB10)' } : {}),
        },
        fix: `Set --gpu-memory-utilization to at most ${fits} (what is free now), or free the memory first: stop the process still holding the GPU (an earlier vLLM's EngineCore) ${unified ? 'and drop the page cache; on a GB10 leave the host 10–16 GiB' : 'and check nvidia-smi'}.`,
      }
    },
  },
  {
    // vLLM: "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine."
    code: 'GPU_OUT_OF_MEMORY',
    pattern: /No available memory for the cache blocks/i,
    hit: () => ({
      key: 'no-kv-cache',
      severity: 'error',
      message: 'vLLM had no memory left for the KV cache after loading the model (weights and activations took the whole gpu_memory_utilization budget).',
      evidence: {},
      fix: 'Raise --gpu-memory-utilization if the node has the memory (on a GB10 keep 10–16 GiB for the host), or use more tensor-parallel ranks, a quantised model, or a smaller --max-model-len.',
    }),
  },
  {
    // vLLM V1 (gpu_worker.py): "Available KV cache memory: -2.77 GiB" — the weights and activations took more than the gpu_memory_utilization budget.
    code: 'GPU_OUT_OF_MEMORY',
    pattern: /Available KV cache memory: (-[\d.]+ ?[KMGT]i?B)/,
    hit: (m) => ({
      key: 'no-kv-cache',
      severity: 'error',
      message: `vLLM had ${m[1]} left for the KV cache after loading the model: the weights and activations already exceed the gpu_memory_utilization budget.`,
      evidence: { 'KV cache memory left': m[1]! },
      fix: 'Raise --gpu-memory-utilization if the node has the memory (on a GB10 keep 10–16 GiB for the host), or use more tensor-parallel ranks, a quantised model, or a smaller --max-model-len / --max-num-seqs.',
    }),
  },
  {
    // vLLM's --max-model-len over what the model or the memory allows, in its own wordings across versions:
    // config (0.2 → 0.5): "User-specified max_model_len (40000) is greater than the derived max_model_len (max_position_embeddings=32768 in model's
    //   config.json). This may lead to incorrect model outputs or CUDA errors. Make sure the value is correct and within the model context size.";
    // config (≥ 0.6, ModelConfig; ≥ 0.11 as a pydantic "Value error, …"): "… (max_position_embeddings=2048.0 or model_max_length=None in model's
    //   config.json). To allow overriding this maximum, set the env var VLLM_ALLOW_LONG_MAX_MODEL_LEN=1. …";
    // V0 worker (raise_if_cache_size_invalid): "The model's max seq len (32768) is larger than the maximum number of tokens that can be stored in
    //   KV cache (20192). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.";
    // V1 kv_cache_utils (check_enough_kv_cache_memory): "To serve at least one request with the models's max seq len (131072), (16.00 GiB KV cache is
    //   needed, which is larger than the available KV cache memory (9.27 GiB). Based on the available memory, the estimated maximum model length is 75936. …"
    code: 'MAX_MODEL_LEN_TOO_LONG',
    pattern:
      /User-specified max_model_len \((\d+)\) is greater than the derived max_model_len \((\w+)=([\d.]+|None)(?: or model_max_length=([\d.]+|None))?|tokens that can be stored in KV cache \((\d+)\)|(?:([\d.]+ ?[KMGT]i?B) )?KV cache is needed, which is larger than the available KV cache(?: memory)?(?: \(([\d.]+ ?[KMGT]i?B)\))?(?:.*?estimated maximum model length is (\d+))?/,
    hit: (m, line, _ray, context) => {
      // the asked length is on this line, or on the line before when the message is wrapped ("… max seq len (16384),⏎0.19 GiB KV cache is needed …")
      const asked = /max seq len \((\d+)\)/.exec(line)?.[1] ?? context.memory?.get('maxSeqLen')
      return m[1] !== undefined ? overModelMaximum(m) : m[5] !== undefined ? overKvTokens(m[5], asked) : overKvMemory(m, asked)
    },
  },
  {
    // vLLM's KV-cache messages wrapped after "max seq len (N),": the length is kept for MAX_MODEL_LEN_TOO_LONG on the next line.
    code: 'MAX_MODEL_LEN_TOO_LONG',
    pattern: /max seq len \((\d+)\)/,
    hit: (m, _line, _ray, context) => {
      context.memory?.set('maxSeqLen', m[1]!)
      return null
    },
  },
  {
    // Ascend CANN, through torch_npu: a device allocation the runtime refused prints "NPU function error: <acl call>, error code is 2070xx", torch_npu's
    // "[ERROR] <date> (PID:…, Device:…, RankID:…) ERR00100 PTA call acl api failed", then CANN's message "[Error]: Failed to apply for memory." and
    // "Check the remaining storage space in the hardware environment." (vllm-project/vllm-ascend#5650: an ACL graph capture on an NPU another server
    // held). When the call was a host allocation (aclrtMallocHost…, "Resource_Error_Insufficient_Host_Memory(EL0018)"), it is host memory, not the NPU's.
    code: 'GPU_OUT_OF_MEMORY',
    pattern: /\[Error\]: Failed to apply for memory\b|\baclrtMallocHost\w*, error code is \d+|\bInsufficient_Host_Memory\b/,
    hit: (m, _line, _ray, context) => {
      if (!m[0].startsWith('[Error]')) {
        context.memory?.set('npuHostAlloc', '1')
        return null
      }
      if (context.memory?.get('npuHostAlloc') !== undefined) return null
      return {
        key: 'npu-apply-memory',
        severity: 'error',
        message:
          "The Ascend runtime (CANN) could not allocate NPU memory for this process: the NPU's memory is taken (by this engine's own budget or by another process on the same NPU).",
        evidence: { Runtime: 'Ascend NPU (CANN / torch_npu)', ...nodeEvidence(context) },
        fix: 'Check what holds the NPU (npu-smi info): stop the other server or give each its own NPU (ASCEND_RT_VISIBLE_DEVICES); otherwise lower --gpu-memory-utilization, --max-model-len or the graph capture sizes (compilation_config cudagraph_capture_sizes), or use more NPUs.',
      }
    },
  },
]
