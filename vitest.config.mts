import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 600_000,
    // Lab tests share one set of containers: run files one at a time.
    fileParallelism: false,
    reporters: ['default'],
  },
})
