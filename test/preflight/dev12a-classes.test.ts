import { describe, expect, it } from 'vitest'
import { scanLog } from '../../src/preflight/signatures.js'

const scan = (text: string) => scanLog(text, 'paste')
const codes = (text: string) => scan(text).map((f) => f.code)
const errors = (text: string) => scan(text).filter((f) => f.severity === 'error')

describe("IMAGE_LACKS_VLLM: vLLM's compiled extension failing to load, in the dynamic loader's own words", () => {
  it('reads the file and the symbol, and tells a torch symbol from a kernel the build left out', () => {
    const cases: [string, string, RegExp][] = [
      // eugr/spark-vllm-docker PR #141 (2026): a cu132 vLLM wheel on a cu130 torch nightly
      ['ImportError: _C.abi3.so: undefined symbol: _ZN3c1013MessageLoggerC1EPKciib', '_ZN3c1013MessageLoggerC1EPKciib', /^torch/],
      // vllm#13608
      [
        'ImportError: /workspace/vllm-abo/vllm/_C.abi3.so: undefined symbol: _ZN5torch3jit17parseSchemaOrNameERKSsb',
        '_ZN5torch3jit17parseSchemaOrNameERKSsb',
        /^torch/,
      ],
      // vllm#14942 (a const member: _ZNK)
      [
        'ImportError: vllm/vllm/_C.abi3.so: undefined symbol: _ZNK3c1011StorageImpl27throw_data_ptr_access_errorEv',
        '_ZNK3c1011StorageImpl27throw_data_ptr_access_errorEv',
        /^torch/,
      ],
      // vllm#21226's title: no colon after "symbol"
      ['ImportError: vllm/_C.abi3.so: undefined symbol _ZN3c106ivalue14ConstantString6createENSt7', '_ZN3c106ivalue14ConstantString6createENSt7', /^torch/],
      // eelbaz/dgx-spark-vllm-setup#3: a source build on a GB10 without the sm100 MoE kernel (at::Tensor only in its arguments)
      [
        'ImportError: /home/ll***/dgx-spark-vllm-setup/vllm-install/vllm/vllm/_C.abi3.so: undefined symbol: _Z20cutlass_moe_mm_sm100RN2at6TensorERKS0_S3_S3_S3_S3_S3_S3_S3_S3_bb',
        '_Z20cutlass_moe_mm_sm100RN2at6TensorERKS0_S3_S3_S3_S3_S3_S3_S3_S3_bb',
        /^not torch/,
      ],
      // macOS dyld (vllm#36202's wording), as Python raises it and as the issue title quotes its two parts
      [
        'ImportError: dlopen(/opt/anaconda3/envs/v/lib/python3.11/site-packages/vllm/_C.abi3.so, 0x0002): Symbol not found: __ZN3c1013MessageLoggerC1EPKcii',
        '_ZN3c1013MessageLoggerC1EPKcii',
        /^torch/,
      ],
      [
        'Symbol not found: __ZN3c1013MessageLoggerC1EPKcii\\n Referenced from: <6A12389C-7A10-3CA4-BEDF-893991822933> /opt/anaconda3/envs/vllm-inference/lib/python3.11/site-packages/vllm/_C.abi3.so',
        '_ZN3c1013MessageLoggerC1EPKcii',
        /^torch/,
      ],
      // behind a Ray process prefix, and one of vLLM's other extensions
      [
        '(EngineCore_DP0 pid=311) ImportError: /usr/local/lib/python3.12/dist-packages/vllm/_moe_C.abi3.so: undefined symbol: _ZN2at4cuda24getCurrentCUDABlasHandleEv',
        '_ZN2at4cuda24getCurrentCUDABlasHandleEv',
        /^torch/,
      ],
    ]
    for (const [line, symbol, from] of cases) {
      const f = scan(line).find((x) => x.code === 'IMAGE_LACKS_VLLM')
      expect(f, line).toBeDefined()
      expect(f!.severity).toBe('error')
      expect(f!.evidence['Missing symbol'], line).toBe(symbol)
      expect(f!.evidence['Symbol comes from'], line).toMatch(from)
      expect(codes(line), line).not.toContain('UNRECOGNISED_FAILURE')
    }
  })
  it("near miss: vLLM's own import warning (a platform plugin's healthy start), and another package's undefined symbol", () => {
    // vllm/_custom_ops.py logs this as a WARNING; on Ascend/TPU plugins it is routine (the op error that follows is what fails)
    const warning =
      "WARNING 01-30 20:57:18 _custom_ops.py:14] Failed to import from vllm._C with ImportError('/home/orin/envs/sglang/lib/python3.10/site-packages/vllm/_C.abi3.so: undefined symbol: _ZNK3c1011StorageImpl27throw_data_ptr_access_errorEv')"
    expect(scan(warning)).toEqual([])
    for (const line of [
      // Dao-AILab/flash-attention#975: flash-attn's extension, not vLLM's
      'ImportError: /home/linjl/anaconda3/envs/sd/lib/python3.10/site-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN3c105ErrorC2ENS_14SourceLocationE',
      // torch against another NCCL
      'ImportError: /usr/local/lib/python3.12/dist-packages/torch/lib/libtorch_cuda.so: undefined symbol: ncclCommWindowDeregister',
      // another package's stable-ABI extension
      'ImportError: /usr/local/lib/python3.10/dist-packages/sgl_kernel/common_ops.abi3.so: undefined symbol: _ZN3c104cuda9SetDeviceEa',
    ])
      expect(codes(line), line).not.toContain('IMAGE_LACKS_VLLM')
  })
})

