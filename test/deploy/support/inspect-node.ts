import { render } from '../../../src/command/shell.js'
import type { RunResult, Transport } from '../../../src/transport/transport.js'

/**
 * A node whose `docker image inspect` prints what `answer` gives (undefined: no such image, exit 1) and whose every other
 * command succeeds silently; every command it is sent is recorded in `log` as "<name>: <command>".
 */
export function inspectingNode(name: string, answer: () => string | undefined, log: string[]): Transport {
  return {
    label: name,
    async run(cmd): Promise<RunResult> {
      const command = render(cmd)
      log.push(`${name}: ${command}`)
      const base = { signal: null, stderr: '', durationMs: 1, timedOut: false }
      if (command.startsWith('docker image inspect')) {
        const out = answer()
        return out ? { ...base, code: 0, stdout: `${out}\n` } : { ...base, code: 1, stdout: '' }
      }
      return { ...base, code: 0, stdout: '' }
    },
    close: async () => {},
  }
}
