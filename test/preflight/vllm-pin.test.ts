import { describe, expect, it } from 'vitest'
import { parseVllmVersion, vllmPinsDriverNode } from '../../src/preflight/vllm-pin.js'

describe('vllmPinsDriverNode', () => {
  it('says the classic executor of a release before the V2 flag pins bundle 0 (the seed image, 0.17.1)', () => {
    const v = vllmPinsDriverNode('0.17.1', {})
    expect(v.pins).toBe(true)
    expect(v.executor).toBe('classic RayDistributedExecutor')
    expect(v.reason).toContain('VLLM_USE_RAY_V2_EXECUTOR_BACKEND first exists in 0.20.0')
  })

  it('says a V2 flag on a release without it is ignored: 0.19.1 still pins', () => {
    const v = vllmPinsDriverNode('0.19.1', { VLLM_USE_RAY_V2_EXECUTOR_BACKEND: '1' })
    expect(v.pins).toBe(true)
    expect(v.reason).toContain('is ignored')
    expect(vllmPinsDriverNode('0.11.0', { VLLM_USE_RAY_V2_EXECUTOR_BACKEND: '1' }).pins).toBe(true)
  })

  it('says RayExecutorV2 does not pin when the flag is 1 on a release that has it', () => {
    const v = vllmPinsDriverNode('0.20.0', { VLLM_USE_RAY_V2_EXECUTOR_BACKEND: '1' })
    expect(v.pins).toBe(false)
    expect(v.executor).toBe('RayExecutorV2')
  })

  it('says the flag set to 0 keeps the classic executor, even where V2 is the default', () => {
    expect(vllmPinsDriverNode('0.26.0', { VLLM_USE_RAY_V2_EXECUTOR_BACKEND: '0' }).pins).toBe(true)
    expect(vllmPinsDriverNode('0.32.0', { VLLM_USE_RAY_V2_EXECUTOR_BACKEND: '0' }).pins).toBe(true)
  })

  it('follows the default read from the wheels: 0 in 0.20.x, 1 from 0.21.0', () => {
    expect(vllmPinsDriverNode('0.20.2', {}).pins).toBe(true)
    expect(vllmPinsDriverNode('0.21.0', {}).pins).toBe(false)
    expect(vllmPinsDriverNode('0.23.0', {}).pins).toBe(false)
    expect(vllmPinsDriverNode('0.26.0rc1.dev12+gabc', {}).pins).toBe(false)
    expect(vllmPinsDriverNode('0.21.0', {}).reason).toContain('defaults it to 1')
  })

  it('knows the classic executor is gone from 0.33.0: no pin whatever the flag says', () => {
    const v = vllmPinsDriverNode('0.33.0', { VLLM_USE_RAY_V2_EXECUTOR_BACKEND: '0' })
    expect(v.pins).toBe(false)
    expect(v.reason).toContain('is ignored')
    const newer = vllmPinsDriverNode('0.36.1', {})
    expect(newer.pins).toBe(false)
    expect(newer.reason).toContain('newest release read')
  })

  it('does not guess when the version is unknown and the flag unset', () => {
    const v = vllmPinsDriverNode(undefined, {})
    expect(v.pins).toBeUndefined()
    expect(v.reason).toContain('version unknown')
  })

  it('trusts an explicit flag when the version is unknown', () => {
    expect(vllmPinsDriverNode(undefined, { VLLM_USE_RAY_V2_EXECUTOR_BACKEND: 'true' }).pins).toBe(false)
    expect(vllmPinsDriverNode(undefined, { VLLM_USE_RAY_V2_EXECUTOR_BACKEND: '0' }).pins).toBe(true)
  })

  it('knows the pin arrived in 0.5.5: 0.5.3.post1 (issue #7074) and 0.5.4 have none', () => {
    expect(vllmPinsDriverNode('0.5.3.post1', {}).pins).toBe(false)
    expect(vllmPinsDriverNode('0.5.4', {}).pins).toBe(false)
    expect(vllmPinsDriverNode('0.5.5', {}).pins).toBe(true)
    expect(vllmPinsDriverNode('v0.7.3', {}).pins).toBe(true)
  })

  it('reads version strings as pip and images print them', () => {
    expect(parseVllmVersion('0.5.3.post1')).toEqual([0, 5, 3])
    expect(parseVllmVersion('v0.19')).toEqual([0, 19, 0])
    expect(parseVllmVersion('nightly')).toBeUndefined()
  })
})
