/**
 * The start-up families of 2026 (issue 36): weights, the image and executor, rendezvous ports and
 * interfaces, memory and engine deaths, each from at least three real public captures (sources in
 * fixtures/README.md), with the value that matters in the evidence, and near misses.
 */
import { describe, expect, it } from 'vitest'
import type { Finding } from '../../src/preflight/finding.js'
import { scanLog } from '../../src/preflight/signatures.js'
import { readFixture } from './fixtures/read.js'

const scan = (file: string) => scanLog(readFixture(`logs/${file}`), file)
const one = (text: string) => scanLog(text, 'paste')
const only = (file: string, code: string): Finding => {
  const found = scan(file).filter((f) => f.code === code)
  expect(found, `${file}: ${scan(file).map((f) => f.code)}`).toHaveLength(1)
  expect(found[0]!.severity).toBe('error')
  return found[0]!
}

describe('weights', () => {
  it('WEIGHTS_OFFLINE_MISSING: the hub cache lacks the model and the hub cannot be asked (three captures, two hub versions)', () => {
    for (const file of ['weights-offline-vllm-plugin-fl-185.txt', 'weights-offline-comfyui-3840.txt', 'weights-offline-old-generative-models-222.txt'])
      expect(only(file, 'WEIGHTS_OFFLINE_MISSING').evidence).toMatchObject({
        Exception: 'LocalEntryNotFoundError',
        'Hub look-ups': 'failed (no connection to the hub)',
      })
    // huggingface_hub's own wordings: local_files_only / HF_HUB_OFFLINE, and OfflineModeIsEnabled with the repo in its URL.
    const [disabled] = one(
      "huggingface_hub.errors.LocalEntryNotFoundError: Cannot find the requested files in the disk cache and outgoing traffic has been disabled. To enable hf.co look-ups and downloads online, set 'local_files_only' to False.\n",
    )
    expect(disabled!.evidence['Hub look-ups']).toContain('HF_HUB_OFFLINE')
    const [mode] = one(
      'huggingface_hub.errors.OfflineModeIsEnabled: Cannot reach https://huggingface.co/api/models/Qwen/Qwen3-8B/revision/main: offline mode is enabled.\n',
    )
    expect(mode!.evidence).toMatchObject({ 'Repo id': 'Qwen/Qwen3-8B', Revision: 'main' })
    expect(mode!.fix).toContain('huggingface-cli download Qwen/Qwen3-8B')
  })

  it('WEIGHTS_ACCESS_DENIED: gated and missing repositories, with the repo id from the line that names it (four captures)', () => {
    expect(only('weights-gated-pulid-97.txt', 'WEIGHTS_ACCESS_DENIED').evidence).toMatchObject({
      Exception: 'GatedRepoError',
      'HTTP status': '401',
      'Repo id': 'black-forest-labs/FLUX.1-dev',
      File: 'ae.safetensors',
    })
    const old = only('weights-gated-old-neosapiens-3.txt', 'WEIGHTS_ACCESS_DENIED')
    expect(old.evidence['Repo id']).toBe('meta-llama/Llama-2-7b')
    expect(old.message).toContain('gated')
    const missing = only('weights-repo-not-found-vllm-higgs-audio-123.txt', 'WEIGHTS_ACCESS_DENIED')
    expect(missing.evidence).toMatchObject({ Exception: 'RepositoryNotFoundError', 'Repo id': 'xcodec_tps25_0215', Revision: 'main' })
    expect(missing.message).toContain('xcodec_tps25_0215')
    expect(only('weights-repo-not-found-unsloth-1892.txt', 'WEIGHTS_ACCESS_DENIED').evidence['Repo id']).toBe(
      'unsloth/meta-llama-3.1-8b-instruct-unsloth-bnb-4bit',
    )
    // The not-found error's own hint names gated repos; that does not make the repo gated (lines run together in a paste,
    // the next line's prefix glued to the URL).
    const [together] = one(
      'huggingface_hub.errors.RepositoryNotFoundError: 401 Client Error. (Request ID: x)(APIServer pid=1) Repository Not Found for url: https://huggingface.co/org/model/resolve/main/config.json.(APIServer pid=1) If you are trying to access a private or gated repo, make sure you are authenticated.\n',
    )
    expect(together!.message).toContain('does not exist')
    expect(together!.evidence).toMatchObject({ 'Repo id': 'org/model', File: 'config.json' })
  })

  it('WEIGHTS_NOT_FOUND: a file or revision the hub lacks, and a shard missing on disk, with the path', () => {
    expect(only('weights-entry-not-found-maggie-5.txt', 'WEIGHTS_NOT_FOUND').evidence).toMatchObject({
      'Repo id': 'chuonghm/maggie-image-him50k-cvpr24',
      File: 'pytorch_model.bin',
    })
    expect(only('weights-entry-not-found-remote-mokuro-149.txt', 'WEIGHTS_NOT_FOUND').evidence).toMatchObject({
      Exception: 'RemoteEntryNotFoundError',
      'Repo id': 'kha-white/manga-ocr-base',
    })
    expect(only('weights-missing-shard-llamafactory-3340.txt', 'WEIGHTS_NOT_FOUND').evidence.Path).toBe('/root/Qwen1.5-7B/model-00001-of-00004.safetensors')
    const [rev] = one(
      'huggingface_hub.errors.RevisionNotFoundError: 404 Client Error. (Request ID: x)\n\nRevision Not Found for url: https://huggingface.co/api/models/Qwen/Qwen3-8B/revision/v9.\n',
    )
    expect(rev!.message).toContain('no such revision "v9" of Qwen/Qwen3-8B')
  })

  it('WEIGHTS_CORRUPT: safetensors header errors (three captures), with the shards read before when vLLM printed them', () => {
    for (const file of ['weights-corrupt-qwen3-vl-264.txt', 'weights-corrupt-gpustack-815.txt', 'weights-corrupt-airllm-137.txt'])
      expect(only(file, 'WEIGHTS_CORRUPT').evidence['safetensors said']).toMatch(/^Error while deserializing header: MetadataIncompleteBuff/)
    const [f] = one(
      'Loading safetensors checkpoint shards:  58% Completed | 95/163 [03:06<02:14,  1.98s/it]\nsafetensors_rust.SafetensorError: Error while deserializing header: HeaderTooLarge\n',
    )
    expect(f!.evidence['Shards read before it']).toBe('95 of 163')
    expect(f!.message).toContain('not a safetensors file')
  })

  it('DISK_SPACE_LOW: a disk that filled (three captures), with the path when the error names one', () => {
    for (const file of ['disk-full-safetensors-llamafactory-5155.txt', 'disk-full-openllm-754.txt', 'disk-full-diffusers-4957.txt'])
      expect(only(file, 'DISK_SPACE_LOW').evidence.Errno).toBe('28 (ENOSPC)')
    const [f] = one("OSError: [Errno 28] No space left on device: '/root/.cache/huggingface/hub/models--Qwen--Qwen3-8B/blobs/abc.incomplete'\n")
    expect(f!.evidence.Path).toBe('/root/.cache/huggingface/hub/models--Qwen--Qwen3-8B/blobs/abc.incomplete')
  })

  it('WEIGHTS_MISMATCH: a tensor of another shape than the model expects, with both shapes (three captures)', () => {
    expect(only('weights-shape-verl-834.txt', 'WEIGHTS_MISMATCH').evidence).toMatchObject({
      'Shape in the file': '[3600]',
      'Shape the model expects': '[3584]',
    })
    expect(only('weights-shape-empty-r1-v-191.txt', 'WEIGHTS_MISMATCH').evidence['Shape in the file']).toBe('[0]')
    expect(only('weights-shape-assert-vllm-12682.txt', 'WEIGHTS_MISMATCH').fix).toContain('every node')
  })

  it('near miss: vLLM args naming revision=None and a download_dir, and "Loading safetensors checkpoint shards" progress, are no finding', () => {
    expect(
      one(
        "INFO 02-27 19:28:10 api_server.py:913] args: Namespace(model='mistralai/Pixtral-12B-2409', revision=None, download_dir='/home/u/.cache/huggingface/hub', load_format='auto')\nLoading safetensors checkpoint shards: 100% Completed | 4/4 [00:03<00:00,  1.2it/s]\n",
      ),
    ).toEqual([])
  })
})

