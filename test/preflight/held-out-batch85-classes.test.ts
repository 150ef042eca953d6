/**
 * Classes found in session 60's second round (held-out batches 85–88, scored first: 18/25 right, 23/25 with the collectors' alsoFair
 * codes, no false alarm on 9 healthy), each tested on public sources other than the capture that showed it, with near misses.
 */
import { describe, expect, it } from 'vitest'
import { bad, scan } from './support/paste-scan.js'

// (held-out batch 85's vllm-project/vllm#57475: the OOM's second half only, wrapped, read as nothing at all before this)
describe("torch's out-of-memory message without its head: GPU_OUT_OF_MEMORY with the allocation", () => {
  it.each([
    // vllm-project/vllm#57475 (2026): the fix PR's quote, wrapped at 72 columns
    [
      '    Tried to allocate 136.00 MiB. GPU 0 has a total capacity of 22.36 GiB of\n    which 120.88 MiB is free. ... If this problem persists, try setting\n    VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0',
      '136.00 MiB',
      '22.36 GiB',
    ],
    // the head on a line of its own (a traceback's exception line cut by a terminal), torch >= 2.2's wording after it
    [
      '(EngineCore_DP0 pid=211) ERROR 09-02 10:01:02 [core.py:708] torch.OutOfMemoryError:\n(EngineCore_DP0 pid=211) ERROR 09-02 10:01:02 [core.py:708] Tried to allocate 1.50 GiB. GPU 1 has a total capacity of 79.19 GiB of which 1.02 GiB is free.',
      '1.50 GiB',
      '79.19 GiB',
    ],
    // torch <= 2.0's wording, its head cut off by the excerpt
    [
      'Tried to allocate 2.26 GiB (GPU 0; 6.00 GiB total capacity; 3.10 GiB already allocated; 1.80 GiB free; 3.20 GiB reserved in total by PyTorch)',
      '2.26 GiB',
      '6.00 GiB',
    ],
  ])('%#', (text, allocation, total) => {
    const f = scan(text).filter((x) => x.code === 'GPU_OUT_OF_MEMORY')
    expect(f).toHaveLength(1)
    expect(f[0]!.severity).toBe('error')
    expect(f[0]!.evidence['Tried to allocate']).toBe(allocation)
    expect(JSON.stringify(f[0]!.evidence)).toContain(total)
  })

  it('a whole message on one line is one finding, not two', () => {
    const text = 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 79.15 GiB of which 3.44 MiB is free.'
    expect(scan(text).filter((x) => x.code === 'GPU_OUT_OF_MEMORY')).toHaveLength(1)
  })

  it('near miss: "tried to allocate" in other words is no OOM', () => {
    expect(scan('INFO 09-02 10:01:02 [gpu_worker.py:300] The engine tried to allocate the KV cache: 12.00 GiB').map((f) => f.code)).not.toContain(
      'GPU_OUT_OF_MEMORY',
    )
  })
})

// (held-out batch 86's vllm-project/vllm#50705: FlashInfer's toolkit probe on an RTX Blackwell card, read as nothing at all)
describe("vLLM's FlashInfer probe finding the CUDA toolkit too old for SM 12.x: a GPU_ARCH_UNSUPPORTED warning", () => {
  it.each([
    // vllm-project/vllm#50705 (2026)
    '(EngineCore pid=4140) Failed to get device capability: SM 12.x requires CUDA >= 12.9.',
    // a DGX Spark serving note (found with find_string) that calls it harmless: it is a warning, not an error
    'Failed to get device capability: SM 12.x requires CUDA >= 12.9.',
    // a GB10 incident write-up quoting it before the fallback to VLLM_CUTLASS
    'vLLM logs `Failed to get device capability: SM 12.x requires CUDA >= 12.9` twice during init, then falls back',
  ])('%#', (text) => {
    const f = scan(text).find((x) => x.code === 'GPU_ARCH_UNSUPPORTED')
    expect(f?.severity).toBe('warning')
    expect(f?.evidence['CUDA toolkit needed']).toBe('>= 12.9')
    expect(bad(text)).toEqual([])
  })

  it('near miss: a toolkit requirement of another kind is not this', () => {
    expect(scan('MXFP4 experts quant requires PACK16 mode (CUDA >= 12.9)').map((f) => f.code)).not.toContain('GPU_ARCH_UNSUPPORTED')
  })
})

