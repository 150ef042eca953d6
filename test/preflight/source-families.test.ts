/**
 * Issue 36, the families swept from their sources (vLLM, Ray, NCCL, torch, huggingface_hub, transformers, Triton/FlashInfer):
 * each family read from at least two sources — a source's own wording (file named) and public captures (thread named beside
 * each line, cut to the lines that matter) — with near misses that must stay quiet. Wordings and versions in
 * src/preflight/WORDINGS.md ("Swept from the sources").
 */
import { describe, expect, it } from 'vitest'
import { codes, one, quiet, scan } from './fixtures/scan.js'

describe('GPU_ARCH_UNSUPPORTED: an image without kernels for the GPU (GB10 sm_121 and others)', () => {
  it('ptxas from Triton, with the architecture as evidence (triton-lang/triton#8539, gpustack/gpustack#4372, vllm-project/recipes#269)', () => {
    const triton = one("`ptxas` stderr:\nptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'\n", 'GPU_ARCH_UNSUPPORTED')
    expect(triton).toMatchObject({ severity: 'error', evidence: { Architecture: 'sm_121a', 'Reported by': 'ptxas' } })
    expect(triton.fix).toContain('sm_121')
    expect(one("ptxas-blackwell fatal : Value 'sm_110a' is not defined for option 'gpu-name'\n", 'GPU_ARCH_UNSUPPORTED').evidence.Architecture).toBe('sm_110a')
  })
  it("nvcc's and FlashInfer's wordings (nvcc; flashinfer/compilation_context.py as quoted in vllm-project/vllm#31740)", () => {
    expect(one("nvcc fatal   : Unsupported gpu architecture 'compute_121a'\n", 'GPU_ARCH_UNSUPPORTED').evidence.Architecture).toBe('compute_121a')
    const fi = one(
      '(EngineCore_DP0 pid=120) ERROR 01-28 06:36:45 [core.py:946] RuntimeError: No supported CUDA architectures found for major versions [10].\n',
      'GPU_ARCH_UNSUPPORTED',
    )
    expect(fi.evidence).toMatchObject({ Architecture: 'major [10]', 'Reported by': 'FlashInfer' })
  })
  it('CUDA\'s "no kernel image" (vllm-project/vllm#1936 behind a compose prefix, vllm#4187)', () => {
    expect(codes('vllm_1   | RuntimeError: CUDA error: no kernel image is available for execution on the device\n')).toEqual(['GPU_ARCH_UNSUPPORTED'])
    expect(
      codes(
        'RuntimeError: CUDA error: no kernel image is available for execution on the device CUDA kernel errors might be asynchronously reported at some other API call\n',
      ),
    ).toEqual(['GPU_ARCH_UNSUPPORTED'])
  })
  it("torch's capability warning is a warning; the GB10 min/max capability notice of healthy starts is nothing", () => {
    const w = one('UserWarning: NVIDIA GB10 with CUDA capability sm_121 is not compatible with the current PyTorch installation.\n', 'GPU_ARCH_UNSUPPORTED')
    expect(w).toMatchObject({ severity: 'warning', evidence: { Architecture: 'sm_121', GPU: 'NVIDIA GB10' } })
    quiet(
      'UserWarning: \n    Found GPU0 NVIDIA GB10 which is of cuda capability 12.1.\n    Minimum and Maximum cuda capability supported by this version of PyTorch is\n    (8.0) - (12.0)\n  warnings.warn(\nINFO 12-05 10:00:00 [api_server.py:1000] Starting vLLM API server 0 on http://0.0.0.0:8000\n',
    )
  })
})

