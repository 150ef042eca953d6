import { describe, expect, it } from 'vitest'
import { type Row, formatRatio, formatSamples, goalMet, median, ratio, renderResults, samples } from './table.js'

const machine = { date: '2026-12-03T14:00:00Z', nproc: 2, memoryGiB: 23.5, docker: '20.10.24', node: 'v20.20.2' }
const row = (over: Partial<Row>): Row => ({
  id: '5',
  figure: 'preflight',
  value: samples('ms', [1800, 1500, 1600]),
  baselineLabel: 'ray status',
  baseline: samples('ms', [1200, 1000, 1100]),
  goal: { kind: 'ratioMax', limit: 1.5 },
  ...over,
})

describe('benchmark statistics', () => {
  it('median of odd and even counts, order-independent', () => {
    expect(median([3, 1, 2])).toBe(2)
    expect(median([4, 1, 3, 2])).toBe(2.5)
    expect(() => median([])).toThrow()
  })

  it('ratio is figure median over baseline median', () => {
    expect(ratio(row({}))).toBeCloseTo(1600 / 1100)
    expect(ratio(row({ baseline: undefined }))).toBeUndefined()
  })

  it('goals: a ceiling on the value, a ceiling on the ratio, a floor on the speed-up', () => {
    expect(goalMet(row({}))).toBe(true)
    expect(goalMet(row({ value: samples('ms', [2000]) }))).toBe(false)
    expect(goalMet(row({ goal: { kind: 'max', limit: 5000 }, value: samples('ms', [4999]) }))).toBe(true)
    expect(goalMet(row({ goal: { kind: 'max', limit: 5000 }, value: samples('ms', [5001]) }))).toBe(false)
    // relay 20 s against naive 50 s: 2.5× faster.
    expect(goalMet(row({ goal: { kind: 'speedupMin', limit: 2 }, value: samples('ms', [20_000]), baseline: samples('ms', [50_000]) }))).toBe(true)
    expect(goalMet(row({ goal: { kind: 'speedupMin', limit: 2 }, value: samples('ms', [30_000]), baseline: samples('ms', [50_000]) }))).toBe(false)
    expect(goalMet(row({ goal: { kind: 'none' } }))).toBeUndefined()
  })

  it('formats samples with their spread', () => {
    expect(formatSamples(samples('ms', [1234, 1100, 1400]))).toBe('1.23 s (n=3, 1.10 s–1.40 s)')
    expect(formatSamples(samples('ms', [1_800_000]))).toBe('1800 s')
    expect(formatSamples(samples('bytes', [2_500_000]))).toBe('2.5 MB')
  })
})

describe('RESULTS.md', () => {
  it('one table sorted by item, missing rows marked, notes below, the machine on top', () => {
    const text = renderResults(
      [row({ note: 'per node: 1.2 s' }), row({ id: '1a', figure: 'verdict | seed bug', goal: { kind: 'max', limit: 5000 }, value: samples('ms', [2000]) })],
      [{ id: '3', figure: 'fan-out', reason: 'needs deploy' }],
      machine,
    )
    const lines = text.split('\n')
    expect(lines[2]).toBe('Measured 2026-12-03T14:00:00Z on 2 cores, 23.5 GiB memory, docker 20.10.24, node v20.20.2.')
    const table = lines.filter((l) => l.startsWith('| ') && !l.startsWith('| ---'))
    expect(table[0]).toBe('| # | figure | value | baseline (same run) | ratio | goal | met? |')
    expect(table.slice(1).map((l) => l.split(' | ')[0])).toEqual(['| 1a', '| 3', '| 5'])
    expect(table[1]).toContain('verdict \\| seed bug')
    expect(table[1]).toMatch(/\| ≤ 5\.00 s \| yes \|$/)
    expect(table[2]).toBe('| 3 | fan-out | not measured | – | – | – | **no** |')
    expect(table[3]).toContain('| 1.45× | ≤ 1.5× | yes |')
    expect(text).toContain('- 3: not measured: needs deploy')
    expect(text).toContain('- 5: per node: 1.2 s')
  })
})

it('a ratio just over its goal never prints as the goal', () => {
  expect(formatRatio(2526 / 25110)).toBe('0.101×')
  expect(formatRatio(0.0594)).toBe('0.0594×')
  expect(formatRatio(1.454)).toBe('1.45×')
  expect(formatRatio(29.2)).toBe('29×')
})
