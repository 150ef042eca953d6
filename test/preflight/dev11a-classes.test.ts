/**
 * The classes dev batch dev11a missed (issue 36; first score in fixtures/README.md, "Dev batch dev11a"),
 * each proven on its sources' own wordings beyond the captures: a kernel library's own refusal of the
 * GPU (DeepGEMM's "Unsupported architecture" from every API that dispatches on the architecture,
 * FlashAttention's "only supports <arch> GPUs or newer"), an engine argument the installed vLLM lacks
 * when it is given in code (EngineArgs' TypeError, Ray Serve LLM's engine_kwargs check), and Ray's list
 * of possible causes of a worker death, which names an OOM kill without one having happened.
 */
import { describe, expect, it } from 'vitest'
import { scanLog } from '../../src/preflight/signatures.js'

const scan = (text: string) => scanLog(text, 'paste')
const codes = (text: string) => scan(text).map((f) => f.code)
const find = (text: string, code: string) => scan(text).find((f) => f.code === code)

describe("GPU_ARCH_UNSUPPORTED: a kernel library's own refusal of the GPU", () => {
  it("reads DeepGEMM's DGException from each API that dispatches on the architecture, behind any wrapper", () => {
    const cases: [string, string][] = [
      // vllm-project/vllm#40851 (A800): DeepSeek-V4's hyper-connection pre-norm GEMM
      ['RuntimeError: Assertion error (.../deepgemm-src/csrc/apis/hyperconnection.hpp:56): Unsupported architecture', 'hyperconnection.hpp'],
      // sgl-project/sglang#25877 (sm_120): the same library through TVM FFI, and its layout API
      ['Error: tvm.error.InternalError: Assertion error (/deepgemm/csrc/apis/layout.hpp:59): Unsupported architecture', 'layout.hpp'],
      // deepseek-ai/DeepGEMM#317: the paged MQA logits API (csrc/apis/attention.hpp), in vLLM's worker record
      [
        '(Worker_TP3 pid=912) ERROR 04-25 09:00:01 [multiproc_executor.py:971] RuntimeError: Assertion error (/usr/local/lib/python3.12/dist-packages/deep_gemm/include/../csrc/apis/attention.hpp:211): Unsupported architecture',
        'attention.hpp',
      ],
    ]
    for (const [line, at] of cases) {
      const f = find(line, 'GPU_ARCH_UNSUPPORTED')
      expect(f, line).toBeDefined()
      expect(f!.severity).toBe('error')
      expect(f!.evidence['Kernel library']).toBe('DeepGEMM')
      expect(f!.evidence['Refused at'], line).toContain(at)
      expect(codes(line), line).not.toContain('UNRECOGNISED_FAILURE')
    }
  })
  it("reads FlashAttention's TORCH_CHECKs (flash_api.cpp, hopper/flash_api.cpp) with the generation it needs", () => {
    const cases: [string, string][] = [
      ['RuntimeError: FlashAttention only supports Ampere GPUs or newer.', 'Ampere (sm_80) or newer'],
      ['RuntimeError: FlashAttention-3 only supports Hopper GPUs or newer.', 'Hopper (sm_90) or newer'],
      ['RuntimeError: Flexible Flash Attention only supports Hopper GPUs or newer.', 'Hopper (sm_90) or newer'],
    ]
    for (const [line, needs] of cases) {
      const f = find(line, 'GPU_ARCH_UNSUPPORTED')
      expect(f?.evidence['Needs (compute capability)'], line).toBe(needs)
    }
  })
  it('near miss: the fallbacks a healthy start logs, another DeepGEMM assertion, and a warning record', () => {
    for (const line of [
      'INFO 06-21 03:49:37 selector.py:131] Cannot use FlashAttention-2 backend for Volta and Turing GPUs.',
      '(EngineCore pid=148408) INFO 07-28 10:03:02 [flash_attn.py:788] Using FlashAttention version 2',
      'RuntimeError: Assertion error (csrc/apis/gemm.hpp:120): n % 64 == 0',
      'The GPU architecture is not supported by this build; see the docs.',
      'INFO 02-01 00:00:00 [cuda.py:200] FlashAttention only supports Ampere GPUs or newer; using the Triton backend.',
    ])
      expect(codes(line), line).not.toContain('GPU_ARCH_UNSUPPORTED')
    const warned = find(
      'WARNING 01-01 00:00:00 [utils.py:1] FlashAttention only supports Ampere GPUs or newer. Falling back to XFORMERS.',
      'GPU_ARCH_UNSUPPORTED',
    )
    expect(warned?.severity).toBe('warning')
  })
})

