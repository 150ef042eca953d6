/**
 * Classes found in session 60 (held-out batches 79–84, scored first: 23/35 right, 27/35 with the collectors' alsoFair codes, no false
 * alarm on 13 healthy), each tested on public sources other than the capture that showed it, with near misses.
 */
import { describe, expect, it } from 'vitest'
import { bad, scan } from './support/paste-scan.js'

const unrecognised = (text: string) => scan(text).find((x) => x.code === 'UNRECOGNISED_FAILURE')

// (held-out batch 81's ROCm/rocm-systems#2209: three HIP runtime records and nothing else, read as nothing at all before this)
describe("AMD's HIP runtime error records (AMD_LOG_LEVEL, level 1): never silent", () => {
  it.each([
    // ROCm/rocm-systems#2209 (2026): a legacy IPC setting in vLLM's ROCm images
    [
      ':1:rocmemory.cpp :1043: Failed to create memory for IPC, failed with hsa_status: 4097\n:1:hip_memory.cpp:3354: IPC memory creation failed for memory: 0xbae00000',
      'Failed to create memory for IPC',
    ],
    // the runtime's timed format with pid and thread (found with find_string; the HSA stack not coming up)
    [
      ':3:rocdevice.cpp            :426 : 1368798841724 us: 596395: [tid:0x7f7fa8f883c0] Initializing HSA stack.\n:1:rocdevice.cpp            :434 : 1368798841785 us: 596395: [tid:0x7f7fa8f883c0] hsa_init failed.',
      'hsa_init failed',
    ],
    // an unsupported GPU (gfx803) refused by the runtime
    [
      ':1:rocdevice.cpp            :708 : 8226052119d us:  Unsupported HSA device gfx803 (PCI ID 67ef) for ISA amdgcn-amd-amdhsa--gfx803',
      'Unsupported HSA device gfx803',
    ],
    // a device exception behind a vLLM worker's prefix
    [
      '(VllmWorker rank=1 pid=77544) :1:rocdevice.cpp            :3438: 48517558015 us: [pid:77544 tid: 0x7fd5af5ff6c0] HW Exception Error',
      'HW Exception Error',
    ],
  ])('%#', (text, quoted) => {
    const f = unrecognised(text)
    expect(f?.severity).toBe('error')
    expect(JSON.stringify(f?.evidence)).toContain(quoted)
  })

  it.each([
    // the info and debug levels of a healthy run, and the level-1 record the runtime prints when a process exits normally
    ':3:rocdevice.cpp            :2225: 13991779823 us:  Device=0x2bcc59d0, freeMem_ = 0x3fb000000\n:3:hip_memory.cpp           :797 : 13991779829 us:  hipFree: Returned hipSuccess :',
    ':1:rocdevice.cpp            :3339: 13991780601 us:  Unknown Event Type',
    ':4:rocdevice.cpp            :2186: 32130196219 us: [pid:39416 tid: 0x71a40bfff6c0] Allocate hsa device memory (nil), size 0x29b00',
  ])('near miss %#: no failure', (text) => {
    expect(bad(text)).toEqual([])
  })
})

// (held-out batch 81's llm-d/llm-d PR #2270: oneCCL's two lines, read as nothing at all before this)
describe("Intel oneCCL's error records and exceptions: never silent", () => {
  it.each([
    // llm-d/llm-d PR #2270 (2026): libfabric with no providers in an XPU pod at TP 4
    [
      '  oneCCL: atl_ofi_comm.cpp:232 init_transport: EXCEPTION: failed to initialize ATL\n  CCL_ERROR| atl_ofi_helper.cpp:1118 fi_getinfo error: ret -61, providers 0',
      'failed to initialize ATL',
    ],
    // intel/torch-ccl#54 (2023): a worker thread that could not start
    [
      '2023:11:28-16:35:45:(35980) |CCL_WARN| did not find MPI-launcher specific variables, switch to ATL/OFI, to force enable ATL/MPI set CCL_ATL_TRANSPORT=mpi\n2023:11:28-16:35:45:(35980) |CCL_ERROR| base_thread.cpp:36 start: error while creating worker thread #0 pthread_create returns 22',
      'error while creating worker thread',
    ],
    // intel/intel-extension-for-pytorch#810 (2025): no network provider on a PVC node
    [
      '2025:05:23-19:04:20:(168955) |CCL_ERROR| atl_ofi_helper.cpp:1635 atl_ofi_open_nw_provs: can not open network providers',
      'can not open network providers',
    ],
  ])('%#', (text, quoted) => {
    const f = unrecognised(text)
    expect(f?.severity).toBe('error')
    expect(JSON.stringify(f?.evidence)).toContain(quoted)
  })

  it.each([
    // oneCCL's warnings in a healthy Ray collective test (intel/llm-scaler#295's start)
    '(RayCOMMTester pid=5197) 2026:02:27-21:25:25: 5197 |CCL_WARN| did not find MPI-launcher specific variables, switch to ATL/OFI, to force enable ATL/MPI set CCL_ATL_TRANSPORT=mpi\n(RayCOMMTester pid=5197) 2026:02:27-21:25:25: 5197 |CCL_WARN| value of CCL_SYCL_CCL_BARRIER changed to be 1 (default:0)',
    'INFO 06-01 10:00:00 [xpu.py:80] Using CCL_ERROR_CHECKS=0 for the xccl backend',
  ])('near miss %#: no failure', (text) => {
    expect(bad(text)).toEqual([])
  })
})