describe('image and executor', () => {
  it('IMAGE_LACKS_RAY: the package, the import inside vLLM and the CLI (three captures)', () => {
    expect(only('image-ray-module-aphrodite-854.txt', 'IMAGE_LACKS_RAY').evidence.Missing).toBe('ray')
    expect(only('image-ray-import-vllm-754.txt', 'IMAGE_LACKS_RAY').evidence.Missing).toBe('ray (the package)')
    expect(only('image-ray-command-production-stack-995.txt', 'IMAGE_LACKS_RAY').evidence.Missing).toBe('ray (the CLI)')
  })

  it('VLLM_FLAG_UNKNOWN: the flag the image does not know (three captures), and a positional argument', () => {
    expect(only('image-flag-config-vllm-8273.txt', 'VLLM_FLAG_UNKNOWN').evidence['Unrecognised arguments']).toBe('--config')
    expect(only('image-flag-stage-configs-vllm-omni-1081.txt', 'VLLM_FLAG_UNKNOWN').evidence['Unrecognised arguments']).toBe('--stage-configs-path')
    const lora = only('image-flag-lora-path-vllm-13669.txt', 'VLLM_FLAG_UNKNOWN')
    expect(lora.fix).toContain('grep -e --lora-path')
    const [positional] = one('api_server.py: error: unrecognized arguments: /models/x\n')
    expect(positional!.fix).toContain('--model')
  })

  it("IMAGE_LACKS_VLLM: vLLM's compiled ops it cannot run, with why from vLLM's import warning before them (four sources)", () => {
    const cases: [string, string, RegExp][] = [
      // vllm-project/vllm#5454 (0.5.0), #5804: the op error alone
      ["AttributeError: '_OpNamespace' '_C' object has no attribute 'rms_norm'", '_C.rms_norm', /missing or do not match/],
      // vllm#13593: vLLM run from its source tree; the warning names the missing extension
      [
        [
          'WARNING 03-06 13:44:18 [_custom_ops.py:21] Failed to import from vllm._C with ModuleNotFoundError("No module named \'vllm._C\'")',
          "ERROR 03-06 13:44:19 [engine.py:409] '_OpNamespace' '_C' object has no attribute 'silu_and_mul' '_C::silu_and_mul' 'torch._ops._C'",
        ].join('\n'),
        '_C.silu_and_mul',
        /source tree/,
      ],
      // vllm-ascend#1033's warning shape (a wheel built against another torch), then the op error
      [
        [
          "WARNING 05-30 14:36:52 [_custom_ops.py:21] Failed to import from vllm._C with ImportError('/env/lib/python3.10/site-packages/vllm/_C.abi3.so: undefined symbol: _ZN3c104cuda9SetDeviceEi')",
          "AttributeError: '_OpNamespace' '_C' object has no attribute 'rotary_embedding'",
        ].join('\n'),
        '_C.rotary_embedding',
        /another torch/,
      ],
      // OpenBMB/MiniCPM-V#800: the FlashAttention extension vLLM ships
      [
        "AttributeError: Error in model execution (input dumped to /tmp/err.pkl): '_OpNamespace' '_vllm_fa2_C' object has no attribute 'varlen_fwd'",
        '_vllm_fa2_C.varlen_fwd',
        /missing or do not match/,
      ],
    ]
    for (const [text, op, why] of cases) {
      const f = one(`${text}\n`).find((x) => x.code === 'IMAGE_LACKS_VLLM')
      expect(f, text).toBeDefined()
      expect(f!.severity).toBe('error')
      expect(`${f!.evidence['Ops namespace']}.${f!.evidence['Missing op']}`).toBe(op)
      expect(f!.message).toMatch(why)
    }
  })

  it("near miss: vLLM's import warning alone, which every healthy start of a platform plugin without vllm._C logs (Ascend, TPU)", () => {
    const healthy = [
      'INFO 09-30 04:44:39 [__init__.py:207] Platform plugin ascend is activated',
      'WARNING 09-30 04:44:40 [_custom_ops.py:20] Failed to import from vllm._C with ModuleNotFoundError("No module named \'vllm._C\'")',
      '(EngineCore_DP0 pid=415) INFO 11-17 11:40:02 [parallel_state.py:1208] rank 0 in world size 1 is assigned as DP rank 0, PP rank 0, TP rank 0, EP rank 0',
      'WARNING 11-12 15:27:46 [interface.py:197] Failed to import from vllm._C: ModuleNotFoundError("No module named \'vllm._C\'")',
    ].join('\n')
    expect(one(`${healthy}\n`)).toEqual([])
  })

  it("VLLM_FLAG_UNKNOWN: argparse's message quoted without the program's 'error:' before it, behind a process prefix too; not in prose", () => {
    // MiaAI-Lab/DeepSeek-v4-Flash-DSpark-2x-DGX-Spark#17's shape (held-out batch 11, fixed after its score): the report quotes the message alone
    for (const [line, flag] of [
      ['unrecognized arguments: --enable-prompt-tokens-details', '--enable-prompt-tokens-details'],
      ['(APIServer pid=1) unrecognized arguments: --omni --stage-configs-path /x.yaml', '--omni --stage-configs-path'],
      ['  unrecognized arguments: --speculative-model eagle', '--speculative-model'],
    ]) {
      const f = one(`${line}\n`).find((x) => x.code === 'VLLM_FLAG_UNKNOWN')
      expect(f?.evidence['Unrecognised arguments'], line).toBe(flag)
    }
    for (const prose of ['The fix for unrecognized arguments: see the docs', 'INFO warned about unrecognized arguments: none'])
      expect(
        one(`${prose}\n`).map((x) => x.code),
        prose,
      ).not.toContain('VLLM_FLAG_UNKNOWN')
  })

  it('GPU_SHORTFALL: ParallelConfig\'s "World size (N) is larger than the number of available GPUs (M) in this node" (vLLM 0.19.1 to 0.34.0)', () => {
    // Real vLLM 0.24.0, `vllm serve -tp 2` on one H100 (test/real/captures/tp-larger-than-gpus-mp/server.log): raised inside pydantic's
    // ValidationError for ParallelConfig, so the line carries pydantic's "Value error, " and the process prefix.
    const log = [
      '(APIServer pid=1397) pydantic_core._pydantic_core.ValidationError: 1 validation error for ParallelConfig',
      '(APIServer pid=1397)   Value error, World size (2) is larger than the number of available GPUs (1) in this node. If this is intentional and you are using:',
      "(APIServer pid=1397) - ray, set '--distributed-executor-backend ray'.",
    ].join('\n')
    const found = scanLog(log, 'serve').filter((f) => f.code === 'GPU_SHORTFALL')
    expect(found).toHaveLength(1)
    expect(found[0]!.evidence).toMatchObject({ 'Workers asked for (TP, or TP×PP per node)': '2', 'GPUs vLLM sees': '1' })
  })

  it('GPU_SHORTFALL: TP over the GPUs a node or cluster shows, in three vLLM wordings, with both numbers', () => {
    expect(only('image-tp-gpus-nemo-skills-1059.txt', 'GPU_SHORTFALL').evidence).toMatchObject({
      'Workers asked for (TP, or TP×PP per node)': '16',
      'GPUs vLLM sees': '8',
    })
    expect(only('image-tp-gpus-assert-vllm-12132.txt', 'GPU_SHORTFALL').evidence).toMatchObject({ 'GPUs vLLM sees': '1' })
    expect(only('image-tp-gpus-local-world-vllm-28873.txt', 'GPU_SHORTFALL').evidence).toMatchObject({ 'Workers asked for (TP, or TP×PP per node)': '16' })
  })

  it("DRIVER_NO_GPU: vLLM's placement group without a bundle on the driver's node (the wording of vLLM 0.6-0.28 ray_utils.py _verify_bundles, rendered; no public capture of it found), with the node and the group", () => {
    // Format as in the vLLM 0.19.1, 0.24.0 and 0.28.0 wheels (vllm/v1/executor/ray_utils.py), with sample ids.
    const [f] = one(
      "(EngineCore_DP0 pid=2210) ERROR 12-05 10:00:00 [core.py:708] RuntimeError: driver node id 3e48e24bfb174f5d7e32b56b500214c34fde9d46eac3208b382f0a18 is not included in a placement group 40b1afdfd00d099e6f456e30b24f02000000. Node id -> bundles {'9a1c7e0b2f3d4c5b6a7f8e9d0c1b2a3f4e5d6c7b8a9f0e1d2c3b4a59': [{'GPU': 1.0}, {'GPU': 1.0}]}. You don't have enough GPUs available in a current node. Check `ray status` and `ray list nodes` to see if you have available GPUs in a node `{driver_node_id}` before starting an vLLM engine.\n",
    )
    expect(f).toMatchObject({
      code: 'DRIVER_NO_GPU',
      severity: 'error',
      evidence: { 'Driver node id': '3e48e24bfb174f5d7e32b56b500214c34fde9d46eac3208b382f0a18', 'Placement group': '40b1afdfd00d099e6f456e30b24f02000000' },
    })
    expect(f!.message).toContain('whose GPUs are all on another node')
  })

  it("VERSION_SKEW: NCCL's bootstrap receiving a message of another size", () => {
    expect(only('image-nccl-skew-truncated-vllm-16714.txt', 'VERSION_SKEW').evidence).toMatchObject({
      'Bytes received': '172',
      'Bytes expected': '64',
      'NCCL host': 'ada6000-02',
    })
    expect(only('image-nccl-skew-bootstrap-nccl-1176.txt', 'VERSION_SKEW').message).toContain('different NCCL versions')
  })

  it("VERSION_SKEW: NCCL's own version check (init.cc's wording), both versions decoded", () => {
    // The line as a public multi-node troubleshooting guide quotes it (wrapped in torch's RuntimeError), and as NCCL's WARN record prints it.
    const [f] = one('RuntimeError: Mismatched NCCL version detected : rank 1 version 22705 rank 0 version 22703\n')
    expect(f).toMatchObject({ code: 'VERSION_SKEW', severity: 'error', evidence: { 'NCCL of rank 1': '2.27.5', 'NCCL of rank 0': '2.27.3' } })
    const [old] = one('node-b:4242:4242 [0] NCCL INFO init.cc:642 NCCL WARN Mismatched NCCL version detected : rank 3 version 2708 rank 0 version 21903\n')
    expect(old!.evidence).toMatchObject({ 'NCCL of rank 3': '2.7.8', 'NCCL of rank 0': '2.19.3' })
  })

  it("VERSION_SKEW: NCCL's socket transport receiving more than it posted (ranks that disagree), with the peer when named", () => {
    expect(only('image-nccl-skew-socket-nccl-268.txt', 'VERSION_SKEW').evidence).toMatchObject({
      'Bytes received': '696320',
      'Bytes expected': '32768',
      'NCCL host': 'hvd1',
    })
    expect(only('image-nccl-skew-socket-peer-nccl-626.txt', 'VERSION_SKEW').evidence).toMatchObject({ 'Bytes received': '1048576', Peer: '192.168.161.30' })
  })
})

