import { describe, expect, it } from 'vitest'
import { parseRayNodes, parseRayStatus } from '../../src/preflight/parse-ray.js'
import { readFixture } from './fixtures/read.js'

describe('parseRayNodes', () => {
  it("reads the seed's one-line-per-node paste, cut off with '...'", () => {
    const view = parseRayNodes(readFixture('ray/seed-ray-nodes.txt'))
    expect(view.error).toBeUndefined()
    expect(view.nodes).toEqual([
      {
        nodeId: '',
        alive: true,
        address: '10.1.230.180',
        isHead: true,
        resources: { 'node:__internal_head__': 1, GPU: 1, 'accelerator_type:GB10': 1 },
        resourcesTruncated: true,
      },
    ])
    expect(view.source).toContain('Alive assumed')
    expect(view.source).toContain('truncated')
  })

  it('reads ray.nodes() JSON', () => {
    const view = parseRayNodes(readFixture('ray/ray-nodes-healthy.json'))
    expect(view.source).toBe('ray.nodes() JSON')
    expect(view.nodes.map((n) => [n.address, n.isHead, n.alive, n.resources['GPU'], n.hostname])).toEqual([
      ['192.168.200.12', true, true, 1, 'spark-a'],
      ['192.168.200.13', false, true, 1, 'spark-b'],
    ])
    expect(view.nodes[0]?.resourcesTruncated).toBeUndefined()
  })

  it('reads the Python repr people paste, dead nodes included, after a prompt line', () => {
    const view = parseRayNodes(readFixture('ray/ray-nodes-seed-repr.txt'))
    expect(view.source).toBe('ray.nodes() Python repr')
    expect(view.nodes.map((n) => [n.address, n.isHead, n.alive])).toEqual([
      ['10.1.230.180', true, true],
      ['10.1.230.181', false, true],
      ['10.1.230.181', false, false],
    ])
    expect(view.nodes[0]?.nodeId).toBe('5d2f0c8e1b7a4e3f9c6d2a1b0e9f8d7c6b5a4f3e2d1c0b9a8f7e6d5c')
  })

  it('reads an inline repr list with a truncated tail', () => {
    const view = parseRayNodes(
      "[{'NodeID': 'abc', 'Alive': True, 'NodeManagerAddress': '10.1.230.180', 'Resources': {'node:__internal_head__': 1.0, 'GPU': 1.0, ...}}]",
    )
    expect(view.nodes).toHaveLength(1)
    expect(view.nodes[0]).toMatchObject({ nodeId: 'abc', address: '10.1.230.180', isHead: true, resourcesTruncated: true })
  })

  it('reads address lines that say whether the node is alive', () => {
    const view = parseRayNodes("192.168.200.12 True {'GPU': 1.0, 'node:__internal_head__': 1.0}\n192.168.200.13 False {}\n")
    expect(view.nodes.map((n) => [n.address, n.alive, n.isHead])).toEqual([
      ['192.168.200.12', true, true],
      ['192.168.200.13', false, false],
    ])
    expect(view.source).not.toContain('Alive assumed')
  })

  it('reads the `ray list nodes` table (gpustack#2077)', () => {
    const view = parseRayNodes(readFixture('ray/ray-list-nodes-gpustack-2077.txt'))
    expect(view.source).toBe('ray list nodes table')
    expect(view.nodes).toHaveLength(1)
    const [head] = view.nodes
    expect(head).toMatchObject({ address: '10.10.251.104', isHead: true, alive: true })
    expect(head?.resources['GPU']).toBe(8)
    expect(head?.resources['node:10.10.251.104']).toBe(1)
    expect(head?.resources['memory']).toBeCloseTo(2822.399 * 1024 ** 3)
    expect(Object.keys(head?.resources ?? {}).some((k) => k.includes('/'))).toBe(false)
  })

  it('reads the state API JSON (ray list nodes --format json)', () => {
    const view = parseRayNodes(
      JSON.stringify([{ node_id: 'n1', node_ip: '192.168.200.12', is_head_node: true, state: 'ALIVE', node_name: 'spark-a', resources_total: { GPU: 1 } }]),
    )
    expect(view.nodes[0]).toMatchObject({ nodeId: 'n1', address: '192.168.200.12', isHead: true, alive: true, hostname: 'spark-a' })
  })

  it('returns an error value for text it cannot read', () => {
    expect(parseRayNodes('').error).toContain('empty')
    expect(parseRayNodes('ray: command not found').error).toContain('could not read Ray nodes')
  })
})

