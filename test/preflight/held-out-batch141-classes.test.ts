/**
 * Classes found in session 63's third round (held-out batches 141–145, scored first at e682602: 21/29 right, 24/29 with the collectors'
 * alsoFair codes, no false alarm on 6 healthy), each tested on public sources and renderings other than the capture that showed it, with
 * near misses. Four captures were read as nothing at all (the first four describes).
 */
import { describe, expect, it } from 'vitest'
import { bad, codes, one } from './support/paste-scan.js'

// (run-ai/runai-model-streamer#52: vLLM's ERROR records inside a log viewer's box frame, read as nothing)
describe("a log viewer's box frame around each line", () => {
  it.each([
    '│ ERROR 05-09 01:44:02 [core.py:387] EngineCore failed to start.                                                   │',
    // heavy bars (a TUI's focused pane), the closing bar cut by the paste
    '┃ Traceback (most recent call last):\n┃   File "/usr/local/lib/python3.12/dist-packages/vllm/engine/arg_utils.py", line 10, in create\n┃ RuntimeError: boom',
  ])('%#: the record inside is read', (text) => {
    expect(bad(text).length, codes(text).join(', ')).toBeGreaterThan(0)
  })

  it("a healthy start in the same frame stays healthy, and a table's inner bars stay", () => {
    expect(bad('│ INFO 05-09 01:44:02 [api_server.py:1000] Application startup complete.                    │')).toEqual([])
    expect(bad('│ GPU │ Memory │\n│ 0   │ 80 GB  │')).toEqual([])
  })
})

// (intel/ipex-llm#12953: a traceback behind Docker Desktop's `2025-03-07 18:32:47 ` column, read as nothing)
describe('a date and time before each line of a traceback', () => {
  it.each([
    '2025-03-07 18:32:47   File "/usr/local/lib/python3.11/dist-packages/vllm/engine/multiprocessing/engine.py", line 114, in from_engine_args\n2025-03-07 18:32:47     engine_config = engine_args.create_engine_config(usage_context)',
    '2026-02-01 09:00:01 Traceback (most recent call last):\n2026-02-01 09:00:01   File "/app/serve.py", line 3, in <module>\n2026-02-01 09:00:01 ValueError: bad value',
    // with milliseconds after a dot (Loki's and Grafana's export)
    '2026-02-01 09:00:01.123 RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1970, unhandled system error',
  ])('%#: the traceback is read', (text) => {
    expect(bad(text).length, codes(text).join(', ')).toBeGreaterThan(0)
  })

  it('records that carry their own level after the time stay as they are, and a healthy one stays healthy', () => {
    expect(bad('2026-02-01 09:00:01 INFO Application startup complete.')).toEqual([])
    expect(codes('2026-02-01 09:00:01,123 ERROR worker.py:10 -- Worker died').length).toBeGreaterThan(0)
  })
})

// (ai-dynamo/modelexpress PR #549: an OSError's message without its class, read as nothing)
describe("an OS error's message as a line of its own", () => {
  it.each([
    "[Errno 13] Permission denied:\n  '/usr/local/lib/python3.12/dist-packages/flashinfer_cubin/cubins/flashinfer'",
    "[Errno 30] Read-only file system: '/root/.cache/huggingface/hub/.locks'",
    '[Errno 111] Connection refused',
  ])('%#: is a failure line', (text) => {
    expect(bad(text).length, codes(text).join(', ')).toBeGreaterThan(0)
  })

  it("errno 28 is still the full disk, and an errno inside a sentence (vLLM's harmless user lookup) is nothing", () => {
    expect(codes("[Errno 28] No space left on device: '/root/.cache/huggingface/hub/models--x'")).toContain('DISK_SPACE_LOW/error')
    expect(bad('WARNING 05-09 01:44:02 [utils.py:10] Could not determine user, using default path. Error: [Errno 13] Permission denied')).toEqual([])
  })
})

