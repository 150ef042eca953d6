/**
 * The three hashers a node may have (src/plan/node-sha256.ts), each made the one a script picks
 * on this machine by hiding those before it on PATH: a `python3` or `openssl` that exits 127 as a
 * missing one does. So the node-side scripts' tests run each path for real.
 */
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Argv } from '../../src/command/shell.js'

export const HASHERS = ['python3', 'openssl', 'sha256sum'] as const
export type Hasher = (typeof HASHERS)[number]

/** PATH on which `hasher` is the first working one of python3 → openssl → sha256sum. */
export function pathFor(hasher: Hasher): string {
  const hide = HASHERS.slice(0, HASHERS.indexOf(hasher))
  if (hide.length === 0) return process.env.PATH ?? ''
  const bin = join(mkdtempSync(join(tmpdir(), `vrd-hasher-${hasher}-`)), 'bin')
  mkdirSync(bin)
  for (const name of hide) {
    writeFileSync(join(bin, name), `#!/bin/sh\necho "${name}: not installed (test stub)" >&2\nexit 127\n`)
    chmodSync(join(bin, name), 0o755)
  }
  return `${bin}:${process.env.PATH ?? ''}`
}

/** `cmd` run with that PATH (LocalTransport renders an Argv with env as `PATH=... cmd`). */
export const onPath = (cmd: Argv, path: string): Argv => ({ ...cmd, env: { ...cmd.env, PATH: path } })
