/**
 * For tests of the image transfer without Docker: the runner's `docker` as a program for
 * $VRD_DOCKER (answers `image inspect` from $STUB_RUNNER_ID and `save $STUB_IMAGE` with
 * $STUB_SAVE_BYTES zero bytes, failing with $STUB_SAVE_FAIL), and a recording transport per node
 * whose answers a test scripts by the rendered command.
 */
import type { Readable } from 'node:stream'
import { type Cmd, render } from '../../../src/command/shell.js'
import type { RunOptions, RunResult, Transport } from '../../../src/transport/transport.js'

// `docker image inspect --format {{.Id}} IMAGE` and `docker save IMAGE` of the runner.
export const RUNNER_DOCKER = `#!/bin/sh
case "$1 $2" in
  "image inspect")
    [ -n "\${STUB_RUNNER_ID:-}" ] || { echo "Error: No such image: $6" >&2; exit 1; }
    if [ "$4" = '{{.Size}}' ]; then echo "\${STUB_IMAGE_SIZE:-300000}"; else echo "$STUB_RUNNER_ID"; fi ;;
  "save $STUB_IMAGE")
    head -c "$STUB_SAVE_BYTES" /dev/zero
    [ -z "\${STUB_SAVE_FAIL:-}" ] || { echo "$STUB_SAVE_FAIL" >&2; exit 1; } ;;
  *) echo "stub docker: unexpected $*" >&2; exit 99 ;;
esac
`

const result = (r: Partial<RunResult> = {}): RunResult => ({ code: 0, signal: null, stdout: '', stderr: '', durationMs: 1, timedOut: false, ...r })

/** What a node answers: a function of the rendered command; `read`: how many stdin bytes it reads (default all). */
export type Answer = (command: string) => Partial<RunResult> & { read?: number }

export interface Call {
  readonly node: string
  readonly command: string
  readonly stdinBytes: number
}

/** One transport per node, recording each command and the bytes it read from stdin. */
export function recording(nodes: Record<string, Answer>): { transports: Map<string, Transport>; calls: Call[] } {
  const calls: Call[] = []
  const transports = new Map<string, Transport>()
  for (const [node, answer] of Object.entries(nodes)) {
    transports.set(node, {
      label: node,
      async run(cmd: Cmd, opts: RunOptions) {
        const command = render(cmd)
        const { read, ...r } = answer(command)
        let stdinBytes = 0
        if (opts.stdin !== undefined && typeof opts.stdin !== 'string') {
          stdinBytes = await readUpTo(opts.stdin, read ?? Number.POSITIVE_INFINITY)
        }
        calls.push({ node, command, stdinBytes })
        return result(r)
      },
      close: async () => {},
    })
  }
  return { transports, calls }
}

/** Reads `limit` bytes (or to the end) from a stream, then leaves it, as a load that stops early does. */
async function readUpTo(stream: Readable, limit: number): Promise<number> {
  let n = 0
  for await (const chunk of stream) {
    n += (chunk as Buffer).length
    if (n >= limit) break
  }
  return n
}
