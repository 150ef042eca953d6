/**
 * The classes held-out batches 25–27 (fixtures/README.md) showed missing, each tested on sources other than the batch's
 * capture, with near misses: ptxas refusing a PTX feature the target architecture lacks (GPU_ARCH_UNSUPPORTED); Fabric
 * Manager refusing to start (DRIVER_NO_GPU); a supervisor saying the OOM killer ended its process (OOM_KILLED) and a
 * process's end by SIGKILL in its parent's words (a failure line); NCCL's error trace (a failure line with the
 * transport's hint); transformers' sentence wrapped before the model type; and two things that are not failures: the
 * frames a warning prints to say where a call came from, and a thread's uncaught exception on a server that then served.
 * Batches 28–30: vLLM's world-size refusal quoted without its "in this node" (GPU_SHORTFALL), and the API server's own end
 * (a stop whose teardown is not read, until a new start).
 */
import { describe, expect, it } from 'vitest'
import { scan } from './support/paste-scan.js'

const codes = (text: string) => scan(text).map((f) => `${f.severity}:${f.code}`)
const of = (text: string, code: string) => scan(text).filter((f) => f.code === code)

describe('ptxas refusing a PTX feature of another architecture: GPU_ARCH_UNSUPPORTED with the feature and the target', () => {
  it.each([
    // vllm-project/vllm#41477 (2026): Triton's JIT on a GB10
    [
      "triton.runtime.errors.PTXASError: Internal Triton PTX codegen error\nptxas line 3727; error : Feature '.tile::scatter4' not supported on .target 'sm_121a'\nptxas fatal : Ptx assembly aborted due to errors",
      'PTX feature',
      '.tile::scatter4',
      'sm_121a',
    ],
    // InternLM/lmdeploy#3806: a build for an RTX 5090
    [
      "ptxas /tmp/tmpxft_00001af0_00000000-6_sm90_q64n32.ptx, line 10531; error   : Instruction 'tensormap.replace' not supported on .target 'sm_120'",
      'PTX instruction',
      'tensormap.replace',
      'sm_120',
    ],
    // antirez/ds4#672 (2026)
    [
      "ptxas /tmp/tmpxft_000793eb_00000000-6_ds4_mmq.ptx, line 283031; error   : Feature '.kind::mxf4' not supported on .target 'sm_120'",
      'PTX feature',
      '.kind::mxf4',
      'sm_120',
    ],
  ])('%#: not supported on the target', (text, key, value, target) => {
    const f = of(text, 'GPU_ARCH_UNSUPPORTED')
    expect(f).toHaveLength(1)
    expect(f[0]!.severity).toBe('error')
    expect(f[0]!.evidence).toMatchObject({ [key]: value, 'Target architecture': target, 'Reported by': 'ptxas' })
  })
  it('an older GPU than the feature needs (DeepLink-org/3DGSTensorCore#2 on a V100, mit-han-lab/llm-awq#89)', () => {
    const v100 = of(
      "ptxas /tmp/tmpxft_003fd531_00000000-6_tcgs_forward.ptx, line 126; error   : Feature 'ldmatrix' requires .target sm_75 or higher\nptxas /tmp/tmpxft_003fd531_00000000-6_tcgs_forward.ptx, line 126; error   : Modifier '.m8n8' requires .target sm_75 or higher",
      'GPU_ARCH_UNSUPPORTED',
    )
    expect(v100).toHaveLength(1)
    expect(v100[0]!.evidence).toMatchObject({ 'PTX feature': 'ldmatrix', 'Needs at least': 'sm_75' })
    const awq = of("ptxas /tmp/x.ptx, line 1866; error   : Feature '.m16n8k16' requires .target sm_80 or higher", 'GPU_ARCH_UNSUPPORTED')
    expect(awq[0]!.evidence).toMatchObject({ 'Needs at least': 'sm_80' })
  })
  it("near misses: ptxas's info lines and a sentence about features are no finding", () => {
    expect(codes("ptxas info    : Used 128 registers, 400 bytes cmem[0]\nptxas info    : Compiling entry function '_Z6kernelPf' for 'sm_121a'")).toEqual([])
    expect(
      of('INFO 05-09 10:46:07 [cuda.py:308] Feature flag tile scatter not supported on this target, using the fallback kernel', 'GPU_ARCH_UNSUPPORTED'),
    ).toEqual([])
  })
})

