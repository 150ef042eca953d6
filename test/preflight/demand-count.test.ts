import { describe, expect, it } from 'vitest'
import { runChecks } from '../../src/preflight/checks/index.js'
import { clusterGpus, gpuShortfallPhrase, gpusRequested } from '../../src/preflight/demand-count.js'
import { parseRayStatus } from '../../src/preflight/parse-ray.js'

/** `ray status` in the layout of status-seed-pending.txt (vllm#12670 / rllm#35): one GPU, a group of two bundles pending. */
const STATUS = [
  'Resources',
  '---------------------------------------------------------------',
  'Total Usage:',
  ' 0.0/8.0 CPU',
  ' 0.0/1.0 GPU',
  '',
  'Total Demands:',
  " {'GPU': 1.0} * 2 (PACK): 1+ pending placement groups",
].join('\n')

describe('resource demands with counts', () => {
  it("counts {'GPU': 1.0} * 2 as two GPUs, and several bundles together", () => {
    expect(gpusRequested("{'GPU': 1.0} * 2")).toBe(2)
    expect(gpusRequested("[{'node:10.0.0.1': 0.001, 'GPU': 1.0}, {'GPU': 1.0}]")).toBe(2)
    expect(gpusRequested("{'CPU': 8.0}")).toBeUndefined()
    expect(gpuShortfallPhrase(2, 1)).toBe('wants 2 GPUs, the cluster has 1')
    expect(gpuShortfallPhrase(1, undefined)).toBe('wants 1 GPU')
  })

  it('ray status: a pending group of 2 one-GPU bundles on a 1-GPU cluster "wants 2 GPUs, the cluster has 1"', () => {
    const ray = parseRayStatus(STATUS)
    expect(clusterGpus(ray)).toBe(1)
    const f = runChecks({ schemaVersion: 1, gatheredAt: '2026-01-01T00:00:00Z', nodes: [], ray }).find((x) => x.code === 'PLACEMENT_GROUP_PENDING')
    expect(f?.message).toContain('wants 2 GPUs, the cluster has 1')
  })
})
