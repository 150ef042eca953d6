import { describe, expect, it } from 'vitest'
import { scanLog } from '../../src/preflight/signatures.js'

const scan = (text: string) => scanLog(text, 'paste')

describe("VLLM_FLAG_UNKNOWN: a value the image's vLLM refuses after the flags parsed", () => {
  it('reads the attention backend and the choices, bare, inside pydantic and behind a process prefix', () => {
    const cases: [string, string][] = [
      // vllm-project/vllm-ascend#4197 (2025-11): a plugin's backend name the main vLLM's enum lacks
      ["ValueError: Unknown attention backend: 'ASCEND'. Valid options are: FLASH_ATTN, TRITON_ATTN, XFORMERS, ROCM_ATTN, TORCH_SDPA, FLASHINFER", 'ASCEND'],
      // spark-arena/recipe-registry#23's shape (2026): a recipe's backend renamed in a refreshed image, raised inside pydantic's config check
      [
        "(APIServer pid=74)   Value error, Unknown attention backend: 'B12X_MLA_SPARSE'. Valid options are: FLASH_ATTN, TRITON_ATTN, FLASHINFER, FLASHMLA",
        'B12X_MLA_SPARSE',
      ],
      // the env var path (VLLM_ATTENTION_BACKEND=XFORMERS on a vLLM that dropped xformers), worker-prefixed
      [
        "(Worker_TP1 pid=2421861) ERROR 02-12 23:57:21 [multiproc_executor.py:824] ValueError: Unknown attention backend: 'XFORMERS'. Valid options are: FLASH_ATTN, TRITON_ATTN, FLASHINFER",
        'XFORMERS',
      ],
    ]
    for (const [line, value] of cases) {
      const f = scan(`INFO starting\n${line}\n`).find((x) => x.code === 'VLLM_FLAG_UNKNOWN')
      expect(f, line).toBeDefined()
      expect(f!.severity).toBe('error')
      expect(f!.evidence.Value).toBe(value)
      expect(f!.evidence['Choices this version offers']).toContain('FLASH_ATTN')
      expect(f!.fix).toContain('VLLM_ATTENTION_BACKEND')
    }
  })

  it("reads pydantic's literal check of a config field with the value given (vllm PR #18872)", () => {
    const text = [
      'pydantic_core._pydantic_core.ValidationError: 1 validation error for DeviceConfig',
      "device.literal['auto','cuda','neuron','cpu','tpu','xpu','hpu']",
      "  Input should be 'auto', 'cuda', 'neuron', 'cpu', 'tpu', 'xpu' or 'hpu' [type=literal_error, input_value='npu', input_type=str]",
    ].join('\n')
    const f = scan(text).find((x) => x.code === 'VLLM_FLAG_UNKNOWN')
    expect(f?.evidence.Value).toBe('npu')
    expect(f?.evidence['Choices this version offers']).toContain("'hpu'")
  })

  it('stays quiet on healthy lines that name a backend', () => {
    for (const line of [
      'INFO 01-20 13:03:52 [cuda.py:368] Using AttentionBackendEnum.FLASH_ATTN backend.',
      '(EngineCore_DP0 pid=144) INFO [cuda.py:301] Using FLASHINFER attention backend out of potential backends: [FLASHINFER, TRITON_ATTN]',
      'INFO Valid options are: FLASH_ATTN, TRITON_ATTN (from --help)',
    ])
      expect(
        scan(line).map((f) => f.code),
        line,
      ).not.toContain('VLLM_FLAG_UNKNOWN')
  })
})
