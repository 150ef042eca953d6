/**
 * Row 1c, time to verdict on the seed bug without any cluster: the static launch-script check
 * (src/script-check/) on the incident's reconstructed launch script, as a user gets it: the Action
 * bundle (what dist/index.js is) with `command: diagnose` and `launch-script`, from spawning node
 * to its exit with both findings (the head's unpinned identity and the worker's
 * VLLM_HOST_IP override, each with its script line). Also the check alone, in-process, and `node -e ''`.
 */
import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { loadManifestFile } from '../../../src/manifest/load-manifest.js'
import { checkLaunchScript } from '../../../src/script-check/index.js'
import { longLaunchScript } from '../../script-check/long-script.js'
import { inputEnv } from '../../support/action.js'
import { log, timed } from '../measure.js'
import { type Row, median, samples } from '../table.js'
import { VLLM_PG_WAIT_TIMEOUT_S } from './verdict.js'

const SCRIPT = 'test/script-check/fixtures/spark-vllm-qwen35.sh'
const MANIFEST = 'src/manifest/examples/dgx-spark-pair.yml'
const WANT = ['SCRIPT_HEAD_IDENTITY_UNPINNED', 'SCRIPT_VLLM_HOST_IP_OVERRIDE']

function run(program: string[], env: NodeJS.ProcessEnv): Promise<{ ms: number; code: number | null; out: string }> {
  const started = performance.now()
  const child = spawn(process.execPath, program, { env, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout.on('data', (c) => (out += c))
  child.stderr.on('data', (c) => (out += c))
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code) => resolve({ ms: performance.now() - started, code, out }))
  })
}

export async function scriptCheckRow(actionEntry: string, runs = 7): Promise<Row> {
  const dir = mkdtempSync(join(tmpdir(), 'vrd-bench-script-'))
  try {
    // As the runner starts it: every input from action.yml, its default unless given; the
    // output and summary files exist.
    for (const f of ['output', 'summary']) writeFileSync(join(dir, f), '')
    const env = {
      ...process.env,
      ...inputEnv({ command: 'diagnose', manifest: MANIFEST, 'launch-script': SCRIPT }),
      GITHUB_OUTPUT: join(dir, 'output'),
      GITHUB_STEP_SUMMARY: join(dir, 'summary'),
      RUNNER_TEMP: dir,
    }
    const action = async () => {
      const r = await run([actionEntry], env)
      const missing = WANT.filter((c) => !r.out.includes(c))
      if (r.code !== 1 || missing.length > 0)
        throw new Error(`the Action's diagnose did not fail with ${WANT.join(' and ')} (exit ${r.code}): ${r.out.slice(-400)}`)
      return r.ms
    }
    const manifest = (await loadManifestFile(MANIFEST)).manifest!
    const text = readFileSync(SCRIPT, 'utf8')
    let lines = ''
    const inProcess = (): number => {
      const { ms, value } = timedSync(() => checkLaunchScript(text, { manifest, path: SCRIPT }))
      const codes: string[] = value.findings.map((f) => f.code)
      if (!WANT.every((c) => codes.includes(c))) throw new Error(`checkLaunchScript found ${codes.join(', ')}`)
      lines = value.findings.map((f) => `${f.code} at ${f.evidence['Script line'] ?? '?'}`).join(', ')
      return ms
    }
    await action()
    inProcess()
    const figure: number[] = []
    const bare: number[] = []
    const alone: number[] = []
    for (let i = 0; i < runs; i++) {
      bare.push((await timed(() => run(['-e', ''], process.env))).ms)
      figure.push(await action())
      alone.push(inProcess())
    }
    log(
      `row 1c: the Action's diagnose --launch-script ${figure.map((v) => Math.round(v)).join(', ')} ms; the check alone ${alone.map((v) => v.toFixed(1)).join(', ')} ms`,
    )
    return {
      id: '1c',
      figure:
        'time to verdict on the seed bug, no cluster: the static launch-script check (`command: diagnose`, `launch-script`, both findings with lines and the patch)',
      value: samples('ms', figure),
      baselineLabel: "vLLM's own placement-group timeout",
      baseline: samples('ms', [VLLM_PG_WAIT_TIMEOUT_S * 1000]),
      goal: { kind: 'max', limit: 5000 },
      note: `node ${actionEntry} from spawn to exit (exit 1; ${lines}); of that, the check itself in-process: ${median(alone).toFixed(1)} ms (median of ${alone.length}); \`node -e ''\` in the same run: ${Math.round(median(bare))} ms`,
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

function timedSync<T>(fn: () => T): { ms: number; value: T } {
  const started = performance.now()
  const value = fn()
  return { ms: performance.now() - started, value }
}

/**
 * Row 1d, the static check's speed on a long script: a 1,000-line launch script of the DGX Spark
 * style (test/script-check/long-script.ts, modelled on eugr/spark-vllm-docker's launch-cluster.sh)
 * checked in-process, beside `bash -n` on the same file in the same run (the shell's own parse, a
 * floor no check goes under), interleaved; also the check's heap growth. The same check at half
 * the length is in the note: the check is linear when doubling the script about doubles the time.
 */
export function longScriptRow(runs = 5): Row {
  const dir = mkdtempSync(join(tmpdir(), 'vrd-bench-long-'))
  try {
    const full = longLaunchScript(16)
    const half = longLaunchScript(6)
    const path = join(dir, 'launch-cluster.sh')
    writeFileSync(path, full)
    const lines = full.split('\n').length - 1
    const check = (text: string) => {
      const { ms, value } = timedSync(() => checkLaunchScript(text, { path: 'launch-cluster.sh' }))
      const errors = value.findings.filter((f) => f.severity === 'error')
      if (errors.length > 0) throw new Error(`the long script gave errors: ${errors.map((f) => f.code).join(', ')}`)
      return ms
    }
    const bashN = () => {
      const started = performance.now()
      execFileSync('bash', ['-n', path], { stdio: 'pipe' })
      return performance.now() - started
    }
    const before = process.memoryUsage().heapUsed
    check(full)
    const heapMB = (process.memoryUsage().heapUsed - before) / 1e6
    const figure: number[] = []
    const baseline: number[] = []
    const halves: number[] = []
    for (let i = 0; i < runs; i++) {
      baseline.push(bashN())
      figure.push(check(full))
      halves.push(check(half))
    }
    const ratio = median(figure) / median(baseline)
    const halfLines = half.split('\n').length - 1
    log(`row 1d: ${lines} lines: check ${figure.map((v) => Math.round(v)).join(', ')} ms; bash -n ${baseline.map((v) => v.toFixed(1)).join(', ')} ms`)
    return {
      id: '1d',
      figure: `the static launch-script check on a ${lines}-line launch script (in-process)`,
      value: samples('ms', figure),
      baselineLabel: '`bash -n` on the same script',
      baseline: samples('ms', baseline),
      goal: { kind: 'max', limit: 2000 },
      note: `${(ratio).toFixed(0)}× bash -n; ${halfLines} lines: ${Math.round(median(halves))} ms (${lines}/${halfLines} = ${(lines / halfLines).toFixed(2)}× the lines took ${(median(figure) / median(halves)).toFixed(2)}× the time); heap growth of one check ${heapMB.toFixed(0)} MB`,
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