describe('Fabric Manager refusing to start: DRIVER_NO_GPU with the missing module', () => {
  it("nvidia-fabricmanager-start.sh's pre-start check on an NVLink 5 system (spectrocloud/CanvOS PR #700, 2026)", () => {
    const f = of(
      'Jul 20 16:15:36 edge-1 nvidia-fabricmanager-start.sh[2210]:  Detected NVL5+ system\nJul 20 16:15:36 edge-1 nvidia-fabricmanager-start.sh[2210]:  Kernel module "ib_umad" has not been loaded, fabric manager cannot be started',
      'DRIVER_NO_GPU',
    )
    expect(f).toHaveLength(1)
    expect(f[0]!.evidence).toMatchObject({ 'Kernel module missing': 'ib_umad' })
    expect(f[0]!.fix).toContain('modprobe ib_umad')
  })
  it("libibumad's words from the NVLink subnet manager (siderolabs/docs PR #581, 2026), the daemon's config refusal (siderolabs/extensions#511), systemd's", () => {
    const nvlsm = of(
      "10.0.0.101: nvlsm: ibwarn: [15] umad_init: can't read ABI version from /sys/class/infiniband_mad/abi_version (No such file or directory): is ib_umad module loaded?",
      'DRIVER_NO_GPU',
    )
    expect(nvlsm[0]!.evidence).toMatchObject({ 'Kernel module missing': 'ib_umad' })
    expect(of('10.0.0.5: fabric manager config file item: FABRIC_NODE_CONFIG_FILE has an invalid value', 'DRIVER_NO_GPU')).toHaveLength(1)
    expect(of('systemd[1]: Failed to start NVIDIA fabric manager service.', 'DRIVER_NO_GPU')).toHaveLength(1)
  })
  it("near misses: another InfiniBand daemon's umad_init line (linux-rdma/rdma-core PR #393: ibacm) and a healthy Fabric Manager", () => {
    expect(
      of(
        "ibacm[1796]: ibwarn: [1796] umad_init: can't read ABI version from /sys/class/infiniband_mad/abi_version (No such file or directory): is ib_umad module loaded?",
        'DRIVER_NO_GPU',
      ),
    ).toEqual([])
    expect(
      codes(
        'systemd[1]: Started NVIDIA fabric manager service.\nnv-fabricmanager[2400]: Successfully configured all the available NVSwitches to route GPU NVLink traffic.',
      ),
    ).toEqual([])
  })
})

describe('a process killed by SIGKILL, and a supervisor saying the OOM killer did it', () => {
  it('the supervisor names the OOM killer (JustVugg/colibri#305, 2026) and the plain forms: OOM_KILLED', () => {
    const colibri = of(
      "[engine terminated: killed by SIGKILL]\nnothing in the engine sends SIGKILL to itself: this is the kernel's OOM-killer...",
      'OOM_KILLED',
    )
    expect(colibri).toHaveLength(1)
    expect(colibri[0]!.severity).toBe('error')
    expect(of('worker 3 (pid 4410) was killed by the OOM killer', 'OOM_KILLED')).toHaveLength(1)
    expect(of('the Linux OOM killer killed vllm serve (pid 812)', 'OOM_KILLED')).toHaveLength(1)
  })
  it("near misses: Ray's list of possible causes, and advice, are no OOM kill", () => {
    const ray =
      'The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file. Some common causes include: (1) the process was killed by the OOM killer due to high memory usage, (2) ray stop --force was called, or (3) the worker crashed unexpectedly due to SIGSEGV or other unexpected errors.'
    expect(scan(ray).filter((f) => f.code === 'OOM_KILLED' && f.severity === 'error')).toEqual([])
    expect(of('If the process was killed by the OOM killer, lower --gpu-memory-utilization.', 'OOM_KILLED')).toEqual([])
  })
  it.each([
    '[engine terminated: killed by SIGKILL]',
    'traceback : Signal 9 (SIGKILL) received by PID 2231',
    "subprocess.CalledProcessError: Command '['vllm', 'serve']' died with <Signals.SIGKILL: 9>.",
    'Error: signal: killed',
    'Process finished with exit code 137 (interrupted by signal 9: SIGKILL)',
  ])('never silent: %s', (line) => {
    expect(codes(line)).toContain('error:UNRECOGNISED_FAILURE')
  })
})

