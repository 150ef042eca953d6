import { statSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { relative } from 'node:path'
import { defineConfig } from 'vitest/config'
import { BaseSequencer, type TestSpecification } from 'vitest/node'

/**
 * Three projects. `unit`: every test that needs no Docker lab (pure code, real sshd on loopback, real
 * local processes); each file owns what it starts, so files run in parallel. `lab`: the *.e2e tests
 * that share one set of lab containers (and real Ray): one file at a time. `local`: the *.e2e files
 * that start no lab (act running the release workflow: builds and an npm ci), too slow for
 * `npm run test:unit` but free to run beside the lab. `.ci/test` runs unit + local and lab at once
 * (see there); groupOrder orders them when one vitest process runs them all.
 */
const LAB = 'test/**/*.e2e.test.ts'
const LOCAL = ['test/workflows/release-act.e2e.test.ts']
// vitest's default is one worker less than the cores: one worker on a 2-core machine, which runs
// `unit` one file at a time although most of its time is spent waiting on processes it started
// (sshd, Ray, builds, act). Two at least.
const WORKERS = Math.max(2, availableParallelism() - 1)

/**
 * The lab's own test ends with "down leaves nothing behind": it runs last among the lab files, so no
 * other file pays for a lab built again from nothing after it (registry and image push, every node's
 * image pull: about 30 s of a 2-core machine, measured as the gap before the next file).
 *
 * Otherwise vitest's own order (failed first, then longest first, from its cache of earlier runs).
 * Where that cache knows nothing (a fresh clone): lab files larger first, so with two lab workers the
 * long files start early and the short ones fill the gaps at the end; and the stand-in's Python
 * suite first among the unit files: one to two minutes, mostly waiting on the real Ray clusters it
 * starts, which overlap the other files' work at the start instead of being the last thing running
 * (measured: started at 339 s, it ended the unit pass at 450 s, 100 s after every other file).
 */
const LAB_DOWN = '/test/lab/lab.e2e.test.ts'
const WAITS_FIRST = ['/test/lab/workload/standin.test.ts']
class LabDownLast extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const key = (f: TestSpecification) => `${f.project.name}:${relative(this.ctx.config.root, f.moduleId)}`
    const cached = files.every((f) => this.ctx.cache.getFileTestResults(key(f)))
    let sorted = await super.sort(files)
    if (!cached) {
      const weight = (f: TestSpecification) => (f.project.name === 'lab' ? statSync(f.moduleId).size : 0)
      const first = (f: TestSpecification) => WAITS_FIRST.some((p) => f.moduleId.endsWith(p))
      sorted = [...sorted.filter(first), ...sorted.filter((f) => !first(f)).sort((a, b) => weight(b) - weight(a))]
    }
    const last = (f: TestSpecification) => f.moduleId.endsWith(LAB_DOWN)
    return [...sorted.filter((f) => !last(f)), ...sorted.filter(last)]
  }
}

/**
 * Lab files run one at a time per lab instance. `VRD_LAB_WORKERS=N` (.ci/test sets 2) runs N at once,
 * each worker on its own lab (test/support/lab-instance.ts: worker i uses instance i).
 */
const LAB_WORKERS = Number(process.env.VRD_LAB_WORKERS ?? 1)
if (!Number.isInteger(LAB_WORKERS) || LAB_WORKERS < 1 || LAB_WORKERS > 8) {
  throw new Error(`VRD_LAB_WORKERS must be a whole number from 1 to 8; got ${JSON.stringify(process.env.VRD_LAB_WORKERS)}`)
}

/** The unit coverage floor (percent): 2026-12-05 measured 95.1 % of lines and 82.7 % of branches (src/ without the lab). */
const COVERAGE_FLOOR = { lines: 93, branches: 81 }

export default defineConfig({
  test: {
    // A guard against a hung test, not a speed bound: on a loaded 2-core machine (load 20 while other
    // suites ran) an SSH test of five sessions took 30 s and was cut off mid-way.
    testTimeout: 120_000,
    hookTimeout: 600_000,
    sequence: { sequencer: LabDownLast },
    globalSetup: ['test/support/run-tmpdir.ts'],
    // Unit coverage (.ci/test turns it on for the full unit pass that .ci/run runs): the product's
    // code under src/, not the lab (Docker nodes, images, scenarios: the lab pass exercises it, and
    // the Python stand-in is not TypeScript). Below the floor the unit pass fails.
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      exclude: ['src/lab/**'],
      reporter: ['text-summary', 'json-summary', ['text', { skipFull: true, maxCols: 120 }]],
      reportsDirectory: 'coverage',
      reportOnFailure: true,
      thresholds: { lines: COVERAGE_FLOOR.lines, branches: COVERAGE_FLOOR.branches },
    },
    reporters: ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [LAB],
          maxWorkers: WORKERS,
          sequence: { groupOrder: 0 },
          // a cache directory per test file: nothing kept under ~/.cache by one test is read by another
          setupFiles: ['test/support/private-cache.ts'],
        },
      },
      {
        extends: true,
        test: { name: 'local', include: LOCAL, maxWorkers: WORKERS, sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: {
          name: 'lab',
          include: [LAB],
          exclude: LOCAL,
          setupFiles: ['test/support/lab-instance.ts'],
          fileParallelism: LAB_WORKERS > 1,
          maxWorkers: LAB_WORKERS,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
})
