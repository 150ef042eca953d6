/**
 * A deploy (on the simulated cluster) of a launch script that lives in a repository of fixture files,
 * with deploy.scriptCheck: block: what the sourced-file and compose tests ask of the script-check
 * stage on the path users run.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { deployRelease } from '../../../src/deploy/rollout.js'
import type { RolloutReport } from '../../../src/deploy/rollout-types.js'
import { SimCluster, simManifest, simRolloutOptions } from '../../deploy/support/sim-cluster.js'

/** Copies `fixtureDir` into a fresh repository (a `.git` beside it), deploys `scriptPath` from it, cleans up. */
export async function deployBlockedScript(fixtureDir: string, scriptPath: string): Promise<RolloutReport> {
  const dir = mkdtempSync(join(tmpdir(), 'vrd-script-deploy-'))
  let sim: SimCluster | undefined
  try {
    cpSync(fixtureDir, dir, { recursive: true })
    mkdirSync(join(dir, '.git'))
    sim = new SimCluster(
      simManifest((doc) => {
        doc.launch = { mode: 'script', path: scriptPath }
        ;(doc.deploy as Record<string, unknown>).scriptCheck = 'block'
      }),
    )
    return await deployRelease(simRolloutOptions(sim, 'r1', { manifestPath: join(dir, 'cluster.yml'), force: true }))
  } finally {
    sim?.cleanup()
    rmSync(dir, { recursive: true, force: true })
  }
}
