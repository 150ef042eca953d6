// Row 1d without the lab or the bench's build (issue 36): the static launch-script check, in-process,
// on the 1,000-line Spark-style script of test/script-check/long-script.ts and on any script paths
// given as arguments (a real launch script), each beside `bash -n` on the same file, interleaved,
// with the heap growth of one check and the machine's load average (the figures depend on it).
//   node test/bench/script-check-speed.mjs [script.sh ...]      (VRD_BENCH_RUNS=5 by default)
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { register } from 'node:module'

register('../../.ci/ts-hooks.mjs', import.meta.url)
const { checkLaunchScript } = await import('../../src/script-check/index.ts')
const { longLaunchScript } = await import('../script-check/long-script.ts')

const runs = Number(process.env.VRD_BENCH_RUNS ?? 5)
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const dir = mkdtempSync(join(tmpdir(), 'vrd-speed-'))

function measure(name, text) {
  const path = join(dir, basename(name))
  writeFileSync(path, text)
  const check = () => {
    const started = performance.now()
    const cpu = process.cpuUsage()
    const result = checkLaunchScript(text, { path: basename(name) })
    const used = process.cpuUsage(cpu)
    return { ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000, errors: result.findings.filter((f) => f.severity === 'error').map((f) => f.code) }
  }
  const bashN = () => {
    const started = performance.now()
    execFileSync('bash', ['-n', path], { stdio: 'pipe' })
    return performance.now() - started
  }
  global.gc?.()
  const before = process.memoryUsage().heapUsed
  const first = check()
  const heapMB = (process.memoryUsage().heapUsed - before) / 1e6
  const checks = []
  const cpus = []
  const shells = []
  for (let i = 0; i < runs; i++) {
    shells.push(bashN())
    const c = check()
    checks.push(c.ms)
    cpus.push(c.cpuMs)
  }
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0)
  console.log(
    `${name}: ${lines} lines; check ${checks.map((v) => Math.round(v)).join(', ')} ms (median ${Math.round(median(checks))} ms wall, ${Math.round(median(cpus))} ms CPU; first ${Math.round(first.ms)} ms); ` +
      `bash -n ${shells.map((v) => v.toFixed(1)).join(', ')} ms (median ${median(shells).toFixed(1)} ms); ` +
      `heap growth of one check ${heapMB.toFixed(0)} MB; errors: ${first.errors.join(', ') || 'none'}`,
  )
}

try {
  console.log(`load average ${loadavg().map((v) => v.toFixed(2)).join(' ')} (1, 5, 15 min) on ${(await import('node:os')).cpus().length} CPUs`)
  measure('long-script.ts (16 sections)', longLaunchScript(16))
  measure('long-script.ts (6 sections)', longLaunchScript(6))
  for (const path of process.argv.slice(2)) measure(path, readFileSync(path, 'utf8'))
  console.log(`load average ${loadavg().map((v) => v.toFixed(2)).join(' ')} after`)
} finally {
  rmSync(dir, { recursive: true, force: true })
}