describe('parseRayStatus', () => {
  it('reads the Active/Usage/Demands layout (rllm#35): ids only, totals, pending group', () => {
    const view = parseRayStatus(readFixture('ray/status-rllm-35.txt'))
    expect(view.error).toBeUndefined()
    expect(view.nodes).toEqual([
      { nodeId: '9ce4595c6c9628208ab67348060cfe32348196bec94f997ee553da82', alive: true, address: '', isHead: false, resources: {}, resourcesTruncated: true },
    ])
    expect(view.source).toContain('no node addresses')
    expect(view.totals).toMatchObject({ CPU: 112, GPU: 1 })
    expect(view.totals?.['memory']).toBeCloseTo(337.53 * 1024 ** 3)
    // `{'GPU': 1.0, 'CPU': 1.0} * 8`: eight bundles pending.
    expect(view.pendingDemands).toEqual(Array.from({ length: 8 }, () => ({ GPU: 1, CPU: 1 })))
  })

  it("reads vLLM's pinned placement group out of Demands (vllm#12670)", () => {
    const view = parseRayStatus(readFixture('ray/status-vllm-12670.txt'))
    expect(view.nodes).toHaveLength(2)
    expect(view.totals?.['GPU']).toBe(16)
    // `… * 1, {'GPU': 1.0} * 15`: the pinned bundle and fifteen more.
    expect(view.pendingDemands).toEqual([
      { 'node:ec2-<MY ADDRESS>.us-west-2.compute.amazonaws.com': 0.001, GPU: 1 },
      ...Array.from({ length: 15 }, () => ({ GPU: 1 })),
    ])
  })

  it('reads the new layout with Idle, Total Usage, Total Demands and a -v node section (ray#39638)', () => {
    const view = parseRayStatus(readFixture('ray/status-ray-39638.txt'))
    expect(view.nodes).toEqual([
      {
        nodeId: '328da3b1e9273cf946f6ac3dfee9404dacf429566cd0809a7f04f01c',
        alive: true,
        address: '',
        isHead: false,
        resources: { CPU: 36, memory: expect.any(Number), object_store_memory: expect.any(Number) },
      },
    ])
    expect(view.totals?.['CPU']).toBe(36)
    expect(view.totals?.['GPU']).toBe(0) // ray status leaves out resources whose total is 0
    expect(view.pendingDemands).toEqual([])
  })

  it('takes node addresses and the head from `ray status -v` node sections (ray#35411)', () => {
    const view = parseRayStatus(readFixture('ray/status-ray-35411.txt'))
    expect(view.nodes.map((n) => [n.address, n.isHead, n.resources['CPU']])).toEqual([
      ['10.0.3.87', true, 2],
      ['10.0.2.228', false, 2],
      ['10.0.2.207', false, 2],
    ])
    expect(view.source).toBe('ray status')
    expect(view.totals?.['CPU']).toBe(6)
  })

  it('reads the Ray 1.x "Cluster status" with node resources and old memory units (ray#17892)', () => {
    const view = parseRayStatus(readFixture('ray/status-ray-17892.txt'))
    expect(view.nodes.map((n) => n.address)).toEqual(['192.168.86.195'])
    expect(view.totals?.['memory']).toBeCloseTo(19.004 * 1024 ** 3)
    expect(view.pendingDemands).toEqual([
      { CPU_group_625ace126f848864c46f50dced5e0ef7: 10 },
      { CPU: 100 },
      { memory: 2040588533900 },
      { GPU: 2 },
      { extra_resource: 2 },
      { CPU: 1 },
    ])
  })

  it('reads a Markdown-quoted paste with the old Healthy: header and no GPU line (scalingup#6)', () => {
    const view = parseRayStatus(readFixture('ray/status-scalingup-6.txt'))
    expect(view.nodes).toHaveLength(1)
    expect(view.totals?.['GPU']).toBe(0)
    expect(view.pendingDemands).toEqual([{ CPU: 1, GPU: 1 }])
  })

  it('reads the seed cluster with its node-pinned pending group', () => {
    const view = parseRayStatus(readFixture('ray/status-seed-pending.txt'))
    expect(view.nodes).toHaveLength(2)
    expect(view.totals?.['GPU']).toBe(2)
    expect(view.pendingDemands).toEqual([{ GPU: 1, 'node:192.168.200.12': 0.001 }, { GPU: 1 }])
  })

  it('returns an error value for text that is not ray status', () => {
    expect(parseRayStatus('ConnectionError: Could not find any running Ray instance.').error).toContain('could not read `ray status`')
  })
})
