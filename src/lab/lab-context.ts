/**
 * What every lab step needs: where the lab lives, how to run commands, how to report progress.
 */
import { type DockerCommands, dockerCommands } from './docker-commands.js'
import type { LabOptions } from './lab-types.js'
import { ok } from '../result/result.js'
import { type LabPaths, assetsDir, dockerBinary, labCacheDir, labPaths, resolveLabDir } from './paths.js'
import { LabRunner, type Progress } from './lab-runner.js'
import { type LabResult, labFail } from './lab-problem.js'

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

/** The context of one lab command, or why there can be none (a bad `$VRD_LAB_INSTANCE` or lab dir, no assets). */
export function labContext(opts: LabOptions): LabResult<LabContext> {
  const progress: Progress = opts.onProgress ?? (() => {})
  const dockerBin = dockerBinary()
  // A bad $VRD_LAB_INSTANCE is an error even with an explicit lab dir (resolveLabDir): the names would be wrong.
  const root = resolveLabDir(opts.dir)
  if (!root.ok) return root
  if (/[,:"\n]/.test(root.value)) {
    return labFail(
      'bad-input',
      `the lab dir is bind-mounted into the nodes, so its path cannot contain ',', ':', '"' or a newline: ${root.value}`,
      'choose a lab dir (VRD_LAB_DIR, --dir) without those characters',
    )
  }
  const assets = assetsDir()
  if (!assets.ok) return assets
  return ok({
    paths: labPaths(root.value, labCacheDir(opts.dir)),
    runner: new LabRunner(progress),
    dockerBin,
    docker: dockerCommands(dockerBin),
    progress,
    assets: assets.value,
    mirror: process.env.VRD_LAB_MIRROR ?? 'http://deb.debian.org/debian',
  })
}
