/**
 * What every lab step needs: where the lab lives, how to run commands, how to report progress.
 */
import { type DockerCommands, dockerCommands } from './docker-commands.js'
import type { LabOptions } from './lab-types.js'
import { type LabPaths, assetsDir, dockerBinary, labCacheDir, labPaths, requireLabInstance, resolveLabDir } from './paths.js'
import { LabRunner, type Progress } from './lab-runner.js'
import { LabError } from './lab-error.js'

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
  requireLabInstance()
  const root = resolveLabDir(opts.dir)
  if (/[,:"\n]/.test(root)) {
    throw new LabError(
      'bad-input',
      `the lab dir is bind-mounted into the nodes, so its path cannot contain ',', ':', '"' or a newline: ${root}`,
      'choose a lab dir (VRD_LAB_DIR, --dir) without those characters',
    )
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
