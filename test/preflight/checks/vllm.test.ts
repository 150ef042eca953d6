import { describe, expect, it } from 'vitest'
import { parseRayStatus } from '../../../src/preflight/parse-ray.js'
import { healthyFacts, seedBugFacts, withContainer } from '../fixtures/facts.js'
import { readFixture } from '../fixtures/read.js'
import { codes, only } from './helpers.js'

describe('VLLM_PIN_NOT_IN_RAY', () => {
  it('reports the seed: bundle 0 pinned to node:192.168.200.12 while Ray knows the head as 10.1.230.180', () => {
    const [f] = only(seedBugFacts, 'VLLM_PIN_NOT_IN_RAY')
    expect(f).toMatchObject({ node: 'spark-a', severity: 'error' })
    expect(f?.evidence).toMatchObject({
      'Ray head identity (NodeManagerAddress)': '10.1.230.180',
      'vLLM pins bundle 0 to': 'node:192.168.200.12 (from VLLM_HOST_IP)',
      'Alive Ray nodes': '10.1.230.180 (head), 10.1.230.181',
      'vLLM version': '0.17.1',
    })
    expect(f?.fix).toBe(
      'On spark-a start Ray with --node-ip-address=192.168.200.12 (the fabric IP), or set VLLM_HOST_IP to the IP Ray registered (10.1.230.180); both must name the same address.',
    )
  })

  it("catches the team's fix applied naively: VLLM_HOST_IP unset makes vLLM pin the default-route address", () => {
    const unset = withContainer(healthyFacts, 'spark-a', ({ vllmIp: _ip, vllmIpSource: _src, ...c }) => ({
      ...c,
      env: Object.fromEntries(Object.entries(c.env).filter(([k]) => k !== 'VLLM_HOST_IP')),
    }))
    const [f] = only(unset, 'VLLM_PIN_NOT_IN_RAY')
    expect(f?.evidence['vLLM pins bundle 0 to']).toBe('node:10.1.230.180 (from the default route; VLLM_HOST_IP unset)')
    expect(f?.fix).toBe(
      'On spark-a set VLLM_HOST_IP=192.168.200.12 (the IP Ray registered) in container vllm-ray; unset, vLLM falls back to the default-route address 10.1.230.180.',
    )
  })

  it('downgrades to info, and says why, when RayExecutorV2 is in use (no node: pin)', () => {
    const v2 = withContainer(seedBugFacts, 'spark-a', (c) => ({
      ...c,
      versions: { ...c.versions, vllm: '0.20.0' },
      env: { ...c.env, VLLM_USE_RAY_V2_EXECUTOR_BACKEND: '1' },
    }))
    const [f] = only(v2, 'VLLM_PIN_NOT_IN_RAY')
    expect(f?.severity).toBe('info')
    expect(f?.message).toContain('RayExecutorV2 tolerates')
    expect(f?.evidence['vLLM executor']).toContain('adds no node: pin')
    expect(f?.evidence['vLLM IP (get_ip())']).toBeDefined()
  })

  it('warns rather than fails when the vLLM version is unknown', () => {
    const unknown = withContainer(seedBugFacts, 'spark-a', (c) => ({ ...c, versions: { python: '3.12.3', ray: '2.49.1' } }))
    expect(only(unknown, 'VLLM_PIN_NOT_IN_RAY')[0]?.severity).toBe('warning')
  })

  it('near miss: the pin equals a Ray address (healthy), or Ray gave no addresses (ray status)', () => {
    expect(only(healthyFacts, 'VLLM_PIN_NOT_IN_RAY')).toEqual([])
    const statusOnly = { ...seedBugFacts, ray: parseRayStatus(readFixture('ray/status-seed-pending.txt')) }
    expect(only(statusOnly, 'VLLM_PIN_NOT_IN_RAY')).toEqual([])
  })
})

describe('VLLM_HOST_IP_OVERRIDE', () => {
  it("reports the seed's worker: VLLM_HOST_IP=192.168.200.13 while Ray calls it 10.1.230.181", () => {
    const [f] = only(seedBugFacts, 'VLLM_HOST_IP_OVERRIDE')
    expect(f).toMatchObject({ node: 'spark-b', severity: 'error' })
    expect(f?.evidence).toMatchObject({
      'VLLM_HOST_IP in container vllm-ray': '192.168.200.13',
      'Ray identity of spark-b (NodeManagerAddress)': '10.1.230.181',
    })
    expect(f?.fix).toContain('On spark-b set VLLM_HOST_IP=10.1.230.181')
    expect(f?.fix).toContain('--node-ip-address=192.168.200.13')
  })

  it('does not report the head twice: its mismatch is VLLM_PIN_NOT_IN_RAY', () => {
    expect(only(seedBugFacts, 'VLLM_HOST_IP_OVERRIDE').map((f) => f.node)).toEqual(['spark-b'])
  })

  it('reports a head whose VLLM_HOST_IP names another Ray node (the pin lands on the worker)', () => {
    const swapped = withContainer(healthyFacts, 'spark-a', (c) => ({ ...c, env: { ...c.env, VLLM_HOST_IP: '192.168.200.13' }, vllmIp: '192.168.200.13' }))
    expect(codes(swapped)).toEqual(['VLLM_HOST_IP_OVERRIDE@spark-a', 'DUPLICATE_NODE_IP'])
  })

  it('is a warning when the executor is RayExecutorV2', () => {
    const v2 = withContainer(seedBugFacts, 'spark-a', (c) => ({
      ...c,
      versions: { ...c.versions, vllm: '0.20.0' },
      env: { ...c.env, VLLM_USE_RAY_V2_EXECUTOR_BACKEND: '1' },
    }))
    expect(only(v2, 'VLLM_HOST_IP_OVERRIDE').map((f) => [f.node, f.severity])).toEqual([
      ['spark-a', 'warning'],
      ['spark-b', 'warning'],
    ])
  })

  it('near miss: VLLM_HOST_IP equal to the Ray identity, or not set at all', () => {
    expect(only(healthyFacts, 'VLLM_HOST_IP_OVERRIDE')).toEqual([])
    const unset = withContainer(seedBugFacts, 'spark-b', ({ vllmIp: _ip, vllmIpSource: _src, ...c }) => ({ ...c, env: {} }))
    expect(only(unset, 'VLLM_HOST_IP_OVERRIDE')).toEqual([])
  })
})

describe('DUPLICATE_NODE_IP (vLLM)', () => {
  const shared = withContainer(healthyFacts, 'spark-b', (c) => ({ ...c, env: { ...c.env, VLLM_HOST_IP: '192.168.200.12' }, vllmIp: '192.168.200.12' }))

  it("reports one VLLM_HOST_IP shared by both nodes, naming the unique-IP error and each node's right value", () => {
    const [f] = only(shared, 'DUPLICATE_NODE_IP')
    expect(f).toMatchObject({ node: null, severity: 'error' })
    expect(f?.message).toContain('Every node should have a unique IP address')
    expect(f?.evidence).toEqual({
      'spark-a vLLM IP': '192.168.200.12 (from VLLM_HOST_IP)',
      'spark-b vLLM IP': '192.168.200.12 (from VLLM_HOST_IP)',
    })
    expect(f?.fix).toContain('spark-a: 192.168.200.12, spark-b: 192.168.200.13')
  })

  it('near miss: distinct vLLM IPs', () => {
    expect(only(healthyFacts, 'DUPLICATE_NODE_IP')).toEqual([])
    expect(only(seedBugFacts, 'DUPLICATE_NODE_IP')).toEqual([])
  })
})
