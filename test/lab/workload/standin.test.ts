/**
 * Runs the vLLM stand-in's Python tests (test/lab/workload/test_*.py) from the default
 * `npx vitest run`: first setup-venv.sh (Ray 2.55.1 from PyPI into .lab/venv-test, once),
 * then `python -m unittest` in that venv. They start real Ray clusters on this host, so
 * this takes a minute or two.
 */
import { spawnSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const here = dirname(fileURLToPath(import.meta.url))
const repo = join(here, '..', '..', '..')
const venv = process.env.VLLM_STANDIN_VENV ?? join(repo, '.lab', 'venv-test')
const MINUTE = 60_000

function run(cmd: string, args: string[], timeoutMs: number) {
  const res = spawnSync(cmd, args, {
    cwd: here,
    encoding: 'utf8',
    timeout: timeoutMs,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
  })
  const output = `${res.stdout ?? ''}${res.stderr ?? ''}`
  return { status: res.status, signal: res.signal, error: res.error, output }
}

describe('vLLM stand-in (Python)', () => {
  it(
    'passes its unittest suite on a real Ray cluster',
    () => {
      const setup = run('bash', [join(here, 'setup-venv.sh')], 15 * MINUTE)
      if (setup.status !== 0) {
        throw new Error(`setup-venv.sh failed (status ${setup.status}, ${setup.signal ?? setup.error ?? ''}):\n${setup.output.slice(-6000)}`)
      }
      const tests = run(join(venv, 'bin', 'python'), ['-m', 'unittest', 'discover', '-s', here, '-p', 'test_*.py', '-v'], 20 * MINUTE)
      if (tests.status !== 0) {
        throw new Error(`python tests failed (status ${tests.status}, ${tests.signal ?? tests.error ?? ''}):\n${tests.output.slice(-12000)}`)
      }
      expect(tests.output).toMatch(/\nOK/)
    },
    35 * MINUTE,
  )
})
