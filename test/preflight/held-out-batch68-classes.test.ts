/**
 * Classes found in session 59 (held-out batches 68–69, scored first: 68 5/6 right, 6/6 with the collectors' alsoFair codes; 69 4/6, 5/6;
 * no false alarm on 5 healthy), each tested on public sources other than the capture that showed it, with near misses.
 */
import { describe, expect, it } from 'vitest'
import { scan } from './support/paste-scan.js'

// (the first source is held-out batch 69's skypilot-org/skypilot PR #6507: a replica's setup whose uv did not know --torch-backend, read as
// nothing at all before this)
describe("a Rust command-line tool's refusal of its options (clap's words, uv): never silent", () => {
  it.each([
    // astral-sh/uv#7771 (2024): `--build-option` passed to uv 0.4.8
    [
      "error: unexpected argument '--build-option' found\n\n  tip: a similar argument exists: '--build-isolation'\n\nUsage: uv pip install --verbose... --no-cache <PACKAGE|--requirement <REQUIREMENT>>\n\nFor more information, try '--help'.",
      "unexpected argument '--build-option' found",
    ],
    // OpenCharAI/OpenChar#36 (2026): an installer's uv command with an option an older uv lacks, behind the command it echoed
    [
      '+ uv pip install --python ".venv/bin/python" --extra-index-url https://download.pytorch.org/whl/cu126 --no-sources-package torch -e ".[server]"\nerror: unexpected argument \'--no-sources-package\' found\n\n  tip: a similar argument exists: \'--no-sources\'',
      "'--no-sources-package'",
    ],
    // EveryVoiceTTS/EveryVoice#756 (2025): uv 0.5.2 and `--managed-python`
    ["$ uv venv --managed-python --python=3.12 ./.venv\nerror: unexpected argument '--managed-python' found", "'--managed-python'"],
    // clap's other refusals (clap_builder/src/error/format.rs), as a Ray job's setup prints them behind its prefix
    ["(setup pid=88) error: invalid value 'cu999' for '--torch-backend <TORCH_BACKEND>'", "invalid value 'cu999'"],
    ['error: the following required arguments were not provided:\n  <PACKAGE|--requirements <REQUIREMENTS>>', 'required arguments were not provided'],
  ])('%#', (text, quoted) => {
    const f = scan(text).find((x) => x.code === 'UNRECOGNISED_FAILURE')
    expect(f?.severity).toBe('error')
    expect(JSON.stringify(f?.evidence)).toContain(quoted)
  })

  it.each([
    // a sentence that says "error:" about something else, and a tip line alone
    'INFO 06-01 10:00:00 [metrics.py:80] Avg prompt throughput: 0.0 tokens/s, error: 0',
    "  tip: a similar argument exists: '--no-sources'",
    'warning: `VIRTUAL_ENV=/opt/venv` does not match the project environment path `.venv` and will be ignored',
  ])('near miss %#: no failure', (text) => {
    expect(scan(text).filter((f) => f.severity === 'error')).toEqual([])
  })
})

// (the first source is held-out batch 68's lm-sys/FastChat#3704: FastChat's vllm_worker reading `engine` off vLLM 0.8's AsyncLLM)
describe("code written against another vLLM release's engine objects: a VERSION_SKEW warning beside the failure", () => {
  it.each([
    // OpenRLHF/OpenRLHF#922 (2025): the trainer's actor under Ray, vLLM's collective_rpc on a V1 engine
    [
      "(ActorModelRayActor pid=700388) File \"/venv/lib/python3.12/site-packages/vllm/entrypoints/llm.py\", line 495, in collective_rpc\n(ActorModelRayActor pid=700388) executor = self.llm_engine.model_executor\n(ActorModelRayActor pid=700388) AttributeError: 'LLMEngine' object has no attribute 'model_executor'",
      "'LLMEngine' object has no attribute 'model_executor'",
    ],
    // huggingface/trl#3859 (2025): TRL 0.19 loading weights into vLLM 0.10's engine
    [
      "'LLMEngine' object has no attribute 'model_executor'\n  File \"/work/dpo/train/online_dpo.py\", line 270, in _generate_vllm\n    llm_model = self.llm.llm_engine.model_executor.driver_worker.model_runner.model\nAttributeError: 'LLMEngine' object has no attribute 'model_executor'",
      'model_executor',
    ],
    // vllm-project/vllm#9318 (2024): a script reaching for the driver worker
    ["[rank0]: AttributeError: 'LLMEngine' object has no attribute 'driver_worker'", 'driver_worker'],
  ])('%#', (text, words) => {
    const found = scan(text)
    expect(found.find((x) => x.code === 'UNRECOGNISED_FAILURE')?.severity).toBe('error')
    const hint = found.find((x) => x.code === 'VERSION_SKEW')
    expect(hint?.severity).toBe('warning')
    expect(JSON.stringify(hint)).toContain(words)
  })

  it.each([
    // another library's class of a common name, and Python's NoneType: no vLLM release is named by them
    "AttributeError: 'LLM' object has no attribute 'llm_engine'",
    "AttributeError: 'NoneType' object has no attribute 'model_executor'",
    "AttributeError: 'Worker' object has no attribute 'model_runner'",
  ])('near miss %#: the failure, no VERSION_SKEW', (text) => {
    const codes = scan(text).map((x) => x.code)
    expect(codes).toContain('UNRECOGNISED_FAILURE')
    expect(codes).not.toContain('VERSION_SKEW')
  })
})

