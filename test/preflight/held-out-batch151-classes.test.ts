/**
 * Classes found in session 63's fifth round (held-out batches 151–155, scored first at 8e9edda: 17/29 right, 23/29 with the collectors'
 * alsoFair codes, one false alarm on 4 healthy), each tested on sources and renderings other than the capture that showed it, with near misses.
 */
import { describe, expect, it } from 'vitest'
import { bad, codes, one } from './support/paste-scan.js'

// (sgl-project/sglang#22749: a healthy two-machine start read as failing, every line ERROR by Google Cloud Logging's shipper)
describe("Google Cloud Logging's lines as its Logs Explorer copies them", () => {
  const gcp = (severity: string, message: string) =>
    `${severity} 2026-04-16T19:06:53.952592314Z [severity: ${severity}] [resource.labels.containerName: vllm-container] ${message}`

  it("the shipper's severity (stderr is ERROR) is not the program's: a healthy start stays healthy", () => {
    for (const message of [
      '[2026-04-16 19:06:53 PP0 TP0] [RunAI Streamer] Overall time to stream 69.3 GiB of all files to cpu: 119.64s, 593.2 MiB/s',
      'INFO 04-16 19:06:53 [api_server.py:1000] Application startup complete.',
    ])
      expect(bad(gcp('ERROR', message)), message).toEqual([])
  })

  it("the program's own failure under it is read", () => {
    expect(codes(gcp('ERROR', 'RuntimeError: CUDA error: an illegal memory access was encountered'))).toContain('UNRECOGNISED_FAILURE/error')
    expect(codes(gcp('ERROR', 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.'))).toContain('GPU_OUT_OF_MEMORY/error')
  })

  it('a level, a time and a bracket that are not its fields stay as they are', () => {
    expect(bad('ERROR 2026-04-16T19:06:53Z [core.py:10] EngineCore failed to start.').length).toBeGreaterThan(0)
  })
})

// (vllm-project/vllm#20177: `2025-06-27 17:14:23: (VllmWorker rank=1 pid=…) ERROR …`, a wrapper's time and colon before each line, read as nothing)
describe('a time a wrapper stamped on each line', () => {
  it.each([
    '2025-06-27 17:14:23: (VllmWorker rank=1 pid=776294) ERROR 06-27 17:14:23 [multiproc_executor.py:522] WorkerProc hit an exception.',
    // moreutils' ts, its default format
    'Jun 27 17:14:23 Traceback (most recent call last):\nJun 27 17:14:23   File "/app/serve.py", line 3, in <module>\nJun 27 17:14:23 RuntimeError: boom',
  ])('%#: the record is read', (text) => {
    expect(bad(text).length, codes(text).join(', ')).toBeGreaterThan(0)
  })

  it("journalctl's own short form (with the host and the process) keeps its reading, and a healthy stamped line stays healthy", () => {
    expect(bad('Jun 27 17:14:23 spark-a vllm[2314]: INFO 06-27 17:14:23 [api_server.py:1000] Application startup complete.')).toEqual([])
    expect(bad('2025-06-27 17:14:23: INFO 06-27 17:14:23 [api_server.py:1000] Application startup complete.')).toEqual([])
  })
})

// (ray-project/kuberay#889: the lines of gRPC's failed call under a cut exception head, read as nothing)
describe("gRPC's failed call as Python prints it", () => {
  it.each([
    '\tdetails = "failed to connect to all addresses; last error: UNKNOWN: ipv4:10.108.163.118:6379: Peer name 10.108.163.118 is not in peer certificate"',
    '\tstatus = StatusCode.UNAVAILABLE\n\tdetails = "failed to connect to all addresses"',
    '\tdebug_error_string = "UNKNOWN:Error received from peer  {grpc_message:"Deadline Exceeded", grpc_status:4}"',
  ])('%#: is a failure line', (text) => {
    expect(bad(text).length, codes(text).join(', ')).toBeGreaterThan(0)
  })

  it('a status line of OK is nothing', () => {
    expect(bad('\tstatus = StatusCode.OK')).toEqual([])
  })
})

// (vllm-project/vllm#30690: a LoRA adapter not at its path, read as an unrecognised failure)
describe("vLLM's LoRA adapter not found at its path", () => {
  it.each([
    [
      '(EngineCore_DP0 pid=1511501) ERROR 12-15 18:57:10 [core.py:918] ValueError: Loading lora ["table_qc failed: No adapter found for /data/home/zz/output/qwen_lora_output/checkpoint-57"]',
      'table_qc',
      '/data/home/zz/output/qwen_lora_output/checkpoint-57',
    ],
    // vLLM's own exception class (vllm/exceptions.py), an RL trainer's adapter
    [
      'vllm.exceptions.LoRAAdapterNotFoundError: Loading lora samp-session-live-123 failed: No adapter found for /tmp/open-rl/peft/samp-session-live-123/adapter_config.json',
      'samp-session-live-123',
      '/tmp/open-rl/peft/samp-session-live-123/adapter_config.json',
    ],
  ])('%#: WEIGHTS_NOT_FOUND with the adapter and the path', (text, name, path) => {
    const f = one(text, 'WEIGHTS_NOT_FOUND')
    expect(f.evidence['LoRA adapter']).toBe(name)
    expect(f.evidence.Path).toBe(path)
    expect(f.fix).toContain('--lora-modules')
  })
})

// (NVIDIA-NeMo/RL#1009 and pytorch/pytorch#137695: bash's error for a failed builtin, ROCm's library errors, read as nothing)
describe("bash's error for a failed command in a script, and the ROCm libraries' error lines", () => {
  it.each([
    '/var/spool/slurm/d/job3559288/slurm_script: line 72: ulimit: open files: cannot modify limit: Invalid argument',
    './start.sh: line 5: cd: /models/qwen: No such file or directory',
    'rocblaslt error: Could not load /opt/venv/lib/python3.11/site-packages/torch/lib/hipblaslt/library/TensileLibrary_lazy_gfx942.dat',
    'rocblas error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file or directory',
  ])('%#: is a failure line', (text) => {
    expect(bad(text).length, codes(text).join(', ')).toBeGreaterThan(0)
  })

  it('a script line of its own output, and a ROCm library note, are nothing', () => {
    expect(bad('./start.sh: starting the head on 10.0.0.1')).toEqual([])
    expect(bad('rocblaslt info: using the lazy-loading library')).toEqual([])
  })
})
