/**
 * Row 9, the fresh start (issue 40: ≤ 180 s on a quiet machine): the README's main command from a
 * fresh clone of this checkout's HEAD — `npm start` (.ci/main: set-up with `npm ci`, `lab up`, the
 * cold deploy, the unchanged redeploy, the seed bug stopped at the gate, the rollback, a completion) —
 * in a temporary directory, on a lab instance of its own whose lab is taken down first, so the lab
 * is created anew. The lab's images are shared by content on this docker (src/lab/images.ts), so the
 * row measures a fresh clone on a machine that built them once; `VRD_BENCH_FRESH_COLD=1` removes the
 * lab's images first (9-cold: debootstrap, the chroot installs, the wheel download), which every other
 * lab on this docker then has to build again.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { log } from '../measure.js'
import { type Row, samples } from '../table.js'

/** The lab instance the fresh clone uses: the last one, which the test suite's instances leave alone. */
const FRESH_INSTANCE = process.env.VRD_BENCH_FRESH_INSTANCE ?? '8'
const GOAL_MS = 180_000

/** Runs a command to its end with its output into `logFile`; resolves to the exit code. */
function run(cmd: string, args: readonly string[], opts: { cwd: string; env: NodeJS.ProcessEnv; logFile: string }): Promise<number> {
  return new Promise((resolve, reject) => {
    const out = openSync(opts.logFile, 'a')
    const p = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', out, out] })
    p.on('error', reject)
    p.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1)))
  })
}

/** "lab up: ready in 43.9 s" from the story's output, in ms. */
export function labUpMs(output: string): number | undefined {
  const m = /lab up: ready in ([\d.]+) s/.exec(output)
  return m ? Math.round(Number(m[1]) * 1000) : undefined
}

async function freshStart(cold: boolean): Promise<Row> {
  const dir = mkdtempSync(join(tmpdir(), 'vrd-bench-fresh-'))
  const clone = join(dir, 'clone')
  const logFile = join(dir, 'npm-start.log')
  const env: NodeJS.ProcessEnv = { ...process.env, VRD_LAB_INSTANCE: FRESH_INSTANCE }
  delete env.VRD_LAB_DIR
  try {
    if ((await run('git', ['clone', '-q', process.cwd(), clone], { cwd: dir, env, logFile })) !== 0)
      throw new Error(`git clone failed: ${readFileSync(logFile, 'utf8')}`)
    // The instance's lab down first (its containers by name, whichever clone made them).
    await run('node', ['dist/cli/index.js', 'lab', 'down'], { cwd: clone, env, logFile })
    if (cold) {
      log('fresh start: removing the lab images (cold)')
      await run(
        'sh',
        ['-c', 'docker images --format "{{.Repository}}:{{.Tag}}" | grep -E "^(vrd-lab/|127\\.0\\.0\\.1:[0-9]+/vrd-lab/)" | xargs -r docker rmi -f'],
        {
          cwd: clone,
          env,
          logFile,
        },
      )
    }
    log(`fresh start${cold ? ' (cold)' : ''}: npm start in ${clone}, lab instance ${FRESH_INSTANCE}`)
    const lock = `/tmp/vrd-lab-${FRESH_INSTANCE}.flock`
    const started = performance.now()
    const code = await run('flock', [lock, 'npm', 'start'], { cwd: clone, env, logFile })
    const ms = performance.now() - started
    const output = readFileSync(logFile, 'utf8')
    if (code !== 0) throw new Error(`npm start exited ${code}; the end of its output:\n${output.split('\n').slice(-15).join('\n')}`)
    const labUp = labUpMs(output)
    log(`fresh start${cold ? ' (cold)' : ''}: ${(ms / 1000).toFixed(1)} s, lab up ${labUp === undefined ? '?' : `${(labUp / 1000).toFixed(1)} s`}`)
    return {
      id: cold ? '9-cold' : '9',
      figure: cold
        ? '`npm start` from a fresh clone with the lab images removed first (debootstrap, chroot installs, wheels: a machine that never built the lab)'
        : '`npm start` from a fresh clone (git clone of HEAD, npm ci, its lab created anew, the lab images taken back by content, the whole story)',
      value: samples('ms', [ms]),
      baselineLabel: '–',
      goal: { kind: 'max', limit: GOAL_MS },
      note: `lab up ${labUp === undefined ? 'not found in the output' : `${(labUp / 1000).toFixed(1)} s`} of it; lab instance ${FRESH_INSTANCE}, its lab down before and after; the clone is HEAD (${process.cwd()}), not the working tree`,
    }
  } finally {
    await run('node', ['dist/cli/index.js', 'lab', 'down'], { cwd: clone, env, logFile }).catch(() => 1)
    rmSync(dir, { recursive: true, force: true })
  }
}

export async function freshStartRows(): Promise<Row[]> {
  const rows = [await freshStart(false)]
  if (process.env.VRD_BENCH_FRESH_COLD === '1') rows.push(await freshStart(true))
  return rows
}
