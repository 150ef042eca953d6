/**
 * The classes dev batch dev13 missed (issue 36; first score in commit f955095): a launcher's port pre-check
 * in GPUStack's own words (PORT_IN_USE); Python logging records whose level is a separated field after the
 * time and the logger's name (GPUStack's "- name - ERROR -", FastChat's "| ERROR |"), which the fallback did
 * not read as failure lines, so a log of only such lines was silent; and vLLM's data-parallel start-up
 * handshake as vLLM really prints it ("…to sendinitial message…") or as a cut paste keeps it (the raise line).
 */
import { describe, expect, it } from 'vitest'
import { scanLog } from '../../src/preflight/signatures.js'

const scan = (text: string) => scanLog(text, 'paste')
const codes = (text: string) => scan(text).map((f) => f.code)

describe("PORT_IN_USE: a launcher's port pre-check (GPUStack gpustack/cmd/prerun.py check_ports_availability)", () => {
  it('names the port and the service for each port the pre-check found taken', () => {
    const cases: [string, string, string][] = [
      ["2026-07-13 09:35:26.955017+08:00 - gpustack.cmd.prerun - ERROR - Port 10150 required for service 'gpustack' is not available.", '10150', 'gpustack'],
      ["2026-07-13 09:35:26.955143+08:00 - gpustack.cmd.prerun - ERROR - Port 10151 required for service 'gpustack' is not available.", '10151', 'gpustack'],
      // the same record behind a container log's prefix, another service the pre-check covers (postgres, the gateway, grafana)
      ["gpustack-worker  | Port 5432 required for service 'postgres' is not available.", '5432', 'postgres'],
    ]
    for (const [line, port, service] of cases) {
      const found = scan(line).find((f) => f.code === 'PORT_IN_USE')
      expect(found?.evidence, line).toMatchObject({ Port: port, Service: service })
      expect(found?.fix, line).toContain(`sport = :${port}`)
    }
  })

  it("does not read the pre-check's success or other ports' words", () => {
    for (const line of [
      '2026-07-13 09:35:26.954542+08:00 - gpustack.cmd.prerun - INFO - Starting pre-run checks and setup s6-overlay configuration for GPUStack...',
      '2026-07-13 09:35:27.101010+08:00 - gpustack.cmd.prerun - INFO - Pre-run checks and setup completed successfully.',
      "Port 10150 required for service 'gpustack' is available.",
      'INFO:     Uvicorn running on http://0.0.0.0:10150 (Press CTRL+C to quit)',
    ])
      expect(codes(line), line).not.toContain('PORT_IN_USE')
  })
})

describe('UNRECOGNISED_FAILURE: Python logging records with the level as its own field', () => {
  it('reads "- name - ERROR/CRITICAL -" (the cookbook format GPUStack uses) and "| ERROR |" (FastChat) as failure lines', () => {
    for (const line of [
      // gpustack#5846: logger.fatal() prints CRITICAL
      '2026-07-13 09:35:26.955182+08:00 - gpustack.cmd.prerun - CRITICAL - Failed to pre-check the configuration: One or more required ports are not available.',
      // gpustack#3695 (GPUStack main, 2025-12): a worker that cannot reach its server
      '2025-12-04 15:59:26.877095+08:00 - gpustack.worker.worker - ERROR - Failed to send heartbeat to server: timed out',
      // vllm#2119 / FastChat#2817: FastChat's vllm_worker output
      '2023-12-15 00:46:02 | ERROR | stderr |     engine = AsyncLLMEngine.from_engine_args(engine_args)',
    ]) {
      const found = scan(line).find((f) => f.code === 'UNRECOGNISED_FAILURE')
      expect(found?.evidence, line).toMatchObject({ 'Kinds of failure line': expect.stringContaining('ERROR/FATAL record') })
    }
  })

  it('keeps INFO, DEBUG and WARNING records of the same formats clean, and a message that only mentions ERROR', () => {
    for (const line of [
      '2026-06-17 16:49:19.444655+08:00 - gpustack.worker.backends.base - INFO - Preparing model files...',
      '2026-06-17 16:49:27.907052+08:00 - huggingface_hub.utils._http - WARNING - Warning: You are sending unauthenticated requests to the HF Hub. Please set a HF_TOKEN to enable higher rate limits and faster downloads.',
      '2025-05-08T12:09:31+00:00 - gpustack.worker.backends.vllm - DEBUG - Model environment variables: VLLM_LOGGING_LEVEL=ERROR, CUDA_LAUNCH_BLOCKING=1, NCCL_DEBUG=TRACE',
      "2023-12-15 00:44:33 | INFO | model_worker | Loading the model ['vicuna'] on worker 3c2f, log level ERROR - only",
    ])
      expect(
        scan(line).filter((f) => f.severity === 'error' || f.code === 'UNRECOGNISED_FAILURE'),
        line,
      ).toEqual([])
  })
})

