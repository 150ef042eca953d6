import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { scanLog } from '../../src/preflight/signatures.js'

const dir = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'dev', 'dev12b')

/** Asserted to be missed, with why: a rule that starts reading one moves it back into the scored set. */
const KNOWN_MISSES: Readonly<Record<string, string>> = {
  'mem-gb10-startup-check-fragment-vllm-48140.txt':
    "the quote is cut right after the numbers (`Free memory on device cuda:0 (55.87/119.56 GiB)`): those are also the first words of vLLM's healthy INFO line (gpu_worker.py, 'Free memory on device (…) on startup. Desired GPU memory utilization is …'), so reading the bare fragment as the refusal would false-alarm on healthy starts",
  'mem-gb10-uma-cached-weights-empty-procs-vllm-45179.txt':
    "the paste holds only the API server's last line (`Engine core initialization failed. Failed core proc(s): {}`, read as ENGINE_DEAD): the unified-memory exhaustion during weight loading is not in it, and an empty proc set is printed for many causes (a child that never registered, an exception logged above)",
}

/**
 * A partial batch (4 failure captures, no healthy one yet): under describeLabelledBatch's minimum of 10 failures and 5 healthy,
 * so it is scored here with the same rules (each capture without its '#' header; a known miss asserted to stay missed) until
 * the batch is filled and moves to describeLabelledBatch.
 */
describe('dev batch dev12b (partial: Ray placement, NCCL IB transport, GB10 unified memory)', () => {
  const expected = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) as Record<string, string | null>
  for (const [file, code] of Object.entries(expected)) {
    const miss = KNOWN_MISSES[file]
    it(`${file} → ${code ?? 'healthy'}${miss ? ' (known miss)' : ''}`, () => {
      const [source, cause] = readFileSync(join(dir, file), 'utf8').split('\n')
      expect(source).toMatch(/^# Source: https:\/\/github\.com\/\S+ \((?:late 2025|2025|2026)/)
      expect(cause).toMatch(/^# Cause \(from the thread\): /)
      const found = scanLog(readFileSync(join(dir, file), 'utf8').replace(/^#.*\n/gm, ''), file)
      if (miss)
        expect(
          found.map((f) => f.code),
          miss,
        ).not.toContain(code)
      else if (code === null) expect(found.filter((f) => f.severity === 'error' || f.code === 'UNRECOGNISED_FAILURE')).toEqual([])
      else expect(found.map((f) => f.code)).toContain(code)
    })
  }
})
