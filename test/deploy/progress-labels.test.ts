/**
 * Progress lines are labelled once each: a message that names its stage (the executor's
 * `[node] action:` lines, the smoke's `smoke:` lines) is not labelled twice, two stages that run at
 * once keep their own labels, and a stage that ends gives the label back to the one around it.
 */
import { describe, expect, it } from 'vitest'
import { render, shScript } from '../../src/command/shell.js'
import { ok } from '../../src/result/result.js'
import { progressLine, StageProgress } from '../../src/deploy/progress.js'
import { executePlan } from '../../src/execute/execute.js'
import type { Plan } from '../../src/plan/plan.js'
import { LocalTransport } from '../../src/transport/local.js'

/** `[+  0.0s] ` off a line, so lines compare without their clock. */
const unclocked = (l: string) => l.replace(/^\[\+ *[\d.]+s\] /, '')

describe('progressLine', () => {
  it("the executor's own lines, run for real: the phase label once, the node tag kept", async () => {
    const lines: string[] = []
    const step = (action: string) => {
      const cmd = shScript('true')
      return { id: `a/${action}`, node: 'spark-a', action, description: `${action} here`, cmd, command: render(cmd), timeoutSeconds: 10 }
    }
    const plan: Plan = {
      cluster: 't',
      image: 'i',
      release: 'r',
      head: 'spark-a',
      nodes: [],
      launch: 'builtin',
      phases: [{ name: 'release-files', description: 'write the files', parallel: false, steps: [step('release-files')] }],
    }
    await executePlan(plan, {
      transports: new Map([['spark-a', new LocalTransport()]]),
      stdinFor: async () => ok(''),
      onProgress: (x) => lines.push(unclocked(progressLine(0, 'release-files', x.replace(/^== /, '')))),
    })
    expect(lines).toEqual([
      'release-files: write the files',
      'release-files: [spark-a] release-files here',
      expect.stringMatching(/^release-files: \[spark-a\] ok in [\d.]+ s$/),
    ])
    for (const l of lines) expect(l).not.toMatch(/release-files:.*release-files:/)
  })

  it('labels a message that names another stage (or none) with its stage', () => {
    expect(unclocked(progressLine(1500, 'smoke', 'smoke: vLLM ready after 3.0 s'))).toBe('smoke: vLLM ready after 3.0 s')
    expect(unclocked(progressLine(1500, 'image', 'relay: spark-a → spark-b'))).toBe('image: relay: spark-a → spark-b')
    expect(unclocked(progressLine(1500, 'image', '[spark-b] image: docker pull x'))).toBe('image: [spark-b] docker pull x')
    expect(unclocked(progressLine(1500, 'ray', '[spark-b] ray-start: ok'))).toBe('ray: [spark-b] ray-start: ok')
    expect(progressLine(1500, 'audit', 'x')).toBe('[+   1.5s] audit: x')
  })
})

describe('StageProgress', () => {
  it('two stages at once keep their own labels; an inner stage that ends gives the label back', async () => {
    const lines: string[] = []
    const p = new StageProgress<string>((l) => lines.push(unclocked(l)), 'lock')
    let release!: () => void
    const gate = new Promise<void>((r) => {
      release = r
    })
    await Promise.all([
      p.within('state', async () => {
        await gate
        p.progress('read')
      }),
      p.within('host-checks', async () => {
        p.progress('docker ok')
        release()
      }),
    ])
    await p.within('on-failure', async () => {
      await p.within('rollback', async () => {
        p.entered('smoke')
        p.progress('r1 passed its smoke test')
      })
      // The rollback ran its phases up to smoke; what follows is on-failure's own work.
      p.progress('[spark-a] activate: r1')
    })
    expect(lines).toEqual(['host-checks: docker ok', 'state: read', 'smoke: r1 passed its smoke test', 'on-failure: [spark-a] activate: r1'])
  })
})
