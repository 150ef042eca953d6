/**
 * Issue 36, swept from the newest releases' sources (vLLM 0.34.0, Ray 2.60.0, huggingface_hub 2.4.0, transformers 5.25.0 wheels; torch c10d and
 * NCCL from the code index): each wording rendered as it appears in a log (logger prefix, vLLM's process prefix, torch's `[rank1]:`, NCCL's
 * `host:pid:tid [dev]`) and run through scanLog, with the healthy lines near each that must stay quiet. Source files and versions in
 * src/preflight/WORDINGS.md ("Swept from the newest sources").
 */
import { describe, expect, it } from 'vitest'
import { codes, one, quiet } from './fixtures/scan.js'

describe('vLLM 0.34 engine and worker processes (ENGINE_DEAD with the value that matters)', () => {
  it('the engine-ready timeout names the wait and VLLM_ENGINE_READY_TIMEOUT_S (v1/engine/core_client.py)', () => {
    const f = one(
      '(APIServer pid=1) ERROR 12-01 10:00:00 [core_client.py:794] TimeoutError: Timed out waiting for engine core processes to start. This is often caused by slow weight loading for large models. Waited 600s (configured by VLLM_ENGINE_READY_TIMEOUT_S). To increase the timeout, set the environment variable: VLLM_ENGINE_READY_TIMEOUT_S=<seconds>\n',
      'ENGINE_DEAD',
    )
    expect(f.evidence['Waited (VLLM_ENGINE_READY_TIMEOUT_S)']).toBe('600 s')
    expect(f.fix).toContain('VLLM_ENGINE_READY_TIMEOUT_S')
    expect(
      one('TimeoutError: Timed out waiting for new engine core processes to start. Waited 300s (configured by VLLM_ENGINE_READY_TIMEOUT_S).\n', 'ENGINE_DEAD')
        .evidence,
    ).toMatchObject({
      'Waited (VLLM_ENGINE_READY_TIMEOUT_S)': '300 s',
    })
  })
  it("a worker's exit code, and what a signal means (multiproc_executor.py, ray_executor_v2.py)", () => {
    const killed = one(
      '(EngineCore_DP0 pid=212) ERROR 12-01 10:00:00 [multiproc_executor.py:404] Worker proc VllmWorker-1 died unexpectedly (exit code: -9), shutting down executor.\n',
      'ENGINE_DEAD',
    )
    expect(killed.evidence).toMatchObject({ Worker: 'VllmWorker-1', 'Exit code': '-9' })
    expect(killed.evidence['Exit code means']).toContain('OOM')
    const plain = one(
      'ERROR 12-01 10:00:00 [multiproc_executor.py:404] Worker proc VllmWorker-0 died unexpectedly (exit code: 1), shutting down executor.\n',
      'ENGINE_DEAD',
    )
    expect(plain.evidence['Exit code']).toBe('1')
    expect(plain.evidence['Exit code means']).toBeUndefined()
    expect(
      one('ERROR 12-01 10:00:00 [ray_executor_v2.py:522] RayWorkerProc rank=1 died unexpectedly, shutting down executor.\n', 'ENGINE_DEAD').evidence.Worker,
    ).toBe('rank 1')
  })
  it("a Ray worker's initialisation error is the evidence; start-up processes that died are named", () => {
    const w = one(
      '(EngineCore_DP0 pid=212) RuntimeError: Worker 1 failed to initialize: RayTaskError(ValueError): ray::RayWorkerProc.init() (pid=99, ip=10.0.0.2)\n',
      'ENGINE_DEAD',
    )
    expect(w.evidence['Worker error']).toContain('ray::RayWorkerProc.init()')
    for (const line of [
      'RuntimeError: Ray workers have not started successfully.',
      'RuntimeError: Input socket thread died during startup',
      "RuntimeError: Frontend process failed during engine core initialization. See root cause above. Failed frontend proc(s): ['ApiServer_0']",
    ]) {
      // the death alone names no cause: UNRECOGNISED_FAILURE beside it (engine-stall.test.ts)
      expect(codes(`${line}\n`), line).toEqual(['ENGINE_DEAD', 'UNRECOGNISED_FAILURE'])
    }
    expect(
      one('RuntimeError: DP Coordinator process failed to report ZMQ addresses within timeout=30 seconds during startup.\n', 'ENGINE_DEAD').evidence[
        'Coordinator timeout'
      ],
    ).toBe('30 s')
  })
  it('a data-parallel node started without --headless (v1/engine/utils.py)', () => {
    const f = one('RuntimeError: Remote engine 1 must use --headless unless in external or hybrid dp lb mode\n', 'ENGINE_DEAD')
    expect(f.evidence).toMatchObject({ 'Remote engine': '1', '--headless': 'missing' })
    expect(f.fix).toContain('--headless')
    expect(one('RuntimeError: Remote engine 2 must not use --headless in external or hybrid dp lb mode\n', 'ENGINE_DEAD').fix).toContain('drop --headless')
  })
  it('healthy lines near them stay quiet: a clean worker exit, the handshake wait', () => {
    quiet(
      [
        '(EngineCore_DP0 pid=212) INFO 12-01 10:00:00 [multiproc_executor.py:700] Worker proc VllmWorker-1 exited with code 0 after shutdown.',
        '(APIServer pid=1) INFO 12-01 10:00:00 [core_client.py:700] Waiting for 1 local, 0 remote core engine proc(s) to start.',
        '(EngineCore_DP0 pid=212) INFO 12-01 10:00:00 [core.py:100] Waiting for init message from front-end.',
        '(EngineCore_DP0 pid=212) WARNING 12-01 10:00:00 [multiproc_executor.py:900] Reducing Torch parallelism from 20 threads to 1 to avoid unnecessary CPU contention.',
        '',
      ].join('\n'),
    )
  })
})

