/**
 * Setup file of the `lab` project: which lab instance this test file uses. With
 * `VRD_LAB_WORKERS=N` (N > 1) vitest runs N lab files at once, and worker i (`VITEST_POOL_ID`, 1..N)
 * uses lab instance i, so no two files share a lab. With one worker, `VRD_LAB_INSTANCE` as given
 * (the default lab when unset). A `VRD_LAB_DIR` is lab 1's; worker i > 1 uses `<it>-<i>`. Runs before the test file's imports, so src/lab/layout.ts reads it.
 */
const workers = Number(process.env.VRD_LAB_WORKERS ?? 1)
if (workers > 1) {
  const pool = Number(process.env.VITEST_POOL_ID)
  if (!Number.isInteger(pool) || pool < 1 || pool > workers) {
    throw new Error(
      `lab worker ${JSON.stringify(process.env.VITEST_POOL_ID)} is outside 1..${workers} (VRD_LAB_WORKERS): it would use a lab no other worker leaves alone`,
    )
  }
  process.env.VRD_LAB_INSTANCE = String(pool)
  // A lab dir given by hand is lab 1's; the others get their own beside it (two labs never share
  // keys, manifest or lock).
  // (This file runs before every test file, in workers that may be reused: derive from the original.)
  process.env.VRD_LAB_DIR_GIVEN ??= process.env.VRD_LAB_DIR ?? ''
  const given = process.env.VRD_LAB_DIR_GIVEN
  if (given && pool > 1) process.env.VRD_LAB_DIR = `${given.replace(/\/+$/, '')}-${pool}`
}
