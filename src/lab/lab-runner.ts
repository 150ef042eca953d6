/**
 * The lab's only way to run a command: through a Transport (LocalTransport: this machine).
 * Adds what a lab step needs on top: a deadline, a Problem that names the step and shows the
 * command and its output, and a heartbeat for long steps.
 */
import { type Cmd, render } from '../command/shell.js'
import { LocalTransport } from '../transport/local.js'
import { type RunOptions, type RunResult, type Transport, outcome, succeeded } from '../transport/transport.js'
import { ok } from '../result/result.js'
import { type LabResult, labFail, tail } from './lab-problem.js'

export type Progress = (msg: string) => void

export interface StepOptions {
  readonly timeoutMs?: number
  readonly stdin?: RunOptions['stdin']
  /** Report "still <what> (N s)" every this many ms while the command runs. */
  readonly heartbeatMs?: number
  readonly fix?: string
}

export class LabRunner {
  constructor(
    readonly progress: Progress = () => {},
    private readonly transport: Transport = new LocalTransport(),
  ) {}

  /** Run and return the result whatever the exit status (for probes). */
  probe(cmd: Cmd, timeoutMs = 30_000, stdin?: RunOptions['stdin']): Promise<RunResult> {
    return this.transport.run(cmd, { timeoutMs, ...(stdin !== undefined ? { stdin } : {}) })
  }

  /** Run a step; a failure is a `command-failed` Problem saying what was being done. */
  async step(what: string, cmd: Cmd, opts: StepOptions = {}): Promise<LabResult<RunResult>> {
    const started = Date.now()
    const beat = opts.heartbeatMs
      ? setInterval(() => this.progress(`  still ${what} (${Math.round((Date.now() - started) / 1000)} s)`), opts.heartbeatMs)
      : undefined
    try {
      const r = await this.transport.run(cmd, {
        timeoutMs: opts.timeoutMs ?? 60_000,
        ...(opts.stdin !== undefined ? { stdin: opts.stdin } : {}),
      })
      if (!succeeded(r)) return labFail('command-failed', `${what} failed (${outcome(r)}): ${render(cmd)}`, opts.fix, tail(`${r.stdout}\n${r.stderr}`, 25))
      return ok(r)
    } finally {
      if (beat) clearInterval(beat)
    }
  }
}

/** Lines of a command's stdout, empty ones dropped. */
export const lines = (text: string): string[] =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