describe('vLLM 0.34 and Ray 2.60: the executor, data-parallel room, ports, versions, the driver', () => {
  it('Ray not installed for the Ray executor v2 is IMAGE_LACKS_RAY', () => {
    expect(codes('ImportError: Using Ray backend requires installation of ray.\n')).toEqual(['IMAGE_LACKS_RAY'])
  })
  it('DP ranks that do not fit name both counts (v1/engine/utils.py)', () => {
    const pgs = one(
      "ValueError: Not enough resources to allocate 2 placement groups, only created 1 placement groups. Available resources: {'CPU': 20.0, 'GPU': 1.0, 'node:10.0.0.1': 1.0}\n",
      'GPU_SHORTFALL',
    )
    expect(pgs.evidence).toMatchObject({ 'DP ranks wanted': '2', 'DP ranks that fit': '1' })
    expect(pgs.evidence['Available resources']).toContain("'GPU': 1.0")
    const master = one('ValueError: Not enough resources to allocate 4 DP ranks on DP master node 10.0.0.1, possible to fit 2 DP ranks.\n', 'GPU_SHORTFALL')
    expect(master.evidence).toMatchObject({ 'DP ranks wanted': '4', 'DP ranks that fit': '2', 'DP master node': '10.0.0.1' })
  })
  it('DP engines with different settings are VERSION_SKEW with both hashes', () => {
    const f = one(
      'RuntimeError: Configuration mismatch detected for engine 1. All DP workers must have identical configurations for parameters that affect collective communication (e.g., enable_eplb, eplb_config.log_balancedness). Worker hash: 1f2e, Expected hash: 9a8b (engine 0)\n',
      'VERSION_SKEW',
    )
    expect(f.evidence).toMatchObject({ Engine: '1', 'Its config hash': '1f2e', 'Expected hash': '9a8b' })
  })
  it("no free port in vLLM's range, and Ray's dashboard port held (network_utils.py, services.py)", () => {
    expect(one('RuntimeError: Could not find open port after 100 attempts starting from port 29500\n', 'PORT_IN_USE').evidence).toMatchObject({
      Port: '29500',
      Attempts: '100',
    })
    expect(
      one(
        "ValueError: Failed to bind to 0.0.0.0:8265 because it's already occupied. You can use `ray start --dashboard-port ...` or `ray.init(dashboard_port=...)` to select a different port.\n",
        'PORT_IN_USE',
      ).evidence,
    ).toMatchObject({ Port: '8265', Address: '0.0.0.0' })
  })
  it("Ray 2.60's version check names both versions (scripts.py)", () => {
    expect(
      one('RuntimeError: Ray version mismatch: cluster has Ray version 2.49.0 but local Ray version is 2.60.0\n', 'RAY_VERSION_MISMATCH').evidence,
    ).toMatchObject({
      'Cluster Ray': '2.49.0',
      'This node Ray': '2.60.0',
    })
  })
  it("a worker that cannot reach the GCS names the address gRPC dialled; the driver's cluster address (node.py, worker.py)", () => {
    const f = one(
      'RuntimeError: Failed to connect to GCS. Last connection error: RpcError: failed to connect to all addresses; last error: UNKNOWN: ipv4:10.0.0.1:6379: Failed to connect to remote host: Connection refused\n',
      'RAY_GCS_UNREACHABLE',
    )
    expect(f.evidence['GCS address']).toBe('10.0.0.1:6379')
    expect(one('ConnectionError: Failed to connect to Ray cluster at 10.0.0.1:6379\n', 'RAY_GCS_UNREACHABLE').evidence['GCS address']).toBe('10.0.0.1:6379')
  })
  it("a driver whose node address no raylet has (services.py, the successor of Ray's IP-mismatch warning)", () => {
    const f = one("RuntimeError: No node info found matching attributes: '10.0.0.3' when trying to resolve node to connect to.\n", 'RAY_IP_MISMATCH_WARNING')
    expect(f).toMatchObject({ severity: 'error', evidence: { 'Address the driver looked for': '10.0.0.3' } })
  })
  it("Ray's warning about several clusters, which it goes on from, stays quiet", () => {
    quiet(
      "2026-12-01 10:00:00,000\tWARNING services.py:442 -- Found multiple active Ray instances: {'10.0.0.1:6379', '10.0.0.1:6380'}. Connecting to latest cluster at 10.0.0.1:6380. You can override this by setting the `--address` flag or `RAY_ADDRESS` environment variable.\n",
    )
  })
})

