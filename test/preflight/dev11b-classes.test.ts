/**
 * The classes dev batch dev11b's misses asked for (fixtures/dev/dev11b), each proven on more than the capture
 * it came from and with near misses that must stay as they are.
 */
import { describe, expect, it } from 'vitest'
import { createLineJoiner } from '../../src/preflight/paste-normalise.js'
import { scanLog } from '../../src/preflight/signatures.js'

const scan = (text: string) => scanLog(text, 'paste')
const codes = (text: string) => scan(text).map((f) => f.code)
const joined = (text: string): string[] => {
  const joiner = createLineJoiner()
  const out = text.split('\n').flatMap((l) => joiner.push(l))
  return [...out, ...joiner.end()].map((l) => l.text)
}

describe("an exception's message wrapped before an upper-case acronym is one line", () => {
  it("joins vLLM's free-memory refusal cut before 'desired GPU …' (vss PR #1743, club-3090#535, the pre-0.10 wording without the device)", () => {
    const cases: [string, Record<string, string>][] = [
      [
        'ValueError: Free memory on device cuda:0 (67.92/121.69 GiB) on startup is less than\ndesired GPU memory utilization (0.7, 85.18 GiB).',
        { 'Free at start-up': '67.92 GiB of 121.69 GiB', gpu_memory_utilization: '0.7 (85.18 GiB)', 'Memory model': 'unified (GB10)' },
      ],
      [
        'ValueError: Free memory on device cuda:1 (22.06/23.56 GiB) on startup is less than\ndesired GPU memory utilization (0.95, 22.38 GiB).',
        { 'Free at start-up': '22.06 GiB of 23.56 GiB', 'Largest value that fits now': '0.93' },
      ],
      [
        'ValueError: Free memory on device (61.05/119.7 GiB) on startup is less than\ndesired GPU memory utilization (0.9, 107.73 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.',
        { 'Free at start-up': '61.05 GiB of 119.7 GiB' },
      ],
    ]
    for (const [text, evidence] of cases) {
      const f = scan(text).find((x) => x.code === 'GPU_OUT_OF_MEMORY')
      expect(f, text).toBeDefined()
      expect(f!.evidence, text).toMatchObject(evidence)
      expect(codes(text), text).not.toContain('UNRECOGNISED_FAILURE')
    }
  })
  it('near miss: a next line in capitals, a message that ended, or a lower-case word followed by a mixed-case word stays apart', () => {
    expect(joined('ValueError: Free memory on device cuda:0 (1/2 GiB) on startup is less than\nINFO 07-15 15:32:47 [loggers.py:273] Engine 000')).toHaveLength(
      2,
    )
    expect(joined('RuntimeError: NCCL communicator was aborted.\nnode GPU0 is gone')).toHaveLength(2)
    expect(joined('KeyError: model\nspark Gpu0 ready')).toHaveLength(2)
  })
})

