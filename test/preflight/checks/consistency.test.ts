import { describe, expect, it } from 'vitest'
import { expectation, healthyFacts, withContainer } from '../fixtures/facts.js'
import { codes, only } from './helpers.js'

const DIGEST = 'sha256:1111111111111111111111111111111111111111111111111111111111111111'

describe('IMAGE_MISMATCH', () => {
  it('reports different image IDs across nodes', () => {
    const drift = withContainer(healthyFacts, 'spark-b', (c) => ({ ...c, imageId: 'sha256:ffff000000000000000000000000000000000000000000000000000000000000' }))
    expect(codes(drift)).toEqual(['IMAGE_MISMATCH'])
    expect(Object.keys(only(drift, 'IMAGE_MISMATCH')[0]?.evidence ?? {})).toEqual(['spark-a image', 'spark-b image'])
  })

  it('reports a container started from another digest than the manifest pins', () => {
    const pinned = { ...expectation, imageDigest: DIGEST }
    const other = withContainer(
      withContainer(healthyFacts, 'spark-a', (c) => ({ ...c, imageRef: `hellohal2064/vllm-qwen3.5-gb10@${DIGEST}` })),
      'spark-b',
      (c) => ({ ...c, imageRef: 'hellohal2064/vllm-qwen3.5-gb10@sha256:2222222222222222222222222222222222222222222222222222222222222222' }),
    )
    const found = only(other, 'IMAGE_MISMATCH', pinned)
    expect(found.map((f) => [f.node, f.severity])).toEqual([['spark-b', 'error']])
    expect(found[0]?.fix).toContain(`hellohal2064/vllm-qwen3.5-gb10@${DIGEST}`)
  })

  it('warns when a tag-started container cannot be confirmed as the pinned digest', () => {
    const found = only(healthyFacts, 'IMAGE_MISMATCH', { ...expectation, imageDigest: DIGEST })
    expect(found.map((f) => [f.node, f.severity])).toEqual([
      ['spark-a', 'warning'],
      ['spark-b', 'warning'],
    ])
  })

  it('near miss: one image everywhere; and an image ID equal to the pinned digest (docker load)', () => {
    expect(only(healthyFacts, 'IMAGE_MISMATCH')).toEqual([])
    const loaded = healthyFacts.nodes[0]?.container?.imageId ?? ''
    expect(only(healthyFacts, 'IMAGE_MISMATCH', { ...expectation, imageDigest: loaded })).toEqual([])
  })
})

describe('VERSION_SKEW', () => {
  it('reports Ray versions that differ (Ray refuses to join them)', () => {
    const skew = withContainer(healthyFacts, 'spark-b', (c) => ({ ...c, versions: { ...c.versions, ray: '2.48.0' } }))
    const [f] = only(skew, 'VERSION_SKEW')
    expect(f).toMatchObject({ severity: 'error', node: null })
    expect(f?.evidence).toEqual({ 'spark-a Ray': '2.49.1', 'spark-b Ray': '2.48.0' })
  })

  it('reports vLLM and Python minor versions that differ', () => {
    const skew = withContainer(healthyFacts, 'spark-b', (c) => ({ ...c, versions: { python: '3.11.9', ray: '2.49.1', vllm: '0.14.0' } }))
    expect(only(skew, 'VERSION_SKEW').map((f) => [f.message.split(' ')[0], f.severity])).toEqual([
      ['vLLM', 'error'],
      ['Python', 'error'],
    ])
  })

  it('only warns about a Python patch difference', () => {
    const patch = withContainer(healthyFacts, 'spark-b', (c) => ({ ...c, versions: { ...c.versions, python: '3.12.4' } }))
    expect(only(patch, 'VERSION_SKEW')[0]?.severity).toBe('warning')
  })

  it('near miss: same versions, or a version unknown on one node', () => {
    expect(only(healthyFacts, 'VERSION_SKEW')).toEqual([])
    const unknown = withContainer(healthyFacts, 'spark-b', (c) => ({ ...c, versions: {} }))
    expect(only(unknown, 'VERSION_SKEW')).toEqual([])
  })
})
