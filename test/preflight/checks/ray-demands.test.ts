import { describe, expect, it } from 'vitest'
import { parseRayStatus } from '../../../src/preflight/parse-ray.js'
import { healthyFacts, seedBugFacts } from '../fixtures/facts.js'
import { readFixture } from '../fixtures/read.js'
import { only } from './helpers.js'

const pendingSeed = parseRayStatus(readFixture('ray/status-seed-pending.txt'))

describe('PLACEMENT_GROUP_PENDING from ray status demands', () => {
  it("reports a pending group pinned to an address no Ray node has, side by side with Ray's addresses", () => {
    const facts = { ...seedBugFacts, ray: { ...seedBugFacts.ray!, pendingDemands: pendingSeed.pendingDemands ?? [] } }
    const [f] = only(facts, 'PLACEMENT_GROUP_PENDING')
    expect(f).toMatchObject({ severity: 'error', node: 'spark-a' })
    expect(f?.evidence).toMatchObject({
      'Placement group asks for': 'node:192.168.200.12',
      'Ray node addresses (NodeManagerAddress)': '10.1.230.180 (head), 10.1.230.181',
      'Ray node with that address': 'none',
    })
  })

  it('warns, without deciding, when ray status gives no node addresses to compare', () => {
    const [f] = only({ ...seedBugFacts, ray: pendingSeed }, 'PLACEMENT_GROUP_PENDING')
    expect(f?.severity).toBe('warning')
    expect(f?.message).toContain('does not list node addresses')
  })

  it('warns about pending demands whose pin Ray does have (something else holds the GPUs)', () => {
    const facts = { ...healthyFacts, ray: { ...healthyFacts.ray!, pendingDemands: pendingSeed.pendingDemands ?? [] } }
    const [f] = only(facts, 'PLACEMENT_GROUP_PENDING')
    expect(f?.severity).toBe('warning')
    expect(f?.message).toContain('pending resource demands')
  })

  it('near miss: no pending demands', () => {
    const idle = parseRayStatus(readFixture('ray/status-ray-39638.txt'))
    expect(only({ ...healthyFacts, ray: { ...healthyFacts.ray!, pendingDemands: idle.pendingDemands ?? [] } }, 'PLACEMENT_GROUP_PENDING')).toEqual([])
  })
})