describe("Ray 2.60's memory monitor (OOM_KILLED with the memory figures)", () => {
  it('the "GB used / GB limit" wording gives the node and the figures', () => {
    const f = one(
      'ray.exceptions.OutOfMemoryError: 1 worker(s) were killed due to the node running low on memory. Memory on the node (IP: 10.0.0.2, ID: 5f2c9e) was 118.20GB used / 121.69GB limit (0.971302) Refer to the documentation on how to address the out of memory issue.\n',
      'OOM_KILLED',
    )
    expect(f.evidence).toMatchObject({ Node: '10.0.0.2', 'Memory in use': '118.20GB / 121.69GB (0.971302)', 'Workers killed': '1' })
  })
  it("the raylet's kill line takes its figures from the threshold line before it; the threshold line alone is not a kill", () => {
    const f = one(
      [
        '(raylet) [2026-12-01 10:00:00,000 I 123 456] (raylet) node_manager.cc:3000: Memory usage 120000000000B exceeded threshold of 115000000000B (95.0% of 121000000000B limit)',
        '(raylet) [2026-12-01 10:00:00,000 I 123 456] (raylet) node_manager.cc:3010: Ray killed 2 worker(s) based on the killing policy',
        '',
      ].join('\n'),
      'OOM_KILLED',
    )
    expect(f.evidence).toMatchObject({ 'Memory in use': '120.00GB / 121.00GB (threshold 95.0%: 115.00GB)', 'Workers killed': '2' })
    quiet(
      [
        '(raylet) node_manager.cc:3000: Memory usage 120000000000B exceeded threshold of 115000000000B (95.0% of 121000000000B limit)',
        '(raylet) memory_monitor.cc:80: Memory usage above threshold but no workers are available for killing.',
        '',
      ].join('\n'),
    )
  })
})

