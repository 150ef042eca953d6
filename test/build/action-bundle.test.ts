/**
 * The Action's bundle carries no lab code (issue 35): the lab (Docker nodes, the stand-in's build,
 * scenarios, the hub mirror) is for the CLI on a developer's machine, never for a runner. The CLI
 * reaches it through one dynamic import (src/tasks/commands.ts, runLab), which the build splits into
 * a chunk of its own beside dist/index.js; the Action never loads that chunk.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

/** Strings only the lab's code holds: its image names, its node init script, its runc wrapper, its errors. */
const LAB_MARKERS = ['vrd-lab/', 'vrd-lab-rootfs-setup.sh', 'runc-lab', 'vrd-lab-init']

describe('dist/index.js, the Action', () => {
  const bundle = readFileSync('dist/index.js', 'utf8')
  const chunks = readdirSync('dist').filter((f) => /^\d+\.index\.js$/.test(f))

  it('holds none of the lab markers; the lab chunk holds them', () => {
    for (const m of LAB_MARKERS) expect(bundle.includes(m), m).toBe(false)
    const lab = chunks.map((c) => readFileSync(join('dist', c), 'utf8')).find((t) => t.includes('vrd-lab/'))
    expect(lab, `a chunk beside dist/index.js holds the lab (${chunks.join(', ')})`).toBeDefined()
    for (const m of ['vrd-lab/', 'runc-lab']) expect(lab!.includes(m), m).toBe(true)
  })

  it('is smaller than the 2.56 MiB it was with the lab inside', () => {
    expect(statSync('dist/index.js').size).toBeLessThan(2.56 * 1024 * 1024)
  })

  it('the CLI still loads the lab from its chunk (lab status through dist/cli/index.js)', () => {
    const out = execFileSync(process.execPath, ['dist/cli/index.js', 'lab', 'status', '--json'], {
      encoding: 'utf8',
      env: { ...process.env, VRD_LAB_INSTANCE: '7' },
    })
    expect(JSON.parse(out)).toHaveProperty('nodes')
  })
})
