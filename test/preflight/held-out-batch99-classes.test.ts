/**
 * Classes found in session 61's second round (held-out batches 99–104, scored first at 758b8c7: 19/28 right, 21/28 with the collectors'
 * alsoFair codes, one false alarm on 12 healthy), each tested on public sources other than the capture that showed it, with near misses.
 */
import { describe, expect, it } from 'vitest'
import { scan } from './support/paste-scan.js'

const codes = (text: string) => scan(text).map((x) => `${x.code}/${x.severity}`)

// (held-out batch 103's vllm-project/vllm-omni#2619: a CI traceback behind Buildkite's times, read as nothing at all)
describe('a time alone in square brackets before each line is a prefix', () => {
  it.each([
    // vllm-project/vllm#18592 (2025): a Buildkite CI failure, as the issue quotes it
    [
      '[2025-05-23T04:39:51Z] Traceback (most recent call last):\n[2025-05-23T04:39:51Z]   File "/usr/local/bin/vllm", line 10, in <module>\n[2025-05-23T04:39:51Z]     sys.exit(main())\n[2025-05-23T04:39:51Z] RuntimeError: Engine core initialization failed. See root cause above.',
    ],
    // Buildkite's web view copied with its column bar (ray-project/ray PR #48761's quote has this shape)
    ['  | [2024-11-15T17:50:08Z] Traceback (most recent call last):\n  | [2024-11-15T17:50:08Z] ValueError: boom'],
    // Jenkins' timestamper, milliseconds (a uv build log found with find_string, code index id 8840153871)
    [
      '[2024-04-03T12:12:33.275Z] Traceback (most recent call last):\n[2024-04-03T12:12:33.275Z]   File "<string>", line 14, in <module>\n[2024-04-03T12:12:33.275Z] ModuleNotFoundError: No module named \'setuptools\'',
    ],
    // a shell helper's `echo "[$(date '+%F %T')] $*"`
    ['[2026-04-09 01:59:26] Traceback (most recent call last):\n[2026-04-09 01:59:26] OSError: [Errno 98] Address already in use'],
  ])('%#', (text) => {
    expect(codes(text).length).toBeGreaterThan(0)
    expect(scan(text).some((x) => x.severity === 'error')).toBe(true)
  })

  it("near miss: a level tag after the time stays with it, and Ray's record head is no time alone", () => {
    expect(codes('[2026-08-03 10:02:11] [ERROR] the head did not come up')).toEqual(['UNRECOGNISED_FAILURE/error'])
    expect(codes('[2026-08-03 10:02:11] [INFO] starting the head')).toEqual([])
    expect(codes('[2025-03-03 13:03:38,823 E 53766 2515875] core_worker.cc:499: Failed to register worker to Raylet')).toContain(
      'RAY_WORKER_REGISTER_FAILED/error',
    )
    expect(codes('[2026-04-09T01:59:26Z] INFO 04-09 01:59:26 [api_server.py:1000] Application startup complete.')).toEqual([])
  })
})

// (held-out batch 101's modelscope/ms-swift#3739: the exception line set in markdown bold, read as nothing at all)
describe('a pasted line set in markdown bold is read without the asterisks', () => {
  it.each([
    '[rank1]: **RuntimeError: world_size (8) is not equal to tensor_model_parallel_size (4) x pipeline_model_parallel_size (1)**',
    '**ValueError: Cannot find any model weights with `/models/qwen`**',
    '**torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.19 GiB of which 1.02 GiB is free.**',
  ])('%s', (line) => {
    expect(scan(line).some((x) => x.severity === 'error')).toBe(true)
  })

  it('near miss: bold prose and a bold word inside a line are no failure', () => {
    expect(codes('**Update:** it works now with `--ipc=host`')).toEqual([])
    expect(codes('INFO 04-09 01:59:26 [loader.py:50] Loading weights took **12.3** seconds')).toEqual([])
  })
})