describe('weights in huggingface_hub 2.x, transformers 5.x and vLLM 0.34', () => {
  it('an incomplete cached snapshot names the repo and the missing files (huggingface_hub _snapshot_download.py)', () => {
    const f = one(
      "huggingface_hub.errors.IncompleteSnapshotError: The cached snapshot for 'Qwen/Qwen3-32B' (revision 'main', commit 9216db5781bf21249d130ec9da846c4624c16137) is incomplete: 2 file(s) are missing (model-00002-of-00017.safetensors, model-00005-of-00017.safetensors). Offline mode is enabled. Re-run the download with network access to complete the snapshot.\n",
      'WEIGHTS_OFFLINE_MISSING',
    )
    expect(f.evidence).toMatchObject({ 'Repo id': 'Qwen/Qwen3-32B', Revision: 'main' })
    expect(f.evidence['Files missing']).toBe('2: model-00002-of-00017.safetensors, model-00005-of-00017.safetensors')
    const tree = one(
      "huggingface_hub.errors.CachedRepoTreeNotFoundError: No cached tree listing found for 'Qwen/Qwen3-32B' (revision 'main', commit '9216db5', repo_type 'model') in '/root/.cache/huggingface/hub/models--Qwen--Qwen3-32B/trees'.\n",
      'WEIGHTS_OFFLINE_MISSING',
    )
    expect(tree.evidence).toMatchObject({ Exception: 'CachedRepoTreeNotFoundError', 'Repo id': 'Qwen/Qwen3-32B' })
  })
  it('shards the index names but the disk lacks (vLLM weight_utils.py), list and set forms', () => {
    expect(
      one("FileNotFoundError: Weight files referenced in index but missing: ['model-00003-of-00004.safetensors']\n", 'WEIGHTS_NOT_FOUND').evidence[
        'Files missing'
      ],
    ).toBe('model-00003-of-00004.safetensors')
    const set = one(
      "(EngineCore_DP0 pid=212) ERROR 12-01 10:00:00 [core.py:1000] FileNotFoundError: Weight files referenced in index but missing: {'model-00002-of-00004.safetensors', 'model-00004-of-00004.safetensors'}\n",
      'WEIGHTS_NOT_FOUND',
    )
    expect(set.evidence['Files missing']).toBe('model-00002-of-00004.safetensors, model-00004-of-00004.safetensors')
  })
  it("huggingface_hub 2.x's repo-id wordings still read a missing local path", () => {
    const f = one(
      "huggingface_hub.errors.HFValidationError: Repo id must use alphanumeric chars, '-', '_' or '.'. The name cannot start or end with '-' or '.' and the maximum length is 96: '/models/Qwen3-32B/'.\n",
      'WEIGHTS_NOT_FOUND',
    )
    expect(f.evidence.Path).toBe('/models/Qwen3-32B/')
    expect(one("huggingface_hub.errors.HFValidationError: Cannot have -- or .. in repo_id: '../models/qwen'.\n", 'WEIGHTS_NOT_FOUND').evidence.Path).toBe(
      '../models/qwen',
    )
    expect(
      one("HF_HUB_OFFLINE=1\nHFValidationError: Cannot have -- or .. in repo_id: '../models/qwen'.\n", 'WEIGHTS_OFFLINE_MISSING').evidence['Hub look-ups'],
    ).toContain('disabled')
  })
  it('transformers 5.x: not a folder nor a repo, a gated repository, a revision that does not exist, a config that is not JSON, no index', () => {
    expect(
      one("OSError: Qwen/Qwen3-32B-Instrct is not a local folder or a valid repository name on 'https://hf.co'.\n", 'WEIGHTS_NOT_FOUND').evidence['Repo id'],
    ).toBe('Qwen/Qwen3-32B-Instrct')
    expect(
      one(
        "OSError: /models/qwen is not a local folder and is not a valid model identifier listed on 'https://huggingface.co/models' If this is a private repository, make sure to pass a token having permission to this repo\n",
        'WEIGHTS_NOT_FOUND',
      ).evidence.Path,
    ).toBe('/models/qwen')
    const gated = one(
      'OSError: meta-llama/Llama-3.1-8B-Instruct is a gated repository. Make sure to request access at https://huggingface.co/meta-llama/Llama-3.1-8B-Instruct and pass a token having permission to this repo either by logging in with `hf auth login` or by passing `token=<your_token>`.\n',
      'WEIGHTS_ACCESS_DENIED',
    )
    expect(gated.evidence['Repo id']).toBe('meta-llama/Llama-3.1-8B-Instruct')
    expect(gated.message).toContain('gated')
    expect(
      one(
        "OSError: v2.0 is not a valid git identifier (branch name, tag name or commit id) that exists for this model name. Check the model page at 'https://huggingface.co/Qwen/Qwen3-32B' for available revisions.\n",
        'WEIGHTS_NOT_FOUND',
      ).evidence,
    ).toMatchObject({ Revision: 'v2.0', 'Repo id': 'Qwen/Qwen3-32B' })
    expect(one("OSError: It looks like the config file at '/models/qwen/config.json' is not a valid JSON file.\n", 'WEIGHTS_CORRUPT').evidence.Path).toBe(
      '/models/qwen/config.json',
    )
    expect(one("ValueError: Can't find a checkpoint index (model.safetensors.index.json) in /models/qwen.\n", 'WEIGHTS_NOT_FOUND').evidence).toMatchObject({
      'File missing': 'model.safetensors.index.json',
      Path: '/models/qwen',
    })
  })
  it("vLLM 0.34's config probe and the Run:ai streamer's weights", () => {
    expect(
      one(
        "ValueError: Could not detect config format for no config file found. With config_format 'auto', ensure your model has either config.json (HF format) or params.json (Mistral format).\n",
        'WEIGHTS_NOT_FOUND',
      ).evidence['File missing'],
    ).toBe('config.json / params.json')
    expect(one('RuntimeError: Cannot find any safetensors model weights with `/models/qwen`\n', 'WEIGHTS_NOT_FOUND').evidence.Path).toBe('/models/qwen')
  })
  it("the hub client's fallbacks it goes on from stay quiet", () => {
    quiet(
      [
        "WARNING:huggingface_hub.file_download:Couldn't access the Hub to check for update but local file already exists. Defaulting to existing file. (error: OfflineModeIsEnabled('Cannot reach https://huggingface.co/api/models/Qwen/Qwen3-32B: offline mode is enabled.'))",
        "WARNING:huggingface_hub.file_download:Xet Storage is enabled for this repo, but the 'hf_xet' package is not installed. Falling back to regular HTTP download.",
        "WARNING:huggingface_hub._snapshot_download:Returning existing local_dir `/models/qwen` as remote repo cannot be accessed in `snapshot_download` (OfflineModeIsEnabled('Cannot reach https://huggingface.co/api/models/Qwen/Qwen3-32B/revision/main: offline mode is enabled.')).",
        '',
      ].join('\n'),
    )
  })
})

