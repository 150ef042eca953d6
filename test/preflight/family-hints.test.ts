/**
 * Family hints (src/preflight/signature-family-hints.ts): a failure line no signature knows in its
 * exact wording still points at its family when it uses the family's own words (the CUDA/HIP error
 * names, errno names, huggingface_hub's error classes, NCCL's transports, torch's store), as a warning
 * beside the UNRECOGNISED_FAILURE of the same lines, never instead of it. The lines below reword each
 * family the way wrappers, launchers and newer releases do (a sentence of their own around the cause's
 * words); none of them is a wording any signature reads, which the first test checks.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import type { Finding } from '../../src/preflight/finding.js'
import { diagnose } from '../../src/preflight/offline-diagnosis.js'
import { FAMILY_HINTS } from '../../src/preflight/signature-family-hints.js'
import { createLogWatcher, scanLog } from '../../src/preflight/signatures.js'
import { withUnexplained } from '../../src/preflight/watch-vllm.js'

const tags = (found: readonly Finding[]) => found.map((f) => `${f.code}:${f.severity}`)
const scan = (text: string) => scanLog(text.endsWith('\n') ? text : `${text}\n`, 'x.log')

/** Per family, failure lines in other words than any signature's, each from a different kind of source. */
const REWORDED: Readonly<Record<string, readonly string[]>> = {
  GPU_ARCH_UNSUPPORTED: [
    'RuntimeError: Triton compilation failed: ptx target sm_121a is not supported by this toolkit',
    'ERROR rccl: gfx1151 is not supported by the bundled kernels',
  ],
  NCCL_TRANSPORT_ERROR: [
    'ERROR 01-02 10:00:00 [x.py:1] transport failed: NET/IB : mlx5_3 link flapped',
    'RuntimeError: collective aborted: ibv_post_send returned 12',
  ],
  SOCKET_IFNAME_MISSING: [
    'ERROR launcher: NCCL_SOCKET_IFNAME=ens7 not found on this host',
    'RuntimeError: Failed to resolve interface enp1s0f0np0 for the bootstrap',
  ],
  // (a launcher's "ERROR …: port 8000 is already in use" is PORT_IN_USE's own signature since held-out batch 14)
  PORT_IN_USE: ['RuntimeError: bind for 0.0.0.0:8000 failed: Address in use', 'ERROR api_server: bind failed with [Errno 98] for 0.0.0.0:8000'],
  DISK_SPACE_LOW: ['OSError: [Errno 28] writing shard 3 failed', 'ERROR download: write /root/.cache/huggingface/hub/blob: disk quota exceeded'],
  WEIGHTS_ACCESS_DENIED: [
    'ERROR hub: download failed: Invalid user token',
    'RuntimeError: cannot fetch meta-llama/Llama-3.1-8B: you must be authenticated to read it',
  ],
  WEIGHTS_OFFLINE_MISSING: ['RuntimeError: model files missing and HF_HUB_OFFLINE is set', 'ERROR fetch: outgoing traffic has been disabled for config.json'],
  WEIGHTS_CORRUPT: ['ERROR loader: /models/q/model-00003-of-00010.safetensors is truncated', 'RuntimeError: shard check: HeaderTooLarge in model-00001'],
  IMAGE_PLATFORM_MISMATCH: ['ERROR start.sh: exec /usr/local/bin/vllm: exec format error', 'RuntimeError: loading libcuda failed: wrong ELF class: ELFCLASS32'],
  IMAGE_LACKS_RAY: ['ERROR worker.py: No module named ray.dag', 'ERROR start.sh: ray: not found'],
  DRIVER_NO_GPU: ["ERROR probe: nvidia-smi: couldn't communicate with the NVIDIA driver", 'RuntimeError: No HIP GPUs are available'],
  GPU_OUT_OF_MEMORY: ['ERROR worker: cuMemCreate returned CUDA_ERROR_OUT_OF_MEMORY', 'RuntimeError: GPU out of memory while capturing graphs'],
  RENDEZVOUS_UNREACHABLE: ['torch.distributed.DistStoreError: wait for key timed out', 'ERROR rdzv: rendezvous at 10.0.0.1:29400 timed out after 900 s'],
  RAY_GCS_UNREACHABLE: ['ERROR worker: GCS is unreachable after 60 s', 'RuntimeError: GCS at 192.168.200.12:6379 refused the connection'],
  GPU_SHORTFALL: [
    'ValueError: tensor_parallel_size 4 is greater than the number of GPUs (2)',
    'RuntimeError: not enough GPUs: requires 8 GPUs but only 2 available',
    // a GPU index the node does not have (dev13-classes.test.ts)
    'RuntimeError: CUDA error: invalid device ordinal',
  ],
  VLLM_FLAG_UNKNOWN: [
    // (EngineArgs' own TypeError is a rule since dev batch dev11a: signature-rules-startup.ts)
    "TypeError: ModelConfig.__init__() got an unexpected keyword argument 'enable_foo'",
    'Error: no such option: --kv-offload',
  ],
  MODEL_NOT_SUPPORTED: [
    'ERROR registry: Unrecognized configuration class Qwen9Config',
    'RuntimeError: model type `qwen9` but Transformers does not recognize it',
  ],
  VERSION_SKEW: [
    // (dev batch dev12a: transformers 5 beside a vLLM written for 4.x)
    'AttributeError: TokenizersBackend has no attribute all_special_tokens_extended',
    "ImportError: cannot import name 'LlamaFlashAttention2' from 'transformers.models.llama.modeling_llama'",
  ],
}