describe("NCCL's error trace: a failure line with the transport's hint", () => {
  it('the proxy progress thread stopping (autoscriptlabs/nccl-mesh-plugin, 2026; NCCL/nccl#1814 behind its prefix)', () => {
    expect(codes('transport/net.cc:1538 -> 3\nproxy.cc:974 -> 3 [Progress Thread]')).toEqual(['error:UNRECOGNISED_FAILURE', 'warning:NCCL_TRANSPORT_ERROR'])
    expect(codes('hostname-test:984:1357 [4] NCCL INFO proxy.cc:874 -> 6 [Progress Thread]')).toContain('warning:NCCL_TRANSPORT_ERROR')
  })
  it('near misses: ncclInProgress (7) and the channel map are no failure', () => {
    expect(codes('gpu-a:31:31 [0] NCCL INFO init.cc:1805 -> 7\ngpu-a:31:31 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] via P2P/IPC')).toEqual([])
  })
})

describe("transformers' sentence wrapped before the model type: MODEL_NOT_SUPPORTED", () => {
  it("a hand wrap after 'has model type' (kenrollins/gemma-forge's journal, 2026)", () => {
    const f = of(
      'pydantic_core._pydantic_core.ValidationError: 1 validation error for ModelConfig\nValue error, The checkpoint you are trying to load has model type\n`gemma4` but Transformers does not recognize this architecture.',
      'MODEL_NOT_SUPPORTED',
    )
    expect(f).toHaveLength(1)
  })
  it("near miss: 'has model type' in another sentence", () => {
    expect(of('INFO the config has model type\nqwen3 and 36 layers', 'MODEL_NOT_SUPPORTED')).toEqual([])
  })
})

describe('not failures: a warning that prints where a call came from, a thread that died while the server went on', () => {
  const dynamo = [
    "/usr/local/lib/python3.12/dist-packages/torch/_dynamo/variables/functions.py:2148: UserWarning: Dynamo detected a call to a `functools.lru_cache`-wrapped function at 'einops.py:539'. Dynamo ignores the cache wrapper and directly traces the wrapped function.",
    '',
    'This call originates from:',
    '  File "/usr/local/lib/python3.12/dist-packages/einops/einops.py", line 539, in reduce',
    '    recipe = _prepare_transformation_recipe(pattern, reduction, axes_names=tuple(axes_lengths), ndim=len(shape))',
    '',
    '  torch._dynamo.utils.warn_once(msg)',
    'INFO 04-21 04:49:10 [backends.py:1148] Dynamo bytecode transform time: 9.99 s',
  ].join('\n')
  it("torch._dynamo's warn_once stack and logging's stack_info are no failure; a frame cut from its traceback still is", () => {
    expect(codes(dynamo)).toEqual([])
    expect(codes('WARNING something slow\nStack (most recent call last):\n  File "/app/serve.py", line 12, in <module>\n    main()\nINFO done')).toEqual([])
    expect(codes('  File "/usr/local/lib/python3.12/dist-packages/vllm/worker.py", line 88, in load\n    raise')).toContain('error:UNRECOGNISED_FAILURE')
  })
  const thread = [
    'Exception in thread Thread-1 (_report_usage_worker):',
    'Traceback (most recent call last):',
    '  File "/usr/local/lib/python3.12/dist-packages/cpuinfo/cpuinfo.py", line 2762, in get_cpu_info',
    '    output = json.loads(output, object_hook = _utf_to_str)',
    'json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)',
    'INFO 05-09 10:46:22 [default_loader.py:391] Loading weights took 13.48 seconds',
  ].join('\n')
  it("a thread's uncaught exception is forgotten once the server is seen working, and counts when it never is", () => {
    expect(codes(`${thread}\nINFO:     Application startup complete.`)).toEqual([])
    expect(codes(`${thread}\nINFO:     127.0.0.1:51842 - "GET /v1/models HTTP/1.1" 200 OK`)).toEqual([])
    expect(codes(thread)).toContain('error:UNRECOGNISED_FAILURE')
    // a failure after the thread's that stopped the start: no milestone follows, it counts
    expect(codes(`${thread}\nRuntimeError: Engine core initialization failed. See root cause above.`).length).toBeGreaterThan(0)
  })
})

