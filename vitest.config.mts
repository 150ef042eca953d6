import { defineConfig } from 'vitest/config'

/**
 * Two projects. `unit`: every test that needs no Docker lab (pure code, real sshd on loopback, real
 * local processes); each file owns what it starts, so files run in parallel. `lab`: the *.e2e tests,
 * which share one set of lab containers (and real Ray): one file at a time, after `unit` is done
 * (groupOrder), so a slow machine is never running both at once.
 */
const LAB = 'test/**/*.e2e.test.ts'

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 600_000,
    reporters: ['default'],
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: [LAB], sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: { name: 'lab', include: [LAB], fileParallelism: false, sequence: { groupOrder: 1 } },
      },
    ],
  },
})
