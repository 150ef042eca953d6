/**
 * The classes held-out batch 9 missed (issue 36; first score in fixtures/README.md), each proven on its
 * source's own wording and on more than the capture: NCCL ≥ 2.19's IB async events (device:port named,
 * "error event" / "async fatal event on QP"), ROCm's HIP wordings for kernels not built for the GPU,
 * torch's store client that waited out its timeout (waitForInput), an exception whose value a paste put
 * on the next line, a traceback excerpt cut at both ends, a traceback announced after a logger's
 * words, and an engine death whose cause no rule knows.
 */
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { scanLog } from '../../src/preflight/signatures.js'

const scan = (text: string) => scanLog(text, 'paste')
const codes = (text: string) => scan(text).map((f) => f.code)
const batch9 = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'held-out', 'batch9')
const capture = (file: string) => scanLog(readFileSync(join(batch9, file), 'utf8').replace(/^#.*\n/gm, ''), file)

describe("NCCL_TRANSPORT_ERROR: the HCA's async events in every NCCL wording", () => {
  it('reads the event and the device:port from 2.19+ and the older form (NCCL src/transport/net_ib.cc, ncclIbAsyncThreadMain)', () => {
    const cases: [string, Record<string, string>][] = [
      [
        'host:311:405 [0] transport/net_ib.cc:199 NCCL WARN NET/IB : mlx5_32:1 Got async error event: port error',
        { 'IB event': 'port error', 'IB device:port': 'mlx5_32:1' },
      ],
      [
        'host:311:405 [0] transport/net_ib.cc:180 NCCL WARN NET/IB : mlx5_0:1 async fatal event on QP (0x55d0c0): QP fatal error',
        { 'IB event': 'QP fatal error', 'IB device:port': 'mlx5_0:1' },
      ],
      ['host:311:405 [0] transport/net_ib.cc:174 NCCL WARN NET/IB : mlx5_2:1 async fatal event on CQ (0x7f00): CQ error', { 'IB event': 'CQ error' }],
      ['host:1:2 [0] NCCL WARN NET/IB : Got async event : port error', { 'IB event': 'port error' }],
    ]
    for (const [line, evidence] of cases) {
      const f = scan(line).find((x) => x.code === 'NCCL_TRANSPORT_ERROR')
      expect(f, line).toBeDefined()
      expect(f!.evidence, line).toMatchObject(evidence)
    }
    // llm-d/llm-d#191: a maintainer's grep of the pod logs (each line behind its file name)
    expect(capture('nccl-rdma-port-flap-llm-d-191.txt').map((f) => f.code)).toContain('NCCL_TRANSPORT_ERROR')
  })
  it('near miss: the events a healthy fabric sends are no transport error', () => {
    for (const line of [
      'host:1:2 [0] NCCL WARN NET/IB : mlx5_0:1 Got async error event: client reregistration',
      'host:1:2 [0] NCCL WARN NET/IB : mlx5_0:1 Got async error event: SM change',
    ])
      expect(codes(line)).not.toContain('NCCL_TRANSPORT_ERROR')
  })
})

describe("GPU_ARCH_UNSUPPORTED: ROCm's HIP runtime, the same family on AMD GPUs", () => {
  it('hipErrorInvalidKernelFile and hipErrorNoBinaryForGpu, with the gfx target when the line names it', () => {
    const cases = [
      'torch.AcceleratorError: HIP error: invalid kernel file',
      "Search for `hipErrorInvalidKernelFile' in https://rocm.docs.amd.com/projects/HIP/en/latest/index.html for more information.",
      '"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!"',
      'RuntimeError: HIP error: hipErrorNoBinaryForGpu (gfx1151)',
    ]
    for (const line of cases) {
      const f = scan(line).find((x) => x.code === 'GPU_ARCH_UNSUPPORTED')
      expect(f, line).toMatchObject({ severity: 'error', evidence: { 'Reported by': 'HIP' } })
    }
    expect(scan(cases[3]!).find((x) => x.code === 'GPU_ARCH_UNSUPPORTED')!.evidence['Architecture']).toBe('gfx1151')
    expect(capture('image-rccl-no-gfx1151-kernels-strix-halo-kyuz0.txt').map((f) => f.code)).toContain('GPU_ARCH_UNSUPPORTED')
  })
  it('near miss: a ROCm start that names its target is no finding', () => {
    expect(codes('INFO 01-31 14:20:01 [rocm.py:120] HIP runtime 6.4, gfx1151 detected')).toEqual([])
  })
})

describe("RENDEZVOUS_UNREACHABLE: torch's store client waited out its timeout (socket.cpp waitForInput)", () => {
  it('names the store the client waited on, bracketed host names and addresses alike', () => {
    const lines = [
      '[rank1]:[W623 15:37:01.824135523 socket.cpp:485] [c10d] waitForInput: socket SocketImpl(fd=100, addr=[node-1.company.net]:43590, remote=[node-0.company.net]:20000) timed out after 1800000ms',
      '[W1205 10:00:00.1 socket.cpp:487] [c10d] waitForInput: socket SocketImpl(fd=7, addr=[::ffff:10.0.0.2]:51234, remote=10.0.0.1:29500) timed out after 600000ms',
    ]
    const hosts = lines.map((l) => scan(l).find((f) => f.code === 'RENDEZVOUS_UNREACHABLE')?.evidence['Master address'])
    expect(hosts).toEqual(['node-0.company.net', '10.0.0.1'])
    expect(capture('rdzv-ipv6-hostname-sglang-7478.txt').map((f) => f.code)).toContain('RENDEZVOUS_UNREACHABLE')
  })
})

describe('an exception whose value the paste put on the next line', () => {
  it("huggingface_hub's repo-id refusal with the path on its own line (kaito-project/kaito#2320), and a quoted path after FileNotFoundError", () => {
    const f = capture('weights-streamer-metadata-peer-node-kaito-2320.txt').find((x) => x.code === 'WEIGHTS_NOT_FOUND')
    expect(f?.evidence['Path']).toBe('/root/.cache/vllm/assets/model_streamer/8d53e465')
    const g = scan(`FileNotFoundError: [Errno 2] No such file or directory:\n'/models/qwen/model-00003-of-00004.safetensors'\n`).find(
      (x) => x.code === 'WEIGHTS_NOT_FOUND',
    )
    expect(g?.evidence['Path']).toBe('/models/qwen/model-00003-of-00004.safetensors')
  })
  it('near miss: a quoted line after an ordinary record stays its own line', () => {
    const found = scan("INFO 01-01 00:00:00 [api_server.py:1] args:\n'--model' given twice is fine\n")
    expect(found).toEqual([])
  })
})

describe('never silent on a traceback, however it was cut', () => {
  it('frames alone (an excerpt cut above its header and below its exception) are UNRECOGNISED_FAILURE, quoting the first frame', () => {
    for (const file of ['ray-setup-hook-kuberay-data-llm-ray-61350.txt', 'weights-gated-token-not-on-ray-workers-ray-54812.txt']) {
      const f = capture(file).find((x) => x.code === 'UNRECOGNISED_FAILURE')
      expect(f?.evidence['Kinds of failure line'], file).toBe('traceback frame')
      expect(f?.evidence['First failing line'], file).toMatch(/^File "/)
    }
  })
  it('frames do not crowd out the traceback and the exception a fuller excerpt holds', () => {
    const text = 'Traceback (most recent call last):\n  File "a.py", line 1, in main\n    run()\n  File "b.py", line 2, in run\nKeyError: 1\n'
    const f = scan(text).find((x) => x.code === 'UNRECOGNISED_FAILURE')!
    expect(f.evidence['Failure lines']).toBe('1: Traceback (most recent call last):\n5: KeyError: 1')
  })
  it("a traceback announced after a logger's words (SGLang's scheduler) is a failure line", () => {
    const f = scan('[2025-06-23 15:37:01 TP1] Scheduler hit an exception: Traceback (most recent call last):\n').find((x) => x.code === 'UNRECOGNISED_FAILURE')
    expect(f?.evidence['Kinds of failure line']).toBe('Python traceback')
  })
  it('near miss: a healthy log that prints a file path and a line number is not a traceback', () => {
    expect(scan('INFO 01-01 00:00:00 [loader.py:12] Loading File "/models/x/config.json", line 3 of the index\n')).toEqual([])
  })
})
