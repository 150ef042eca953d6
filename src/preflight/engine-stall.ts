/**
 * A vLLM engine that stopped making progress after its start-up had finished: the log's last word is
 * the engine's message queue waiting for its workers. vLLM's shared-memory broadcast queue logs, while
 * its writer (the engine) finds no block its readers (the workers) have released
 * (vllm/distributed/device_communicators/shm_broadcast.py): "No available block found in 60 second. "
 * (0.5 to 0.6, logger.warning; SGLang's copy the same), then "No available shared memory broadcast
 * block found in 60 seconds. This typically happens when some processes are hanging or doing some
 * time-consuming work (e.g. compilation)." (0.10 to 0.2x, INFO or WARNING; ", weight/kv cache
 * quantization" added later), once a minute while it waits.
 *
 * During a start a long load or compilation logs it too, and then the start goes on (gpustack#3888:
 * "takes a long time to load the model"), so it is no failure there. After the engine said its
 * start-up was done (vLLM's "init engine (profile, create kv cache, warmup model) took", the API
 * server starting or its routes, uvicorn's "Application startup complete", an offline run's
 * "Processed prompts:" bar), the workers stopped answering a step: a hang (a collective that never
 * completes across the nodes, a GPU fault, memory pressure; vllm-project/vllm#51986, vllm-omni#2928,
 * vllm-ascend#3717 and #3977 show it repeating for minutes). It is read as the weakest failure line:
 * only where the log holds no other, and only while no later line shows the engine generating again
 * (a non-zero prompt or generation throughput, an offline run reaching 100 %).
 */

const WAITING = /\bNo available (?:shared memory broadcast )?block found in \d+ seconds?\b/
const STARTED =
  /\binit engine \(profile, create kv cache, warmup model\) took\b|\bStarting vLLM API server\b|\bAvailable routes are:|\bApplication startup complete\b|\bProcessed prompts:/
/**
 * vLLM's periodic stats line (vllm/v1/metrics/loggers.py: "Engine 000: Avg prompt throughput: %.1f tokens/s, Avg generation
 * throughput: %.1f tokens/s, Running: …"; 0.x's "Avg prompt throughput: … Avg generation throughput: …"): either rate above zero is
 * the engine stepping (a slow decode still prefills: vllm-ascend#10401 at 0.1 tokens/s); a hung engine logs both at 0.0.
 */
const THROUGHPUT = /\bAvg (?:prompt|generation) throughput: (\d+(?:\.\d+)?) tokens\/s/g
const FINISHED_OFFLINE = /\bProcessed prompts: 100%/

/** The kind the failure collector gives the stall's line. */
export const STALL_KIND = 'engine waiting on its workers after start-up'

/**
 * Reads a log's ordinary lines in order: 'waiting' for a wait after start-up (a stall's line),
 * 'progress' for a line that shows the engine generating (an earlier stall is over), else undefined.
 */
export function createStallReader(): (text: string) => 'waiting' | 'progress' | undefined {
  let started = false
  return (text) => {
    if (WAITING.test(text)) return started ? 'waiting' : undefined
    if (STARTED.test(text)) started = true
    if (FINISHED_OFFLINE.test(text)) return 'progress'
    if (!text.includes(' throughput: ')) return undefined
    for (const m of text.matchAll(THROUGHPUT)) if (Number(m[1]) > 0) return 'progress'
    return undefined
  }
}
