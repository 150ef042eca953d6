/**
 * Classes found in session 62's fourth round (held-out batches 120–124, scored first at adab1a1: 14/18 right, 16/18 with the collectors'
 * alsoFair codes, no false alarm on 5 healthy), and the fifth (batches 125–129, scored first at 5637bfa: 29/34, 32/34, no false alarm on 10
 * healthy), each tested on public sources and renderings other than the capture that showed it, with near misses.
 */
import { describe, expect, it } from 'vitest'
import { codes, one } from './support/paste-scan.js'

// (held-out batch 122's 1CatAI/1Cat-vLLM#27: Triton refusing the FP8 type on V100, read as an unrecognised failure)
describe('Triton refusing an FP8 type the GPU lacks', () => {
  it.each([
    // an FP8 KV cache on Volta, as vLLM's worker prints it
    [
      `(Worker_TP0 pid=60352) ERROR 05-06 06:47:41 [multiproc_executor.py:852] ValueError("type fp8e4nv not supported in this architecture. The supported fp8 dtypes are ('fp8e4b15', 'fp8e5')")`,
      'fp8e4b15,fp8e5',
    ],
    // a block-FP8 GEMM compiled on A100 (vllm-project/vllm#18182's title; an A100 serving note's traceback)
    [
      `triton.compiler.errors.CompilationError: at 1:0:\ndef _w8a8_block_fp8_matmul(\n^\nValueError("type fp8e4nv not supported in this architecture. The supported fp8 dtypes are ('fp8e4b15', 'fp8e5')")`,
      'fp8e4b15,fp8e5',
    ],
    // AMD gfx90a (an FP8 export test's note): one type only
    [`ValueError: type fp8e4nv not supported in this architecture. The supported fp8 dtypes are ('fp8e5',)`, 'fp8e5'],
  ])('%#', (text, supported) => {
    const f = one(text, 'GPU_ARCH_UNSUPPORTED')
    expect(f.severity).toBe('error')
    expect(f.evidence['FP8 type asked for']).toBe('fp8e4nv')
    expect(f.evidence['FP8 types this GPU has']).toBe(supported)
    expect(f.fix).toContain('fp8_e5m2')
  })

  it("near miss: an FP8 KV cache chosen on a GPU that has it, and Triton's other compile errors, are not this", () => {
    expect(
      codes('INFO 05-06 06:40:02 [cache.py:85] Using fp8 data type to store kv cache. It reduces the GPU memory footprint and boosts the performance.'),
    ).toEqual([])
    expect(codes('triton.compiler.errors.CompilationError: at 12:4:\nValueError("Unsupported dtype")')).not.toContain('GPU_ARCH_UNSUPPORTED/error')
  })
})

// vLLM's attention selector (platforms/cuda.py, 0.12 on), as reporters paste it: wrapped by hand, and cut inside its reasons
const SELECTOR =
  'ValueError: No valid attention backend found for cuda with AttentionSelectorConfig(head_size=576, dtype=torch.bfloat16, kv_cache_dtype=bfloat16, block_size=None, use_mla=True, has_sink=False, use_sparse=True, ...). Reasons: {FLASH_ATTN_MLA: [sparse not supported, compute capability not supported, FlashAttention MLA not supported on this device], FLASHMLA: [sparse not supported, compute capability not supported]}'

// (held-out batch 122's vllm-project/vllm#45317: the selector's refusal wrapped by hand and cut inside its reasons, read as an unrecognised failure)
describe("vLLM's attention selector finding no backend, pasted whole, wrapped or cut", () => {
  const wrap = (text: string, width: number) => text.match(new RegExp(`.{1,${width}}(\\s|$)`, 'g'))!.join('\n')
  it.each([
    ['whole', SELECTOR],
    // the breaks where vllm-project/vllm#45317's reporter put them, inside the config's parentheses and the reasons' brackets
    [
      'wrapped inside its brackets',
      SELECTOR.replace('head_size=576, ', 'head_size=576,\n')
        .replace('has_sink=False, ', 'has_sink=False,\n')
        .replace('compute capability not supported, Flash', 'compute capability not\nsupported, Flash')
        .replace('FLASHMLA: [sparse not supported, ', 'FLASHMLA: [sparse not supported,\n'),
    ],
    ['cut inside its reasons', SELECTOR.slice(0, SELECTOR.indexOf('FLASHMLA') + 30)],
    ['wrapped and cut', wrap(SELECTOR.slice(0, SELECTOR.indexOf('FLASHMLA') + 30), 100)],
  ])('%s', (_name, text) => {
    const f = one(text, 'GPU_ARCH_UNSUPPORTED')
    expect(f.evidence['Attention needed']).toBe('sparse MLA')
    expect(f.evidence['Backends refusing the compute capability']).toContain('FLASH_ATTN_MLA')
  })

  it('near miss: reasons with no compute capability in them (a KV-cache dtype) stay a failure line, not an architecture', () => {
    const dtype =
      'ValueError: No valid attention backend found for cuda with AttentionSelectorConfig(head_size=128, dtype=torch.bfloat16, kv_cache_dtype=fp8_e4m3, use_mla=False). Reasons: {FLASH_ATTN: [kv_cache_dtype not supported], TRITON_ATTN: [kv_cache_dtype not supported'
    expect(codes(dtype)).not.toContain('GPU_ARCH_UNSUPPORTED/error')
    expect(codes(dtype)).toContain('UNRECOGNISED_FAILURE/error')
  })
})

// (held-out batch 127's vllm-project/vllm PR #40082: the CuTe DSL refusing GB10's sm_121a, read as an unrecognised failure)
describe("the CUTLASS Python DSL (CuTe DSL) refusing the GPU's architecture", () => {
  it.each([
    // an MMA atom's check (cutlass/cute/nvgpu/warp/mma.py) behind vLLM's engine prefix: a kernel written for sm_120a on a GB10
    ["(EngineCore pid=87) cutlass.cute.nvgpu.common.OpError: OpError: expects arch to be one of ['sm_120a'], but got Arch.sm_121a", 'sm_120a', 'sm_121a'],
    // a datacenter-Blackwell kernel on Hopper, several archs accepted
    ["OpError: expects arch to be one of ['sm_100a', 'sm_103a'], but got Arch.sm_90a", 'sm_100a,sm_103a', 'sm_90a'],
    // the arch printed without its enum's name
    ["cutlass.cute.nvgpu.common.OpError: expects arch to be one of ['sm_90a'], but got sm_80", 'sm_90a', 'sm_80'],
  ])('%s', (line, accepted, gpu) => {
    const f = one(line, 'GPU_ARCH_UNSUPPORTED')
    expect(f.severity).toBe('error')
    expect(f.evidence['Kernel accepts']).toBe(accepted)
    expect(f.evidence['This GPU']).toBe(gpu)
  })

  it("near miss: the DSL's other op errors are not about the architecture", () => {
    expect(codes('cutlass.cute.nvgpu.common.OpError: OpError: expects the A operand to be in shared memory')).not.toContain('GPU_ARCH_UNSUPPORTED/error')
  })
})
