import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describeLabelledBatch } from './fixtures/labelled-batch.js'

const dir = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'dev', 'dev18')

/** Asserted to be missed, with why: a rule that starts reading one moves it back into the scored set. */
const KNOWN_MISSES: Readonly<Record<string, string>> = {}

describeLabelledBatch({
  title:
    'dev batch dev18 (2025-2026 captures from ray-project/ray and sgl-project/sglang issues: Ray Compiled Graph aborts on multi-node vLLM, SGLang rank-load and self-check failures; starts that worked)',
  dir,
  knownMisses: KNOWN_MISSES,
  minHealthy: 4,
  minFailures: 4,
  headers: true,
})