describe('UNRECOGNISED_FAILURE: a native CUDA check that prints and exits is a failure line, its CUDA error read', () => {
  it("quotes vLLM's custom all-reduce check (no Python traceback follows) and DeepEP's, with the file:line and the error", () => {
    const cases: [string, string, string, RegExp | undefined][] = [
      // vllm#52778 (2026): TP=2 across two GB200 NVL72 trays
      [
        "Cuda error /workspace/csrc/custom_all_reduce.cuh:143 'invalid resource handle'",
        '/workspace/csrc/custom_all_reduce.cuh:143',
        'invalid resource handle',
        /spans hosts/,
      ],
      // vllm#2641: the same check's words with "Failed: " (a driver issue there: no cause claimed)
      [
        "Failed: Cuda error /home/my/vllm/csrc/custom_all_reduce.cuh:417 'resource already mapped'",
        '/home/my/vllm/csrc/custom_all_reduce.cuh:417',
        'resource already mapped',
        undefined,
      ],
      // vllm#5613: vLLM's older check without "Cuda error"
      [
        "Failed: /home/runner/work/vllm/vllm/csrc/custom_all_reduce.cuh:310 'invalid argument'",
        '/home/runner/work/vllm/vllm/csrc/custom_all_reduce.cuh:310',
        'invalid argument',
        undefined,
      ],
      // vllm PR #39925 (2026): DeepEP low-latency across an MNNVL domain
      ["RuntimeError: Failed: CUDA error .../deep_ep.cpp:226 'invalid resource handle'", '.../deep_ep.cpp:226', 'invalid resource handle', /fabric handles/],
      // llm-d/llm-d#671 (2026): DeepEP's other error names no cause
      [
        "(APIServer pid=1) (EngineCore_DP9 pid=933) ERROR 01-31 01:01:42 [core.py:866] RuntimeError: Failed: CUDA error /tmp/deepep/csrc/deep_ep.cpp:371 'invalid argument'",
        '/tmp/deepep/csrc/deep_ep.cpp:371',
        'invalid argument',
        undefined,
      ],
    ]
    for (const [line, where, error, means] of cases) {
      const f = scan(line).find((x) => x.code === 'UNRECOGNISED_FAILURE')
      expect(f, line).toBeDefined()
      expect(f!.evidence['Native check'], line).toBe(where)
      expect(f!.evidence['Error it reports'], line).toBe(error)
      if (means) {
        expect(f!.evidence['Usually means'], line).toMatch(means)
        expect(f!.fix, line).toMatch(/^(?:Start vLLM with --disable-custom-all-reduce|Use a vLLM whose DeepEP)/)
      } else expect(f!.evidence['Usually means'], line).toBeUndefined()
    }
  })
  it('near miss: healthy lines about all-reduce and "Failed" counts are no failure', () => {
    const healthy = [
      '(RayWorkerWrapper pid=16311) WARNING 08-02 01:43:14 custom_all_reduce.py:69] Custom allreduce is disabled because this process group spans across nodes.',
      "[2026-06-28 13:34:12 TP7] CustomAllReduceV2 is disabled because it's not supported on more than two PCIe-only GPUs. To silence this warning, specify disable_custom_all_reduce=True explicitly.",
      'Failed requests:                         0',
      "INFO 09-03 16:28:23 [cuda_communicator.py:245] Using ['PYNCCL'] all-reduce backends (in dispatch order) for group 'tp:0'",
    ].join('\n')
    expect(errors(healthy)).toEqual([])
    expect(codes(healthy)).not.toContain('UNRECOGNISED_FAILURE')
  })
})

