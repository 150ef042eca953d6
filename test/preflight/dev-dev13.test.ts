import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describeLabelledBatch } from './fixtures/labelled-batch.js'

const dir = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'dev', 'dev13')

/** Asserted to be missed, with why: a rule that starts reading one moves it back into the scored set. */
const KNOWN_MISSES: Readonly<Record<string, string>> = {}

describeLabelledBatch({
  title:
    'dev batch dev13 (late 2025/2026 multi-node captures: KV connectors, a launcher port, DP engines, PD transfer engines, Ray and SGLang starts that worked)',
  dir,
  knownMisses: KNOWN_MISSES,
  minHealthy: 5,
  minFailures: 8,
  headers: true,
})