describe('torch c10d and NCCL, newest wordings', () => {
  it("a rank waiting for rank 0's NCCL id names both ranks, the key and the store's error (ProcessGroupNCCL.cpp)", () => {
    const timeout = one(
      "[rank1]: torch.distributed.DistBackendError: [1] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: Socket Timeout. This may indicate a possible application crash on rank 0 or a network set up issue.\n",
      'RENDEZVOUS_RANKS_MISSING',
    )
    expect(timeout.evidence).toMatchObject({ Rank: '1', 'Waited for rank': '0', 'Store key': '0', 'Store error': 'Socket Timeout' })
    const vllm = one(
      "(Worker_TP1 pid=300) ERROR 12-01 10:00:00 [multiproc_executor.py:1091] RuntimeError: [1] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: wait timeout after 600000ms, keys: /default_pg//cuda//0\n",
      'RENDEZVOUS_RANKS_MISSING',
    )
    expect(vllm.evidence['Store error']).toContain('wait timeout after 600000ms')
    const reset = one(
      "[rank3]: torch.distributed.DistBackendError: [3] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: Connection reset by peer\n",
      'RENDEZVOUS_RANKS_MISSING',
    )
    expect(reset.message).toContain('died or restarted')
  })
  it("NCCL's own CUDA OOM, an IB port event, /dev/shm full (alloc.h, net_ib.cc, shmutils.cc)", () => {
    expect(codes("gpu1:1234:1300 [0] include/alloc.h:114 NCCL WARN Cuda failure 2 'out of memory'\n")).toEqual(['GPU_OUT_OF_MEMORY'])
    expect(one('gpu1:1234:1300 [0] transport/net_ib.cc:1200 NCCL WARN NET/IB : Got async event : port error\n', 'NCCL_TRANSPORT_ERROR').evidence).toMatchObject(
      {
        'IB event': 'port error',
        'NCCL host': 'gpu1',
      },
    )
    const shm = one(
      'gpu1:1234:1300 [0] misc/shmutils.cc:72 NCCL WARN Error: failed to extend /dev/shm/nccl-Fz1QpS to 9637892 bytes, error: No space left on device (28)\n',
      'DISK_SPACE_LOW',
    )
    expect(shm.evidence).toMatchObject({ Path: '/dev/shm/nccl-Fz1QpS', 'Segment size': '9637892 bytes' })
    expect(shm.fix).toContain('--shm-size')
  })
  it('NCCL INFO lines of a healthy start, and the IB events a healthy fabric sends, are no error', () => {
    quiet(
      [
        'gpu1:1234:1300 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB enp1s0f0np0:10.0.0.2<0>',
        'gpu1:1234:1300 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to enp1s0f0np0',
        'gpu1:1234:1300 [0] NCCL INFO Bootstrap: Using enp1s0f0np0:10.0.0.2<0>',
        '[rank0]:[W1201 10:00:00.000000000 ProcessGroupNCCL.cpp:1538] Warning: WARNING: destroy_process_group() was not called before program exit, which can leak resources.',
        '',
      ].join('\n'),
    )
    // a subnet manager's re-registration request is no transport failure (DeepSpeedExamples#310): at most the NCCL WARN fallback
    expect(codes('gpu1:5021:5386 [0] transport/net_ib.cc:93 NCCL WARN NET/IB : Got async event : client reregistration\n')).not.toContain(
      'NCCL_TRANSPORT_ERROR',
    )
  })
})
