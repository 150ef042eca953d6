import { spawn } from 'node:child_process'
import type { Readable } from 'node:stream'
import { type Argv, type Cmd, renderScript } from '../command/shell.js'
import type { RunOptions, RunResult, Transport } from './transport.js'

/**
 * Runs commands on this machine. A plain argv is spawned directly (no shell at all); a compound
 * tree is rendered once by `renderScript` (strict mode and pipefail, as on a node) for `bash -c`
 * (bash, not `sh`: Debian's dash has no pipefail, and renderScript only turns it on where it exists).
 */
export class LocalTransport implements Transport {
  readonly label = 'this machine'

  run(cmd: Cmd, opts: RunOptions): Promise<RunResult> {
    const started = Date.now()
    const [file, args, env] =
      cmd.kind === 'argv' && !cmd.env ? [cmd.argv[0]!, cmd.argv.slice(1), process.env] : ['bash', ['-c', renderScript(cmd)], process.env]
    return new Promise((resolve) => {
      let stdout = ''
      let stderr = ''
      let timedOut = false
      const child = spawn(file, args, { env, stdio: ['pipe', 'pipe', 'pipe'], detached: true })
      const timer = setTimeout(() => {
        timedOut = true
        try {
          process.kill(-child.pid!, 'SIGKILL')
        } catch {
          child.kill('SIGKILL')
        }
      }, opts.timeoutMs)
      child.stdout.setEncoding('utf8').on('data', (c: string) => {
        stdout += c
        opts.onStdout?.(c)
      })
      child.stderr.setEncoding('utf8').on('data', (c: string) => {
        stderr += c
        opts.onStderr?.(c)
      })
      child.stdin.on('error', () => {})
      if (opts.stdin === undefined) child.stdin.end()
      else if (typeof opts.stdin === 'string') child.stdin.end(opts.stdin)
      else opts.stdin.pipe(child.stdin)
      const finish = (code: number | null, signal: string | null) => {
        clearTimeout(timer)
        resolve({ code: timedOut ? null : code, signal, stdout, stderr, durationMs: Date.now() - started, timedOut })
      }
      child.on('error', (err) => {
        stderr += `${err.message}\n`
        finish(127, null)
      })
      child.on('close', finish)
    })
  }

  /**
   * Start a program whose stdout is a stream for another command's stdin (e.g. `docker save` into a
   * node's `docker load`). `done` settles when it exits; its stderr is kept for the error message.
   */
  stream(cmd: Argv): { readonly stdout: Readable; readonly done: Promise<RunResult> } {
    const started = Date.now()
    const child = spawn(cmd.argv[0]!, cmd.argv.slice(1), { env: { ...process.env, ...cmd.env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c))
    const done = new Promise<RunResult>((resolve) => {
      child.on('error', (err) => resolve({ code: 127, signal: null, stdout: '', stderr: err.message, durationMs: Date.now() - started, timedOut: false }))
      child.on('close', (code, signal) => resolve({ code, signal, stdout: '', stderr, durationMs: Date.now() - started, timedOut: false }))
    })
    return { stdout: child.stdout, done }
  }

  async close(): Promise<void> {}
}