describe("GPU_OUT_OF_MEMORY (warning): torch's caching allocator's OOM retry warning, with the bytes as evidence", () => {
  it('reads the allocation and the expandable-segments mapping wordings (CUDACachingAllocator.cpp) with device, size, free and total', () => {
    const cases: [string, Record<string, string>][] = [
      [
        // wtdcode/vllm-backport#24 (8×A800, TP8)
        '[rank3]:[W814 16:06:55.441716306 CUDACachingAllocator.cpp:3933] memory allocation failed with OOM on device 3 while trying to allocate 3177185280 bytes (free: 1243414528, total: 85094825984).',
        { Device: '3', 'Tried to allocate': '2.96 GiB', 'Free then': '1.16 GiB', 'Device total': '79.25 GiB' },
      ],
      [
        // a 192 GB card, a healthy serving log's retry (the allocator flushed its cache and went on)
        '[rank0]:[W910 23:40:43.144601916 CUDACachingAllocator.cpp:3933] memory allocation failed with OOM on device 0 while trying to allocate 7516192768 bytes (free: 1547173888, total: 191495471104).',
        { Device: '0', 'Tried to allocate': '7.00 GiB' },
      ],
      [
        // PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True on an A40
        'expandable_segments: memory mapping failed with OOM on device 0 while trying to map 20971520 bytes (free: 20250624, total: 51043958784)',
        { Allocator: 'expandable_segments', 'Tried to allocate': '0.02 GiB' },
      ],
    ]
    for (const [line, evidence] of cases) {
      const f = scan(line).find((x) => x.code === 'GPU_OUT_OF_MEMORY')
      expect(f, line).toBeDefined()
      expect(f!.severity, line).toBe('warning')
      expect(f!.evidence, line).toMatchObject(evidence)
    }
  })
  it('near miss: a lone retry warning on a start that goes on is no error and no failure line', () => {
    const serving = [
      '[rank0]:[W910 23:40:43.144601916 CUDACachingAllocator.cpp:3933] memory allocation failed with OOM on device 0 while trying to allocate 7516192768 bytes (free: 1547173888, total: 191495471104).',
      '(APIServer pid=605) INFO 07-15 15:32:47 [loggers.py:273] Engine 000: Avg prompt throughput: 532.2 tokens/s, Avg generation throughput: 20.5 tokens/s, Running: 3 reqs',
    ].join('\n')
    expect(scan(serving).filter((f) => f.severity === 'error' || f.code === 'UNRECOGNISED_FAILURE')).toEqual([])
    expect(codes('INFO 05-10 10:10:52 [gpu_worker.py:436] Memory allocation of 2.00 GiB on device 0 succeeded')).toEqual([])
  })
  it("names a ROCm APU's pool as what it is, not a GB10", () => {
    const f = scan(
      'torch.OutOfMemoryError: HIP out of memory. Tried to allocate 12.95 GiB. GPU 0 has a total capacity of 127.00 GiB of which 18.55 GiB is free.',
    ).find((x) => x.code === 'GPU_OUT_OF_MEMORY')
    expect(f?.evidence['Memory model']).toMatch(/AMD APU/)
    expect(f?.message).not.toMatch(/GB10/)
  })
})

describe("UNRECOGNISED_FAILURE: argparse's refusal of a command line is never silent", () => {
  it("reads vLLM's parse_type refusal and argparse's own value and arity errors", () => {
    for (const line of [
      // spark-arena/sparkrun#195: a recipe's doubled braces reach vLLM
      'vllm serve: error: argument --speculative-config/-sc: Value {{"method": "dflash", "model": "z-lab/Qwen3.6-35B-A3B-DFlash", "num_speculative_tokens": 15}} cannot be converted to <function loads at 0xe96cbb0ed4e0>.',
      "vllm serve: error: argument --max-model-len: invalid int value: '32k'",
      'api_server.py: error: argument -tp/--tensor-parallel-size: expected one argument',
      'vllm serve: error: the following arguments are required: model_tag',
    ]) {
      const f = scan(`usage: vllm serve [model_tag] [options]\n${line}`).find((x) => x.code === 'UNRECOGNISED_FAILURE')
      expect(f, line).toBeDefined()
      expect(f!.evidence['Kinds of failure line'], line).toBe('command-line error')
    }
  })
  it('near miss: the usage line alone, help text and a TypeError about an argument', () => {
    expect(scan('usage: vllm serve [model_tag] [options]')).toEqual([])
    expect(scan('  --max-model-len MAX_MODEL_LEN   Model context length; an error: argument text in help')).toEqual([])
    expect(codes('TypeError: argument of type int is not iterable')).not.toContain('VLLM_FLAG_UNKNOWN')
  })
})

describe("UNRECOGNISED_FAILURE: CANN's error code quoted under its name", () => {
  it('reads Name(EIxxxx) as an accelerator runtime error, beside the bare code-line form', () => {
    for (const line of [
      'Communication_Error_Get_Socket(EI0006)', // vllm-project/afd-plugin#229
      'Resource_Error_Insufficient_Host_Memory(EL0018)', // CANN's host-memory code (code index id 70152117224): a failure line, not GPU memory
      'EI0006: [PID: 1292363] 2025-04-08-18:07:20.444.436 Getting socket times out. Reason: Remote Rank did not send the data in time.',
    ]) {
      const f = scan(line).find((x) => x.code === 'UNRECOGNISED_FAILURE')
      expect(f, line).toBeDefined()
      expect(f!.evidence['Kinds of failure line'], line).toBe('accelerator runtime error')
    }
  })
  it('near miss: an environment setting, a timeout knob and a lower-case identifier with a code-like suffix', () => {
    expect(scan('export HCCL_CONNECT_TIMEOUT=900')).toEqual([])
    expect(scan('Set HCCL_EXEC_TIMEOUT(1800) before the start')).toEqual([])
    expect(scan('config_value(EI0006) is only a label here')).toEqual([])
  })
})
