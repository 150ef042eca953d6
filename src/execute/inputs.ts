/** Where each kind of step stdin comes from when a plan runs. */
import { readFile } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import type { Readable } from 'node:stream'
import type { StepInput } from '../plan/plan.js'
import { PROBE_PROGRAM } from '../preflight/gather/gather.js'

export function stdinProvider(manifestPath: string, env: NodeJS.ProcessEnv = process.env) {
  return async (input: StepInput): Promise<string | Readable> => {
    switch (input.kind) {
      case 'file':
        // Paths in a manifest are relative to the manifest's own folder.
        return readFile(resolve(dirname(manifestPath), input.path), 'utf8')
      case 'probe':
        return PROBE_PROGRAM
      case 'secret-env': {
        const missing = input.names.filter((n) => env[n] === undefined)
        if (missing.length > 0) throw new Error(`secret environment variable(s) not set for this run: ${missing.join(', ')}`)
        return input.names.map((n) => `${n}=${env[n]}`).join('\n') + '\n'
      }
      case 'image-archive':
        throw new Error('image distribution "load" arrives with the rollout; use "pull" or "preloaded" for now')
    }
  }
}
