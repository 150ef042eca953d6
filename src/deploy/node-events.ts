/**
 * Which nodes a rollout lost its connection to, and where a write failed, and when. Every transport
 * of the rollout goes through one watcher:
 * - a command that ended with no exit status, no signal, no timeout, no cut and no cancel ended
 *   because its connection went away (a node rebooted, a link dropped, sshd died). A stage that stops
 *   after that is stopped by the lost node, whatever it concluded from the missing answer (an image
 *   "missing", a file "absent");
 * - a command that failed saying a write failed (`No space left on device`, dash's `printf: I/O
 *   error`, `write error`, a quota): the runner measures that node's free space and says what it is.
 * The runner reads both in one place (stages/stop-causes.ts).
 */
import type { Duplex } from 'node:stream'
import type { RunResult, Transport } from '../transport/transport.js'
import type { Result } from '../result/result.js'

/** The command's connection went away before it ended (SSH: "Not connected", a reset, a closed channel). */
export const connectionLost = (r: RunResult): boolean => r.code === null && r.signal === null && !r.timedOut && !r.cancelled && !r.outputCut

/** What a failed write says, in the words of coreutils, bash, dash, Python and Docker. */
const WRITE_FAILED = /No space left on device|ENOSPC|Disk quota exceeded|EDQUOT|\bI\/O error|write error|Read-only file system/i

/** The line of a failed command's stderr that says a write failed, if any. */
export function writeFailure(r: RunResult): string | undefined {
  if (r.code === 0 || r.code === null) return undefined
  return r.stderr
    .split('\n')
    .find((l) => WRITE_FAILED.test(l))
    ?.trim()
    .slice(0, 300)
}

export interface NodeEvent {
  readonly node: string
  /** The transport's own words (its last stderr line). */
  readonly message: string
  /** Order among the watcher's events (see `mark`). */
  readonly seq: number
}

export class NodeEvents {
  readonly transports: ReadonlyMap<string, Transport>
  private readonly events: NodeEvent[] = []
  private readonly writes: NodeEvent[] = []
  private seq = 0

  constructor(transports: ReadonlyMap<string, Transport>) {
    this.transports = new Map([...transports].map(([node, t]) => [node, this.watch(node, t)]))
  }

  /** A point in the rollout; `lostSince(mark)` gives what was lost after it. */
  mark(): number {
    return this.seq
  }

  /** The nodes whose connection went away after `mark` (first loss per node, in order). */
  lostSince(mark: number): NodeEvent[] {
    const seen = new Set<string>()
    return this.events.filter((e) => e.seq > mark && !seen.has(e.node) && seen.add(e.node))
  }

  /** The nodes where a command failed saying a write failed, after `mark` (first per node). */
  writeFailuresSince(mark: number): NodeEvent[] {
    const seen = new Set<string>()
    return this.writes.filter((e) => e.seq > mark && !seen.has(e.node) && seen.add(e.node))
  }

  private watch(node: string, t: Transport): Transport {
    const run: Transport['run'] = async (cmd, opts) => {
      const r = await t.run(cmd, opts)
      this.seq++
      if (connectionLost(r)) this.events.push({ node, message: lastLine(r.stderr) || 'the connection went away', seq: this.seq })
      const failedWrite = writeFailure(r)
      if (failedWrite) this.writes.push({ node, message: failedWrite, seq: this.seq })
      return r
    }
    const forwardTcp = t.forwardTcp?.bind(t)
    return {
      label: t.label,
      run,
      close: () => t.close(),
      ...(forwardTcp && { forwardTcp: (host: string, port: number): Promise<Result<Duplex>> => forwardTcp(host, port) }),
    }
  }
}

function lastLine(text: string): string {
  const lines = text.trim().split('\n')
  return (lines.at(-1) ?? '').trim().slice(0, 300)
}
