/**
 * The image's CUDA against each node's driver (issue 38, host readiness), with the figures of real
 * reports: a CUDA 13.2 runtime on driver 580.159.03, whose ceiling is CUDA 13.0
 * (noonghunna/club-3090#633: error 804 on GeForce); an NGC image built for a newer driver on DGX
 * Spark's 580.x ("compatibility mode is UNAVAILABLE", eugr/spark-vllm-docker#266); driver
 * 535.129.03 (CUDA 12.2) under an image for CUDA 12.4 on a data-centre GPU (gpustack/gpustack#1254),
 * where an NGC image's entrypoint would enable forward compatibility. Unit cases, then a deploy of
 * the simulated cluster stopped at the image-contents stage with the running release untouched.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { deployRelease } from '../../src/deploy/rollout.js'
import { cudaDriverFindings } from '../../src/preflight/checks/cuda-driver.js'
import type { ImageContents } from '../../src/probe/image-contents-probe.js'
import { SimCluster, simManifest, simRolloutOptions } from '../deploy/support/sim-cluster.js'

const image = (cuda: ImageContents['cuda'], torch = '2.11.0+cu132'): ImageContents => ({
  probe: 'image-contents/1',
  python: '3.12.3',
  executable: '/usr/bin/python3',
  ray: { module: true, version: '2.60.0', cli: '/usr/local/bin/ray' },
  vllm: { module: true, version: '0.34.0', cli: '/usr/local/bin/vllm' },
  torch: { version: torch, nccl: '2.28.9' },
  ...(cuda && { cuda }),
})
const spark = (node: string, driverVersion = '580.159.03', cudaVersion = '13.0') => ({ node, driverVersion, cudaVersion, gpuName: 'NVIDIA GB10' })

describe('the image CUDA against the driver', () => {
  it('a CUDA 13.2 image on a 13.0 driver of a GB10 is CUDA_DRIVER_TOO_OLD on each such node, naming both versions', () => {
    const f = cudaDriverFindings(
      'vllm:cu132',
      image({ runtime: '13.2.0', torch: '13.2', compat: false, ngcEntrypoint: false }),
      [spark('spark-a'), spark('spark-b')],
      true,
    )
    expect(f.map((x) => [x.code, x.node])).toEqual([
      ['CUDA_DRIVER_TOO_OLD', 'spark-a'],
      ['CUDA_DRIVER_TOO_OLD', 'spark-b'],
    ])
    expect(f[0]!.message).toMatch(/needs CUDA 13\.2, but spark-a's driver 580\.159\.03 supports CUDA 13\.0 and NVIDIA GB10 has no CUDA forward compatibility/)
    expect(f[0]!.fix).toMatch(/cu130/)
  })

  it('forward compatibility in an NGC image does not help a GB10 either', () => {
    const f = cudaDriverFindings(
      'nvcr.io/nvidia/vllm:26.05-py3',
      image({ runtime: '13.1.0', torch: '13.1', compat: true, ngcEntrypoint: true }),
      [spark('spark-a', '580.142', '13.0')],
      true,
    )
    expect(f.map((x) => x.code)).toEqual(['CUDA_DRIVER_TOO_OLD'])
  })

  it("on a data-centre GPU an NGC image's forward compatibility works through its entrypoint: bypassed by the built-in launcher, kept by a script", () => {
    const ngc = image({ runtime: '12.4.1', torch: '12.4', compat: true, ngcEntrypoint: true }, '2.4.0')
    const h100 = [{ node: 'gpu-1', driverVersion: '535.129.03', cudaVersion: '12.2', gpuName: 'NVIDIA H100 80GB HBM3' }]
    const bypassed = cudaDriverFindings('nvcr.io/nvidia/pytorch:24.05-py3', ngc, h100, true)
    expect(bypassed.map((x) => x.code)).toEqual(['NGC_ENTRYPOINT_BYPASSED'])
    expect(bypassed[0]!.fix).toMatch(/LD_LIBRARY_PATH=\/usr\/local\/cuda\/compat/)
    expect(cudaDriverFindings('nvcr.io/nvidia/pytorch:24.05-py3', ngc, h100, false)).toEqual([])
    // Without the compatibility libraries, the driver is simply too old.
    const plain = image({ runtime: '12.4.1', torch: '12.4', compat: false, ngcEntrypoint: false }, '2.4.0')
    expect(cudaDriverFindings('x', plain, h100, true).map((x) => x.code)).toEqual(['CUDA_DRIVER_TOO_OLD'])
  })

  it('nothing when the driver is new enough, the versions cannot be read, or an old probe read no CUDA', () => {
    const c = image({ runtime: '13.0.1', torch: '13.0', compat: false, ngcEntrypoint: false })
    expect(cudaDriverFindings('x', c, [spark('a', '580.95.05', '13.0'), spark('b', '590.48', '13.1')], true)).toEqual([])
    expect(cudaDriverFindings('x', c, [{ node: 'a' }], true)).toEqual([])
    expect(cudaDriverFindings('x', image(undefined), [spark('a', '535.1', '12.2')], true)).toEqual([])
    // torch's CUDA decides over the toolkit's CUDA_VERSION (torch brings its own runtime).
    expect(
      cudaDriverFindings('x', image({ runtime: '12.8.0', torch: '13.0', compat: false, ngcEntrypoint: false }), [spark('a', '570.1', '12.8')], true),
    ).toHaveLength(1)
  })
})

let sim: SimCluster
afterEach(() => sim?.cleanup())

describe('in a deploy (simulated cluster)', () => {
  it('stops at the image-contents stage before anything changes; r1 keeps serving', async () => {
    sim = new SimCluster(simManifest())
    expect((await deployRelease(simRolloutOptions(sim, 'r1'))).result).toBe('deployed')
    // The lab's nodes report driver 580.95.05 (CUDA 13.0); the new image (a new image ID: the same ID
    // is the same content, whose record r1 kept) has torch built for CUDA 13.2.
    sim.imageId = `sha256:${'c'.repeat(64)}`
    sim.imageContents = JSON.stringify(image({ runtime: '13.2.0', torch: '13.2', compat: false, ngcEntrypoint: false }))
    const r = await deployRelease(simRolloutOptions(sim, 'r2', { force: true }))
    expect(r.failure?.stage).toBe('image-contents')
    expect(r.findings.filter((f) => f.code === 'CUDA_DRIVER_TOO_OLD').map((f) => f.node)).toEqual(['spark-a', 'spark-b'])
    expect(r.changed).toBe(false)
  })
})
