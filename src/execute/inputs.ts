/** Where each kind of step stdin comes from when a plan runs. */
import type { Readable } from 'node:stream'
import type { PlannedStep, StepInput } from '../plan/plan.js'
import { argv } from '../command/shell.js'
import { readLaunchScript } from '../manifest/launch-path.js'
import { secretValueProblem } from './secret-value.js'
import { PROBE_PROGRAM } from '../probe/probe-command.js'
import { LocalTransport } from '../transport/local.js'

/** `docker` of this machine, for image archives (`$VRD_DOCKER` overrides). */
const docker = process.env.VRD_DOCKER || 'docker'

export interface StdinSources {
  /** A release's files for one node, as the JSON document the release writer reads (a deploy supplies it). */
  readonly releaseFiles?: (release: string, node: string) => string
  /** Called with the byte count of every image archive streamed to a node. */
  readonly onImageBytes?: (node: string, bytes: number) => void
}

export function stdinProvider(manifestPath: string, env: NodeJS.ProcessEnv = process.env, sources: StdinSources = {}) {
  return async (input: StepInput, step?: PlannedStep): Promise<string | Readable> => {
    switch (input.kind) {
      case 'release-files': {
        if (!sources.releaseFiles || !step) throw new Error(`no files for release ${input.release} were prepared`)
        return sources.releaseFiles(input.release, step.node)
      }
      case 'file': {
        // The one reader of a launch script: relative to the manifest's folder, inside the repository, bounded.
        const read = await readLaunchScript(manifestPath, input.path, { ...(input.allowOutsideRepository && { allowOutsideRepository: true }), env })
        if (!read.ok) throw new Error(`${read.message}: ${read.fix}`)
        return read.text
      }
      case 'probe':
        return PROBE_PROGRAM
      case 'secret-env': {
        // The deploy checked these before its first node command (src/deploy/run-inputs.ts); a plan run on its own meets the same rule here.
        const bad = input.names.flatMap((n) => {
          const p = secretValueProblem(env[n])
          return p ? [`${n} ${p}`] : []
        })
        if (bad.length > 0) throw new Error(`secret environment variable ${bad.join('; ')}`)
        return input.names.map((n) => `${n}=${env[n]}`).join('\n') + '\n'
      }
      case 'secret-value': {
        const value = env[input.name]
        if (value === undefined || value.trim() === '') throw new Error(`secret environment variable not set for this run: ${input.name}`)
        return value.trim()
      }
      case 'image-archive': {
        // The image comes from this machine's docker (the runner built or pulled it), streamed
        // as `docker save` straight into the node's `docker load`: no registry, no temp file.
        const local = new LocalTransport()
        const present = await local.run(argv(docker, 'image', 'inspect', '--format', '{{.Id}}', input.image), { timeoutMs: 30_000 })
        if (present.code !== 0) {
          throw new Error(
            `image ${input.image} is not in this machine's docker (${present.stderr.trim() || `exit ${present.code}`}); build or pull it here first, or use image.distribution: pull`,
          )
        }
        const saved = local.stream(argv(docker, 'save', input.image)).stdout
        if (!sources.onImageBytes || !step) return saved
        let bytes = 0
        const node = step.node
        saved.on('data', (c: Buffer) => (bytes += c.length))
        saved.on('end', () => sources.onImageBytes!(node, bytes))
        return saved
      }
    }
  }
}