// (held-out batch 86's vllm-project/recipes#831, read as UNRECOGNISED_FAILURE)
describe("a hybrid model's state cache under --max-num-seqs: KV_CACHE_CONCURRENCY with both numbers", () => {
  it.each([
    // vllm-project/recipes#831 (2026): an RTX PRO 6000
    [
      'ValueError: max_num_seqs (1024) exceeds available Mamba cache blocks (939).\nEach decode sequence requires one Mamba cache block, so CUDA graph capture cannot\nproceed. Please lower max_num_seqs to at most 939 or increase gpu_memory_utilization.',
      '1024',
      '939',
    ],
    // a Kimi K3 serving note (find_string)
    ['ValueError: max_num_seqs (1024) exceeds available Mamba cache blocks (854)', '1024', '854'],
    // a Qwen3.6 evaluation note in Chinese (find_string), behind EngineCore's record
    ['(EngineCore_DP0 pid=88) ERROR 07-13 08:00:01 [core.py:843] ValueError: max_num_seqs (256) exceeds available Mamba cache blocks (196).', '256', '196'],
  ])('%#', (text, seqs, blocks) => {
    const f = scan(text).find((x) => x.code === 'KV_CACHE_CONCURRENCY')
    expect(f?.severity).toBe('error')
    expect(f?.evidence['--max-num-seqs']).toBe(seqs)
    expect(f?.evidence['Mamba cache blocks']).toBe(blocks)
    expect(f?.fix).toContain(`--max-num-seqs ${blocks}`)
  })

  it('near miss: the settings that avoid it are no failure', () => {
    expect(bad('INFO 07-13 08:00:01 [config.py:100] max_num_seqs=64; Mamba cache blocks: 121')).toEqual([])
  })
})

// (held-out batch 87's kserve/kserve#4875, read as ENGINE_DEAD and UNRECOGNISED_FAILURE)
describe("vLLM's own check of an optional package's version: VERSION_SKEW with the package and the version it needs", () => {
  it.each([
    // kserve/kserve#4875 (2025): KServe's image with an older bitsandbytes
    ['ERROR 12-04 09:08:38 [core.py:586] ImportError: bitsandbytes version is wrong. Please install bitsandbytes>=0.46.1.', 'bitsandbytes', '>= 0.46.1'],
    // the ImportError vLLM raises from it (model_executor/model_loader/bitsandbytes_loader.py)
    ['ImportError: Please install bitsandbytes>=0.46.1 via `pip install bitsandbytes>=0.46.1` to use bitsandbytes quantizer.', 'bitsandbytes', '>= 0.46.1'],
    // the BitBLAS quantisation config's check
    ['ImportError: bitblas version is wrong. Please install bitblas>=0.1.0', 'bitblas', '>= 0.1.0'],
  ])('%#', (text, pkg, want) => {
    const f = scan(text).find((x) => x.code === 'VERSION_SKEW')
    expect(f?.severity).toBe('error')
    expect(f?.evidence.Package).toBe(pkg)
    expect(f?.evidence['vLLM needs']).toBe(want)
  })

  it.each([
    'Please install the latest version of vLLM: pip install -U vllm',
    'WARNING 12-04 09:08:38 [utils.py:10] Please install flashinfer for faster sampling.',
  ])('near miss %#: no version skew', (text) => {
    expect(scan(text).map((f) => f.code)).not.toContain('VERSION_SKEW')
  })
})

