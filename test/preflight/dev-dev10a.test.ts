import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { scanLog } from '../../src/preflight/signatures.js'
import { describeLabelledBatch } from './fixtures/labelled-batch.js'

const dir = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'dev', 'dev10a')
const scan = (text: string) => scanLog(text, 'paste')
const codes = (text: string) => scan(text).map((f) => f.code)

/** Asserted to be missed, with why: a rule that starts reading one moves it back into the scored set. */
const KNOWN_MISSES: Readonly<Record<string, string>> = {
  'mem-nvrm-head-cuda-init-gb10-tonyd2wild-6.txt':
    'the driver\'s line is cut mid-word in the stored thread ("Check failed: Out of me"), before its status name: only the CUDA init error is left (UNRECOGNISED_FAILURE)',
}

describeLabelledBatch({
  title: 'dev batch dev10a (2026 captures: vLLM, Ray, vllm-omni, DGX Spark launchers)',
  dir,
  knownMisses: KNOWN_MISSES,
  minHealthy: 5,
})

describe("OOM_KILLED: the raylet's own kill line, in every Ray wording", () => {
  it('reads the task, the count or the bytes (node_manager.cc 2.2–2.54, the killing policy of 2.55 and 2.60)', () => {
    const cases: [string, Record<string, string>][] = [
      [
        // ray-project/ray PR #60752's example output (Ray 2.54 development)
        '[2026-02-06 18:38:56,878 I 1334546 1334546] (raylet) node_manager.cc:3093: Killing worker with task Type=NORMAL_TASK, Language=PYTHON, Resources: {CPU: 1, }, function_descriptor={type=PythonFunctionDescriptor, module_name=__main__, class_name=, function_name=hungry_hippo, function_hash=165a56b5dddc447daf2bba714bf2cdbd}, lease_id=0100000001000000',
        { 'Task killed': 'hungry_hippo (NORMAL_TASK)' },
      ],
      [
        '(raylet) [2025-03-01 10:00:00,000 I 77 77] node_manager.cc:3062: Killing worker with task Type=ACTOR_CREATION_TASK, Language=PYTHON, Resources: {GPU: 1, }, function_descriptor={type=PythonFunctionDescriptor, module_name=vllm.executor.ray_utils, class_name=RayWorkerWrapper, function_name=__init__, function_hash=}',
        { 'Task killed': '__init__ (ACTOR_CREATION_TASK)' },
      ],
      // Ray 2.55.1 and 2.60.0 raylet binaries: "Killing %d worker(s), kill details: %s, suggestions: %s" / "… kill details: %s"
      [
        '[2026-05-20 20:35:20,101 I 512 512] (raylet) node_manager.cc:3120: Killing 2 worker(s), kill details: [pid=651, …], suggestions: …',
        { 'Workers killed': '2' },
      ],
      [
        'Currently used memory: 118200000000 bytes, threshold: 115600000000 bytes, kill buffer: 0 bytes. Needed to free 2600000000 bytes. Selected 1 workers to kill: [pid=4194].',
        { 'Workers killed': '1', 'Memory in use': '118.20GB (threshold 115.60GB)' },
      ],
    ]
    for (const [line, evidence] of cases) {
      const f = scan(line).find((x) => x.code === 'OOM_KILLED')
      expect(f, line).toBeDefined()
      expect(f!.severity).toBe('error')
      expect(f!.evidence, line).toMatchObject(evidence)
    }
  })
  it('near miss: the raylet kills a leased worker or a leaked process for other reasons', () => {
    for (const line of [
      '[2026-01-01 00:00:00,000 I 1 1] (raylet) node_manager.cc:1520: Killing leased worker because its owner died.',
      "[2026-01-01 00:00:00,000 I 1 1] (raylet) node_manager.cc:1530: Killing leased worker because its owner's node died.",
      '[2026-01-01 00:00:00,000 I 1 1] (raylet) main.cc:300: Killing leaked child process 4182',
      '[2026-01-01 00:00:00,000 I 1 1] (raylet) agent_manager.cc:90: Killing agent dashboard_agent/424238335, pid 1201.',
    ])
      expect(codes(line), line).not.toContain('OOM_KILLED')
  })
})

describe("GPU_OUT_OF_MEMORY: vLLM's start-up free-memory refusal however it is quoted", () => {
  it('reads the free, total and requested memory from the source wordings and a quote shortened around its numbers', () => {
    const cases: [string, Record<string, string>][] = [
      // vllm/v1/worker/utils.py request_memory, 0.19.1–0.34.0
      [
        'ValueError: Free memory on device cuda:0 (36.75/121.63 GiB) on startup is less than desired GPU memory utilization (0.85, 103.38 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.',
        { 'Free at start-up': '36.75 GiB of 121.63 GiB', gpu_memory_utilization: '0.85 (103.38 GiB)' },
      ],
      // vLLM 0.34.0 with weights held by another process
      [
        "ValueError: Free memory on device cuda:1 (60.0/79.2 GiB) on startup is less than the engine's budget after excluding external process's weights (0.9, 71.3 GiB).",
        { 'Free at start-up': '60.0 GiB of 79.2 GiB' },
      ],
      // older, without the device
      [
        'ValueError: Free memory on device (61.05/119.7 GiB) on startup is less than desired GPU memory utilization (0.9, 107.73 GiB).',
        { 'Largest value that fits now': '0.51' },
      ],
      // rwlove/home-ops PR #13221: a PR description's blockquote, shortened around the numbers, in a code span
      [
        '> `Free memory on cuda:0 (38.74/121.63 GiB) < desired utilization (0.35, 42.57 GiB)`',
        { 'Free at start-up': '38.74 GiB of 121.63 GiB', 'Memory model': 'unified (GB10)' },
      ],
    ]
    for (const [line, evidence] of cases) {
      const f = scan(line).find((x) => x.code === 'GPU_OUT_OF_MEMORY')
      expect(f, line).toBeDefined()
      expect(f!.evidence, line).toMatchObject(evidence)
    }
    // the same message wrapped by a page before "than" (paste-normalise joins an exception's lower-case continuation)
    expect(
      codes(
        'ValueError: Free memory on device cuda:0 (85.92/121.69 GiB) on startup is less\nthan desired GPU memory utilization (0.92, 111.95 GiB). Decrease GPU memory utilization',
      ),
    ).toContain('GPU_OUT_OF_MEMORY')
  })
  it('near miss: the hint vLLM logs after sizing the KV cache names the same numbers without refusing', () => {
    // vllm/v1/worker/gpu_worker.py 0.19.1–0.34.0 (logger.info), on a start that goes on
    const hint =
      '(EngineCore pid=212) INFO 05-10 10:10:52 [gpu_worker.py:436] Free memory on device (110.2/121.63 GiB) on startup. Desired GPU memory utilization is (0.8, 97.3 GiB). Actual usage is 10.8 GiB for consumed memory (weights + non-torch), 2.1 GiB for peak activation, and 0.4 GiB for CUDAGraph memory.'
    expect(scan(hint).filter((f) => f.severity === 'error')).toEqual([])
  })
})

