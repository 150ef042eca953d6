/**
 * globalSetup of every project: each vitest run gets its own temp dir, `$TMPDIR` (and
 * `$XDG_CACHE_HOME` under it) for the tests and for every process they start (sshd, act, npm, Ray's sessions, the CLI), removed when the run ends.
 * Before it, each run left about 200 folders in /tmp, among them a scratch clone with its own
 * node_modules (about 0.5 GB a run). `VRD_KEEP_TMP=1` keeps the folder and says where it is.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export default function setup(): () => void {
  // Each project runs its globalSetup: the first one in this process makes the folder, the others use it.
  if (process.env.VRD_TEST_TMPDIR === process.env.TMPDIR && process.env.TMPDIR) return () => {}
  const dir = mkdtempSync(join(tmpdir(), 'vrd-test-'))
  process.env.TMPDIR = dir
  process.env.VRD_TEST_TMPDIR = dir
  // The tool's runner-side caches ($XDG_CACHE_HOME/vllm-ray-deploy: relay's kept archive, the weights'
  // hashes) too: a test never reads what an earlier run, or the machine's own deploys, left there.
  process.env.XDG_CACHE_HOME = join(dir, 'cache')
  return () => {
    if (process.env.VRD_KEEP_TMP === '1') {
      process.stderr.write(`the run's temp dir is kept: ${dir}\n`)
      return
    }
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 3 })
    } catch (e) {
      process.stderr.write(`could not remove the run's temp dir ${dir}: ${(e as Error).message}\n`)
    }
  }
}