// Session 60's third round (held-out batches 89–92, scored first: 19/23 right, 22/23 with alsoFair, no false alarm on 8 healthy).
describe('a compiled part of vLLM missing as the exception itself: IMAGE_LACKS_VLLM with the module', () => {
  it.each([
    // vllm-project/vllm#16013 (2025): an image built on a stale cache (held-out batch 92)
    [
      "    from vllm.vllm_flash_attn.fa_utils import (flash_attn_supports_fp8,\nModuleNotFoundError: No module named 'vllm.vllm_flash_attn.fa_utils'",
      'vllm.vllm_flash_attn.fa_utils',
    ],
    // a source checkout imported without its build (intel/llm-scaler, held-out batch 36; vllm-project/vllm#13593)
    ["ModuleNotFoundError: No module named 'vllm._C'", 'vllm._C'],
    ["(VllmWorker rank=0 pid=311) ModuleNotFoundError: No module named 'vllm._moe_C'", 'vllm._moe_C'],
  ])('%#', (text, module) => {
    const f = scan(text).find((x) => x.code === 'IMAGE_LACKS_VLLM')
    expect(f?.severity).toBe('error')
    expect(f?.evidence['Missing module']).toBe(module)
  })

  it("near miss: vLLM's own warning that quotes it (a platform plugin's healthy start) is no failure", () => {
    expect(bad('WARNING 06-01 10:00:00 [_custom_ops.py:20] Failed to import from vllm._C with ModuleNotFoundError("No module named \'vllm._C\'")')).toEqual([])
  })
})

describe("another package's compiled extension built for another torch: VERSION_SKEW with the extension", () => {
  it.each([
    // mudler/LocalAI PR #9557 (2026): the symbol wrapped onto the next line, the path cut by its author (held-out batch 92)
    ['  ImportError: .../flash_attn_2_cuda...so: undefined symbol:\n  _ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_ib', 'flash_attn_2_cuda'],
    // the full path and symbol on one line
    [
      'ImportError: /usr/local/lib/python3.12/dist-packages/flash_attn_2_cuda.cpython-312-x86_64-linux-gnu.so: undefined symbol: _ZN3c104cuda9SetDeviceEi',
      'flash_attn_2_cuda',
    ],
    ['ImportError: /opt/venv/lib/python3.11/site-packages/xformers/_C.so: undefined symbol: _ZN2at4_ops5zeros4callEN3c108ArrayRefINS2_6SymIntEEE', '_C'],
  ])('%#', (text, extension) => {
    const f = scan(text).find((x) => x.code === 'VERSION_SKEW')
    expect(f?.severity).toBe('error')
    expect(f?.evidence.Extension).toBe(extension)
  })

  it.each([
    // vLLM's own extension is IMAGE_LACKS_VLLM's
    'ImportError: /usr/local/lib/python3.12/dist-packages/vllm/_C.abi3.so: undefined symbol: _ZN3c1013MessageLoggerC1EPKciib',
    // a system library's missing symbol is not a torch mismatch
    'ImportError: /usr/lib/x86_64-linux-gnu/libnccl.so.2: undefined symbol: ncclCommWindowRegister',
  ])('near miss %#: not this class', (text) => {
    expect(scan(text).some((x) => x.code === 'VERSION_SKEW' && x.evidence.Extension !== undefined)).toBe(false)
  })
})

describe('a raylet stopped by SIGTERM: a RAY_NODE_DEAD warning', () => {
  it.each([
    // skypilot-org/skypilot#4695 (2025): the job step that started `ray start` cleaned up (held-out batch 90)
    '[2025-02-11 20:08:00,117 I 4121 4121] main.cc:483: received SIGTERM. Existing local drain request = None\n[2025-02-11 20:08:00,117 I 4121 4121] main.cc:284: Raylet graceful shutdown triggered, reason = EXPECTED_TERMINATION, reason message = received SIGTERM',
    // Ray's main.cc wording alone, behind the log monitor's prefix
    '(raylet) [2026-01-12 12:30:41,697 I 1568506 1568506] main.cc:284: Raylet graceful shutdown triggered, reason = EXPECTED_TERMINATION, reason message = received SIGTERM',
  ])('%#', (text) => {
    const f = scan(text).find((x) => x.code === 'RAY_NODE_DEAD')
    expect(f?.severity).toBe('warning')
    expect(bad(text)).toEqual([])
  })

  it('near miss: a shutdown without the signal is not this', () => {
    expect(scan('[2025-02-11 20:08:00,117 I 4121 4121] main.cc:287: Shutting down...').map((f) => f.code)).not.toContain('RAY_NODE_DEAD')
  })
})
