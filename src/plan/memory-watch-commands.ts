/**
 * The start-up memory watchdog's two commands (src/preflight/memory/): one read of a node's memory
 * per sample (one small argv, no shell: /proc/pressure/memory is missing on a kernel without PSI,
 * and `cat` then still prints /proc/meminfo), and the stop of the release's engine on a node.
 */
import { type Argv, argv } from '../command/shell.js'
import type { Manifest } from '../manifest/schema.js'

export const memorySampleCmd = (): Argv => argv('cat', '/proc/meminfo', '/proc/pressure/memory')

/** SIGKILL, not a graceful stop: the point is to give the memory back before the host runs out. */
export const killEngineCmd = (m: Manifest): Argv => argv('docker', 'kill', '--signal', 'KILL', m.container.name)
