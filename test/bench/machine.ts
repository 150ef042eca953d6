/** The machine line of RESULTS.md: cores, memory, docker, node. */
import { execFileSync } from 'node:child_process'
import { availableParallelism, totalmem } from 'node:os'
import { dockerBinary } from '../support/lab.js'
import type { Machine } from './table.js'

export function machineInfo(): Machine {
  let docker = 'unknown'
  try {
    docker = execFileSync(dockerBinary(), ['version', '--format', '{{.Server.Version}}'], { encoding: 'utf8' }).trim()
  } catch {
    // docker missing or down: the lab will say so itself.
  }
  return {
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    nproc: availableParallelism(),
    memoryGiB: totalmem() / 2 ** 30,
    docker,
    node: process.version,
  }
}
