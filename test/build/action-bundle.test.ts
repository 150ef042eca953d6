/**
 * The Action's bundle carries no lab code (issue 35): the lab (Docker nodes, the stand-in's build,
 * scenarios, the hub mirror) is for the CLI on a developer's machine, never for a runner. The CLI
 * reaches it through one dynamic import (src/tasks/command-table.ts, runLab), which the build splits into
 * a chunk of its own beside dist/index.js; the Action never loads that chunk. The launch-script
 * check and its bash parser (mvdan-sh, about 1.5 MB) are chunks too (src/script-check/load-checker.ts),
 * loaded by the commands that read a script.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
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

  it('holds neither the bash parser nor the launch-script check; a chunk does, and diagnose --launch-script loads it', () => {
    expect(bundle.includes('mvdan.cc/sh')).toBe(false)
    const parser = chunks.map((c) => readFileSync(join('dist', c), 'utf8')).find((t) => t.includes('mvdan.cc/sh'))
    expect(parser, 'a chunk holds mvdan-sh').toBeDefined()
    const dir = mkdtempSync(join(tmpdir(), 'vrd-bundle-'))
    writeFileSync(join(dir, 'start.sh'), '#!/bin/bash\nexport VLLM_HOST_IP=192.168.200.12\nray start --head --port=6379\n')
    const r = spawnSync(process.execPath, ['dist/cli/index.js', 'diagnose', '--launch-script', join(dir, 'start.sh'), '--json'], { encoding: 'utf8' })
    expect((JSON.parse(r.stdout) as { findings: { code: string }[] }).findings.map((f) => f.code)).toContain('SCRIPT_HEAD_IDENTITY_UNPINNED')
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