// (held-out batch 71: vllm-project/vllm#31480, DeepSeek-V3.2 on RTX PRO 6000, and recipes PR #760, DeepSeek-V4-Flash's SM100-only options,
// read as UNRECOGNISED_FAILURE before this)
describe("vLLM's attention selector and kernel paths refusing the GPU's architecture: GPU_ARCH_UNSUPPORTED", () => {
  it.each([
    // the Blackwell MLA patch note's error signature (a ds4-sm120 branch's skill file, 2026), on one line as vLLM prints it
    [
      'ValueError: No valid attention backend found for cuda with AttentionSelectorConfig(head_size=576, dtype=torch.bfloat16, kv_cache_dtype=fp8, block_size=256, use_mla=True, has_sink=False, use_sparse=True). Reasons: {FLASH_ATTN_MLA: [compute capability not supported], FLASHMLA: [compute capability not supported], FLASHINFER_MLA: [compute capability not supported], TRITON_MLA: [sparse not supported], FLASHMLA_SPARSE: [compute capability not supported]}.',
      'sparse MLA',
    ],
    // GLM-5.2 on vLLM 0.23 (a load smoke log's root failure, 2026), behind the engine core's prefix
    [
      '(EngineCore_DP0 pid=812) ERROR 07-22 19:43:10 [core.py:1010] ValueError: No valid attention backend found for cuda with AttentionSelectorConfig(head_size=192, dtype=torch.bfloat16, kv_cache_dtype=auto, block_size=None, use_mla=True, has_sink=False, use_sparse=True, use_mm_prefix=False, attn_type=AttentionType.DECODER). Reasons: {FLASH_ATTN_MLA: [head_size not supported, sparse not supported, compute capability not supported], FLASHMLA: [head_size not supported, sparse not supported, compute capability not supported, vllm._flashmla_C is not available], TRITON_MLA: [sparse not supported]}.',
      'sparse MLA',
    ],
  ])('the selector %#', (text, kind) => {
    const f = scan(text).find((x) => x.code === 'GPU_ARCH_UNSUPPORTED')
    expect(f?.severity).toBe('error')
    expect(f?.evidence['Attention needed']).toBe(kind)
    expect(f?.evidence['Backends refusing the compute capability']).toContain('FLASH_ATTN_MLA')
  })

  it.each([
    // cuDNN frontend's top-k (IndexerTopK, 2026) on an RTX 50
    ['RuntimeError: IndexerTopK requires SM100+ compute capability, found SM12', 'SM100+'],
    // vLLM's FlashMLA sparse gate raised (vllm/v1/attention/ops/flashmla.py _raise_flashmla_unavailable), later wording
    ['RuntimeError: FlashMLA Sparse is only supported on Hopper and Blackwell DC devices.', 'Hopper and Blackwell'],
    ['NotImplementedError: DeepGEMM MegaMoE requires SM100 GPUs.', 'SM100'],
  ])('a kernel path %#', (text, needs) => {
    const f = scan(text).find((x) => x.code === 'GPU_ARCH_UNSUPPORTED')
    expect(f?.severity).toBe('error')
    expect(f?.evidence.Needs).toBe(needs)
  })

  it.each([
    // the selector's reasons with no compute capability among them (a drafter's non-causal attention with an fp8 KV cache): another cause
    'ValueError: No valid attention backend found for cuda with AttentionSelectorConfig(head_size=128, dtype=torch.bfloat16, kv_cache_dtype=fp8, block_size=None, use_mla=False, has_sink=False, use_sparse=False). Reasons: {FLASH_ATTN: [kv_cache_dtype not supported], FLASHINFER: [non-causal attention not supported], TRITON_ATTN: [non-causal attention not supported]}.',
    // vLLM logging the backends it passed over on a healthy start (INFO in some releases)
    'INFO 07-01 10:00:00 [cuda.py:300] Some attention backends are not valid for cuda with AttentionSelectorConfig(head_size=576, use_mla=True, use_sparse=True). Reasons: {FLASHMLA: [FlashMLA Sparse is only supported on Hopper and Blackwell devices.]}.',
    'INFO 07-01 10:00:00 [deepgemm.py:40] DeepGEMM MegaMoE requires SM100 GPUs; using the Triton MoE kernel.',
  ])('near miss %#: no GPU_ARCH_UNSUPPORTED', (text) => {
    expect(scan(text).map((x) => x.code)).not.toContain('GPU_ARCH_UNSUPPORTED')
  })
})