describe('VLLM_FLAG_UNKNOWN: an engine argument given in code that the installed vLLM lacks', () => {
  it("reads Python's TypeError from EngineArgs and AsyncEngineArgs, and Ray Serve LLM's check, naming the argument", () => {
    const cases: [string, string][] = [
      // xorbitsai/inference#4468, #4599 (vLLM ≥ 0.13 removed task)
      ["TypeError: EngineArgs.__init__() got an unexpected keyword argument 'task'", 'task'],
      // vllm-project/vllm#23283
      ["TypeError: AsyncEngineArgs.__init__() got an unexpected keyword argument 'disable_log_requests'", 'disable_log_requests'],
      // NVIDIA-NeMo/RL#870, inside a Ray actor
      ["(VllmGenerationWorker pid=14029) TypeError: EngineArgs.__init__() got an unexpected keyword argument 'logprobs_mode'", 'logprobs_mode'],
      // ray llm vllm_models.py; ray-project/ray#64466 quotes it in prose
      ['ValueError: Unknown engine argument: swap_space', 'swap_space'],
    ]
    for (const [line, arg] of cases) {
      const f = find(line, 'VLLM_FLAG_UNKNOWN')
      expect(f, line).toBeDefined()
      expect(f!.severity).toBe('error')
      expect(f!.evidence['Engine argument']).toBe(arg)
    }
  })
  it("near miss: other classes' keyword errors and other programs' 'unknown engine argument'", () => {
    for (const line of [
      // uvicorn's Config (vllm-project/vllm PR #8556): not an engine argument
      "TypeError: Config.__init__() got an unexpected keyword argument 'engine'",
      "TypeError: LLM.generate() got an unexpected keyword argument 'prompt_token_ids'",
      'Error: Unknown engine argument "postgres". Expected "sqlite" or "postgres".',
    ])
      expect(
        scan(line).filter((f) => f.code === 'VLLM_FLAG_UNKNOWN' && f.severity === 'error'),
        line,
      ).toEqual([])
  })
})

describe("OOM_KILLED: Ray's list of possible causes of a worker death is not an OOM kill", () => {
  const old =
    '(raylet) A worker died or was killed while executing a task by an unexpected system error. To troubleshoot the problem, check the logs for the dead worker. RayTask ID: ffffffffffffffff85783e4ce526ce3e736e1fed01000000 Worker ID: efaed49231593ec97ad7c0d12bf02b27e6fe29b2781f422806c7d798 Node ID: a41f6aab2230735305035488b340f975271fd85ffb7399b190d112e2 Worker IP address: 172.20.96.130 Worker port: 10002 Worker PID: 311 Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file. There are some potential root causes. (1) The process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop --force is called. (3) The worker is crashed unexpectedly due to SIGSEGV or other unexpected errors.'
  const current =
    'The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file. Some common causes include: (1) the process was killed by the OOM killer due to high memory usage, (2) ray stop --force was called, or (3) the worker crashed unexpectedly due to SIGSEGV or another unexpected error.'
  it('both wordings (raylet node_manager.cc, Ray ≤ 2.4x and current) stay an unexplained worker death without an OOM hint', () => {
    for (const line of [old, current]) {
      expect(codes(line), line).toContain('UNRECOGNISED_FAILURE')
      expect(codes(line), line).not.toContain('OOM_KILLED')
    }
  })
  it('near miss: a real OOM kill beside it is still read', () => {
    expect(codes(`${current}\n[Fri Aug 28 09:12:01 2026] Out of memory: Killed process 4182 (ray::RayWorkerW) total-vm:812345kB`)).toContain('OOM_KILLED')
  })
})
