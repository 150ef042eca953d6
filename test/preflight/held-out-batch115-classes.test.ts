/**
 * Classes found in session 62's third round (held-out batches 115–119, scored first at 75266bb: 27/30 right, no false alarm on 9 healthy),
 * each tested on public sources and renderings other than the capture that showed it, with near misses.
 */
import { describe, expect, it } from 'vitest'
import { codes, one } from './support/paste-scan.js'

// torch (cuda/__init__.py _check_capability, old_gpu_warn) as a UserWarning prints it
const TOO_OLD = (gpu: string, cap: string, min: string) =>
  `/usr/local/lib/python3.12/dist-packages/torch/cuda/__init__.py:262: UserWarning: \n    Found GPU0 ${gpu} which is of cuda capability ${cap}.\n    PyTorch no longer supports this GPU because it is too old.\n    The minimum cuda capability supported by this library is ${min}.\n    \n  warnings.warn(`

// (held-out batch 119's vllm-project/vllm#18818: torch calling the image's GPUs too old, read as nothing at all)
describe("torch's own word that the GPU is too old for it", () => {
  it.each([
    // Volta under a torch built from 7.5 on (vLLM 0.9's image), Pascal under one built from 7.0 (Kaggle's P100 images), Kepler under an old one
    ['NVIDIA TITAN V', '7.0', '7.5'],
    ['Tesla P100-PCIE-16GB', '6.0', '7.0'],
    ['Tesla K80', '3.7', '5.0'],
  ])('%s (%s, torch from %s)', (gpu, cap, min) => {
    const f = one(TOO_OLD(gpu, cap, min), 'GPU_ARCH_UNSUPPORTED')
    expect(f.severity).toBe('error')
    expect(f.evidence.GPU).toBe(`${gpu} (GPU 0, compute capability ${cap})`)
  })

  it('a page that ran the lines together reads the same, with the minimum', () => {
    const f = one(
      'UserWarning: Found GPU0 NVIDIA TITAN V which is of cuda capability 7.0. PyTorch no longer supports this GPU because it is too old. The minimum cuda capability supported by this library is 7.5.',
      'GPU_ARCH_UNSUPPORTED',
    )
    expect(f.evidence['Minimum capability']).toBe('7.5')
  })

  it("near miss: torch's warning for a GPU newer than its build stays with its own rule, and a GPU's line alone says nothing", () => {
    expect(
      codes(
        'UserWarning: NVIDIA GB10 with CUDA capability sm_121 is not compatible with the current PyTorch installation.\nThe current PyTorch install supports CUDA capabilities sm_80 sm_90 sm_100 sm_120.',
      ),
    ).not.toContain('GPU_ARCH_UNSUPPORTED/error')
    expect(codes('    Found GPU0 NVIDIA TITAN V which is of cuda capability 7.0.')).toEqual([])
  })
})

const RAY_WAIT = (session: string, spelling = 'instance') =>
  `2025-03-19 14:58:50,134\tINFO node.py:1084 -- Can't find a \`node_ip_address.json\` file from ${session}. Have you started Ray ${spelling} using \`ray start\` or \`ray.init\`?`

// (held-out batch 116's vllm-project/vllm#14349: a driver on a machine outside the cluster waiting for a local Ray node, read as nothing at all)
describe('a driver attached to a cluster that finds no Ray node on its own machine', () => {
  it.each([
    // Ray 2.9+ (_private/node.py), every 10 s while it waits
    [RAY_WAIT('/tmp/ray/session_2025-03-19_14-26-07_915096_1'), 'warning'],
    // Ray 2.7–2.8 spelled it "instsance" (marin-community/levanter#363 quotes it)
    [RAY_WAIT('/tmp/ray/session_2023-11-06_18-50-42_357600_1906786', 'instsance'), 'warning'],
    // the timeout, raised (ray-project/ray#56076: the head's file deleted)
    [
      "ValueError: Can't find a `node_ip_address.json` file from /tmp/ray/session_2025-08-29_10-51-18_307741_1. for 60 seconds. A ray instance hasn't started. Did you do `ray start` or `ray.init` on this host?",
      'error',
    ],
  ])('%#', (text, severity) => {
    const f = one(text, 'RAY_UNAVAILABLE')
    expect(f.severity).toBe(severity)
    expect(f.evidence['Session folder']).toMatch(/^\/tmp\/ray\/session_/)
    expect(f.fix).toContain('ray start')
  })

  it('near miss: a driver that connected and found its node is what every start prints', () => {
    const healthy = [
      '2025-03-19 14:58:49,126\tINFO worker.py:1654 -- Connecting to existing Ray cluster at address: 192.168.1.67:6888...',
      '2025-03-19 14:58:50,201\tINFO worker.py:1832 -- Connected to Ray cluster. View the dashboard at 192.168.1.67:8265 ',
    ].join('\n')
    expect(codes(healthy)).toEqual([])
  })
})
