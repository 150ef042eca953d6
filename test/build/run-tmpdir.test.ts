import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import setup from '../support/run-tmpdir.js'

describe("the test run's own temp dir (vitest globalSetup)", () => {
  const saved = { TMPDIR: process.env.TMPDIR, VRD_TEST_TMPDIR: process.env.VRD_TEST_TMPDIR, VRD_KEEP_TMP: process.env.VRD_KEEP_TMP }
  const base = mkdtempSync(join(tmpdir(), 'vrd-run-tmpdir-'))
  afterEach(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k]
      else process.env[k] = v
    }
  })

  it('makes one folder for the run (a second project reuses it), points TMPDIR at it, and removes it with all it holds', () => {
    process.env.TMPDIR = base
    delete process.env.VRD_TEST_TMPDIR
    const teardown = setup()
    const dir = process.env.TMPDIR!
    expect(dir.startsWith(join(base, 'vrd-test-'))).toBe(true)
    expect(tmpdir()).toBe(dir)
    const again = setup()
    expect(process.env.TMPDIR).toBe(dir)
    writeFileSync(join(dir, 'left-by-a-test'), 'x')
    again()
    expect(existsSync(dir)).toBe(true)
    teardown()
    expect(existsSync(dir)).toBe(false)
    rmSync(base, { recursive: true, force: true })
  })

  it('VRD_KEEP_TMP=1 keeps it', () => {
    const keepBase = mkdtempSync(join(tmpdir(), 'vrd-run-tmpdir-'))
    process.env.TMPDIR = keepBase
    delete process.env.VRD_TEST_TMPDIR
    process.env.VRD_KEEP_TMP = '1'
    const teardown = setup()
    const dir = process.env.TMPDIR!
    teardown()
    expect(existsSync(dir)).toBe(true)
    rmSync(keepBase, { recursive: true, force: true })
  })
})
