/**
 * The phases of a vLLM start, recognised from its log lines (vLLM 0.19 → 0.34), and the node a line
 * belongs to. Pure: a line in, a phase mark out.
 *
 * The wordings are vLLM's own format strings, extracted from each release's sources by
 * test/contract/extract.py (LOGS: resolved-arch, nccl-version, load-start, load-scratch,
 * shards-progress, weights-took, load-took, compile-cache, dynamo, compile-graph, compile-load,
 * torch-compile-total, fi-autotune, profiling-run, memory-profiling, kv-memory, cuda-graph-memory,
 * kv-cache-size, cuda-graph, graph-finished, init-engine-took, api-server-start, routes); the
 * contract test renders every one of them and asserts the phase below. FlashInfer's own autotuner
 * ("[Autotuner]: Autotuning process starts") and uvicorn's "Application startup complete" are not
 * vLLM's strings: their fixtures name the public logs they come from.
 *
 * A mark either enters a phase (`phase`), or says one has ended and names the phase that follows
 * (`after`: "Model loading took … seconds" ends weights loading; the memory profile run starts next).
 */

export const STARTUP_PHASES = [
  'config',
  'distributed-init',
  'weights-loading',
  'compilation',
  'kv-cache-profiling',
  'cuda-graph-capture',
  'api-server',
] as const
export type StartupPhase = (typeof STARTUP_PHASES)[number]

/** How a phase is named to a person ("spark-b stalled in weights loading for 95 s"). */
export const PHASE_WORDS: Readonly<Record<StartupPhase, string>> = {
  config: 'config',
  'distributed-init': 'NCCL/Gloo init',
  'weights-loading': 'weights loading',
  compilation: 'torch.compile/autotune',
  'kv-cache-profiling': 'KV cache profiling',
  'cuda-graph-capture': 'CUDA graph capture',
  'api-server': 'API server start',
}

export interface PhaseMark {
  readonly phase: StartupPhase
  /** The line ends the phase before `phase` (the node is now in `phase`, which has printed nothing yet). */
  readonly after?: boolean
  /** Progress inside the phase, as the line says it: `3/5 shards`, `45/67 graphs`. */
  readonly progress?: string
}

interface Rule {
  readonly re: RegExp
  readonly phase: StartupPhase
  readonly after?: boolean
  readonly progress?: (m: RegExpExecArray) => string
}

