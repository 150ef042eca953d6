/**
 * The classes dev batch dev15 missed or read without naming what failed (issue 36; first score in commit b3831ba): a kernel's own
 * architecture guard ("This kernel only supports sm120."), transformers 5.15's refusal of a global read of a per-layer config attribute,
 * NVSHMEM's error-macro records, NIXL's UCX backend seeing VRAM as host memory, DeepEP's dispatch timeout and the NixlConnector's engine-id
 * mismatch; and the ptxas that Triton bundles. Each with several sources and the healthy lines of the same family that must stay clean.
 */
import { describe, expect, it } from 'vitest'
import { scanLog } from '../../src/preflight/signatures.js'

const scan = (text: string) => scanLog(text, 'paste')
const codes = (text: string) => scan(text).map((f) => f.code)
const clean = (text: string) => scan(text).filter((f) => f.severity === 'error' || f.code === 'UNRECOGNISED_FAILURE')

describe("GPU_ARCH_UNSUPPORTED: a kernel's own architecture guard (vLLM csrc/cutlass_extensions/common.hpp, DeepGEMM, FlashMLA)", () => {
  it('reads the guard line of each library and names the architecture the kernel was built for', () => {
    for (const [line, built] of [
      // eugr/spark-vllm-docker#143 and Avarok-Cybersecurity/dgx-vllm#9 (2026): GB10 (sm_121) on vLLM's sm120-only FP8 GEMM
      ['This kernel only supports sm120.', 'sm120'],
      // vllm-project/vllm PR #39712 (2026): Thor (sm_110) on the sm100f-only one
      ['This kernel only supports sm100f.', 'sm100f'],
      // later vLLM trees print the arch-specific suffix; the range guard of a fork of the same header
      ['This kernel only supports sm120a.', 'sm120a'],
      ['This kernel only supports sm[100, 120).', 'sm[100, 120)'],
      // DeepGEMM's DG_DEVICE_ASSERT and FlashMLA's CUTE_INVALID_CONTROL_PATH print the condition quoted inside the device assert
      [
        '/workspace/DeepGEMM/deep_gemm/include/deep_gemm/impls/sm100_bf16_gemm.cuh:412: void deep_gemm::sm100_bf16_gemm_impl(): block: [0,0,0], thread: [0,0,0] Assertion `false and "This kernel only supports sm_100f"` failed.',
        'sm_100f',
      ],
      ['Assertion `0 && "This kernel only supports sm90"` failed.', 'sm90'],
    ]) {
      const found = scan(line!).find((f) => f.code === 'GPU_ARCH_UNSUPPORTED')
      expect(found, line).toMatchObject({ severity: 'error', evidence: { 'Kernel built for': built } })
      expect(found?.fix, line).toContain('VLLM_DISABLED_KERNELS')
    }
  })

  it('reads it behind a Ray worker prefix and repeated, once', () => {
    const found = scan(
      [
        '(EngineCore pid=829571) (Worker_TP0 pid=829600) This kernel only supports sm100f.',
        '(EngineCore pid=829571) (Worker_TP0 pid=829600) This kernel only supports sm100f. [repeated 39x across cluster]',
        '(EngineCore pid=829571) RuntimeError: CUDA error: unspecified launch failure',
      ].join('\n'),
    ).filter((f) => f.code === 'GPU_ARCH_UNSUPPORTED')
    expect(found).toHaveLength(1)
  })

  it('keeps source lines that print the guard, prose about it and other kernels that support an architecture clean', () => {
    for (const line of [
      '    printf("This kernel only supports sm120.\\n");',
      '        DG_DEVICE_ASSERT(false and "This kernel only supports sm_100f");',
      '        CUTE_INVALID_CONTROL_PATH("This kernel only supports sm90");',
      'GB10 is SM12.1, not SM12.0: the kernel prints This kernel only supports sm120. and traps, see the patch',
      '(EngineCore pid=2025) INFO 08-13 11:27:02 [cutlass.py:88] This kernel supports sm90, sm100 and sm120 families.',
      'INFO 03-27 10:00:00 [fp8.py:120] Selected CutlassFP8ScaledMMLinearKernel for ModelOptFp8LinearMethod',
    ])
      expect(codes(line), line).not.toContain('GPU_ARCH_UNSUPPORTED')
  })
})