describe("vLLM's world-size refusal, quoted short: GPU_SHORTFALL", () => {
  it.each([
    // llm-d/llm-d PR #764 (2026): a chart's TP left at 4 on a one-GPU pod, quoted without the rest of the sentence
    ['World size (4) is larger than the number of available GPUs (1)', '4', '1'],
    // a Kubernetes operator's write-up (velog-style notes in the code index): pydantic's wrapped form
    [
      '(APIServer pid=1) pydantic_core._pydantic_core.ValidationError: 1 validation error for ParallelConfig\n  Value error, World size (2) is larger than the number of available GPUs (1) in this\n  node. If this is intentional and you are using:',
      '2',
      '1',
    ],
  ])('%#', (text, tp, gpus) => {
    const f = of(text, 'GPU_SHORTFALL')
    expect(f).toHaveLength(1)
    expect(f[0]!.evidence).toMatchObject({ 'Workers asked for (TP, or TP×PP per node)': tp, 'GPUs vLLM sees': gpus })
  })
  it("near miss: torch's own check for a local rank is another message", () => {
    expect(of('RuntimeError: The local rank is larger than the number of available GPUs.', 'GPU_SHORTFALL')).toEqual([])
  })
})

describe("the API server's own end: its teardown is not read, a new start is", () => {
  const served = ['INFO:     Application startup complete.', 'INFO:     127.0.0.1:40096 - "GET /v1/models HTTP/1.1" 200 OK']
  const v0Teardown = [
    'INFO 05-10 16:27:55 [multiproc_worker_utils.py:133] Terminating local vLLM worker processes',
    '(APIServer pid=2659819) INFO 05-10 16:27:55 [launcher.py:101] Shutting down FastAPI HTTP server.',
    'Process SpawnProcess-1:',
    'Traceback (most recent call last):',
    '  File "/usr/lib/python3.12/multiprocessing/process.py", line 317, in _bootstrap',
    '    raise KeyboardInterrupt("MQLLMEngine terminated")',
    'KeyboardInterrupt: MQLLMEngine terminated',
  ]
  it('a served V0 server stopped with Ctrl-C (held-out batch 29): no finding', () => {
    expect(codes([...served, ...v0Teardown].join('\n'))).toEqual([])
    // the FastAPI line alone ends it too
    expect(codes([...served, ...v0Teardown.slice(1)].join('\n'))).toEqual([])
  })
  it('what failed before the end is read, and so is a new start after it', () => {
    expect(codes(['RuntimeError: CUDA error: an illegal memory access was encountered', ...v0Teardown].join('\n'))).toContain('error:UNRECOGNISED_FAILURE')
    const restart = [
      ...served,
      ...v0Teardown,
      'INFO 05-10 16:30:01 [api_server.py:1351] vLLM API server version 0.10.2',
      'RuntimeError: Engine core initialization failed. See root cause above.',
    ]
    expect(codes(restart.join('\n')).length).toBeGreaterThan(0)
  })
})

