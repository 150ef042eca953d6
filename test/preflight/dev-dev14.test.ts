import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describeLabelledBatch } from './fixtures/labelled-batch.js'

const dir = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'dev', 'dev14')

/** Asserted to be missed, with why: a rule that starts reading one moves it back into the scored set. */
const KNOWN_MISSES: Readonly<Record<string, string>> = {}

describeLabelledBatch({
  title:
    'dev batch dev14 (late 2025/2026 captures from less-used platforms: GPUStack, Dynamo, llm-d, AIBrix, LMCache, ROLL, Ascend/ROCm/MUSA; pasted, prefixed, re-wrapped and retyped logs; starts that worked)',
  dir,
  knownMisses: KNOWN_MISSES,
  minHealthy: 5,
  minFailures: 10,
  headers: true,
})
