import type { Duplex, Readable } from 'node:stream'
import type { Cmd } from '../command/shell.js'
import type { Result } from '../result/result.js'

/** What one command produced. `code === null` means it never finished (timeout, lost connection). */
export interface RunResult {
  readonly code: number | null
  readonly signal: string | null
  readonly stdout: string
  readonly stderr: string
  readonly durationMs: number
  readonly timedOut: boolean
  /** The run's signal was aborted before the command ended (its code is then null). */
  readonly cancelled?: boolean
  /**
   * The command wrote more than the output limit on this stream: what was kept ends with a line
   * saying so, the command was stopped and its code is null (a cut output is never read as whole).
   */
  readonly outputCut?: 'stdout' | 'stderr'
}

export interface RunOptions {
  /** Hard deadline for the whole command; the remote process is killed when it passes. */
  readonly timeoutMs: number
  /**
   * Bytes for the command's stdin (a string, or a stream such as `docker save` output). A stream
   * the command did not read to its end is destroyed when the command ends, so its producer stops.
   */
  readonly stdin?: string | Readable
  /** Live output, for progress on long steps. */
  readonly onStdout?: (chunk: string) => void
  readonly onStderr?: (chunk: string) => void
  /** Aborting it ends the command at once (the run resolves with `cancelled`). */
  readonly signal?: AbortSignal
  /** Bytes kept per stream (stdout, stderr); past it the command is stopped. Default 8 MiB. */
  readonly maxOutputBytes?: number
}

/**
 * The one way this tool runs a command somewhere: a node over SSH, or this machine (the lab).
 * Implementations render the command tree with `render` (the single quoting function) and never
 * reject on a non-zero exit: the caller reads `code`.
 */
export interface Transport {
  /** Where commands go, for messages: `spark-a (root@10.1.230.12:22)`. */
  readonly label: string
  run(cmd: Cmd, opts: RunOptions): Promise<RunResult>
  /**
   * A TCP connection opened from the node itself to host:port (SSH `direct-tcpip`, like `ssh -L`):
   * the smoke test reaches vLLM on the head's 127.0.0.1 this way, with no port opened. Optional:
   * transports that cannot forward leave it out. A node that refuses is a Problem saying why.
   */
  forwardTcp?(host: string, port: number): Promise<Result<Duplex>>
  close(): Promise<void>
}

export const succeeded = (r: RunResult): boolean => r.code === 0 && !r.timedOut

/** One line saying how a command ended, for errors. */
export function outcome(r: RunResult): string {
  if (r.cancelled) return 'cancelled'
  if (r.outputCut) return `stopped: its ${r.outputCut} passed the output limit`
  if (r.timedOut) return `timed out after ${Math.round(r.durationMs / 1000)} s`
  if (r.code === null) return `ended without an exit status${r.signal ? ` (signal ${r.signal})` : ' (connection lost)'}`
  return `exit ${r.code}`
}

/** After a run: a stream stdin the command did not read to its end is destroyed (its producer then stops). */
export function releaseStdin(stdin: RunOptions['stdin']): void {
  if (stdin && typeof stdin !== 'string' && !stdin.readableEnded && !stdin.destroyed) stdin.destroy()
}