/** First match wins: more specific wordings before the general ones of the same phase. */
const RULES: readonly Rule[] = [
  // config: the arguments, the architecture, the engine's config line, the server's version line.
  { re: /\bnon-default args: /, phase: 'config' },
  { re: /\bResolved architecture: /, phase: 'config' },
  { re: /\bInitializing an? (?:V\d )?LLM engine\b/, phase: 'config' },
  { re: /\bvLLM (?:API )?server version /, phase: 'config' },
  // NCCL/Gloo and the Ray placement group: the rendezvous before any weight is read.
  { re: /\bdistributed_init_method=\S+/, phase: 'distributed-init' },
  { re: /\bvLLM is using nccl==/, phase: 'distributed-init' },
  { re: /\bWaiting for creating a placement group of specs\b/, phase: 'distributed-init' },
  { re: /\bNCCL INFO (?:Bootstrap|NET\/|comm 0x|Channel |Connected all|ncclCommInitRank)/, phase: 'distributed-init' },
  { re: /\[Gloo\] Rank \d+ is connected to \d+ peer ranks/, phase: 'distributed-init' },
  // weights: the start, the shard progress bar, the end.
  { re: /\bStarting to load model\b/, phase: 'weights-loading' },
  { re: /\bLoading model from scratch\b/, phase: 'weights-loading' },
  {
    re: /\bLoading (?:safetensors|pt|bin)? ?checkpoint shards:\s*(\d+)% Completed \| (\d+)\/(\d+)/,
    phase: 'weights-loading',
    progress: (m) => `${m[2]}/${m[3]} shards`,
  },
  { re: /\bPrefetching checkpoint files(?: into page cache)?\b/, phase: 'weights-loading' },
  { re: /\bLoading weights took [\d.]+ seconds/, phase: 'weights-loading' },
  { re: /\bModel loading took \S+ ?GiB\b/, phase: 'kv-cache-profiling', after: true },
  // torch.compile and autotuning (during the profile run in V1, and FlashInfer's after the KV cache).
  { re: /\bUsing cache directory: .* for vLLM's torch\.compile/, phase: 'compilation' },
  { re: /\bDynamo bytecode transform time: /, phase: 'compilation' },
  { re: /\bCompiling a graph for (?:compile range|dynamic shape|general shape)/, phase: 'compilation' },
  { re: /\bDirectly load the compiled graph/, phase: 'compilation' },
  { re: /\btorch\.compile (?:takes|took) [\d.]+ s in total/, phase: 'kv-cache-profiling', after: true },
  { re: /\bRunning FlashInfer autotune\b/, phase: 'compilation' },
  { re: /\[Autotuner\]: Autotuning process starts/, phase: 'compilation' },
  // The memory profile and the KV cache.
  { re: /\bInitial profiling\/warmup run took\b/, phase: 'kv-cache-profiling' },
  { re: /\bMemory profiling takes\b/, phase: 'kv-cache-profiling' },
  { re: /\bProfiling CUDA graph memory: /, phase: 'kv-cache-profiling' },
  { re: /\bEstimated CUDA graph memory: /, phase: 'kv-cache-profiling' },
  { re: /\bAvailable KV cache memory: /, phase: 'kv-cache-profiling' },
  { re: /\bKV cache size: [\d,]+ tokens/, phase: 'kv-cache-profiling' },
  { re: /\bMaximum concurrency for [\d,]+ tokens per request/, phase: 'kv-cache-profiling' },
  { re: /# (?:GPU|cuda) blocks: \d+/, phase: 'kv-cache-profiling' },
  // CUDA graphs: the tqdm bar of each capture, its end.
  {
    re: /\bCapturing CUDA graphs?(?: shapes)?(?: \([^)]*\))?:\s*(\d+)%\|[^|]*\|\s*(\d+)\/(\d+)/,
    phase: 'cuda-graph-capture',
    progress: (m) => `${m[2]}/${m[3]} graphs`,
  },
  { re: /\bCapturing (?:CUDA graphs?|cudagraphs)\b/, phase: 'cuda-graph-capture' },
  { re: /\bGraph capturing finished in\b/, phase: 'api-server', after: true },
  { re: /\binit engine \(profile, create kv cache, warmup model\) took\b/, phase: 'api-server', after: true },
  // The API server.
  { re: /\bStarting vLLM (?:API )?server\b/, phase: 'api-server' },
  { re: /\bAvailable routes are:/, phase: 'api-server' },
  { re: /\bApplication startup complete\b/, phase: 'api-server' },
]

/** The phase a log line marks, or undefined for a line that marks none. */
export function phaseOfLine(line: string): PhaseMark | undefined {
  for (const r of RULES) {
    const m = r.re.exec(line)
    if (m) return { phase: r.phase, ...(r.after && { after: true }), ...(r.progress && { progress: r.progress(m) }) }
  }
  return undefined
}

/**
 * Ray forwards a worker actor's lines to the driver's log with `(RayWorkerWrapper pid=…, ip=…)`
 * (the `ip=` only for an actor on another node); the node whose address that is owns the line.
 * Undefined: the line names no other node (the driver's node).
 */
export function rayLineIp(line: string): string | undefined {
  // Ray colours the prefix on a terminal (`\x1b[36m(RayWorkerWrapper pid=282, ip=…)\x1b[0m`), and
  // nests it under the driver's (`(EngineCore pid=…) (RayWorkerWrapper pid=…, ip=…)`).
  const m = /^\s*(?:\([^()]*\)\s*)*?\((?:[\w.:-]+ )?pid=\d+, ip=(\d{1,3}(?:\.\d{1,3}){3})\)/.exec(withoutColour(line))
  return m?.[1]
}

/**
 * The address of the node a driver's error names as where it came from: Ray's task error header
 * (`ray.exceptions.RayTaskError(RuntimeError): ray::RayWorkerWrapper.init_worker() (pid=112,
 * ip=172.30.204.13, actor_id=…)`) and an ActorDiedError's details (`\tip: 10.7.34.138`).
 */
export function blamedIp(raw: string): string | undefined {
  const line = withoutColour(raw)
  const m = /\bray::[\w.]+\(\)\s*\(pid=\d+, ip=(\d{1,3}(?:\.\d{1,3}){3})\b/.exec(line) ?? /^(?:\s*\([^()]*\))*\s*ip: (\d{1,3}(?:\.\d{1,3}){3})\s*$/.exec(line)
  return m?.[1]
}

/** A line without terminal colour codes. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI colour codes in captured logs
export const withoutColour = (line: string): string => line.replace(/\u001b\[[0-9;]*m/g, '')

/**
 * The time a vLLM line says it was written (`INFO 12-05 16:49:37` → `12-05 16:49:37`), comparable as
 * text within one year; undefined for a line without it (a progress bar, a traceback).
 */
export function lineStamp(line: string): string | undefined {
  const m = /\b(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) (\d\d-\d\d \d\d:\d\d:\d\d)(?:\.\d+)? /.exec(line)
  if (m) return m[1]
  // Python logging's default (Ray, FlashInfer): `2026-03-08 16:44:29,692 - INFO`.
  const iso = /\b\d{4}-(\d\d-\d\d)[ T](\d\d:\d\d:\d\d)/.exec(line)
  return iso ? `${iso[1]} ${iso[2]}` : undefined
}

/**
 * A line that reports a failure: an ERROR/CRITICAL line, a traceback's start or its exception
 * line, NCCL's WARN, torch's C++ errors. What the first-failure headline is chosen from.
 */
export function isFailureLine(raw: string): boolean {
  const line = withoutColour(raw)
  return (
    /\b(?:ERROR|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d/.test(line) ||
    /\b(?:ERROR|CRITICAL|FATAL)\b.*(?:\[[\w.]+:\d+\]|::)/.test(line) ||
    /^\W*Traceback \(most recent call last\)/.test(line.replace(/^\s*\([^)]*\)\s*/, '')) ||
    /(?:^|[\s)])(?:[A-Z]\w*(?:Error|Exception)|ray\.exceptions\.\w+): /.test(line) ||
    /\bNCCL WARN\b/.test(line) ||
    // torch's C++ log (c10): `[E ProcessGroupGloo.cpp:144]`, `[E1205 10:00:00.123 socket.cpp:921]`.
    /\[E(?:\d{4} [\d:.]+)? ?(?:\d+ )?[\w./-]+\.(?:cpp|cc|h|hpp):\d+\]/.test(line)
  )
}
