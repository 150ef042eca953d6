import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describeLabelledBatch } from './fixtures/labelled-batch.js'

const dir = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'dev', 'dev17')

/** Asserted to be missed, with why: a rule that starts reading one moves it back into the scored set. */
const KNOWN_MISSES: Readonly<Record<string, string>> = {
  'fi-autotune-warm-cache-rank-split-deadlock-vllm-57423.txt':
    "the capture ends inside FlashInfer's autotune with INFO lines only (one rank loads a persisted config cache, the others start tuning at 0/22): the deadlock itself (the per-tactic reduce that never completes, then the 30-minute barrier timeout) is not in these lines, and the same lines start a healthy slow autotune (healthy-fi-autotune-slow-shm-broadcast-kimi-tp8-vllm-54794.txt), so no rule may read them as a failure",
}

describeLabelledBatch({
  title:
    'dev batch dev17 (2026 captures from vLLM itself and the docs: Ray memory-monitor kills, FlashInfer autotune caches across ranks, NCCL init over GPUDirect RDMA; starts that worked)',
  dir,
  knownMisses: KNOWN_MISSES,
  minHealthy: 3,
  minFailures: 5,
  headers: true,
})
