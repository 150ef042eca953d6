/**
 * What every lab step needs: where the lab lives, how to run commands, how to report progress.
 */
import { type DockerCommands, dockerCommands } from './docker-commands.js'
import type { LabOptions } from './lab-types.js'
import { LabError } from './lab-error.js'
import { INSTANCE_ERROR } from './layout.js'
import { type LabPaths, assetsDir, dockerBinary, labCacheDir, labPaths, resolveLabDir } from './paths.js'
import { LabRunner, type Progress } from './runner.js'

export interface LabContext {
  readonly paths: LabPaths
  readonly runner: LabRunner
  readonly dockerBin: string
  readonly docker: DockerCommands
  readonly progress: Progress
  readonly assets: string
  /** Debian mirror for debootstrap and the chroots: `$VRD_LAB_MIRROR`, else deb.debian.org. */
  readonly mirror: string
}

export function labContext(opts: LabOptions): LabContext {
  const progress: Progress = opts.onProgress ?? (() => {})
  const dockerBin = dockerBinary()
  // A bad $VRD_LAB_INSTANCE is an error even with an explicit lab dir: the names would be wrong.
  if (INSTANCE_ERROR)
    throw new LabError('bad-input', INSTANCE_ERROR.message, 'unset VRD_LAB_INSTANCE for the default lab, or set it to the number of the lab to use')
  const root = resolveLabDir(opts.dir)
  if (/[,:"\n]/.test(root)) {
    throw new Error(`the lab dir is bind-mounted into the nodes, so its path cannot contain ',', ':', '"' or a newline: ${root}`)
  }
  return {
    paths: labPaths(root, labCacheDir(opts.dir)),
    runner: new LabRunner(progress),
    dockerBin,
    docker: dockerCommands(dockerBin),
    progress,
    assets: assetsDir(),
    mirror: process.env.VRD_LAB_MIRROR ?? 'http://deb.debian.org/debian',
  }
}