// (held-out batch 84's vllm-project/vllm#30969: EngineCore's traceback frames behind `[EngineCore_DP0 pid=37]`, read as nothing at all)
describe("a process tag in square brackets, or with its fields apart by blanks, is a prefix like Ray's", () => {
  it.each([
    // vllm-project/vllm#30969 (2025): frames of a failed start, its exception cut off
    [
      '[EngineCore_DP0 pid=37] ERROR 12-12 05:05:56 [core.py:843]   File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/models/transformers/base.py", line 302, in recursive_replace\n[EngineCore_DP0 pid=37] ERROR 12-12 05:05:56 [core.py:843]     _recursive_replace(self.model, prefix="model")',
      'UNRECOGNISED_FAILURE',
    ],
    // the same tag before a known failure (find_string: pasted shm_broadcast and KV-cache lines carry it)
    [
      '[EngineCore_DP0 pid=404] ERROR 11-19 21:09:35 [core.py:708] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.19 GiB of which 1.20 GiB is free.',
      'GPU_OUT_OF_MEMORY',
    ],
    // vLLM 0.8–0.10's worker tag, whose fields a blank parts (not a comma): an exception behind it was read as nothing at all
    [
      '(VllmWorker rank=1 pid=4148422) ERROR 03-07 13:51:49 [multiproc_executor.py:470] RuntimeError: NCCL communicator was aborted on rank 1.',
      'UNRECOGNISED_FAILURE',
    ],
  ])('%#', (text, code) => {
    expect(scan(text).map((f) => f.code)).toContain(code)
  })

  it('near miss: a healthy line behind the bracketed tag is not a failure', () => {
    expect(
      bad(
        '[EngineCore_DP0 pid=404] INFO 11-19 21:09:35 [v1/core/kv_cache_utils.py:1087] GPU KV cache size: 226,336 tokens\n[EngineCore_DP0 pid=288] INFO shm_broadcast.py:542 No available shared memory broadcast block found in 60 seconds.',
      ),
    ).toEqual([])
  })
})

describe("ModelScope's download check failing: WEIGHTS_CORRUPT with the file and both digests", () => {
  it.each([
    // vllm-project/vllm#13962 (2025): every TP worker downloading into one ModelScope cache at once
    [
      '(VllmWorkerProcess pid=118) ERROR 02-27 02:17:20 multiproc_worker_utils.py:242] modelscope.hub.errors.FileIntegrityError: File /root/.cache/modelscope/hub/._____temp/deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5b/model.safetensors integrity check failed, expected sha256 signature is 58858233513d76b8703e72eed6ce16807b523328188e13329257fb9594462945, actual is 2f3a365c1d7ab2ba8cb1ec82dc6a8e5d9e4e63f1c2a3e8f0aa1b2c3d4e5f6a7b, the download may be incomplete, please try again.',
      'model.safetensors',
      false,
    ],
    // modelscope/modelscope#1365 (2025): the ERROR record before the raise; the digest of no bytes
    [
      '2025-06-10 11:48:17,107 - modelscope - ERROR - File /home/admin/.cache/models/._____temp/XiaomiMiMo/MiMo-VL-7B-RL/model-00001-of-00004.safetensors integrity check failed, expected sha256 signature is 6ffce274900d874f319372ee3dfe13ca98d43a3468b3e07a44c0834c4dc83a09, actual is e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855, the download may be incomplete, please try again.',
      'model-00001-of-00004.safetensors',
      true,
    ],
    // modelscope/modelscope#758 (2024): the older wording without digests
    [
      '2024-02-10 10:05:42,800 - modelscope - ERROR - File ./temp/tmpyhge8o3g/qwen1.5-72b-chat-q5_k_m.gguf.a integrity check failed, the download may be incomplete, please try again.',
      'qwen1.5-72b-chat-q5_k_m.gguf.a',
      false,
    ],
  ])('%#', (text, file, empty) => {
    const f = scan(text).find((x) => x.code === 'WEIGHTS_CORRUPT')
    expect(f?.severity).toBe('error')
    expect(f?.evidence.File).toContain(file)
    expect(f?.message.includes('empty file')).toBe(empty)
  })

  it("near miss: ModelScope's own fallback from its streamed digest is not a failure", () => {
    expect(bad('Mismatched real-time digest found, falling back to lump-sum hash computation')).toEqual([])
  })
})