// (held-out batch 100's vllm-project/vllm#18446: NCCL's CUDA out-of-memory as torch repeats it after "Last error:")
describe("NCCL's CUDA out-of-memory under torch's 'Last error:' is GPU_OUT_OF_MEMORY", () => {
  it.each([
    // NCCL include/alloc.h / checks.h: WARN("Cuda failure %d '%s'", …) (2.19+), "Cuda failure '%s'" before; torch's layout as in NVIDIA/nccl#1410 (2024)
    "[rank7]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5\n[rank7]: ncclUnhandledCudaError: Call to CUDA function failed.\n[rank7]: Last error:\n[rank7]: Cuda failure 2 'out of memory'",
    "ncclUnhandledCudaError: Call to CUDA function failed.\nLast error:\nCuda failure 'out of memory'",
  ])('%#', (text) => {
    expect(codes(text)).toContain('GPU_OUT_OF_MEMORY/error')
  })

  it("near miss: another CUDA failure NCCL repeats is not an out-of-memory (NVIDIA/nccl#1410's 'invalid argument')", () => {
    expect(
      codes("[rank7]: ncclUnhandledCudaError: Call to CUDA function failed.\n[rank7]: Last error:\n[rank7]: Cuda failure 1 'invalid argument'"),
    ).not.toContain('GPU_OUT_OF_MEMORY/error')
  })
})

// (held-out batch 100's run-ai/runai-model-streamer#39: the streamer's own ERROR record, read as nothing at all)
describe("Run:ai model streamer's ERROR records are failure lines", () => {
  it.each([
    // run-ai/runai-model-streamer#55 (2025), with the time
    '[2025-05-16 14:05:43.311] [ERROR  ] [205 256] [s3/client/client.cc:264 @ operator()               ] Failed to download s3 object : socket is closed. (aws-c-io: AWS_IO_SOCKET_CLOSED)',
    // without it (RUNAI_STREAMER_LOG_TO_STDERR=1 in a container)
    '[ERROR  ] [99 120] [s3/client/client.cc:155 @ operator()              ] Failed to download s3 object : ',
  ])('%s', (line) => {
    expect(codes(line)).toEqual(['UNRECOGNISED_FAILURE/error'])
  })

  it('near miss: its DEBUG and SPAM records are no finding (run-ai/runai-model-streamer#46, #55)', () => {
    const log = [
      '[2025-03-31 07:43:02.236] [DEBUG  ] [3613208 3613208] [streamer/impl/streamer/streamer.cc: 27 @ Streamer] Streamer concurrency 16 ; s3 block size 8388608 bytes;  ; file system block size 2097152 bytes; ',
      '[2025-05-16 14:05:37.360] [SPAM   ] [205 205] [common/responder/responder.cc: 48 @ pop            ] Sending response: request index: 9 Response code:  response code: Request sent successfuly',
    ].join('\n')
    expect(codes(log)).toEqual([])
  })
})

// (held-out batch 104's training guide: "Error creating directories: [Errno 13] …", read as nothing at all)
describe("a program's own error message carrying the OS error it caught is a failure line", () => {
  it.each([
    "✗ [Rank 0] Error creating directories: [Errno 13] Permission denied: '/lustre/checkpoints/run-1'",
    'Error writing checkpoint shard 3: [Errno 28] No space left on device',
    "ERROR: Error loading config from /etc/app/config.yaml: [Errno 2] No such file or directory: '/etc/app/config.yaml'",
  ])('%s', (line) => {
    expect(scan(line).some((x) => x.severity === 'error')).toBe(true)
  })

  it("near miss: vLLM's harmless fallback and a retry are no failure", () => {
    expect(codes("(EngineCore_DP0 pid=1044287) Could not determine user, using default path. Error: [Errno 13] Permission denied: '/mnt/nfs_test'")).toEqual([])
    expect(codes('DEBUG    Server check failed: [Errno 61] Connection refused, retrying...')).toEqual([])
  })
})