describe('GPU_ARCH_UNSUPPORTED: the ptxas Triton bundles (triton knobs.py TRITON_PTXAS_PATH / TRITON_PTXAS_BLACKWELL_PATH)', () => {
  it('names the assembler that refused the architecture and where to point Triton instead', () => {
    for (const [line, tool] of [
      // roboflow/inference PR #2442 (2026): Thor's sm_110a with Triton 3.6's bundled ptxas-blackwell (CUDA 12.9)
      ["ptxas-blackwell fatal: Value 'sm_110a' is not defined for option 'gpu-name'", 'ptxas-blackwell'],
      // triton-inference-server/server#8632 (2026): the same under torch.compile
      ["ptxas-blackwell fatal   : Value 'sm_110a' is not defined for option 'gpu-name'", 'ptxas-blackwell'],
      // triton-lang/triton#8539 (2025): GB10's sm_121a with Triton 3.5's bundled ptxas (CUDA 12.8)
      ["ptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'", 'ptxas'],
    ]) {
      const found = scan(line!).find((f) => f.code === 'GPU_ARCH_UNSUPPORTED')
      expect(found?.evidence['Reported by'], line).toBe(tool)
      expect(found?.fix, line).toContain('TRITON_PTXAS_PATH')
    }
  })

  it('keeps the nvcc and torch readings without the Triton advice', () => {
    const nvcc = scan("nvcc fatal   : Unsupported gpu architecture 'compute_121a'").find((f) => f.code === 'GPU_ARCH_UNSUPPORTED')
    expect(nvcc?.fix).not.toContain('TRITON_PTXAS_PATH')
  })
})

describe('VERSION_SKEW: transformers >= 5.15 refusing a global read of a per-layer attribute (configuration_utils.py)', () => {
  it('hints the skew beside the unrecognised failure, from the exception and from its message', () => {
    for (const text of [
      // RBLN-SW/vllm-rbln#1092 (2026): vLLM 0.24's get_head_size on Gemma-4
      [
        'transformers.integrations.heterogeneity.configuration_utils.AmbiguousGlobalPerLayerAttributeError:',
        "'head_dim' is a per-layer attribute and may vary across layers. Access it via the",
        'individual layer configs instead (e.g. config.per_layer_config[i].head_dim). ...',
      ].join('\n'),
      // vllm-project/vllm#52768 (2026): the exception with its message on one line
      "(APIServer pid=7) transformers.integrations.heterogeneity.configuration_utils.AmbiguousGlobalPerLayerAttributeError: 'head_dim' is a per-layer attribute and may vary across layers. Access it via the individual layer configs instead (e.g. config.per_layer_config[i].head_dim).",
      // compressed-tensors' get_num_kv_heads on Gemma-4 12B (a model-card note in the code index, 2026): the exception's bare name ends the traceback
      [
        '  File ".../compressed_tensors/utils/helpers.py", line 464, in get_num_kv_heads',
        '    if hasattr(config, "num_key_value_heads"):',
        '  File ".../transformers/integrations/heterogeneity/configuration_utils.py", line 298',
        '    raise AmbiguousGlobalPerLayerAttributeError(...)',
        'transformers.integrations.heterogeneity.configuration_utils.AmbiguousGlobalPerLayerAttributeError',
      ].join('\n'),
    ]) {
      const found = scan(text)
      expect(
        found.map((f) => f.code),
        text,
      ).toEqual(expect.arrayContaining(['UNRECOGNISED_FAILURE', 'VERSION_SKEW']))
      expect(found.find((f) => f.code === 'VERSION_SKEW')?.fix, text).toContain('transformers below 5.15')
    }
  })

  it('keeps a healthy start that reads per-layer configs clean', () => {
    expect(
      clean(
        [
          '(EngineCore pid=38) INFO 09-02 10:00:00 [config.py:548] Gemma 4 has heterogeneous head dimensions (head_dim 256 local, 512 global); forcing TRITON_ATTN.',
          '(EngineCore pid=38) INFO 09-02 10:00:01 [gpu_model_runner.py:4959] Model loading took 22.57 GiB memory and 16.195724 seconds',
        ].join('\n'),
      ),
    ).toEqual([])
  })
})