// (held-out batch 73's jschmied TensorFold log: a server that reported serving, then CPython's "Exception ignored in: <module 'threading'
// …>" with a KeyboardInterrupt after the operator's Ctrl-C, read as UNRECOGNISED_FAILURE: a false alarm before this)
describe('a traceback CPython printed as ignored (Exception ignored in: …) is no failure', () => {
  it.each([
    // vllm-project/vllm#8208 (2024): after graph capture, the engine's __del__ at interpreter shutdown
    '(RayWorkerWrapper pid=1706125) INFO 09-03 12:01:38 model_runner.py:1300] Graph capturing finished in 13 secs.\nException ignored in: <function LLMEngine.__del__ at 0x7f2ff66af060>\nTraceback (most recent call last):\n  File "/home/u/miniconda3/envs/vllm/lib/python3.11/site-packages/vllm/engine/llm_engine.py", line 492, in __del__\n  File "/home/u/miniconda3/envs/vllm/lib/python3.11/site-packages/vllm/executor/ray_gpu_executor.py", line 72, in shutdown\nImportError: sys.meta_path is None, Python is likely shutting down',
    // HabanaAI/vllm-fork PR #1579 (2025): frames without source lines, an AttributeError at exit
    'Exception ignored in: <function LLMEngine.__del__ at 0x7f672f8916c0>\nTraceback (most recent call last):\n  File "/w/vllm-fork/vllm/engine/llm_engine.py", line 520, in __del__\n  File "/w/vllm-fork/vllm/executor/uniproc_executor.py", line 71, in shutdown\nAttributeError: \'NoneType\' object has no attribute \'getenv\'',
    // run-llama/llama_index#13019 (2024), and Python 3.13's wording of the same report
    'Exception ignored in: <function Vllm.__del__ at 0x7f1723e82d30>\nTraceback (most recent call last):\n  File "/usr/local/miniconda3/lib/python3.8/site-packages/llama_index/llms/vllm/base.py", line 217, in __del__\nImportError: sys.meta_path is None, Python is likely shutting down',
    'Exception ignored while calling deallocator <function AsyncLLM.__del__ at 0x7f00>:\nTraceback (most recent call last):\n  File "/v/lib/python3.13/site-packages/vllm/v1/engine/async_llm.py", line 240, in __del__\nTypeError: \'NoneType\' object is not callable',
  ])('%#', (text) => {
    expect(scan(text).filter((f) => f.severity === 'error')).toEqual([])
  })

  it("near miss: the failure before it is still named (vllm-project/vllm#11437: an OOM, then the LLM's __del__ ignored)", () => {
    const text =
      'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.19 GiB of which 1.06 GiB is free.\nException ignored in: <function LLM.__del__ at 0x7fef2c991090>\nTraceback (most recent call last):\n  File "/root/vllm/vllm/entrypoints/llm.py", line 236, in __del__\n    if self.llm_engine and hasattr(self.llm_engine, "shutdown"):\nAttributeError: \'LLM\' object has no attribute \'llm_engine\''
    expect(
      scan(text)
        .filter((f) => f.severity === 'error')
        .map((f) => f.code),
    ).toEqual(['GPU_OUT_OF_MEMORY'])
  })

  it('near miss: a traceback after it is read as it comes', () => {
    const text =
      'Exception ignored in: <function X.__del__ at 0x1>\nTraceback (most recent call last):\n  File "a.py", line 1, in __del__\nTypeError: bad\nTraceback (most recent call last):\n  File "serve.py", line 9, in main\nRuntimeError: engine core initialization failed'
    const f = scan(text).find((x) => x.code === 'UNRECOGNISED_FAILURE')
    expect(f?.evidence['Exception type']).toBe('RuntimeError')
  })
})

// (held-out batch 74's vllm-ascend#9872: HCCL's plog records of links never established between two machines, read as nothing at all)
describe("Huawei CANN's process-log error records are failure lines", () => {
  it.each([
    '[ERROR] HCCL(55694,):2026-06-03-06:04:59.040.451 [hccl_socket_manager.cc:860] [60446][Wait][LinksEstablishCompleted] is failed. ret[9].',
    // CANN's HCCL troubleshooting guide (code index): a timeout at topology exchange, a socket that would not listen
    '[ERROR] HCCL(340,python3.9):2026-07-15-19:50:49.176.080 [topoinfo_exchange_server.cc:314] [5590][Get][Connection]topo exchange server get socket timeout! timeout[3600 s]',
    '[ERROR] HCCL(1009464,all_reduce_test):2025-03-15-00:41:48.470.172 [hccl_socket.cc:110] [1009464][InitGroupStage][RanktableDetect] socket type[0], listen on ip[192.168.2.199] and specific port[16666] fail.',
  ])('%#', (text) => {
    // (the socket that would not listen is PORT_IN_USE's since session 63: HCCL's EI0019, held-out batch 144)
    const code = /specific port\[/.test(text) ? 'PORT_IN_USE' : 'UNRECOGNISED_FAILURE'
    expect(scan(text).find((f) => f.code === code)?.severity).toBe('error')
  })

  it.each(['[WARNING] HCCL(55694,):2026-06-03-06:04:59.040.451 [hccl_comm.cc:10] retry', '[INFO] RUNTIME(1,python):2026-06-03-06:04:59.040.451 started'])(
    'near miss %#: warning and info records',
    (text) => {
      expect(scan(text).filter((f) => f.severity === 'error')).toEqual([])
    },
  )
})
