/**
 * The classes dev batch dev14 missed (issue 36; first score in commit 98ec716): UCX's own ERROR/FATAL records (the
 * transport under NIXL, LMCache's remote KV and MPI), which the fallback did not read as failure lines, so a KV
 * transfer that failed in UCX alone was silent; and vLLM's UnspecifiedPlatform fallback (no platform detected),
 * whose failure lines name no GPU at all ("'UnspecifiedPlatform' object has no attribute 'device_name'", torch's
 * "Device string must not be empty"), read as DRIVER_NO_GPU.
 */
import { describe, expect, it } from 'vitest'
import { scanLog } from '../../src/preflight/signatures.js'

const scan = (text: string) => scanLog(text, 'paste')
const codes = (text: string) => scan(text).map((f) => f.code)

describe("UNRECOGNISED_FAILURE: UCX's own ERROR/FATAL records (openucx/ucx src/ucs/debug/log.c UCS_LOG_FMT)", () => {
  it('reads the full record, the short record MPI prints and a launcher-labelled one as failure lines', () => {
    for (const line of [
      // LMCache/LMCache#725 (2025): a prefill instance's KV store through NIXL
      '[1749803291.555759] [vllm-lmcache-zxy-977866c79-jxjnw:7053 :0]          tcp_ep.c:1260 UCX  ERROR tcp_ep 0x3c502370 (state=CONNECTED): send(110) failed: Input/output error',
      // an MPI job in Docker, behind srun's task label (a public cluster note in the code index)
      '1: [1653901933.475958] [gpu02:5215 :0]            sock.c:325  UCX  ERROR   connect(fd=40, dest_addr=172.17.0.1:40703) failed: Connection refused',
      // OpenMPI's short form, without the time and the process (a public mpirun note in the code index)
      'mm_posix.c:195  UCX  ERROR open(file_name=/proc/211766/fd/28 flags=0x0) failed: Permission denied',
      // ThetaGPU's UCX build notes (code index)
      '[1629755187.401889] [thetagpu19:4178252:0]    ucp_context.c:1114 UCX  ERROR exceeded transports/devices limit (72 requested, up to 64 are supported)',
    ]) {
      const found = scan(line).find((f) => f.code === 'UNRECOGNISED_FAILURE')
      expect(found?.evidence, line).toMatchObject({ 'Kinds of failure line': expect.stringContaining('UCX error record') })
      expect(found?.evidence['UCX error'], line).toBeTruthy()
      expect(found?.fix, line).toContain('UCX_NET_DEVICES')
    }
  })

  it('names the peer UCX tried (ai-dynamo/dynamo#813: the prefill node could not reach the decode node)', () => {
    const found = scan(
      [
        '[1745480768.774628] [l229-7-p-ga:4112 :0]            sock.c:334  UCX  ERROR   connect(fd=208, dest_addr=10.25.117.11:64468) failed: Network is unreachable',
        "2025-04-24T07:46:08.778Z ERROR client._set_errored: nixlBackendError('NIXL_ERR_BACKEND')",
      ].join('\n'),
    ).find((f) => f.code === 'UNRECOGNISED_FAILURE')
    expect(found?.evidence).toMatchObject({
      'Peer UCX tried': '10.25.117.11:64468',
      'UCX error': 'connect(fd=208, dest_addr=10.25.117.11:64468) failed: Network is unreachable',
    })
    expect(found?.evidence['First failing line']).toContain('sock.c:334')
    // the record's header (host:pid, the source file:line) is not a value to act on
    expect(found?.evidence['Addresses, ports and paths named']).toBe('10.25.117.11:64468')
    expect(found?.fix).toContain('towards 10.25.117.11:64468')
  })

  it("keeps UCX's WARN, DIAG and DEBUG records and prose that quotes an error clean", () => {
    for (const line of [
      '[1722544054.652003] [acn04:3216710:0]          parser.c:2033 UCX  WARN  unused environment variable: UCX_HOME',
      '[1722544054.652003] [acn04:3216710:0]          parser.c:2033 UCX  WARN  (set UCX_WARN_UNUSED_ENV_VARS=n to suppress this warning)',
      '[1666037945.840967] [dgx13:15805:0]        perftest.c:921  UCX  WARN  CPU affinity is not set (bound to 80 cpus). Performance may be impacted.',
      '[1620306933.125286] [b-an01:921717:0]          ib_md.c:1140 UCX  WARN  IB: ibv_fork_init() was disabled or failed, yet a fork() has been issued.',
      // (the next two are built on the format: a DEBUG record whose message a cluster log kept, and a DIAG record, UCX 1.12+)
      '[1722544054.651950] [acn04:3216710:0]        ucp_mpool.c:51   UCX  DEBUG mpool_set:ucp_am_bufs, sizes map 0x80000440, largest size 8256, mpools num 3',
      '[1722544054.651950] [acn04:3216710:0]          ib_iface.c:921  UCX  DIAG  ibv_create_cq(cqe=4096) failed: Cannot allocate memory',
      '# Need to set the max locked memory very high otherwise IB can\'t allocate enough and fails with "UCX  ERROR Failed to allocate memory pool chunk: Input/output error"',
    ])
      expect(codes(line), line).toEqual([])
  })
})