describe('rendezvous', () => {
  it('PORT_IN_USE: torch, CPython and the raylet wordings (four captures), with the port when the line has one', () => {
    expect(only('rdzv-port-in-use-vlm-r1-289.txt', 'PORT_IN_USE').evidence.Port).toBe('29500')
    expect(only('rdzv-port-in-use-vllm-39015.txt', 'PORT_IN_USE').evidence.Port).toBe('29500')
    expect(only('rdzv-port-in-use-vllm-11617.txt', 'PORT_IN_USE').evidence.Port).toBeUndefined()
    only('net-bind-port-in-use-ray-5399.txt', 'PORT_IN_USE')
    // A logger's source tag after the message ("local_server.py:108") or a time is not the port; zmq's addr= is.
    const [tagged] = one(
      '                    INFO     OSError: [Errno 48] Address already in use                    local_server.py:108[05/05/25 16:31:14] DEBUG\n',
    )
    expect(tagged!.evidence.Port).toBeUndefined()
    const [zmq] = one("zmq.error.ZMQError: Address already in use (addr='tcp://10.0.0.2:5570')\n")
    expect(zmq!.evidence.Port).toBe('5570')
    const [uvicorn] = one("ERROR:    [Errno 98] error while attempting to bind on address ('0.0.0.0', 8000): address already in use\n")
    expect(uvicorn!.evidence).toMatchObject({ Port: '8000', Address: '0.0.0.0' })
  })

  it('RENDEZVOUS_RANKS_MISSING: the store timeouts, with the ranks joined or the wait (three captures)', () => {
    expect(only('rdzv-store-timeout-openrlhf-1040.txt', 'RENDEZVOUS_RANKS_MISSING').evidence).toMatchObject({
      'Ranks joined': '1',
      'World size the store waited for': '3',
    })
    expect(only('rdzv-store-wait-timeout-vllm-12526.txt', 'RENDEZVOUS_RANKS_MISSING').evidence.Waited).toBe('600 s')
    only('rdzv-store-wait-timeout-trl-3221.txt', 'RENDEZVOUS_RANKS_MISSING')
  })

  it('SOCKET_IFNAME_MISSING: Gloo told an interface or address this machine lacks (three captures, and the bond-slave case)', () => {
    expect(only('rdzv-gloo-ifname-horovod-1341.txt', 'SOCKET_IFNAME_MISSING').evidence['Interface Gloo was told']).toBe('eth0')
    const excluded = only('rdzv-gloo-ifname-aws-do-eks-51.txt', 'SOCKET_IFNAME_MISSING')
    expect(excluded.evidence['Interface Gloo was told']).toBe('^lo')
    expect(excluded.message).toContain("NCCL's exclusion syntax")
    expect(only('rdzv-gloo-numeric-host-gpustack-4128.txt', 'SOCKET_IFNAME_MISSING').evidence['Address the hostname resolved to']).toBe('0.0.0.189')
    const [eth0] = one('RuntimeError: [enforce fail at ../third_party/gloo/gloo/transport/tcp/device.cc:84] ifa != nullptr. Unable to find address for: eth0\n')
    expect(eth0!.evidence['Interface Gloo was told']).toBe('eth0')
  })

  it('MASTER_ADDR_NOT_FABRIC: a netmask or the wildcard as the master address', () => {
    const [f] = one('vllm serve m --nnodes 2 --node-rank 1 --master-addr 255.255.255.0 --master-port 29501 --headless\n')
    expect(f).toMatchObject({ code: 'MASTER_ADDR_NOT_FABRIC', severity: 'error', evidence: { 'Master address': '255.255.255.0' } })
    expect(one('vllm serve m --nnodes 2 --master-addr 10.0.0.255 --master-port 29501\n').filter((x) => x.code === 'MASTER_ADDR_NOT_FABRIC')).toEqual([])
  })
})