describe('MODEL_NOT_SUPPORTED: a model the image does not know', () => {
  it("transformers' model type (configuration_auto.py; vllm-project/vllm#19793, #13579)", () => {
    const f = one(
      'ValueError: The checkpoint you are trying to load has model type `qwen3_moe` but Transformers does not recognize this architecture. This could be because of an issue with the checkpoint, or because your version of Transformers is out of date.\n',
      'MODEL_NOT_SUPPORTED',
    )
    expect(f.evidence['Model type']).toBe('qwen3_moe')
    expect(f.fix).toContain('newer')
    expect(
      one(
        '(VllmWorkerProcess pid=190) ERROR 02-23 21:47:05 multiproc_worker_utils.py:242] ValueError: The checkpoint you are trying to load has model type `qwen2_5_vl` but Transformers does not recognize this architecture.\n',
        'MODEL_NOT_SUPPORTED',
      ).evidence['Model type'],
    ).toBe('qwen2_5_vl')
  })
  it("vLLM's registry (model_executor/models/registry.py; vllm-project/vllm#9713, #10481) and the transformers fallback (hiyouga/LlamaFactory#7922)", () => {
    expect(
      one(
        "ValueError: Model architectures ['LlamaModel'] are not supported for now. Supported architectures: dict_keys(['AquilaModel'])\n",
        'MODEL_NOT_SUPPORTED',
      ).evidence.Architectures,
    ).toBe("['LlamaModel']")
    expect(
      one(
        "  Value error, Model architectures ['Glm4MoeForCausalLM'] failed to be inspected. Please check the logs for more details. [type=value_error]\n",
        'MODEL_NOT_SUPPORTED',
      ).evidence.Architectures,
    ).toBe("['Glm4MoeForCausalLM']")
    expect(
      one(
        'ValueError: InternVLForConditionalGeneration has no vLLM implementation and the Transformers implementation is not compatible with vLLM.\n',
        'MODEL_NOT_SUPPORTED',
      ).evidence.Architectures,
    ).toBe('InternVLForConditionalGeneration')
  })
})

describe('weights: the hub unreachable, a directory without config.json, vLLM refusing the model argument, a checkpoint missing tensors', () => {
  it('transformers\' "We couldn\'t connect" (utils/hub.py) is the offline family with the repo id', () => {
    const f = one(
      "OSError: We couldn't connect to 'https://huggingface.co' to load this file, couldn't find it in the cached files and it looks like Qwen/Qwen3-8B is not the path to a directory containing a file named config.json.\n",
      'WEIGHTS_OFFLINE_MISSING',
    )
    expect(f.evidence).toMatchObject({ Host: 'huggingface.co', 'Repo id': 'Qwen/Qwen3-8B' })
  })
  it('urllib3 and aiohttp connection errors to the hub are the same family; a retry is a warning, a cache fallback too', () => {
    const f = one(
      `requests.exceptions.ConnectionError: (MaxRetryError("HTTPSConnectionPool(host='huggingface.co', port=443): Max retries exceeded with url: /api/models/Qwen/Qwen3-8B/revision/main (Caused by NameResolutionError(\\"<urllib3.connection.HTTPSConnection object at 0x7f>: Failed to resolve 'huggingface.co' ([Errno -3] Temporary failure in name resolution)\\"))"), '(Request ID: 4b0c)')\n`,
      'WEIGHTS_OFFLINE_MISSING',
    )
    expect(f).toMatchObject({ severity: 'error', evidence: { Host: 'huggingface.co' } })
    expect(
      one('aiohttp.client_exceptions.ClientConnectorError: Cannot connect to host hf-mirror.com:443 ssl:default\n', 'WEIGHTS_OFFLINE_MISSING').evidence.Host,
    ).toBe('hf-mirror.com')
    // huggingface_hub's http_backoff: the request is retried and may succeed
    quiet(
      `'(ReadTimeoutError("HTTPSConnectionPool(host='huggingface.co', port=443): Read timed out. (read timeout=10)"), '(Request ID: 1b2c)')' thrown while requesting HEAD https://huggingface.co/Qwen/Qwen3-8B/resolve/main/config.json\nRetrying in 1s [Retry 1/5].\nINFO 12-05 10:00:00 [api_server.py:1000] Starting vLLM API server 0 on http://0.0.0.0:8000\n`,
    )
  })
  it('"does not appear to have a file named" (transformers) names the directory and the file', () => {
    const f = one(
      "OSError: /models/Qwen3-32B does not appear to have a file named config.json. Checkout 'https://huggingface.co//models/Qwen3-32B/tree/None' for available files.\n",
      'WEIGHTS_NOT_FOUND',
    )
    expect(f.evidence).toMatchObject({ Path: '/models/Qwen3-32B', 'File missing': 'config.json' })
    expect(
      one(
        "OSError: Can't load config for 'meta-llama/Llama-3.1-8B'. If you were trying to load it from 'https://huggingface.co/models', make sure you don't have a local directory with the same name.\n",
        'WEIGHTS_NOT_FOUND',
      ).evidence['Repo id'],
    ).toBe('meta-llama/Llama-3.1-8B')
  })
  it('vLLM\'s "Invalid repository ID or local directory" (transformers_utils/config.py): not found, or offline when HF_HUB_OFFLINE was seen', () => {
    const line = "ValueError: Invalid repository ID or local directory specified: '/mnt/models'.\nPlease verify the following requirements:\n"
    expect(one(line, 'WEIGHTS_NOT_FOUND').evidence.Path).toBe('/mnt/models')
    const offline = scan(
      `INFO 12-05 10:00:00 [envs.py:100] HF_HUB_OFFLINE=1\nValueError: Invalid repository ID or local directory specified: 'Qwen/Qwen3-8B'.\n`,
    )
    expect(offline.map((f) => f.code)).toContain('WEIGHTS_OFFLINE_MISSING')
    expect(offline.map((f) => f.code)).not.toContain('WEIGHTS_NOT_FOUND')
  })
  it('"Following weights were not initialized from checkpoint" (default_loader.py; OpenGVLab/InternVL#1232, vllm-project/vllm-omni#1738)', () => {
    const f = one(
      "(Worker_TP0 pid=85304) ERROR 11-25 17:57:23 [multiproc_executor.py:743] ValueError: Following weights were not initialized from checkpoint: {'language_model.model.layers.2.mlp.down_proj.weight', 'language_model.model.layers.17.post_attention_layernorm.weight'}\n",
      'WEIGHTS_MISMATCH',
    )
    expect(f).toMatchObject({ severity: 'error', evidence: { 'Count named': '2' } })
    expect(
      one(
        "ValueError: Following weights were not initialized from checkpoint: {'transformer.transformer_blocks.15.ff_context.w_in.weight'}\n",
        'WEIGHTS_MISMATCH',
      ).severity,
    ).toBe('error')
    // transformers' own warning about unused weights is another sentence (healthy)
    quiet("Some weights of the model checkpoint at bert-base-uncased were not used when initializing BertModel: ['cls.predictions.bias']\n")
  })
  it("huggingface_hub's disk check warns with the sizes and the path (file_download.py _check_disk_space)", () => {
    const f = one(
      '/usr/local/lib/python3.12/dist-packages/huggingface_hub/file_download.py:983: UserWarning: Not enough free disk space to download the file. The expected file size is: 4976.70 MB. The target location /root/.cache/huggingface/hub/models--Qwen--Qwen3-32B/blobs only has 1204.11 MB free disk space.\n',
      'DISK_SPACE_LOW',
    )
    expect(f).toMatchObject({
      severity: 'warning',
      evidence: { 'File size': '4976.70 MB', 'Free space': '1204.11 MB', Path: '/root/.cache/huggingface/hub/models--Qwen--Qwen3-32B/blobs' },
    })
  })
})

