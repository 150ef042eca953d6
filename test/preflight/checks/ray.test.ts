import { describe, expect, it } from 'vitest'
import { parseRayStatus } from '../../../src/preflight/parse-ray.js'
import { healthyFacts, rayNode, seedBugFacts, withContainer, withRayNodes } from '../fixtures/facts.js'
import { readFixture } from '../fixtures/read.js'
import { codes, only } from './helpers.js'

describe('RAY_NODE_MISSING', () => {
  it('reports a manifest node that is not in Ray (and the GPUs that go with it)', () => {
    const headOnly = withRayNodes(healthyFacts, (nodes) => nodes.filter((n) => n.isHead))
    expect(codes(headOnly)).toEqual(['RAY_NODE_MISSING@spark-b', 'GPU_SHORTFALL'])
    const [f] = only(headOnly, 'RAY_NODE_MISSING')
    expect(f?.evidence['Alive Ray nodes (NodeManagerAddress)']).toBe('192.168.200.12 (head)')
    expect(f?.fix).toBe(
      'On spark-b start the Ray worker inside vllm-ray: ray start --address=192.168.200.12:<ray port> --node-ip-address=192.168.200.13, and check that spark-b reaches 192.168.200.12 over the fabric.',
    )
  })

  it('says so when Ray lists the node only as dead', () => {
    const dead = withRayNodes(healthyFacts, (nodes) => nodes.map((n) => (n.isHead ? n : { ...n, alive: false })))
    const [f] = only(dead, 'RAY_NODE_MISSING')
    expect(f?.message).toContain('Ray lists it as dead')
    expect(f?.evidence['Dead Ray node']).toBe('192.168.200.13 (dead)')
  })

  it('compares counts when ray status gives node ids only', () => {
    const statusOnly = { ...healthyFacts, ray: parseRayStatus(readFixture('ray/status-rllm-35.txt')) }
    const [f] = only(statusOnly, 'RAY_NODE_MISSING')
    expect(f).toMatchObject({ node: null, severity: 'error' })
    expect(f?.message).toBe('Ray reports 1 alive node(s) but the manifest lists 2.')
  })

  it('near miss: both nodes alive, even registered under management IPs, are not missing', () => {
    expect(only(seedBugFacts, 'RAY_NODE_MISSING')).toEqual([])
    expect(only({ ...healthyFacts, ray: parseRayStatus(readFixture('ray/status-seed-pending.txt')) }, 'RAY_NODE_MISSING')).toEqual([])
  })
})

describe('RAY_UNEXPECTED_NODE', () => {
  it('reports an alive Ray node that matches no manifest node', () => {
    const extra = withRayNodes(healthyFacts, (nodes) => [...nodes, rayNode('feedbeef', '192.168.200.14', false)])
    expect(codes(extra)).toEqual(['RAY_UNEXPECTED_NODE@192.168.200.14'])
    expect(only(extra, 'RAY_UNEXPECTED_NODE')[0]?.severity).toBe('warning')
  })

  it('near miss: a dead extra node is not reported', () => {
    const extra = withRayNodes(healthyFacts, (nodes) => [...nodes, { ...rayNode('feedbeef', '192.168.200.14', false), alive: false }])
    expect(codes(extra)).toEqual([])
  })
})

describe('DUPLICATE_NODE_IP (Ray)', () => {
  it('reports two alive Ray nodes registered under one address', () => {
    const twice = withRayNodes(healthyFacts, (nodes) => [nodes[0]!, { ...nodes[0]!, nodeId: 'second', isHead: false }, nodes[1]!])
    const [f] = only(twice, 'DUPLICATE_NODE_IP')
    expect(f).toMatchObject({ node: '192.168.200.12', severity: 'error' })
    expect(f?.evidence['Ray node ids']).toBe('3f0c1e2d4b5a6978, second')
  })

  it('near miss: distinct addresses', () => {
    expect(only(healthyFacts, 'DUPLICATE_NODE_IP')).toEqual([])
  })
})

describe('RAY_IDENTITY_NOT_FABRIC', () => {
  it('reports the head registered under the management IP, naming the interface and the flag', () => {
    const [head] = only(seedBugFacts, 'RAY_IDENTITY_NOT_FABRIC')
    expect(head).toMatchObject({ node: 'spark-a', severity: 'error' })
    expect(head?.evidence).toEqual({
      'Ray identity (NodeManagerAddress)': '10.1.230.180',
      'Fabric subnet': '192.168.200.0/24',
      'Expected fabric IP': '192.168.200.12',
      'Interface holding 10.1.230.180': 'enP7s7 (default route)',
    })
    expect(head?.fix).toContain("On spark-a start Ray's head with --node-ip-address=192.168.200.12")
  })

  it('warns when a node registered another address inside the fabric subnet', () => {
    const other = withContainer(
      withRayNodes(healthyFacts, (nodes) => nodes.map((n) => (n.isHead ? n : { ...n, address: '192.168.200.99' }))),
      'spark-b',
      (c) => ({ ...c, rayNodeIp: '192.168.200.99' }),
    )
    const [f] = only(other, 'RAY_IDENTITY_NOT_FABRIC')
    expect(f).toMatchObject({ node: 'spark-b', severity: 'warning' })
    expect(f?.message).toContain('not its manifest fabric IP 192.168.200.13')
  })

  it('near miss: Ray identities equal to the fabric IPs', () => {
    expect(only(healthyFacts, 'RAY_IDENTITY_NOT_FABRIC')).toEqual([])
  })
})