describe('a Ray placement group with fewer bundles than the engine asks for: GPU_SHORTFALL with both numbers', () => {
  it.each([
    // OpenRLHF/OpenRLHF PR #728 (2025): the hybrid engine's shared group sized from the actor's GPUs
    ['ValueError: placement group bundle index 6 is invalid. Valid placement group indexes: 0-4', '6', '5'],
    // gpustack/gpustack#2500 (2025): behind EngineCore's ERROR records
    ['ERROR 07-15 14:23:15 [core.py:396] ValueError: placement group bundle index 4 is invalid. Valid placement group indexes: 0-4', '4', '5'],
    // gpustack/gpustack#2547 (2025): vllm-ascend across nodes
    ['ERROR 07-18 09:55:55 [core.py:586] ValueError: placement group bundle index 8 is invalid. Valid placement group indexes: 0-2', '8', '3'],
  ])('%#', (text, asked, has) => {
    const f = scan(text).find((x) => x.code === 'GPU_SHORTFALL')
    expect(f?.severity).toBe('error')
    expect(f?.evidence['Bundle asked for']).toBe(asked)
    expect(f?.evidence['Bundles in the group']).toBe(has)
  })

  it('near miss: a placement group that is ready is no shortfall', () => {
    expect(scan('INFO 07-15 14:23:10 [ray_utils.py:250] Placement group bundle index 0 is on node 10.0.0.1').map((f) => f.code)).not.toContain('GPU_SHORTFALL')
  })
})

describe("a model cache the node's user may not write: WEIGHTS_ACCESS_DENIED", () => {
  it.each([
    // tenstorrent/tt-inference-server#37 (2024): huggingface_hub's makedirs of the cache in a vLLM server's container
    ["    mkdir(name, mode)\nPermissionError: [Errno 13] Permission denied: '/home/user/cache_root/huggingface'", '/home/user/cache_root/huggingface', 'error'],
    // tenstorrent/tt-inference-server#4574 (2026): HF_HOME on a volume the container user does not own
    [
      "Failed to download model weights for tiiuae/Falcon3-7B-Instruct:\n  [Errno 13] Permission denied: '/home/container_app_user/cache_root/huggingface'",
      '/home/container_app_user/cache_root/huggingface',
      'error',
    ],
    // OpenShift's random user with HOME=/ (huggingface/inference-benchmarker#30's cause)
    ["PermissionError: [Errno 13] Permission denied: '/.cache'", '/.cache', 'error'],
    // av/harbor#262 (2026): the hub's notices that go on without recording in the cache
    [
      "Ignored error while writing commit hash to /root/.cache/huggingface/hub/models--Qwen--Qwen3.8-27B/refs/main: [Errno 13] Permission denied: '/root/.cache/huggingface/hub'.",
      '/root/.cache/huggingface/hub',
      'warning',
    ],
    // mikesvoboda/nemotron-v3-home-security-intelligence#1386 (2026)
    [
      "Could not cache non-existence of file. Will ignore error and continue. Error: [Errno 13] Permission denied: '/cache/huggingface/hub/models--PekingU--rtdetr_r50vd_coco_o365/.no_exist/457857cec8ac28ddede40ecee9eed2beca321af8/processor_config.json'",
      '/cache/huggingface/hub/models--PekingU--rtdetr_r50vd_coco_o365',
      'warning',
    ],
  ])('%#', (text, path, severity) => {
    const f = scan(text).find((x) => x.code === 'WEIGHTS_ACCESS_DENIED')
    expect(f?.severity).toBe(severity)
    expect(f?.evidence.Path).toContain(path)
  })

  it.each([
    // a healthy start's notice about a path outside any model cache (held-out batch 82's arc_prophet)
    "(EngineCore_DP0 pid=1044287) Could not determine user, using default path. Error: [Errno 13] Permission denied: '/mnt/nfs_test'",
    // ssh's refusal is not the cache
    'Permission denied (publickey,password).',
  ])('near miss %#: not a model cache', (text) => {
    expect(scan(text).map((f) => f.code)).not.toContain('WEIGHTS_ACCESS_DENIED')
  })
})