describe('the executor: Ray not running, GPUs short, a worker that failed, engines that never shook hands', () => {
  it('"Could not find any running Ray instance" (ray _private/services.py; ray-project/ray#10466, allwefantasy/auto-coder#22)', () => {
    const f = one(
      'ConnectionError: Could not find any running Ray instance. Please specify the one to connect to by setting `--address` flag or `RAY_ADDRESS` environment variable.\n',
      'RAY_UNAVAILABLE',
    )
    expect(f.fix).toContain('ray start')
    expect(codes('ConnectionError: Could not find any running Ray instance. Please specify the one to connect to by setting `address`.\n')).toEqual([
      'RAY_UNAVAILABLE',
    ])
  })
  it("Ray's scheduler warning is a pending placement, a warning, with the pinned node", () => {
    const f = one(
      "(autoscaler +2m5s) Warning: The following resource request cannot be scheduled right now: {'GPU': 1.0, 'node:192.168.200.12': 0.001}. This is likely due to all cluster resources being claimed by actors. Consider creating fewer actors or adding more nodes to this Ray cluster.\n",
      'PLACEMENT_GROUP_PENDING',
    )
    expect(f.severity).toBe('warning')
    expect(f.message).toContain('node:192.168.200.12')
    expect(
      one(
        "(scheduler +2m2s) Warning: The following resource request cannot be scheduled right now: {'CPU': 1.0, 'GPU': 1.0}. This is likely due to all cluster resources being claimed by actors.\n",
        'PLACEMENT_GROUP_PENDING',
      ).severity,
    ).toBe('warning')
  })
  it('"required GPUs exceeds": raised, an error; logged after vLLM started its own Ray, a warning that says so; logged alone, left to the wait', () => {
    expect(one('ValueError: The number of required GPUs exceeds the total number of available GPUs in the cluster.\n', 'GPU_SHORTFALL').severity).toBe('error')
    // public DGX notes in the index: "Started a local Ray instance" then the warning, though `ray status` showed every GPU
    const local = one(
      '2025-02-02 19:54:10,000 INFO worker.py:1821 -- Started a local Ray instance.\nWARNING 02-02 19:54:20 ray_utils.py:315] The number of required GPUs exceeds the total number of available GPUs in the placement group.\n',
      'GPU_SHORTFALL',
    )
    expect(local.severity).toBe('warning')
    expect(local.message).toContain('Ray instance of its own')
    expect(
      codes('WARNING 03-18 11:21:32 ray_utils.py:320] The number of required GPUs exceeds the total number of available GPUs in the placement group.\n'),
    ).toEqual([])
    quiet(
      '2025-12-05 10:00:00,000 INFO worker.py:1832 -- Started a local Ray instance.\nINFO 12-05 10:00:00 [ray_utils.py:300] No current placement group found. Creating a new placement group.\n',
    )
  })
  it('vLLM\'s "Failed to import Ray" raise (ray_utils.py assert_ray_available, 0.2–0.7 and 0.8+); its import warning alone is a warning', () => {
    expect(one("ValueError: Failed to import Ray: No module named 'ray'.Please install Ray with `pip install ray`.\n", 'IMAGE_LACKS_RAY').severity).toBe(
      'error',
    )
    expect(codes('ValueError: Failed to import Ray, please install Ray with `pip install ray`.\n')).toEqual(['IMAGE_LACKS_RAY'])
    quiet(
      'WARNING 04-22 21:56:34 ray_utils.py:46] Failed to import Ray with ModuleNotFoundError("No module named \'ray\'"). For distributed inference, please install Ray with `pip install ray`.\nINFO 04-22 21:56:40 [api_server.py:1000] Starting vLLM API server 0 on http://0.0.0.0:8000\n',
    )
  })
  it("a worker's failure is the engine's death, one finding with the worker's error (multiproc_executor.py; vllm-ascend and vllm threads in the index)", () => {
    const f = one(
      "(EngineCore_DP0 pid=1482) ERROR 02-03 19:11:07 [core.py:938] RuntimeError: Worker failed with error ''ForwardContext' object has no attribute 'draft_attn_metadatas'', please check the stack trace above for the root cause\n(APIServer pid=1) RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}\n",
      'ENGINE_DEAD',
    )
    expect(f.evidence['Worker error']).toContain('draft_attn_metadatas')
    expect(f.message).toContain("a worker failed: 'ForwardContext'")
    expect(f.message).not.toContain('logged above')
    const rpc = one('ERROR 05-16 03:38:10 [core.py:398] TimeoutError: RPC call to execute_model timed out.\n', 'ENGINE_DEAD')
    expect(rpc.evidence['RPC that timed out']).toBe('execute_model')
    // the message says what a timed-out RPC means: a worker that hangs, not one that crashed with its own error
    expect(rpc.message).toMatch(/stopped answering vLLM's execute_model RPC.*hang/)
  })
  it('the start-up handshake of engines and front-end (v1/engine/core_client.py, core.py; vllm-project/vllm-ascend#3977, vllm#32116)', () => {
    const f = one('(ApiServer_0 pid=10466) TimeoutError: Timed out waiting for engines to send initial message on input socket.\n', 'ENGINE_DEAD')
    expect(f.fix).toContain('--data-parallel-address')
    expect(one('(EngineCore_DP3 pid=7) RuntimeError: Did not receive response from front-end process within 5 minutes\n', 'ENGINE_DEAD').message).toContain(
      '5 min',
    )
    expect(codes('RuntimeError: Engine process failed to start. See stack trace for the root cause.\n')).toEqual(['ENGINE_DEAD', 'UNRECOGNISED_FAILURE'])
  })
  it("argparse: a value or an abbreviation the image's vLLM refuses is VLLM_FLAG_UNKNOWN with the flag and value", () => {
    const f = one(
      "vllm serve: error: argument --distributed-executor-backend: invalid choice: 'external' (choose from 'ray', 'mp', 'uni', 'external_launcher')\n",
      'VLLM_FLAG_UNKNOWN',
    )
    expect(f.evidence).toMatchObject({ Flag: '--distributed-executor-backend', Value: 'external' })
    expect(
      one('api_server.py: error: ambiguous option: --max-num could match --max-num-batched-tokens, --max-num-seqs\n', 'VLLM_FLAG_UNKNOWN').evidence.Flag,
    ).toBe('--max-num')
  })
})

describe('NCCL told an interface the node lacks: SOCKET_IFNAME_MISSING with the name (NVIDIA/nccl#1837, marin-community/marin#6940)', () => {
  it('"Bootstrap : no socket interface found" after "NCCL_SOCKET_IFNAME set by environment to X"', () => {
    const found = scan(
      'spark-a:1234:1234 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to enp1s0f1np1\nspark-a:1234:1234 [0] NCCL WARN Bootstrap : no socket interface found\n',
    )
    expect(found.map((f) => f.code)).toEqual(['NCCL_TRANSPORT_ERROR', 'SOCKET_IFNAME_MISSING'])
    expect(found[1]!.evidence.NCCL_SOCKET_IFNAME).toBe('enp1s0f1np1')
  })
  it("2.27's empty address with a garbage family is the same class; an AF_UNIX family with an address is not", () => {
    const f = one(
      '[trainer3]:twshared1016:1958:1958 [3] NCCL INFO NCCL_SOCKET_IFNAME set by environment to eth2\n[trainer0|0]:ncclInternalError: Internal check failed.\n[trainer0|0]:Last error:\n[trainer0|0]:ncclSocketInit: connecting to address  with family 59936 is neither AF_INET(2) nor AF_INET6(10)\n',
      'SOCKET_IFNAME_MISSING',
    )
    expect(f.evidence).toMatchObject({ NCCL_SOCKET_IFNAME: 'eth2', 'Address family read': '59936' })
    expect(codes('ncclSocketInit: connecting to address 10.0.0.2<1234> with family 1 is neither AF_INET(2) nor AF_INET6(10)\n')).not.toContain(
      'SOCKET_IFNAME_MISSING',
    )
  })
})

describe('never silent: container tools and build tools', () => {
  it("podman's and docker's own error lines, systemd's failed unit are UNRECOGNISED_FAILURE with the line", () => {
    const f = one("Error: unknown flag: --gpus\nSee 'podman run --help'\n", 'UNRECOGNISED_FAILURE')
    expect(f).toMatchObject({ severity: 'error', evidence: { 'First failing line': 'Error: unknown flag: --gpus' } })
    expect(codes('Dec 05 10:00:00 spark-a systemd[1]: vllm.service: Main process exited, code=exited, status=1/FAILURE\n')).toEqual(['UNRECOGNISED_FAILURE'])
    quiet('Dec 05 10:00:00 spark-a systemd[1]: vllm.service: Main process exited, code=exited, status=0/SUCCESS\nINFO: no errors here\n')
  })
})

describe('never silent: a traceback ending in an exception class of no family', () => {
  it('a module-path exception that does not end in Error is the exception type of the finding', () => {
    const f = one(
      'Traceback (most recent call last):\n  File "/usr/local/lib/python3.12/dist-packages/torch/_dynamo/output_graph.py", line 1446, in _call_user_compiler\ntorch._dynamo.exc.BackendCompilerFailed: backend=\'inductor\' raised: failed on 10.0.0.2:29500\n',
      'UNRECOGNISED_FAILURE',
    )
    expect(f.evidence['Exception type']).toBe('torch._dynamo.exc.BackendCompilerFailed')
    expect(f.evidence['Addresses, ports and paths named']).toContain('10.0.0.2:29500')
  })
})

describe('second sweep: Ray joining, NCCL peers, truncated files, container set-up, memory limits', () => {
  it("Ray's worker join and Ray Client timeouts are RAY_GCS_UNREACHABLE with the address (ray scripts.py; ray-project/ray#10466)", () => {
    const f = one(
      'ConnectionError: Unable to connect to GCS (ray head) at 10.0.0.1:6379. Check that (1) Ray with matching version started successfully at the specified address, (2) this node can reach the specified address, and (3) there is no firewall setting preventing access.\n',
      'RAY_GCS_UNREACHABLE',
    )
    expect(f.evidence['GCS address']).toBe('10.0.0.1:6379')
    expect(codes('ConnectionError: ray client connection timeout\n')).toEqual(['RAY_GCS_UNREACHABLE'])
    expect(codes("ray.exceptions.RaySystemError: System error: Ray has not been started yet. You can start Ray with 'ray.init()'.\n")).toEqual([
      'RAY_UNAVAILABLE',
    ])
  })
  it("NCCL's broken peer connections (socket.cc, proxy.cc) are NCCL_TRANSPORT_ERROR with the peer", () => {
    expect(
      one('spark-a:1:2 [0] NCCL WARN socketProgressOpt: Call to recv from 10.0.0.2<45678> failed : Connection reset by peer\n', 'NCCL_TRANSPORT_ERROR')
        .evidence,
    ).toMatchObject({
      Peer: '10.0.0.2:45678',
      Error: 'Connection reset by peer',
    })
    expect(one('spark-a:1:2 [0] NCCL WARN Net : Connection closed by remote peer 10.0.0.2<53372>\n', 'NCCL_TRANSPORT_ERROR').evidence.Peer).toBe(
      '10.0.0.2:53372',
    )
    expect(
      one('spark-a:1:2 [0] NCCL WARN [Service thread] Error encountered progressing operation=Connect, res=3, closing connection\n', 'NCCL_TRANSPORT_ERROR')
        .evidence['Proxy operation'],
    ).toBe('Connect')
  })
  it("files cut short: huggingface_hub's consistency check, torch.load's archive, a Git LFS pointer (WEIGHTS_CORRUPT)", () => {
    const f = one(
      'OSError: Consistency check failed: file should be of size 4976698672 but has size 1234567 (model-00001-of-00004.safetensors).\nWe are sorry for the inconvenience. Please retry with `force_download=True`.\n',
      'WEIGHTS_CORRUPT',
    )
    expect(f.evidence).toMatchObject({ 'Size expected': '4976698672', 'Size on disk': '1234567', File: 'model-00001-of-00004.safetensors' })
    expect(codes('RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central directory\n')).toEqual(['WEIGHTS_CORRUPT'])
    expect(one("_pickle.UnpicklingError: invalid load key, 'v'.\n", 'WEIGHTS_CORRUPT').message).toContain('Git LFS')
  })
  it("docker's port mapping taken is PORT_IN_USE with the port", () => {
    const f = one(
      'docker: Error response from daemon: driver failed programming external connectivity on endpoint vllm (abc): Bind for 0.0.0.0:8000 failed: port is already allocated.\n',
      'PORT_IN_USE',
    )
    expect(f.evidence).toMatchObject({ Port: '8000' })
  })
  it("libnvidia-container's errors are NVIDIA_RUNTIME_MISSING; its requirement error is a driver older than the image needs", () => {
    expect(
      codes(
        'nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: cannot open shared object file: no such file or directory: unknown.\n',
      ),
    ).toContain('NVIDIA_RUNTIME_MISSING')
    const f = one(
      'nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.9, please update your driver to a newer version, or use an earlier cuda container: unknown.\n',
      'CUDA_DRIVER_TOO_OLD',
    )
    expect(f.evidence['Image requires']).toBe('cuda>=12.9')
  })
  it('cuBLAS out of memory is GPU_OUT_OF_MEMORY; OOMKilled is OOM_KILLED, and docker inspect\'s "OOMKilled": false is nothing', () => {
    expect(codes('RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`\n')).toEqual(['GPU_OUT_OF_MEMORY'])
    expect(codes('    State:          Terminated\n      Reason:       OOMKilled\n      Exit Code:    137\n')).toEqual(['OOM_KILLED'])
    expect(codes('            "OOMKilled": true,\n')).toEqual(['OOM_KILLED'])
    quiet('        "State": {\n            "Status": "running",\n            "OOMKilled": false,\n            "ExitCode": 0\n        }\n')
  })
  it('an image of another CPU architecture is never silent', () => {
    expect(one('exec /usr/local/bin/vllm: exec format error\n', 'UNRECOGNISED_FAILURE').evidence['First failing line']).toBe(
      'exec /usr/local/bin/vllm: exec format error',
    )
  })
})

describe('third sweep: Ray ports, the NVIDIA driver after an upgrade; near misses of multi-node starts', () => {
  it("Ray's own port conflicts are PORT_IN_USE with the port (ray services.py)", () => {
    expect(
      one('ValueError: Ray component worker_ports is trying to use a port number 10002 that is used by other components.\n', 'PORT_IN_USE').evidence,
    ).toMatchObject({
      Port: '10002',
      'Ray component': 'worker_ports',
    })
    const f = one(
      'ConnectionError: Ray is trying to start at 10.0.0.1:6379, but is already running at 10.0.0.1:6379. Please specify a different port using the `--port` flag of `ray start` command.\n',
      'PORT_IN_USE',
    )
    expect(f.evidence).toMatchObject({ Port: '6379', 'Ray already running at': '10.0.0.1:6379' })
    expect(f.fix).toContain('ray stop')
  })
  it('NVML\'s "Driver/library version mismatch" is a process without GPUs, with a reboot as the fix', () => {
    expect(one('Failed to initialize NVML: Driver/library version mismatch\n', 'DRIVER_NO_GPU').fix).toContain('Reboot')
  })
  it("near misses: vLLM's shared-memory broadcast wait and NCCL without IB devices are no error", () => {
    quiet(
      'WARNING 12-05 10:00:00 [shm_broadcast.py:466] No available shared memory broadcast block found in 60 seconds. This typically happens when some processes are hanging or doing some time-consuming work (e.g. compilation).\nINFO 12-05 10:02:00 [api_server.py:1000] Starting vLLM API server 0 on http://0.0.0.0:8000\n',
    )
    quiet('spark-a:1:1 [0] NCCL INFO NET/IB : No device found.\nspark-a:1:1 [0] NCCL INFO NET/Socket : Using [0]enp1s0f1np1:192.168.100.10<0>\n')
  })
})

describe("vLLM's native multi-node follower that is not headless (vllm-project/vllm#33910, PR #36875)", () => {
  it("the follower's AssertionError is the engine death with the --headless fix, one finding with the death after it", () => {
    const f = one(
      '(EngineCore_DP0 pid=300) AssertionError: collective_rpc should not be called on follower node\n(EngineCore_DP0 pid=300) ERROR 03-12 10:00:00 [core.py:946] EngineCore failed to start.\n',
      'ENGINE_DEAD',
    )
    expect(f.fix).toContain('--headless')
    expect(f.evidence.Cause).toContain('--headless')
  })
})

describe('huggingface_hub 1.x (httpx) and hf_xet wordings; the GGUF loader', () => {
  it("httpx's 'Client error ... for url' form keeps the families and the repo (huggingface_hub 1.x _http.py)", () => {
    expect(
      one(
        "huggingface_hub.errors.RepositoryNotFoundError: Client error '404 Not Found' for url 'https://huggingface.co/api/models/Qwen/Qwen3-8B-Instrct/revision/main'\n",
        'WEIGHTS_ACCESS_DENIED',
      ).evidence['Repo id'],
    ).toBe('Qwen/Qwen3-8B-Instrct')
    expect(
      one(
        "huggingface_hub.errors.RevisionNotFoundError: Client error '404 Not Found' for url 'https://huggingface.co/api/models/Qwen/Qwen3-8B/revision/v9'\n",
        'WEIGHTS_NOT_FOUND',
      ).evidence.Revision,
    ).toBe('v9')
  })
  it("hf_xet's storage refusing the token is WEIGHTS_ACCESS_DENIED, without a repo read from the storage path", () => {
    const f = one(
      'RuntimeError: Data processing error: CAS service error : Reqwest Error: HTTP status client error (401 Unauthorized), domain: https://cas-server.xethub.hf.co/reconstruction/abc\n',
      'WEIGHTS_ACCESS_DENIED',
    )
    expect(f.evidence['HTTP status']).toBe('401')
    expect(f.evidence['Repo id']).toBeUndefined()
  })
  it("vLLM's GGUF loader naming an architecture it lacks is MODEL_NOT_SUPPORTED (vllm-project/vllm#16905)", () => {
    expect(one('ValueError: GGUF model with architecture deci is not supported yet.\n', 'MODEL_NOT_SUPPORTED').evidence.Architectures).toBe('deci')
  })
})