describe("UNRECOGNISED_FAILURE: NVSHMEM's error records (nvshmemi_util.h NVSHMEMI_NULL_ERROR_JMP / NVSHMEMI_ERROR_JMP)", () => {
  it('reads each record as a failure and names the transport and what to check', () => {
    for (const [line, transport] of [
      // sgl-project/sglang#12533 (2025): IBGDA in an unprivileged CI container
      ['/opt/nvshmem/nvshmem/src/modules/transport/ibgda/ibgda.cpp:1889: NULL value cannot allocate mlx5dv_devx_uar', 'ibgda'],
      // NVIDIA/nvshmem#33 (2025) and NVIDIA-NeMo/Megatron-Bridge#5050 (2026): B300 + CX8, the pip wheel's build paths
      ['/dvs/p4/build/sw/rel/gpgpu/toolkit/r13.0/main_nvshmem/src/modules/transport/ibgda/ibgda.cpp:2234: NULL value Unable to create ah.', 'ibgda'],
      ['/dvs/p4/build/sw/rel/gpgpu/toolkit/r12.9/main_nvshmem/src/modules/transport/ibgda/ibgda.cpp:2966: non-zero status: 7 create DCT share err.', 'ibgda'],
      ['/dvs/p4/build/sw/rel/gpgpu/toolkit/r12.9/main_nvshmem/src/host/init/init.cu:1047: non-zero status: 7 nvshmem setup connections failed', undefined],
    ]) {
      const found = scan(line!).find((f) => f.code === 'UNRECOGNISED_FAILURE')
      expect(found?.evidence['Kinds of failure line'], line).toContain('NVSHMEM error record')
      expect(found?.evidence['NVSHMEM transport'], line).toBe(transport)
      expect(found?.fix, line).toContain('NVSHMEM_DEBUG=INFO')
      if (transport === 'ibgda') expect(found?.fix, line).toContain('PeerMappingOverride=1')
    }
  })

  it("keeps NVSHMEM's WARN and INFO lines clean", () => {
    for (const line of [
      'WARN: Failed to initialize all selected devices. Perf may be limited.',
      '/opt/nvshmem/nvshmem/src/modules/transport/common/transport_ib_common.cpp:95: NVSHMEM INFO: ib_roce_get_version_num returned 2',
      'NVSHMEM configuration: NVSHMEM_IB_ENABLE_IBGDA=true NVSHMEM_REMOTE_TRANSPORT=ibgda',
      'WARN: IB: read failed in ib_roce_get_version_num: Invalid argument',
    ])
      expect(clean(line), line).toEqual([])
  })
})

describe("UNRECOGNISED_FAILURE: NIXL's UCX backend seeing VRAM as host memory (nixl src/utils/ucx/ucx_utils.cpp)", () => {
  it('reads the error record however it was pasted and says which UCX settings to change', () => {
    for (const text of [
      // NVIDIA Cosmos' troubleshooting page (2026): the Ray worker's .err, glog's letter without the date
      [
        'W ucx_utils.cpp:628] 8 NVIDIA GPU(s) were detected, but UCX CUDA support was not found!',
        'E ucx_utils.cpp:582] VRAM memory is detected as host by UCX...',
      ].join('\n'),
      // a vLLM EPLB run log quoted in the code index (2026): the bracketed file
      [
        'E [ucx_utils.cpp:592]  VRAM memory is detected as host by UCX. UCX is likely not configured with CUDA support. VRAM registration cannot proceed.',
        'E [nixl_agent.cpp:484] registerMem: registration failed for the specified or all potential backends',
      ].join('\n'),
      // the full glog record
      'E0704 12:31:08.411203 2219 ucx_utils.cpp:592] VRAM memory is detected as host by UCX. UCX is likely not configured with CUDA support. VRAM registration cannot proceed.',
    ]) {
      const found = scan(text).find((f) => f.code === 'UNRECOGNISED_FAILURE')
      expect(found?.evidence['What failed'], text).toContain('NIXL')
      expect(found?.fix, text).toContain('UCX_TLS')
    }
  })

  it("keeps NIXL's warning alone (a DRAM-buffer run prints it and works) and its INFO records clean", () => {
    for (const line of [
      'W ucx_utils.cpp:628] 8 NVIDIA GPU(s) were detected, but UCX CUDA support was not found!',
      'I nixl_agent.cpp:112] Backend UCX was instantiated',
      '(EngineCore pid=72) INFO 12-07 22:14:56 [nixl_connector.py:485] NIXLConnector get_num_new_matched_tokens: num_computed_tokens=0',
    ])
      expect(clean(line), line).toEqual([])
  })
})