describe("batches 31–33: gpt-oss's tokenizer vocabulary, a metadata lookup that goes on, refusals of options and libraries", () => {
  it.each([
    // openai/harmony#46, vllm-project/vllm#22525: an air-gapped node
    'openai_harmony.HarmonyError: error downloading or loading vocab file: failed to download or load vocab file',
    // sgl-project/sglang#18074 (2026): the router's own words
    'Failed to load Harmony encoding: error downloading or loading vocab file: failed to download or load vocab file',
    // NVIDIA/TensorRT-LLM PR #14935 (2026)
    '[05/26/2026-11:55:37] [TRT-LLM] [E] [serve] Error in harmony chat completion: %s error downloading or loading vocab file: failed to download or load vocab file',
  ])('the encoding could not be downloaded: WEIGHTS_OFFLINE_MISSING (%#)', (line) => {
    const f = of(line, 'WEIGHTS_OFFLINE_MISSING')
    expect(f).toHaveLength(1)
    expect(f[0]!.fix).toContain('TIKTOKEN_ENCODINGS_BASE')
  })
  it('an empty copy is named by its hash (held-out batch 32), another wrong copy is not called empty', () => {
    const empty = of(
      'openai_harmony.HarmonyError: invalid tiktoken vocab file: hash mismatch: computed=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855, expected=446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d',
      'WEIGHTS_OFFLINE_MISSING',
    )
    expect(empty[0]!.evidence).toMatchObject({ Meaning: 'an empty file' })
    const partial = of(
      'openai_harmony.HarmonyError: invalid tiktoken vocab file: hash mismatch: computed=0d4a2f0c1c0f2e9b8c9e0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f, expected=446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d',
      'WEIGHTS_OFFLINE_MISSING',
    )
    expect(partial).toHaveLength(1)
    expect(partial[0]!.evidence['Meaning']).toBeUndefined()
  })
  it("vLLM's safetensors metadata lookup refusing a local path is not a missing model; huggingface_hub's own refusal still is", () => {
    const lookup =
      "(APIServer pid=21) ERROR 02-09 09:50:27 [repo_utils.py:47] Error retrieving safetensors: Repo id must use alphanumeric chars, '-', '_' or '.'. The name cannot start or end with '-' or '.' and the maximum length is 96: '/gpt-oss-120b'., retrying 1 of 2"
    expect(scan(lookup).filter((f) => f.code.startsWith('WEIGHTS_'))).toEqual([])
    const refused =
      "huggingface_hub.errors.HFValidationError: Repo id must use alphanumeric chars, '-', '_' or '.'. The name cannot start or end with '-' or '.' and the maximum length is 96: '/models/missing'."
    expect(scan(refused).some((f) => f.code.startsWith('WEIGHTS_'))).toBe(true)
  })
  it("Fabric Manager's start script refusing its arguments (NVIDIA/gpu-operator#1595): DRIVER_NO_GPU with the option; its usage for -h alone is none", () => {
    const banner = [
      'NVIDIA Fabric Manager Start Script',
      'Warning: If you are not a fabric manager developer, please avoid running this script directly.',
      'Usage: /usr/bin/nvidia-fabricmanager-start.sh [script options] --args [arguments to run fabric manager]',
    ]
    const f = of(
      ['Starting NVIDIA fabric manager daemon for NVLink5+...', 'Unknown option: /usr/share/nvidia/nvswitch/fabricmanager.cfg', ...banner].join('\n'),
      'DRIVER_NO_GPU',
    )
    expect(f).toHaveLength(1)
    expect(f[0]!.evidence).toMatchObject({ 'Option refused': '/usr/share/nvidia/nvswitch/fabricmanager.cfg' })
    expect(codes(banner.join('\n'))).toEqual([])
  })
  it.each([
    'Unknown option: --fm-config',
    "getopt: unrecognized option '--nnodes'",
    "ray-start.sh: invalid option -- 'z'",
    "/usr/local/nvidia/mig-manager/nvidia-mig-parted: /lib64/libc.so.6: version `GLIBC_2.34' not found (required by /usr/local/nvidia/mig-manager/nvidia-mig-parted)",
    'vllm: error while loading shared libraries: libpython3.12.so.1.0: cannot open shared object file: No such file or directory',
  ])('never silent: %s', (line) => {
    expect(codes(line)).toContain('error:UNRECOGNISED_FAILURE')
  })
  it("Ray's older GCS refusal without '(ray head)' (Ray's cluster FAQ): RAY_GCS_UNREACHABLE with the address", () => {
    const f = of(
      'Unable to connect to GCS at 10.0.0.5:6379. Check that (1) Ray GCS with matching version started successfully at the specified address, and (2) there is no firewall setting preventing access.',
      'RAY_GCS_UNREACHABLE',
    )
    expect(f[0]!.evidence).toMatchObject({ 'GCS address': '10.0.0.5:6379' })
  })
  it("NGC's compatibility banner notes error 804 and runs on; torch's 804 is the failure", () => {
    const banner = [
      'WARNING: CUDA Minor Version Compatibility mode ENABLED.',
      '  Using driver version 580.126.09 which has support for CUDA 13.0.  This container',
      '  was built with CUDA 13.1 and will be run in Minor Version Compatibility mode.',
      '  [[Forward compatibility was attempted on non supported HW (CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE) cuInit()=804]]',
    ]
    expect(of(banner.join('\n'), 'CUDA_DRIVER_TOO_OLD')).toEqual([])
    expect(
      of('RuntimeError: Unexpected error from cudaGetDeviceCount(). Error 804: forward compatibility was attempted on non supported HW', 'CUDA_DRIVER_TOO_OLD'),
    ).toHaveLength(1)
  })
  it("Ray's SIGTERM note after the run worked is its stop (held-out batch 32); before, what follows is read", () => {
    const sigterm = [
      '*** SIGTERM received at time=1759954468 on cpu 5 ***',
      '[2025-10-08 13:14:28,827 E 132079 132079] logging.cc:474: *** SIGTERM received at time=1759954468 on cpu 5 ***',
      '[2025-10-08 13:14:28,828 E 132079 132079] logging.cc:474: PC: @     0x4002f3c31ea0  (unknown)  (unknown)',
    ]
    expect(codes(['Processed prompts: 100%|██████████| 1000/1000 [01:28<00:00, 11.26it/s]', ...sigterm].join('\n'))).toEqual([])
    expect(codes(['INFO 10-08 13:10:01 [model.py:1561] Using max model len 131072', ...sigterm].join('\n'))).toContain('error:UNRECOGNISED_FAILURE')
  })
})

