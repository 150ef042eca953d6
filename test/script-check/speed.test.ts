/**
 * The static check on a long DGX Spark style launch script (1,000+ lines): both starts found, no
 * error, no path cut. How long it takes, and that twice the lines take about twice the time, is
 * measured in the bench (`npm run bench`, row 1d, beside `bash -n` on the same script), not here:
 * a timed ratio in the test suite failed under CI's parallel load (3.09× at 1.96× the lines, where
 * a quiet run gives 2.4×).
 */
import { describe, expect, it } from 'vitest'
import { checkLaunchScript } from '../../src/script-check/index.js'
import { evaluateScript } from '../../src/script-check/evaluate.js'
import { longLaunchScript } from './long-script.js'

describe('the static check on a long launch script', () => {
  it('finds both starts in it, no error, and does not cut paths', () => {
    const text = longLaunchScript(16)
    expect(text.split('\n').length).toBeGreaterThan(1000)
    const ev = evaluateScript(text, 'launch-cluster.sh')
    expect(ev.truncated).toBe(false)
    expect(ev.starts.map((r) => (r.head ? 'head' : 'worker')).sort()).toEqual(['head', 'worker'])
    expect(checkLaunchScript(text, { path: 'launch-cluster.sh' }).findings.filter((f) => f.severity === 'error')).toEqual([])
  })
})
