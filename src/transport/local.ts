import { spawn } from 'node:child_process'
import type { Readable } from 'node:stream'
import { type Argv, type Cmd, renderScript } from '../command/shell.js'
import { BoundedOutput } from './bounded-output.js'
import { type RunOptions, type RunResult, type Transport, releaseStdin } from './transport.js'

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
      const stdout = new BoundedOutput('stdout', opts.maxOutputBytes)
      const stderr = new BoundedOutput('stderr', opts.maxOutputBytes)
      let cut: 'stdout' | 'stderr' | undefined
      let spawnError = ''
      let timedOut = false
      let cancelled = false
      const child = spawn(file, args, { env, stdio: ['pipe', 'pipe', 'pipe'], detached: true })
      const kill = () => {
        try {
          process.kill(-child.pid!, 'SIGKILL')
        } catch {
          child.kill('SIGKILL')
        }
      }
      const timer = setTimeout(() => {
        timedOut = true
        kill()
      }, opts.timeoutMs)
      const cancel = () => {
        cancelled = true
        kill()
      }
      if (opts.signal?.aborted) cancel()
      opts.signal?.addEventListener('abort', cancel, { once: true })
      // Past the limit the output is dropped and the command stopped (its whole process group).
      const take = (o: BoundedOutput, chunk: Buffer, live?: (s: string) => void) => {
        const text = o.push(chunk)
        if (text) live?.(text)
        if (o.over && !cut) {
          cut = o.name
          kill()
        }
      }
      child.stdout.on('data', (c: Buffer) => take(stdout, c, opts.onStdout))
      child.stderr.on('data', (c: Buffer) => take(stderr, c, opts.onStderr))
      child.stdin.on('error', () => {})
      if (opts.stdin === undefined) child.stdin.end()
      else if (typeof opts.stdin === 'string') child.stdin.end(opts.stdin)
      else opts.stdin.pipe(child.stdin)
      const finish = (code: number | null, signal: string | null) => {
        clearTimeout(timer)
        opts.signal?.removeEventListener('abort', cancel)
        releaseStdin(opts.stdin)
        resolve({
          code: timedOut || cancelled || cut ? null : code,
          signal,
          stdout: stdout.text(),
          stderr: stderr.text() + spawnError + (cancelled ? 'cancelled\n' : ''),
          durationMs: Date.now() - started,
          timedOut,
          ...(cancelled ? { cancelled: true } : {}),
          ...(cut ? { outputCut: cut } : {}),
        })
      }
      child.on('error', (err) => {
        spawnError += `${err.message}\n`
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
    // Its own process group, so stopping it stops what it started too (`sh -c 'a | b'`).
    const child = spawn(cmd.argv[0]!, cmd.argv.slice(1), { env: { ...process.env, ...cmd.env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
    const stopGroup = () => {
      try {
        process.kill(-child.pid!, 'SIGTERM')
      } catch {
        child.kill('SIGTERM')
      }
    }
    // Its stderr is kept for the error message, bounded; past the limit the program is stopped.
    const stderr = new BoundedOutput('stderr')
    child.stderr.on('data', (c: Buffer) => {
      stderr.push(c)
      if (stderr.over && child.exitCode === null && child.signalCode === null) stopGroup()
    })
    // Its stream destroyed before the end (the command it fed stopped reading, or a cancel): the program stops too.
    child.stdout.on('close', () => {
      if (!child.stdout.readableEnded && child.exitCode === null && child.signalCode === null) stopGroup()
    })
    const done = new Promise<RunResult>((resolve) => {
      child.on('error', (err) => resolve({ code: 127, signal: null, stdout: '', stderr: err.message, durationMs: Date.now() - started, timedOut: false }))
      child.on('close', (code, signal) =>
        resolve({
          code: stderr.over ? null : code,
          signal,
          stdout: '',
          stderr: stderr.text(),
          durationMs: Date.now() - started,
          timedOut: false,
          ...(stderr.over ? { outputCut: 'stderr' as const } : {}),
        }),
      )
    })
    return { stdout: child.stdout, done }
  }

  async close(): Promise<void> {}
}
