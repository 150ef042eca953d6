import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describeLabelledBatch } from './fixtures/labelled-batch.js'

const dir = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'dev', 'dev15')

/** Asserted to be missed, with why: a rule that starts reading one moves it back into the scored set. */
const KNOWN_MISSES: Readonly<Record<string, string>> = {}

describeLabelledBatch({
  title:
    'dev batch dev15 (late 2025/2026 captures of multi-node and disaggregated starts: NIXL/UCX, DeepEP/NVSHMEM, FlashInfer all-reduce, CUDA graph capture, compile cache, hub rate limits, SM110/SM121 kernels, transformers skew; starts that worked)',
  dir,
  knownMisses: KNOWN_MISSES,
  minHealthy: 5,
  minFailures: 10,
  headers: true,
})
