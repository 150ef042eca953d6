import { describe, expect, it } from 'vitest'
import { parseVllmVersion, vllmPinsDriverNode } from '../../src/preflight/vllm-pin.js'

describe('vllmPinsDriverNode', () => {
  it('says the classic executor of a 2025-2026 release pins bundle 0 (the seed image, 0.17.1)', () => {
    const v = vllmPinsDriverNode('0.17.1', {})
    expect(v.pins).toBe(true)
    expect(v.executor).toBe('classic RayDistributedExecutor')
    expect(v.reason).toContain('VLLM_USE_RAY_V2_EXECUTOR_BACKEND unset')
  })

  it('says RayExecutorV2 does not pin when the flag is 1 on a release that has it', () => {
    const v = vllmPinsDriverNode('0.19.1', { VLLM_USE_RAY_V2_EXECUTOR_BACKEND: '1' })
    expect(v.pins).toBe(false)
    expect(v.executor).toBe('RayExecutorV2')
  })

  it('says the flag set to 0 keeps the classic executor, even where V2 is the default', () => {
    expect(vllmPinsDriverNode('0.26.0', { VLLM_USE_RAY_V2_EXECUTOR_BACKEND: '0' }).pins).toBe(true)
  })

  it('follows the reported default flip: not pinning from 0.25.1, unknown from 0.23', () => {
    expect(vllmPinsDriverNode('0.25.1', {}).pins).toBe(false)
    expect(vllmPinsDriverNode('0.26.0rc1.dev12+gabc', {}).pins).toBe(false)
    expect(vllmPinsDriverNode('0.23.0', {}).pins).toBeUndefined()
    expect(vllmPinsDriverNode('0.22.9', {}).pins).toBe(true)
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

  it('doubts a V2 flag on a release older than the flag', () => {
    const v = vllmPinsDriverNode('0.11.0', { VLLM_USE_RAY_V2_EXECUTOR_BACKEND: '1' })
    expect(v.pins).toBeUndefined()
    expect(v.reason).toContain('probably ignored')
  })

  it('knows releases before August 2024 had no node pin (issue #7074 ran 0.5.3.post1)', () => {
    expect(vllmPinsDriverNode('0.5.3.post1', {}).pins).toBe(false)
    expect(vllmPinsDriverNode('v0.7.3', {}).pins).toBe(true)
  })

  it('reads version strings as pip and images print them', () => {
    expect(parseVllmVersion('0.5.3.post1')).toEqual([0, 5, 3])
    expect(parseVllmVersion('v0.19')).toEqual([0, 19, 0])
    expect(parseVllmVersion('nightly')).toBeUndefined()
  })
})