describe('a failure line in unknown words that use a family’s own words', () => {
  it('every hint family is covered here', () => {
    expect(Object.keys(REWORDED).sort()).toEqual(
      [...new Set(FAMILY_HINTS.map((h) => h.code))].filter((c) => c !== 'OOM_KILLED' && c !== 'WEIGHTS_NOT_FOUND').sort(),
    )
  })
  for (const [code, lines] of Object.entries(REWORDED))
    it(`${code}: UNRECOGNISED_FAILURE (error) and a ${code} warning that quotes the words`, () => {
      for (const line of lines) {
        const found = scan(line)
        expect(tags(found), line).toEqual(['UNRECOGNISED_FAILURE:error', `${code}:warning`])
        const hint = found[1]!
        expect(line, code).toContain(hint.evidence['Words that tell'])
        expect(hint.evidence['Log line']).toBe('x.log:1')
        expect(hint.message).toMatch(/^Probably /)
        expect(hint.fix.length).toBeGreaterThan(40)
      }
    })
  it('OOM_KILLED and WEIGHTS_NOT_FOUND: their signatures already read the wrapper wordings tried; a line only the hint reads still gets it', () => {
    expect(tags(scan('ERROR node-agent: task evicted (oom-killer invoked on the cgroup)'))).toEqual(['UNRECOGNISED_FAILURE:error', 'OOM_KILLED:warning'])
    expect(tags(scan('ERROR loader: No model weights found under the model dir'))).toEqual(['UNRECOGNISED_FAILURE:error', 'WEIGHTS_NOT_FOUND:warning'])
  })
  it('one hint per family, counting its lines, on the first of them; families in the order their lines came', () => {
    const found = scan(
      ['ERROR a: bind failed with [Errno 98] on port 8000', 'ERROR b: GCS is unreachable after 60 s', 'ERROR c: bind failed with [Errno 98] on port 8001'].join(
        '\n',
      ),
    )
    expect(tags(found)).toEqual(['UNRECOGNISED_FAILURE:error', 'PORT_IN_USE:warning', 'RAY_GCS_UNREACHABLE:warning'])
    expect(found[1]!.evidence).toMatchObject({ 'Log line': 'x.log:1', 'Lines with these words': '2' })
  })
})

describe('near misses: no hint', () => {
  it('the same words outside failure lines (INFO records, a healthy NCCL start)', () => {
    for (const line of [
      'h:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB enp1s0f0np0:192.168.200.12<0>',
      'INFO 01-02 10:00:00 [gpu_worker.py:1] free memory 110 GiB; GPU out of memory guard at 0.9',
      '2026-01-02 10:00:00,000 INFO worker.py -- Connected to Ray cluster at 192.168.200.12:6379 (GCS)',
    ])
      expect(scan(line), line).toEqual([])
  })
  it("Ray's worker-death message lists causes it does not claim (the OOM killer among them)", () => {
    const line =
      'ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task. There are some potential root causes. (1) The process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop --force is called.'
    expect(tags(scan(line))).toEqual(['UNRECOGNISED_FAILURE:error'])
  })
  it("the HCA's benign async events stay the NCCL rule's to judge", () => {
    expect(tags(scan('host:1:2 [0] NCCL WARN NET/IB : mlx5_0:1 Got async error event: client reregistration'))).not.toContain('NCCL_TRANSPORT_ERROR:warning')
  })
  it('a log an error signature explains gets no hints for its other lines', () => {
    const found = scan(
      [
        'RuntimeError: The server socket has failed to listen on any local network address. port: 29500, useIpv6: 0, code: -98, name: EADDRINUSE, message: address already in use',
        'ERROR b: GCS is unreachable after 60 s',
      ].join('\n'),
    )
    expect(tags(found)).toEqual(['PORT_IN_USE:error'])
  })
  it('a family a warning signature already named is not hinted again', () => {
    const found = scan(['ERROR a: GCS is unreachable after 60 s', 'ERROR b: GCS is unreachable after 90 s'].join('\n'))
    expect(found.filter((f) => f.code === 'RAY_GCS_UNREACHABLE')).toHaveLength(1)
  })
  it('no healthy held-out capture of any batch gets a hint (or any warning it did not get before)', () => {
    const root = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'held-out')
    let healthy = 0
    for (const batch of readdirSync(root, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .concat('.')) {
      const dir = join(root, batch)
      const expected = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) as Record<string, string | null>
      for (const [file, code] of Object.entries(expected)) {
        if (code !== null) continue
        healthy++
        const found = scanLog(readFileSync(join(dir, file), 'utf8').replace(/^#.*\n/gm, ''), file)
        expect(
          found.filter((f) => f.evidence['Words that tell'] !== undefined),
          file,
        ).toEqual([])
      }
    }
    expect(healthy).toBeGreaterThanOrEqual(30)
  })
})

describe('the paths users run', () => {
  const log = 'INFO start\nERROR worker.py: No module named ray.dag\n'
  it('diagnose --log', () => {
    expect(tags(diagnose({ logs: [{ source: 'node-a:vllm.log', text: log }] }))).toEqual(['UNRECOGNISED_FAILURE:error', 'IMAGE_LACKS_RAY:warning'])
  })
  it("the deploy's live watcher, once vLLM exited (withUnexplained)", () => {
    const watcher = createLogWatcher({ source: 'spark-a:/var/log/vllm.log' })
    for (const chunk of [log.slice(0, 17), log.slice(17)]) watcher.push(chunk)
    watcher.end()
    const found = withUnexplained(watcher)
    expect(tags(found)).toEqual(['UNRECOGNISED_FAILURE:error', 'IMAGE_LACKS_RAY:warning'])
    expect(found[1]!.evidence['Log line']).toBe('spark-a:/var/log/vllm.log:2')
  })
})