describe('VERSION_SKEW (hint): transformers of another release than the installed vLLM was written for', () => {
  it("names the family beside the UNRECOGNISED_FAILURE for transformers 5's tokenizers and for names transformers moved", () => {
    for (const line of [
      // QwenLM/Qwen3-VL#2058, rllm-org/rllm#388 (2026)
      "(APIServer pid=75487) AttributeError: Qwen2Tokenizer has no attribute all_special_tokens_extended. Did you mean: 'num_special_tokens_to_add'?",
      // runpod-workers/worker-vllm PR #258 (2026)
      'AttributeError: TokenizersBackend has no attribute all_special_tokens_extended',
      // vllm-ascend PR #2365, deepseek-ai/DeepSeek-OCR#39
      "ImportError: cannot import name 'DeepseekV2Config' from 'transformers' (/home/sss/miniconda3/envs/vllm/lib/python3.10/site-packages/transformers/__init__.py)",
      "ImportError: cannot import name 'LlamaFlashAttention2' from 'transformers.models.llama.modeling_llama' (/root/miniconda3/lib/python3.12/site-packages/transformers/models/llama/modeling_llama.py). Did you mean: 'LlamaAttention'?",
    ]) {
      const found = scan(line)
      expect(
        found.find((f) => f.code === 'UNRECOGNISED_FAILURE'),
        line,
      ).toBeDefined()
      const hint = found.find((f) => f.code === 'VERSION_SKEW')
      expect(hint?.severity, line).toBe('warning')
      expect(hint?.fix, line).toMatch(/transformers<5/)
    }
  })
  it("near miss: vLLM's own modules and other attribute errors are not read as transformers' version", () => {
    expect(codes("AttributeError: 'Qwen2Tokenizer' object has no attribute 'apply_chat_template'")).not.toContain('VERSION_SKEW')
    // a name missing from vLLM's own module is code written for another vLLM release (held-out batch 15's class), not transformers'
    const vllmName = scan(
      "ImportError: cannot import name 'get_tokenizer' from 'vllm.transformers_utils.tokenizer' (/usr/local/lib/python3.12/dist-packages/vllm/transformers_utils/tokenizer.py)",
    ).filter((f) => f.code === 'VERSION_SKEW')
    expect(vllmName).toHaveLength(1)
    expect(vllmName[0]!.message).toMatch(/another vLLM release/)
    expect(vllmName[0]!.fix).not.toMatch(/transformers<5/)
    // a healthy line that names transformers is no failure line at all
    expect(scan("(APIServer pid=1) INFO 03-06 10:56:46 [utils.py:223] non-default args: {'tokenizer_mode': 'auto'} transformers 5.3.0")).toEqual([])
  })
})

describe('ENGINE_DEAD: a headless data-parallel node refused, with the load balancing the front-end chose', () => {
  it('reads the mode from the autoswitch warning (also wrapped) or the rank inference, and names both ways out', () => {
    // gpustack/gpustack#6221 (2026, vLLM 0.29), wrapped as the thread quotes it
    const gpustack = [
      'data_parallel_hybrid_lb is not eligible when',
      'data_parallel_size_local = 1, autoswitch to data_parallel_external_lb.',
      'RuntimeError: Remote engine 1 must not use --headless',
      'in external or hybrid dp lb mode',
    ].join('\n')
    // vLLM's one-line warning, then the refusal behind a process prefix (vllm-ascend PR #16204's CI, vLLM 0.28)
    const oneLine = [
      'WARNING 09-10 02:11:05 [arg_utils.py:1702] data_parallel_hybrid_lb is not eligible when data_parallel_size_local = 1, autoswitch to data_parallel_external_lb.',
      '(APIServer pid=12) RuntimeError: Remote engine 2 must not use --headless in external or hybrid dp lb mode',
    ].join('\n')
    // vllm PR #54694's run log: the rank inferred from the node rank (external LB)
    const inferred = [
      'INFO 09-01 10:00:00 [arg_utils.py:2180] Inferred data_parallel_rank 2 from node_rank 1 for external lb',
      'RuntimeError: Remote engine 3 must not use --headless in external or hybrid dp lb mode',
    ].join('\n')
    for (const [text, mode] of [
      [gpustack, /^external \(switched from hybrid/],
      [oneLine, /^external \(switched from hybrid/],
      [inferred, /^external \(vLLM inferred data-parallel rank 2 from node rank 1\)/],
    ] as const) {
      const f = scan(text).find((x) => x.code === 'ENGINE_DEAD')
      expect(f, text).toBeDefined()
      expect(f!.evidence['Load balancing the front-end chose'], text).toMatch(mode)
      expect(f!.fix, text).toMatch(/--data-parallel-start-rank/)
      expect(f!.fix, text).toMatch(/drop --headless/)
    }
  })
  it('near miss: the warning alone is a start going on; the opposite refusal keeps its own fix', () => {
    expect(
      scan(
        'WARNING 09-10 02:11:05 [arg_utils.py:1702] data_parallel_hybrid_lb is not eligible when data_parallel_size_local = 1, autoswitch to data_parallel_external_lb.',
      ),
    ).toEqual([])
    const f = scan('RuntimeError: Remote engine 1 must use --headless unless in external or hybrid dp lb mode').find((x) => x.code === 'ENGINE_DEAD')
    expect(f?.evidence['--headless']).toBe('missing')
    expect(f?.evidence['Load balancing the front-end chose']).toBeUndefined()
    expect(f?.fix).toMatch(/^Start every node but the front-end with/)
  })
})
