import { describe, expect, it } from 'vitest'
import { expectation, healthyFacts, seedBugFacts } from '../fixtures/facts.js'
import { check, codes } from './helpers.js'

describe('runChecks on whole clusters', () => {
  it('finds nothing wrong with a healthy two-Spark cluster', () => {
    expect(check(healthyFacts)).toEqual([])
  })

  it('finds nothing wrong with the healthy cluster when there is no manifest either', () => {
    expect(check(healthyFacts, null)).toEqual([])
  })

  it('finds the incident: Ray on the management IPs, vLLM pinning the fabric IP, and the worker override', () => {
    expect(codes(seedBugFacts)).toEqual([
      'RAY_IDENTITY_NOT_FABRIC@spark-a',
      'RAY_IDENTITY_NOT_FABRIC@spark-b',
      'VLLM_PIN_NOT_IN_RAY@spark-a',
      'VLLM_HOST_IP_OVERRIDE@spark-b',
    ])
  })

  it('gives every finding of the incident a one-sentence message, side-by-side evidence and a fix naming flag and node', () => {
    for (const f of check(seedBugFacts)) {
      expect(f.message).toMatch(/^[^\n]+\.$/)
      expect(Object.keys(f.evidence).length).toBeGreaterThanOrEqual(2)
      expect(f.fix).toContain(f.node ?? '')
      expect(f.fix).toMatch(/--node-ip-address|VLLM_HOST_IP/)
    }
  })

  it('without a manifest still finds the vLLM/Ray disagreement, but makes no fabric claims', () => {
    expect(codes(seedBugFacts, null)).toEqual(['VLLM_PIN_NOT_IN_RAY@spark-a', 'VLLM_HOST_IP_OVERRIDE@spark-b'])
  })

  it('skips everything Ray-based when the facts carry no Ray view and no node facts', () => {
    expect(check({ schemaVersion: 1, gatheredAt: 'x', nodes: [] }, expectation)).toEqual([])
  })
})
