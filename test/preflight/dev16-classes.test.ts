/**
 * Classes from dev batch dev16: a launcher's `[N] ` per-process tag before each line (concurrently's default index prefix,
 * Monarch's process mesh), and ROCm's runtime reporting a GPU page fault before it aborts the process. Each from several
 * public sources, with near misses that must stay clean.
 */
import { describe, expect, it } from 'vitest'
import { scanLog } from '../../src/preflight/signatures.js'

const codes = (text: string) => scanLog(text, 't.log').map((f) => f.code)
const errors = (text: string) => scanLog(text, 't.log').filter((f) => f.severity === 'error' || f.code === 'UNRECOGNISED_FAILURE')

describe("a launcher's [N] tag before each line", () => {
  it('reads the exception behind one or two tags (meta-pytorch/torchforge PR #109: Monarch)', () => {
    const log = [
      '[0] [0]     xet_get(',
      '[0] [0]   File "/home/u/.conda/envs/forge/lib/python3.10/site-packages/huggingface_hub/file_download.py", line 629, in xet_get',
      '[0] [0]     download_files(',
      '[0] [0] RuntimeError: Data processing error: CAS service error : ReqwestMiddleware Error: Request failed after 5 retries',
    ].join('\n')
    const f = scanLog(log, 't.log').find((x) => x.code === 'UNRECOGNISED_FAILURE')
    expect(f?.evidence['Exception type']).toBe('RuntimeError')
  })
  it('reads a Python traceback that concurrently tagged [0] (a uvicorn app and a flask app run under concurrently)', () => {
    expect(
      codes(
        [
          '[0] Traceback (most recent call last):',
          '[0]   File "/Users/u/app.py", line 1, in <module>',
          '[0]     from flask import Flask, render_template',
          "[0] ModuleNotFoundError: No module named 'flask'",
        ].join('\n'),
      ),
    ).toContain('UNRECOGNISED_FAILURE')
    expect(
      codes(
        [
          '[0] Traceback (most recent call last):',
          '[0]     raise KeyboardInterrupt()',
          '[0] KeyboardInterrupt',
          '[0]',
          '[1] ERROR:    Application startup failed. Exiting.',
        ].join('\n'),
      ),
    ).toContain('UNRECOGNISED_FAILURE')
  })
  it('keeps tagged healthy lines clean: a server that started, gpustat rows, NCCL lines that carry [0] after their host', () => {
    const healthy = [
      '[0] INFO:     Started server process [4242]',
      '[0] INFO:     Waiting for application startup.',
      '[0] INFO:     Application startup complete.',
      '[0] INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)',
      '[0] NVIDIA GeForce RTX 3090 | 45°C,   0 % |     1 / 24576 MB |',
      'robin:55386:55386 [0] NCCL INFO Bootstrap: Using enp2s0:192.168.0.6<0>',
      'robin:55387:55387 [1] NCCL INFO NET/Plugin: Could not find: libnccl-net.so',
    ].join('\n')
    expect(errors(healthy)).toEqual([])
  })
})

describe("ROCm's runtime reporting a GPU memory access fault", () => {
  it('is a failure line in each form ROCR-Runtime prints (with and without the agent handle)', () => {
    for (const line of [
      // AITER's fused-MoE kernel on MI355X (vllm-project/vllm#43605)
      'Memory access fault by GPU node-3 (Agent handle: 0x13e852f0) on address 0x77d445e00000. Reason: Unknown.',
      // a GPU firmware regression on Strix Halo (ROCm/legacy-rocm-build#5616)
      'Memory access fault by GPU node-1 (Agent handle: 0x5570f8146df0) on address 0x7ff96a9ac000. Reason: Page not present or supervisor privilege.',
      // an HSA_OVERRIDE_GFX_VERSION left set for another card (ROCm/legacy-rocm-build#5238)
      'Memory access fault by GPU node-2 on address (nil). Reason: unknown.',
    ]) {
      const f = scanLog(`INFO 05-25 10:00:00 [core.py:1] starting\n${line}\n`, 't.log').find((x) => x.code === 'UNRECOGNISED_FAILURE')
      expect(f?.evidence['Kinds of failure line'], line).toBe('GPU memory access fault')
    }
  })
  it('is read after two workers printed the same kernel-load line (one record repeated, not a terminal cut at its length)', () => {
    const load =
      '[aiter] LoadKernel: _ZN5aiter43fmoe_bf16_blockscaleFp8_g1u1_vs_silu_32x384E hsaco: /usr/local/lib/python3.12/dist-packages/aiter_meta/hsa//gfx950/fmoe/silu/fmoe_bf16_blockscaleFp8_g1u1_vs_silu_32x384.co'
    const log = [load, load, 'Memory access fault by GPU node-3 (Agent handle: 0x13e852f0) on address 0x77d445e00000. Reason: Unknown.'].join('\n')
    expect(codes(log)).toContain('UNRECOGNISED_FAILURE')
  })
  it('leaves prose about such faults and the kernel-load lines alone', () => {
    const near = [
      // hkevin01/rocm-patch README: the error named without a node
      'Resolves the critical "Memory access fault by GPU - Page not present or supervisor privilege" error affecting:',
      // ROCr Debug Agent README
      '* Print the state of wavefronts that report memory violation or upon executing a "s_trap 2" instruction.',
      '(Worker_TP3_EP3 pid=891) [aiter] import [module_moe_sorting] under /usr/local/lib/python3.12/dist-packages/aiter/jit/module_moe_sorting.so',
    ].join('\n')
    expect(errors(near)).toEqual([])
  })
})

describe("a terminal's cut that the longest line does not show", () => {
  // SergiioB/intel-arc-pro-b70-inference-cookbook#4: a vLLM traceback cut at 119 columns inside words, under longer INFO lines of the
  // same process that were never cut (each followed by the next record of that process, which a cut line never is).
  const info = [
    '(EngineCore pid=316) INFO 08-21 18:37:44 [gpu_worker.py:492] Initial free memory 31.16 GiB, reserved 4.25 GiB memory for KV Cache as specified by kv_cache_memory_bytes config and skipped memory profiling. This does not respect the gpu_memory_utilization config.',
    '(EngineCore pid=316) WARNING 08-21 18:37:44 [kv_cache_utils.py:1227] Add 3 padding layers, may waste at most 6.25% KV cache memory',
  ]
  const cut = [
    '(EngineCore pid=316) ERROR 08-21 18:37:44 [core.py:1344] EngineCore failed to start.',
    '(EngineCore pid=316)   File "/opt/venv/lib/python3.12/site-packages/vllm/v1/core/kv_cache_utils.py", line 758, in _chec',
    'k_enough_kv_cache_memory',
    '(EngineCore pid=316)     raise ValueError(',
    "(EngineCore pid=316) ValueError: To serve at least one request with the model's max seq len (100000), (4.26 GiB KV cach",
    'e is needed, which is larger than the available KV cache memory (4.25 GiB).',
  ]
  it('joins the cut lines back and reads the KV cache refusal', () => {
    const f = scanLog([...info, ...cut].join('\n'), 't.log').find((x) => x.code === 'MAX_MODEL_LEN_TOO_LONG')
    expect(f?.evidence['KV cache needed']).toBe('4.26 GiB')
    expect(f?.evidence['KV cache available']).toBe('4.25 GiB')
  })
  it('leaves the uncut records of the same process apart (clean on their own)', () => {
    expect(errors(info.join('\n'))).toEqual([])
  })
})