describe("UNRECOGNISED_FAILURE: DeepEP's CPU-side dispatch timeout (csrc/deep_ep.cpp)", () => {
  it('names the wait and the three usual causes', () => {
    for (const line of [
      // NVIDIA-NeMo/RL#4027 (2026), NVIDIA-NeMo/Automodel#3967 (2026): DeepEP without its NVSHMEM 3.5.19 adaptation
      'RuntimeError: DeepEP error: timeout (dispatch CPU)',
      // an RL job's future failing with the engine's error (a results log in the code index, 2026)
      "AssertionError: Future future_d5eb6687411f failed: {'error': '500: Engine error: Operation failed: DeepEP error: timeout (dispatch CPU)', 'category': 'server'}",
      // behind vLLM's worker prefix
      '(Worker_DP0_EP0 pid=2823482) ERROR 08-02 19:43:44 [multiproc_executor.py:927] RuntimeError: DeepEP error: timeout (dispatch CPU)',
    ]) {
      const found = scan(line).find((f) => f.code === 'UNRECOGNISED_FAILURE')
      expect(found?.message, line).toContain("DeepEP's dispatch CPU wait")
      expect(found?.fix, line).toContain('NVSHMEM')
    }
  })
})

describe("UNRECOGNISED_FAILURE: the NixlConnector's engine-id mismatch (vLLM nixl_connector.py)", () => {
  it('names the side-channel host and the engines asked for and answering', () => {
    const found = scan(
      '(Worker_DP0_EP0 pid=2823482) ERROR 10-16 17:22:56 [nixl_connector.py:815] RuntimeError: Remote NIXL agent engine ID mismatch. Expected 46126a31-6b81-435d-a116-e3e34a76ded3_dp0,received 96b1c4ff-9edf-4d21-b7cf-975a5f441d03_dp0.',
    ).find((f) => f.code === 'UNRECOGNISED_FAILURE')
    expect(found?.evidence).toMatchObject({
      'Engine asked for': '46126a31-6b81-435d-a116-e3e34a76ded3_dp0',
      'Engine that answered': '96b1c4ff-9edf-4d21-b7cf-975a5f441d03_dp0',
    })
    expect(found?.fix).toContain('VLLM_NIXL_SIDE_CHANNEL_HOST')
    // vllm-project/vllm#27083 (2025): the same error with the id wrapped by the page, and the rbln fork's spacing
    for (const text of [
      'ERROR 10-16 17:22:56 [nixl_connector.py:815] RuntimeError: Remote NIXL agent engine ID mismatch. Expected 46126a31-6b81\n-435d-a116-e3e34a76ded3_dp0,received 96b1c4ff-9edf-4d21-b7cf-975a5f441d03_dp0.',
      'RuntimeError: Remote NIXL agent engine ID mismatch. Expected 9690d2d6-a66f-4fd8-905c-fd03dce5655f, received 495b4444-8935-4ada-a9d7-fe915b9c9595.',
    ])
      expect(scan(text).find((f) => f.code === 'UNRECOGNISED_FAILURE')?.fix, text).toContain('VLLM_NIXL_SIDE_CHANNEL_HOST')
  })

  it("keeps the connector's handshake INFO and DEBUG lines clean", () => {
    for (const line of [
      '(VllmWorker rank=1 pid=98474) DEBUG 07-08 02:13:53 [nixl_connector.py:464] NIXL handshake: get metadata took: 0.002419697993900627',
      '(VllmWorker rank=0 pid=98473) DEBUG 07-08 02:13:53 [nixl_connector.py:472] Querying master rank metadata on path: tcp://localhost:5559',
      '(APIServer pid=388692) INFO 05-15 02:58:00 [metrics.py:103] KV Transfer metrics: Num successful transfers=2, Avg xfer time (ms)=63.33',
    ])
      expect(clean(line), line).toEqual([])
  })
})