describe("DRIVER_NO_GPU: vLLM's UnspecifiedPlatform fallback (vllm/platforms/__init__.py, interface.py)", () => {
  it('reads the failures vLLM meets on the platform it fell back to', () => {
    const cases: [string, string][] = [
      // gpustack/gpustack#1898 (2025): GPUStack's server container with --enable-ray on a host without a GPU
      [
        "INFO 04-26 09:43:00 [__init__.py:243] No platform detected, vLLM is running on UnspecifiedPlatform\nConfig error: 'UnspecifiedPlatform' object has no attribute 'device_name'",
        "'UnspecifiedPlatform' object has no attribute 'device_name'",
      ],
      // intel/ipex-llm#13303 (2025): an Arc A380 its vLLM build did not detect
      ["AttributeError: 'UnspecifiedPlatform' object has no attribute 'device_name'", "'UnspecifiedPlatform' object has no attribute 'device_name'"],
      // vllm-project/vllm#23096 (2025): vllm.LLM(...) on a CPU-only machine
      ['RuntimeError: Device string must not be empty', 'Device string must not be empty'],
    ]
    for (const [text, words] of cases) {
      const found = scan(text).find((f) => f.code === 'DRIVER_NO_GPU')
      expect(found?.severity, text).toBe('error')
      expect(found?.evidence, text).toMatchObject({ Error: words })
      expect(found?.message, text).toContain('UnspecifiedPlatform')
      expect(found?.fix, text).toContain('--gpus all')
    }
  })

  it('keeps the INFO line alone, a platform plugin activated after it, and a detected platform clean', () => {
    for (const text of [
      // vllm-project/vllm-ascend (2025, code index): the Ascend plugin activates right after the fallback's INFO line
      'INFO 03-11 14:47:27 __init__.py:187] No platform detected, vLLM is running on UnspecifiedPlatform\nWARNING 03-11 14:47:27 _custom_ops.py:19] Failed to import from vllm._C with ModuleNotFoundError("No module named \'vllm._C\'")\nINFO 03-11 14:47:27 __init__.py:174] Platform plugin ascend is activated',
      // a profiling tool that patches the platform after import (code index)
      'INFO 07-11 10:53:59 [__init__.py:247] No platform detected, vLLM is running on UnspecifiedPlatform\npatch current platform as cuda platform',
      'INFO 04-16 13:55:44 [__init__.py:239] Automatically detected platform cuda.',
    ])
      expect(codes(text), text).not.toContain('DRIVER_NO_GPU')
  })
})
