/** Where each kind of step stdin comes from when a plan runs. */
import { type Readable, Transform, pipeline } from 'node:stream'
import type { PlannedStep, StepInput } from '../plan/plan.js'
import { argv } from '../command/shell.js'
import { readLaunchScript } from '../manifest/launch-path.js'
import { fail, ok, problem, type Result } from '../result/result.js'
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

/** A step's stdin, or why it cannot be prepared (a Problem: the step fails with its message). */
export type StepStdin = Result<string | Readable>

const secretProblem = (message: string) => fail(problem('SECRET_INVALID', message))

export function stdinProvider(manifestPath: string, env: NodeJS.ProcessEnv = process.env, sources: StdinSources = {}) {
  return async (input: StepInput, step?: PlannedStep): Promise<StepStdin> => {
    switch (input.kind) {
      case 'release-files': {
        if (!sources.releaseFiles || !step) return fail(problem('RELEASE_FILES_MISSING', `no files for release ${input.release} were prepared`))
        return ok(sources.releaseFiles(input.release, step.node))
      }
      case 'file': {
        // The one reader of a launch script: relative to the manifest's folder, inside the repository, bounded.
        const read = await readLaunchScript(manifestPath, input.path, { ...(input.allowOutsideRepository && { allowOutsideRepository: true }), env })
        if (!read.ok) return fail({ ...read.problem, message: `${read.problem.message}: ${read.problem.fix}` })
        return ok(read.value.text)
      }
      case 'probe':
        return ok(PROBE_PROGRAM)
      case 'secret-env': {
        // The deploy checked these before its first node command (src/deploy/run-inputs.ts); a plan run on its own meets the same rule here.
        const bad = input.names.flatMap((n) => {
          const p = secretValueProblem(env[n])
          return p ? [`${n} ${p}`] : []
        })
        if (bad.length > 0) return secretProblem(`secret environment variable ${bad.join('; ')}`)
        return ok(input.names.map((n) => `${n}=${env[n]}`).join('\n') + '\n')
      }
      case 'secret-value': {
        const value = env[input.name]
        if (value === undefined || value.trim() === '') return secretProblem(`secret environment variable not set for this run: ${input.name}`)
        return ok(value.trim())
      }
      case 'image-archive':
        return imageArchive(input.image, sources, step)
    }
  }
}

/**
 * The image from this machine's docker (the runner built or pulled it), streamed as `docker save`
 * straight into the node's `docker load`: no registry, no temp file.
 */
async function imageArchive(image: string, sources: StdinSources, step?: PlannedStep): Promise<StepStdin> {
  const local = new LocalTransport()
  const present = await local.run(argv(docker, 'image', 'inspect', '--format', '{{.Id}}', image), { timeoutMs: 30_000 })
  if (present.code !== 0) {
    return fail(
      problem(
        'IMAGE_MISSING',
        `image ${image} is not in this machine's docker (${present.stderr.trim() || `exit ${present.code}`}); build or pull it here first, or use image.distribution: pull`,
      ),
    )
  }
  const saved = local.stream(argv(docker, 'save', image)).stdout
  if (!sources.onImageBytes || !step) return ok(saved)
  // Counted as the node's transport reads it, through a Transform: a 'data' listener on the archive itself would set it flowing
  // before the transport is connected and reading, and the bytes it let go by then would be lost to the node's docker load (and
  // its 'end', after the transport's read, came late for the count: the step was over). The count is given when the archive ends.
  let bytes = 0
  const node = step.node
  const counted = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      bytes += chunk.length
      cb(null, chunk)
    },
    flush(cb) {
      sources.onImageBytes!(node, bytes)
      cb()
    },
  })
  // (a consumer that stops early destroys `counted`, and pipeline then ends docker save's stream too)
  pipeline(saved, counted, () => {})
  return ok(counted)
}
