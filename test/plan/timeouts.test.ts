import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parseManifest } from '../../src/manifest/load-manifest.js'
import { planRollout } from '../../src/deploy/rollout-plan.js'

const example = readFileSync('src/manifest/examples/dgx-spark-pair.yml', 'utf8')

const base = parseManifest(example, 'm.yml').manifest!
const withBound = (seconds: number) => planRollout({ ...base, ssh: { ...base.ssh, commandTimeoutSeconds: seconds } })

const timeouts = (p: ReturnType<typeof planRollout>) =>
  Object.fromEntries([...(p.around?.before ?? []), ...p.phases, ...(p.around?.after ?? [])].flatMap((ph) => ph.steps.map((s) => [s.id, s.timeoutSeconds])))

describe('ssh.commandTimeoutSeconds bounds every step of the plan', () => {
  it('image transfers get exactly the bound; shorter steps keep their own', () => {
    const t = timeouts(planRollout(base))
    expect(t['spark-a/image']).toBe(1800)
    expect(t['spark-a/facts']).toBe(120)
    // The removal and the teardown check are one command: both of their times.
    expect(t['spark-a/verify-stopped']).toBe(120 + base.deploy.teardownTimeoutSeconds + 60)
  })

  it('a lower bound caps every step, the facts probe, the Ray waits and the stages around the phases included', () => {
    const p = withBound(60)
    const all = Object.values(timeouts(p))
    expect(Math.max(...all)).toBe(60)
    expect(timeouts(p)['spark-a/facts']).toBe(60)
    expect(timeouts(p)['spark-a/ray-cluster']).toBe(60)
    expect(timeouts(p)['spark-a/lock']).toBe(60)
  })
})