// (vectorize-io/hindsight PR #4201: bash's report of a job SIGILL ended, and gdb's, read as nothing)
describe('a signal that ended a process, as bash and gdb report it', () => {
  it.each([
    '/app/start-all.sh: line 295:   10 Illegal instruction     hindsight-api',
    './serve.sh: line 12:  4242 Bus error               (core dumped) python3 -m vllm.entrypoints.openai.api_server',
    'Program received signal SIGILL, Illegal instruction.\n0x0000ffff6f660fec in _mi_options_init () from torch/lib/libc10.so',
    'Illegal instruction (core dumped)',
  ])('%#: is a failure line', (text) => {
    expect(bad(text).length, codes(text).join(', ')).toBeGreaterThan(0)
  })

  it('a job that ended by its own exit, or a line that speaks of an instruction, is nothing', () => {
    expect(bad('./serve.sh: line 12:  4242 Done                    python3 bench.py')).toEqual([])
    expect(bad('INFO 05-09 01:44:02 [cpu.py:10] checking for illegal instruction support: none needed')).toEqual([])
  })
})

// (vllm-project/vllm-ascend#4725: HCCL's EI0019 port bind failure, a prefill and a decode instance on one host)
describe("HCCL's socket that could not listen (EI0019)", () => {
  it.each([
    [
      '[ERROR] HCCL(60570,):2025-12-04-14:46:07.911.312 [hccl_socket.cc:106] [60570][HcclSocket][Listen] socket type[0], listen on ip[192.2.2.195] and specific port[16666] fail. Please check the port status and whether the port is being used by other process.',
      '16666',
      'HCCL_NPU_SOCKET_PORT_RANGE',
    ],
    // the host side during the communicator's rank-table detection (CANN's HCCL troubleshooting page)
    [
      '[ERROR] HCCL(3626636,all_reduce_test):2025-11-21-13:18:47.639.860 [hccl_socket.cc:110] [3626636][InitChannelStage][RanktableDetect] socket type[2], listen on ip[192.168.1.100%enp53s0f2] and specific port[60000] fail. Please check the port status and whether the port is being used by other process.',
      '60000',
      'HCCL_HOST_SOCKET_PORT_RANGE',
    ],
  ])('%#: PORT_IN_USE with the port and the right range to set', (text, port, setting) => {
    const f = one(text, 'PORT_IN_USE')
    expect(f.evidence.Port).toBe(port)
    expect(f.fix).toContain(setting)
  })
})

// (vllm-project/vllm-ascend#3114: vLLM's platform asks Ray for NPUs that Ray registered as GPUs)
describe("vLLM's driver node without the platform's Ray resource", () => {
  it.each([
    ['NPU', "ValueError: Current node has no NPU available. current_node_resource={'memory': 215.0, 'GPU': 8.0, 'CPU': 192.0}."],
    ['GPU', "ValueError: Current node has no GPU available. current_node_resource={'CPU': 16.0}. vLLM engine cannot start without GPU."],
  ])('%s: DRIVER_NO_GPU naming the resource', (device, text) => {
    const f = one(text, 'DRIVER_NO_GPU')
    expect(f.message).toContain(`no free ${device}`)
    if (device === 'NPU') expect(f.fix).toContain('--num-gpus')
  })
})

// (Ascend/pytorch#99: torch_npu's ATB plugin against another NNAL release, read as an unrecognised failure alone)
describe('a shared library built against another release of a library it loads', () => {
  it.each([
    'OSError: /home/mtp/Ascend/nnal/atb/latest/atb/cxx_abi_1/lib/libtbe_adapter.so: undefined symbol: _ZN3Mki2DlC1ERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEEb',
    'ImportError: /usr/local/lib/python3.12/dist-packages/nvidia/cusparse/lib/libcusparse.so.12: undefined symbol: __nvJitLinkComplete_12_4, version libnvJitLink.so.12',
  ])('%#: VERSION_SKEW as a hint beside the unrecognised failure', (text) => {
    expect(codes(text)).toEqual(expect.arrayContaining(['UNRECOGNISED_FAILURE/error', 'VERSION_SKEW/warning']))
  })

  it("vLLM's own extension keeps its own reading", () => {
    expect(codes('ImportError: /usr/local/lib/python3.12/dist-packages/vllm/_C.abi3.so: undefined symbol: _ZN3c1013MessageLoggerC1EPKciib')).toEqual([
      'IMAGE_LACKS_VLLM/error',
    ])
  })
})
