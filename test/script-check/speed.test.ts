/**
 * The static check is linear in the script: a DGX Spark style launch script twice as long (more
 * options, more helpers, more calls of them per node) takes well under three times as long. Timed
 * side by side in one run (interleaved, the fastest of three each), never against an absolute
 * figure; the absolute one is the bench's row 1d. Before the walk compared paths by their whole
 * state after every statement and re-read the syntax tree through mvdan-sh per path, a 600-line
 * script of this kind took minutes.
 */
import { performance } from 'node:perf_hooks'
import { describe, expect, it } from 'vitest'
import { checkLaunchScript } from '../../src/script-check/index.js'
import { evaluateScript } from '../../src/script-check/evaluate.js'
import { longLaunchScript } from './long-script.js'

const timeOf = (text: string): number => {
  const started = performance.now()
  checkLaunchScript(text, { path: 'launch-cluster.sh' })
  return performance.now() - started
}

describe('the static check on a long launch script', () => {
  it('finds both starts in it, no error, and does not cut paths', () => {
    const text = longLaunchScript(16)
    expect(text.split('\n').length).toBeGreaterThan(1000)
    const ev = evaluateScript(text, 'launch-cluster.sh')
    expect(ev.truncated).toBe(false)
    expect(ev.starts.map((r) => (r.head ? 'head' : 'worker')).sort()).toEqual(['head', 'worker'])
    expect(checkLaunchScript(text, { path: 'launch-cluster.sh' }).findings.filter((f) => f.severity === 'error')).toEqual([])
  })

  it('twice the lines take less than three times as long', { timeout: 120_000 }, () => {
    const short = longLaunchScript(8)
    const long = longLaunchScript(18)
    const ratioOfLines = long.split('\n').length / short.split('\n').length
    expect(ratioOfLines).toBeGreaterThan(1.9)
    expect(ratioOfLines).toBeLessThan(2.05)
    timeOf(short)
    const a: number[] = []
    const b: number[] = []
    for (let i = 0; i < 3; i++) {
      a.push(timeOf(short))
      b.push(timeOf(long))
    }
    const ratio = Math.min(...b) / Math.min(...a)
    expect(ratio, `${Math.round(Math.min(...a))} ms → ${Math.round(Math.min(...b))} ms`).toBeLessThan(3)
  })
})