describe("batches 34–35: NVML refusing to start, NCCL's RAS declaring a process dead", () => {
  it.each([
    // NVIDIA/nvidia-container-toolkit#1227 (2025): after systemctl daemon-reload
    ['(container) $ nvidia-smi -L\nFailed to initialize NVML: Unknown Error', 'Unknown Error'],
    // NVIDIA/nvidia-docker#1671
    ['root@098b49afe624:/# nvidia-smi \nFailed to initialize NVML: Unknown Error', 'Unknown Error'],
    ['Failed to initialize NVML: Driver Not Loaded', 'Driver Not Loaded'],
    ['Failed to initialize NVML: Insufficient Permissions', 'Insufficient Permissions'],
  ])('NO_GPU_VISIBLE (%#)', (text, why) => {
    const f = of(text, 'NO_GPU_VISIBLE')
    expect(f).toHaveLength(1)
    expect(f[0]!.evidence).toMatchObject({ NVML: why })
  })
  it('the container that lost its GPUs is told to be recreated; the version mismatch keeps its own reading', () => {
    expect(of('Failed to initialize NVML: Unknown Error', 'NO_GPU_VISIBLE')[0]!.fix).toContain('Recreate the container')
    expect(of('Failed to initialize NVML: Driver/library version mismatch', 'NO_GPU_VISIBLE')).toEqual([])
    expect(of('Failed to initialize NVML: Driver/library version mismatch', 'DRIVER_NO_GPU')).toHaveLength(1)
  })
  it("NCCL's RAS: a process declared dead is a failure line; incomplete data and mismatches alone are not (NVIDIA/nccl docs, troubleshooting/ras)", () => {
    const dead =
      'Errors\n======\n\nDEAD\n  1 job process is considered dead (unreachable via the RAS network)\n  Process 3487984 on node 172.16.64.213 managing GPU 5'
    expect(codes(dead)).toContain('error:UNRECOGNISED_FAILURE')
    const incomplete = 'Errors\n======\n\nINCOMPLETE\n  Missing communicator data from 1 job process\n  Process 3487984 on node 172.16.64.213 managing GPU 5'
    expect(codes(incomplete)).toEqual([])
  })
})