describe("ENGINE_DEAD: the front-end's start-up handshake with its engines (v1/engine/core_client.py, vLLM 0.8 until PR #27444)", () => {
  it('reads the message as vLLM prints it, without the blank its two joined literals lose, and the raise line of a cut traceback', () => {
    const cases: [string, string][] = [
      // vllm-project/vllm-ascend#3977 (vLLM 0.11.0, DP=2 over two nodes)
      [
        '(ApiServer_0 pid=25528) TimeoutError: Timed out waiting for engines to sendinitial message on input socket.',
        'Timed out waiting for engines to send initial message on input socket',
      ],
      // vLLM PR #27444 (DP/EP 16 with DeepGEMM): the paste ends on the raise's source line
      [
        '(ApiServer_7 pid=161396)     raise TimeoutError("Timed out waiting for engines to send"',
        'Timed out waiting for engines to send initial message on input socket (the raise in v1/engine/core_client.py; the message line is cut)',
      ],
      // the wording with its blank, as threads retype it (vllm#32116, source-families.test.ts)
      [
        '(ApiServer_0 pid=10466) TimeoutError: Timed out waiting for engines to send initial message on input socket.',
        'Timed out waiting for engines to send initial message on input socket',
      ],
    ]
    for (const [line, handshake] of cases) {
      const found = scan(line).find((f) => f.code === 'ENGINE_DEAD')
      expect(found?.evidence.Handshake, line).toBe(handshake)
      expect(found?.message, line).toContain('still starting')
      expect(found?.fix, line).toContain('VLLM_ENGINE_READY_TIMEOUT_S')
      expect(found?.fix, line).toContain('--data-parallel-address')
    }
  })

  it("keeps the engine's own waiting lines and the other frames of that traceback off ENGINE_DEAD", () => {
    for (const line of [
      // vllm-ascend#3977: the engine core still busy, an INFO line every minute
      '(EngineCore_DP0 pid=25527) INFO 11-04 18:54:33 [shm_broadcast.py:466] No available shared memory broadcast block found in 60 seconds. This typically happens when some processes are hanging or doing some time-consuming work (e.g. compilation).',
      '(ApiServer_7 pid=161396)   File "/home/ray/anaconda3/lib/python3.11/site-packages/vllm/v1/engine/core_client.py", line 496, in __init__',
      '(ApiServer_7 pid=161396)     self.engine_core = EngineCoreClient.make_async_mp_client(',
      'export VLLM_ENGINE_READY_TIMEOUT_S=1800',
    ])
      expect(codes(line), line).not.toContain('ENGINE_DEAD')
  })
})