describe('memory', () => {
  it('GPU_OUT_OF_MEMORY: no memory for the cache blocks (three captures) and a negative KV cache budget', () => {
    for (const file of ['mem-cache-blocks-qanything-302.txt', 'mem-cache-blocks-v1-vllm-27508.txt', 'mem-cache-blocks-ci-vllm-14574.txt'])
      only(file, 'GPU_OUT_OF_MEMORY')
    expect(only('engine-init-failed-cause-vllm-omni-469.txt', 'GPU_OUT_OF_MEMORY').evidence['KV cache memory left']).toBe('-2.77 GiB')
  })

  it('a CUDA OOM whose first line lacks the allocation is completed by the line that has it (the value, not the first line)', () => {
    const found = one(
      [
        'ERROR 01-01 00:00:00 [core.py:1] torch.OutOfMemoryError: CUDA out of memory.',
        'ERROR 01-01 00:00:00 [core.py:1] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.50 GiB. GPU 0 has a total capacity of 79.10 GiB of which 1.38 GiB is free.',
      ].join('\n'),
    ).filter((f) => f.code === 'GPU_OUT_OF_MEMORY')
    expect(found.map((f) => f.evidence['Tried to allocate'])).toEqual(['2.50 GiB'])
    expect(found[0]!.message).toContain('allocating 2.50 GiB')
  })
})

