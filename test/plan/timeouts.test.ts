import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parseManifest } from '../../src/manifest/load.js'
import { planDeploy } from '../../src/plan/plan.js'

const example = readFileSync('src/manifest/examples/dgx-spark-pair.yml', 'utf8')

const base = parseManifest(example, 'm.yml').manifest!
const withBound = (seconds: number) => planDeploy({ ...base, ssh: { ...base.ssh, commandTimeoutSeconds: seconds } })

const timeouts = (p: ReturnType<typeof planDeploy>) => Object.fromEntries(p.phases.flatMap((ph) => ph.steps.map((s) => [s.id, s.timeoutSeconds])))

describe('ssh.commandTimeoutSeconds bounds every step of the plan', () => {
  it('image transfers get exactly the bound; shorter steps keep their own', () => {
    const t = timeouts(planDeploy(base))
    expect(t['spark-a/image']).toBe(1800)
    expect(t['spark-a/facts']).toBe(120)
    expect(t['spark-a/remove-old']).toBe(120)
  })

  it('a lower bound caps every step, the facts probe and vLLM health wait included', () => {
    const p = withBound(60)
    const all = Object.values(timeouts(p))
    expect(Math.max(...all)).toBe(60)
    expect(timeouts(p)['spark-a/facts']).toBe(60)
    expect(timeouts(p)['spark-a/vllm-health']).toBe(60)
  })
})
