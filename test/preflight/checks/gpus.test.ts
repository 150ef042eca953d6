import { describe, expect, it } from 'vitest'
import { parseRayNodes, parseRayStatus } from '../../../src/preflight/parse-ray.js'
import { expectation, healthyFacts, withContainer, withNode, withRayNodes } from '../fixtures/facts.js'
import { readFixture } from '../fixtures/read.js'
import { codes, only } from './helpers.js'

const withoutGpu = <T extends { resources: Readonly<Record<string, number>> }>(n: T): T => ({
  ...n,
  resources: Object.fromEntries(Object.entries(n.resources).filter(([k]) => k !== 'GPU')),
})

describe('GPU_SHORTFALL', () => {
  it("reports Ray's GPU total below TP × PP (a worker that joined without its GPU)", () => {
    const noWorkerGpu = withRayNodes(healthyFacts, (nodes) => nodes.map((n) => (n.isHead ? n : withoutGpu(n))))
    expect(codes(noWorkerGpu)).toEqual(['GPU_SHORTFALL'])
    const [f] = only(noWorkerGpu, 'GPU_SHORTFALL')
    expect(f?.evidence).toMatchObject({
      'Ray total GPU': '1',
      'Required GPUs': '2 (TP 2 × PP 1)',
      'GPU per alive Ray node': '192.168.200.12: 1, 192.168.200.13: 0',
    })
  })

  it('uses ray status totals when that is all there is', () => {
    const statusOnly = { ...healthyFacts, ray: parseRayStatus(readFixture('ray/status-rllm-35.txt')) }
    expect(only(statusOnly, 'GPU_SHORTFALL')[0]?.evidence['Ray total GPU']).toBe('1')
  })

  it('reports a node whose nvidia-smi shows fewer GPUs than the manifest', () => {
    const noGpu = withNode(healthyFacts, 'spark-b', (n) => ({ ...n, gpus: [] }))
    expect(codes(noGpu)).toEqual(['GPU_SHORTFALL@spark-b'])
  })

  it('counts pipeline parallelism too', () => {
    expect(codes(healthyFacts, { ...expectation, pipelineParallelSize: 2 })).toEqual(['GPU_SHORTFALL'])
  })

  it('near miss: a truncated paste whose GPU key was cut off is unknown, not zero', () => {
    const truncated = { ...healthyFacts, ray: parseRayNodes("192.168.200.12 {'node:__internal_head__': 1.0, ...}\n192.168.200.13 {'GPU': 1.0, ...}") }
    expect(only(truncated, 'GPU_SHORTFALL')).toEqual([])
    expect(only(truncated, 'HEAD_WITHOUT_GPU')).toEqual([])
  })

  it('near miss: enough GPUs', () => {
    expect(only(healthyFacts, 'GPU_SHORTFALL')).toEqual([])
  })
})

describe('HEAD_WITHOUT_GPU', () => {
  const headless = withRayNodes(healthyFacts, (nodes) => nodes.map((n) => (n.isHead ? withoutGpu(n) : n)))

  it('reports a Ray head (the driver node) with no GPU', () => {
    const [f] = only(headless, 'HEAD_WITHOUT_GPU')
    expect(f).toMatchObject({ node: 'spark-a', severity: 'error' })
    expect(f?.evidence['GPU resource on Ray head']).toBe('0')
    expect(f?.fix).toContain('--gpus all')
  })

  it('reports it from nvidia-smi too, without Ray', () => {
    const { ray: _ray, ...noRay } = withNode(healthyFacts, 'spark-a', (n) => ({ ...n, gpus: [] }))
    expect(codes(noRay)).toEqual(['GPU_SHORTFALL@spark-a', 'HEAD_WITHOUT_GPU@spark-a'])
  })

  it('is only a warning with RayExecutorV2, which does not need a GPU on the driver', () => {
    const v2 = withContainer(headless, 'spark-a', (c) => ({
      ...c,
      versions: { ...c.versions, vllm: '0.20.0' },
      env: { ...c.env, VLLM_USE_RAY_V2_EXECUTOR_BACKEND: '1' },
    }))
    expect(only(v2, 'HEAD_WITHOUT_GPU')[0]?.severity).toBe('warning')
  })

  it('near miss: the head has its GPU', () => {
    expect(only(healthyFacts, 'HEAD_WITHOUT_GPU')).toEqual([])
  })
})