describe('wordings that reach the reader changed (classes found by held-out batch 5, tested on lines of their own)', () => {
  it("a Python exception's message wrapped onto the next line is one record: the values on both lines are read", () => {
    const [f] = one('ValueError: Free memory on device cuda:1 (40.01/79.25 GiB) on startup is less\nthan desired GPU memory utilization (0.9, 71.33 GiB).\n')
    expect(f).toMatchObject({
      code: 'GPU_OUT_OF_MEMORY',
      evidence: { 'Free at start-up': '40.01 GiB of 79.25 GiB', gpu_memory_utilization: '0.9 (71.33 GiB)' },
    })
    // Not joined: a capitalised next line, an indented one that is a new record, a message that ended with a full stop.
    expect(one('ValueError: bad value\nTraceback (most recent call last):\n').map((x) => x.code)).not.toContain('GPU_OUT_OF_MEMORY')
  })

  it('a placement-group wait reworded by a fork is still the wait, with how long', () => {
    const [f] = one("INFO 05-01 10:00:00 [ray_utils.py:267] Waiting for creating a group of placement of specs for 40 seconds. specs=[{'GPU': 1.0}]\n")
    expect(f).toMatchObject({ code: 'PLACEMENT_GROUP_PENDING', evidence: { 'Waited so far': '40 s' } })
  })
})

describe('ENGINE_DEAD with its cause', () => {
  it('the first exception after "EngineCore encountered a fatal error" (two captures), the exception before "See root cause above"', () => {
    expect(only('engine-fatal-timeout-vllm-19668.txt', 'ENGINE_DEAD').evidence['Root cause']).toBe('7: TimeoutError: RPC call to execute_model timed out.')
    expect(only('engine-fatal-spark-vllm-docker-348.txt', 'ENGINE_DEAD').evidence['Root cause']).toBe('6: TimeoutError')
    only('engine-fatal-lmcache-vllm-48801.txt', 'ENGINE_DEAD')
    const cause = one(
      'ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.\nRuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}\n',
    ).find((f) => f.code === 'ENGINE_DEAD')!
    expect(cause.evidence['Root cause']).toMatch(/^1: ValueError: No available memory/)
    expect(cause.message).toContain('ValueError: No available memory')
  })
})
