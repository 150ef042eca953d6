import { describe, expect, it } from 'vitest'
import { healthyFacts, withNode } from '../fixtures/facts.js'
import { codes, only } from './helpers.js'

describe('NODE_UNREACHABLE', () => {
  const unreachable = withNode(healthyFacts, 'spark-b', () => ({
    node: 'spark-b',
    sshHost: '10.1.230.181',
    ok: false,
    error: 'ssh: connect to host 10.1.230.181 port 22: Connection timed out',
    interfaces: [],
    peers: [],
    gpus: [],
  }))

  it('reports a node whose facts could not be gathered, and nothing invented about it', () => {
    expect(codes(unreachable)).toEqual(['NODE_UNREACHABLE@spark-b'])
    const [f] = only(unreachable, 'NODE_UNREACHABLE')
    expect(f?.evidence).toEqual({ 'SSH host': '10.1.230.181', Error: 'ssh: connect to host 10.1.230.181 port 22: Connection timed out' })
    expect(f?.fix).toContain('spark-b')
  })

  it('near miss: reachable nodes are not reported', () => {
    expect(only(healthyFacts, 'NODE_UNREACHABLE')).toEqual([])
  })
})

describe('RAY_UNAVAILABLE', () => {
  const down = {
    ...healthyFacts,
    ray: { source: 'ray.nodes() in vllm-ray on spark-a', nodes: [], error: 'ConnectionError: Could not find any running Ray instance.' },
  }

  it('reports the Ray query error and skips Ray comparisons', () => {
    expect(codes(down)).toEqual(['RAY_UNAVAILABLE@spark-a'])
    const [f] = only(down, 'RAY_UNAVAILABLE')
    expect(f?.evidence['Error']).toContain('Could not find any running Ray instance')
    expect(f?.fix).toContain('--node-ip-address=192.168.200.12')
  })

  it('near miss: no Ray view at all is missing data, not a finding', () => {
    const { ray: _ray, ...noRay } = healthyFacts
    expect(codes(noRay)).toEqual([])
  })
})
