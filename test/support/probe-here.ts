/**
 * Runs a node probe (ProbeCommand: argv and its program on stdin) on this machine, with a folder of
 * fake tools (docker, nvidia-smi, dmesg, ip, …) first on PATH. DOCKER_HOST names a socket that does not
 * exist, so the probe never reads this machine's own dockerd: it asks the docker CLI, the fake one where
 * the folder has it (a probe that talks to dockerd's socket would otherwise see the test machine's).
 */
import { type SpawnSyncReturns, spawnSync } from 'node:child_process'
import { join } from 'node:path'
import type { ProbeCommand } from '../../src/probe/probe-command.js'

export function runProbeHere(p: ProbeCommand, binDir: string): SpawnSyncReturns<string> {
  return spawnSync(p.cmd.argv[0]!, p.cmd.argv.slice(1), {
    input: p.stdin,
    env: { ...process.env, PATH: `${binDir}:${process.env.PATH}`, DOCKER_HOST: `unix://${join(binDir, 'no-dockerd.sock')}` },
    encoding: 'utf8',
    timeout: 60_000,
  })
}
