import { describe, expect, it } from 'vitest'
import { parseRayStatus } from '../../src/preflight/parse-ray.js'
import { readFixture } from './fixtures/read.js'

describe('ray status from Ray 2.55 (captured in the lab, the incident reproduced)', () => {
  it('reads "Pending Demands:" after "From request_resources:" and the totals', () => {
    const view = parseRayStatus(readFixture('ray/status-lab-ray-2.55-seed-bug.txt'))
    expect(view.error).toBeUndefined()
    expect(view.totals).toMatchObject({ CPU: 2, GPU: 2 })
    expect(view.pendingDemands).toEqual([{ 'node:172.30.200.12': 0.001, GPU: 1 }, { GPU: 1 }])
    expect(view.nodes.filter((n) => n.alive)).toHaveLength(2)
  })
})
