/**
 * Row 8, reading a capture: the log signatures (`scanLog`, what `diagnose --log` and the start-up
 * watcher run) on (a) every real capture in test/preflight/fixtures, the slowest reported, and (b)
 * 4 MiB made of those captures end to end (a long `docker logs` paste). Baseline in the same run:
 * `grep -cE` for failure words over the same 4 MiB file, the least a person would run on it.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { scanLog } from '../../../src/preflight/signatures.js'
import { log } from '../measure.js'
import { type Row, median, samples } from '../table.js'

const ROOT = 'test/preflight/fixtures'
const DIRS = ['logs', 'held-out', 'held-out/batch2', 'held-out/batch3', 'held-out/batch4']
const BIG = 4 * 2 ** 20

function captures(): { name: string; text: string }[] {
  return DIRS.flatMap((d) =>
    readdirSync(join(ROOT, d))
      .filter((f) => f.endsWith('.txt'))
      .map((f) => ({ name: `${d}/${f}`, text: readFileSync(join(ROOT, d, f), 'utf8') })),
  )
}

const time = (fn: () => unknown): number => {
  const t = performance.now()
  fn()
  return performance.now() - t
}

export function logScanRows(runs = 5): Row[] {
  const all = captures()
  // The slowest single capture, each the median of `runs`.
  const each = all.map((c) => ({ name: c.name, bytes: c.text.length, ms: median(Array.from({ length: runs }, () => time(() => scanLog(c.text, c.name)))) }))
  const slowest = [...each].sort((a, b) => b.ms - a.ms)[0]!
  const largest = [...each].sort((a, b) => b.bytes - a.bytes)[0]!
  let big = ''
  const joined = all.map((c) => c.text).join('\n')
  while (big.length < BIG) big += `${joined}\n`
  const dir = mkdtempSync(join(tmpdir(), 'vrd-bench-logs-'))
  try {
    const file = join(dir, 'capture.txt')
    writeFileSync(file, big)
    const grep = (): number => time(() => spawnSync('grep', ['-cE', 'Error|ERROR|WARN|Traceback', file]))
    const figure: number[] = []
    const baseline: number[] = []
    scanLog(big, 'warm-up')
    for (let i = 0; i < runs; i++) {
      baseline.push(grep())
      figure.push(time(() => scanLog(big, 'capture.txt')))
    }
    log(
      `row 8: ${all.length} captures, slowest ${slowest.name} ${slowest.ms.toFixed(1)} ms; ${(big.length / 2 ** 20).toFixed(1)} MiB ${figure.map((v) => Math.round(v)).join(', ')} ms`,
    )
    return [
      {
        id: '8a',
        figure: `log signatures on one real capture: the slowest of the ${all.length} in test/preflight/fixtures`,
        value: samples('ms', [slowest.ms]),
        baselineLabel: 'the largest capture, the same scan',
        baseline: samples('ms', [largest.ms]),
        goal: { kind: 'max', limit: 1000 },
        note: `slowest: ${slowest.name} (${slowest.bytes} B, median of ${runs}); largest: ${largest.name} (${largest.bytes} B)`,
      },
      {
        id: '8b',
        figure: `log signatures on a ${(big.length / 2 ** 20).toFixed(1)} MiB capture (the real captures end to end)`,
        value: samples('ms', figure),
        baselineLabel: '`grep -cE` for failure words over the same file',
        baseline: samples('ms', baseline),
        goal: { kind: 'max', limit: 1000 },
        note: `${(big.length / 2 ** 20 / (median(figure) / 1000)).toFixed(1)} MiB/s in process; grep is spawned (its start-up included)`,
      },
    ]
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