describe("UNRECOGNISED_FAILURE: the OpenSSH client's own errors in a launcher's output are failure lines", () => {
  it('each wording (ssh.c, sshconnect.c, sshconnect2.c, kex.c) is never silent and names the host it could not reach', () => {
    const cases: [string, string | undefined][] = [
      ['  Pipeline <- 192.168.200.12 FAILED rc=255 (10.0s): ssh: connect to host 192.168.200.12 port 22: Connection timed out', '192.168.200.12:22'],
      ['ssh: connect to host spark2 port 22: Connection refused', 'spark2:22'],
      ['ssh: connect to host 10.0.0.7 port 2222: No route to host', '10.0.0.7:2222'],
      ['  SSH cmd <- s FAILED rc=255: ssh: Could not resolve hostname s: Temporary failure in name resolution', 's'],
      ['worker@192.168.177.12: Permission denied (publickey,password).', undefined],
      ['Host key verification failed.', undefined],
      ['kex_exchange_identification: read: Connection reset by peer', undefined],
      ['ssh_exchange_identification: Connection closed by remote host', undefined],
      ['Connection timed out during banner exchange', undefined],
    ]
    for (const [line, target] of cases) {
      const f = scan(line).find((x) => x.code === 'UNRECOGNISED_FAILURE')
      expect(f, line).toBeDefined()
      expect(f!.evidence['Kinds of failure line'], line).toBe('ssh failure')
      if (target) expect(f!.evidence['Addresses, ports and paths named']?.split(', ')[0], line).toBe(target)
    }
  })
  it("near miss: a launcher's SSH progress lines are no failure", () => {
    const progress = [
      'Checking SSH connectivity to worker nodes...',
      '  SSH to 169.254.153.199: OK',
      '[2026-01-26 15:58:16]   Worker Host:     169.254.153.248 (SSH)',
      'Warning: Permanently added 192.168.177.12 (ED25519) to the list of known hosts.',
    ].join('\n')
    expect(scan(progress)).toEqual([])
  })
})

describe("NVRM_NO_MEMORY: the driver's status string without its bracketed code", () => {
  it('reads "Check failed: Out of memory" from nvCheckOk* (the code cut off or wrapped away)', () => {
    expect(codes('NVRM: nvCheckOkFailedNoLog: Check failed: Out of memory')).toContain('NVRM_NO_MEMORY')
    expect(
      codes(
        '[Fri Aug 28 09:12:01 2026] NVRM: nvCheckOkFailedNoLog: Check failed: Out of memory [NV_ERR_NO_MEMORY] (0x00000051) returned from _memdescAllocInternal(pMemDesc) @ mem_desc.c:1359',
      ),
    ).toContain('NVRM_NO_MEMORY')
  })
  it('near miss: another status, or a check failing elsewhere', () => {
    expect(codes('NVRM: nvCheckOkFailedNoLog: Check failed: Invalid argument [NV_ERR_INVALID_ARGUMENT] (0x0000001f) returned from rmapiControl')).not.toContain(
      'NVRM_NO_MEMORY',
    )
    expect(
      codes('[2026-01-01 00:00:00,000 C 1 1] (raylet) memory_monitor.cc:121:  Check failed: (_left_ > _right_)  117896851456 vs 117896851456'),
    ).not.toContain('NVRM_NO_MEMORY')
  })
})

describe('a log line pasted as one markdown code span reads as the line itself', () => {
  it('the span is taken off, so anchored failure lines are seen', () => {
    const f = scan('`RuntimeError: CUDA unknown error`').find((x) => x.code === 'UNRECOGNISED_FAILURE')
    expect(f?.evidence['Exception type']).toBe('RuntimeError')
    expect(
      codes('> `ValueError: Free memory on device cuda:0 (36.75/121.63 GiB) on startup is less than desired GPU memory utilization (0.85, 103.38 GiB).`'),
    ).toContain('GPU_OUT_OF_MEMORY')
  })
  it('near miss: a lone quoted value and a span that ends a sentence stay as they are', () => {
    expect(scan('`/root/.cache/huggingface`')).toEqual([])
    expect(scan('The fix is `--gpu-memory-utilization 0.8`.')).toEqual([])
  })
})