describe('batches 36–37: XLA at import, vLLM off CUDA, KServe fetching a model', () => {
  it("XLA's factory re-registration lines are no failure (held-out batch 37); a real XLA error record still is", () => {
    const xla = [
      'E0000 00:00:1762342011.351652   18908 cuda_dnn.cc:8579] Unable to register cuDNN factory: Attempting to register factory for plugin cuDNN when one has already been registered',
      'E0000 00:00:1762342011.357862   18908 cuda_blas.cc:1407] Unable to register cuBLAS factory: Attempting to register factory for plugin cuBLAS when one has already been registered',
      'E0000 00:00:1762342011.357862   18908 cuda_fft.cc:477] Unable to register cuFFT factory: Attempting to register factory for plugin cuFFT when one has already been registered',
    ]
    expect(codes(xla.join('\n'))).toEqual([])
    expect(codes('E0000 00:00:1762342011.351652   18908 cuda_dnn.cc:535] Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR')).toContain(
      'error:UNRECOGNISED_FAILURE',
    )
  })
  it("vLLM's warning that vllm._C could not load libcuda is a warning (an AWS Neuron start); the process's own OSError is an error", () => {
    const warn = of(
      "WARNING 06-24 15:39:07 [interface.py:225] Failed to import from vllm._C: ImportError('libcuda.so.1: cannot open shared object file: No such file or directory')",
      'DRIVER_NO_GPU',
    )
    expect(warn.map((f) => f.severity)).toEqual(['warning'])
    expect(of('OSError: libcuda.so.1: cannot open shared object file: No such file or directory', 'DRIVER_NO_GPU').map((f) => f.severity)).toEqual(['error'])
  })
  it("KServe's storage initializer finding no model (kserve/website's debugging guide): WEIGHTS_NOT_FOUND with the URI", () => {
    const f = of('RuntimeError: Failed to fetch model. The path or model gs://kfserving-examples/models/sklearn/iris-1 does not exist.', 'WEIGHTS_NOT_FOUND')
    expect(f[0]!.evidence).toMatchObject({ 'Storage URI': 'gs://kfserving-examples/models/sklearn/iris-1' })
    expect(codes('[I 200517 03:40:20 storage:60] Successfully copied gs://kfserving-examples/models/sklearn/iris to /mnt/models')).toEqual([])
  })
  it('a Knative revision not ready for an exit code is never silent; a ready one is nothing', () => {
    const header = 'NAME                                   CONFIG NAME                      K8S SERVICE NAME                       GENERATION   READY   REASON'
    expect(
      codes(
        `${header}\nsklearn-iris-predictor-default-84bzf   sklearn-iris-predictor-default   sklearn-iris-predictor-default-84bzf   8            False   ExitCode137s`,
      ),
    ).toContain('error:UNRECOGNISED_FAILURE')
    expect(
      codes(`${header}\nsklearn-iris-predictor-default-84bzf   sklearn-iris-predictor-default   sklearn-iris-predictor-default-84bzf   8            True`),
    ).toEqual([])
  })
})
