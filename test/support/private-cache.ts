/**
 * The unit project's setup: each test file gets a cache directory of its own ($XDG_CACHE_HOME), so
 * what the code keeps under the user's cache (the runner's image archives of image.runnerArchiveCache,
 * the weights' digests) neither comes from another test file running beside it nor lands in
 * ~/.cache. A relay test once read another file's kept archive and counted no bytes sent.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll } from 'vitest'

const dir = mkdtempSync(join(tmpdir(), 'vrd-unit-cache-'))
const before = process.env.XDG_CACHE_HOME
process.env.XDG_CACHE_HOME = dir
afterAll(() => {
  if (before === undefined) delete process.env.XDG_CACHE_HOME
  else process.env.XDG_CACHE_HOME = before
  rmSync(dir, { recursive: true, force: true })
})