describe('GPU_SHORTFALL hint: "invalid device ordinal", a GPU index the node does not have (cudaErrorInvalidDevice)', () => {
  it('hints at the global rank used as the local device beside the UNRECOGNISED_FAILURE', () => {
    for (const line of [
      // LMCache/LMCache#1988 (SGLang over two nodes, LMCacheConnector built with the TP rank as its device)
      'torch.AcceleratorError: CUDA error: invalid device ordinal',
      // meta-llama/llama-cookbook#90 (torch.cuda.set_device(rank) on the second and third node)
      'RuntimeError: : CUDA error: invalid device ordinal',
      // vllm-project/vllm#8984 (a worker's init_device behind the multiproc prefix)
      '(VllmWorkerProcess pid=2020957) ERROR 10-01 10:44:31 multiproc_worker_utils.py:228] RuntimeError: CUDA error: invalid device ordinal',
    ]) {
      const found = scan(line)
      expect(
        found.map((f) => f.code),
        line,
      ).toEqual(expect.arrayContaining(['UNRECOGNISED_FAILURE', 'GPU_SHORTFALL']))
      const hint = found.find((f) => f.code === 'GPU_SHORTFALL')
      expect(hint?.severity, line).toBe('warning')
      expect(hint?.evidence['Words that tell'], line).toMatch(/invalid device ordinal/i)
      expect(hint?.fix, line).toContain('LOCAL_RANK')
    }
  })

  it('leaves other CUDA errors to their own families', () => {
    expect(codes('RuntimeError: CUDA error: invalid device function')).not.toContain('GPU_SHORTFALL')
    expect(codes('RuntimeError: CUDA error: an illegal memory access was encountered (cudaErrorInvalidDevicePointer)')).not.toContain('GPU_SHORTFALL')
    expect(codes('INFO 03-17 05:18:20 [parallel_state.py:1203] world_size=4 rank=2 local_rank=0 device ordinal 0')).toEqual([])
  })
})

describe("UNRECOGNISED_FAILURE quotes Ascend's HCCL window check (the size the MoE kernels need and HCCL_BUFFSIZE)", () => {
  it('reads the check in CANN and sgl-kernel-npu wordings as a failure line', () => {
    for (const line of [
      // vllm-project/vllm-ascend#16835 (GLM-5.3 PD disaggregation, CANN moe_distribute_combine_v2_tiling.cpp)
      '        HCCL_BUFFSIZE_EP is too SMALL, maxBs = 64, h = 6144,NEEDED_HCCL_BUFFSIZE_HIERARCHY((moeExpertNum * maxBs * (h * MAX_OUT_DTYPE_SIZE + (3 * (k + 7) / 8 * 8) *sizeof(uint32_t) + 64) + 404 * 1024 * 1024)) = 600MB, HCCL_BUFFSIZE=256MB.[FUNC:CheckActualWinSize][FILE:moe_distribute_combine_v2_tiling.cpp][LINE:104]',
      // sgl-project/sgl-kernel-npu PR #91's OP_LOGE format (cam_moe_combine_normal_tiling.cc), rendered
      'HCCL_BUFFSIZE is too SMALL, maxBs = 256, h = 7168, epWorldSize = 16, localMoeExpertNum = 16, tokenNeedSizeCombine = 14336, k = 8, NEEDED_HCCL_BUFFSIZE(((maxBs * k * tokenNeedSizeCombine)) + 3MB + 204MB) * 2) = 470MB, HCCL_BUFFSIZE=200MB.',
    ]) {
      const found = scan(line).find((f) => f.code === 'UNRECOGNISED_FAILURE')
      expect(found?.evidence['Kinds of failure line'], line).toContain('Ascend HCCL buffer check')
      expect(found?.evidence['Failure lines'], line).toContain('HCCL_BUFFSIZE=')
    }
  })

  it('keeps the variable set in a start script and HCCL_BUFFSIZE in a config dump clean', () => {
    for (const line of [
      'export HCCL_BUFFSIZE=1024',
      "INFO 11-04 18:50:23 [ray_env.py:65] Copying the following environment variables to workers: ['HCCL_BUFFSIZE']",
    ])
      expect(codes(line), line).toEqual([])
  })
})
