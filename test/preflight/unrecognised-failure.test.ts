/**
 * Never silent on a failure: a log with failure lines no signature explains gets one
 * UNRECOGNISED_FAILURE quoting them with their line numbers; healthy real captures with Ray's
 * routine warnings, deprecation warnings and NCCL INFO lines get nothing.
 */
import { readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { createLogWatcher, scanLog } from '../../src/preflight/signatures.js'
import { readFixture } from './fixtures/read.js'

const one = (text: string) => scanLog(text, 'paste')
const unrecognised = (text: string) => one(text).filter((f) => f.code === 'UNRECOGNISED_FAILURE')

describe('UNRECOGNISED_FAILURE', () => {
  it('a traceback ending in an exception no rule knows: quotes the traceback and the exception with their lines', () => {
    const text = [
      'INFO 05-13 11:32:50 [core.py:58] Initializing a V1 LLM engine',
      'Traceback (most recent call last):',
      '  File "/usr/lib/python3.12/site-packages/vllm/entrypoints/cli/main.py", line 54, in main',
      '    args.dispatch_function(args)',
      "KeyError: 'model_type'",
    ].join('\n')
    const [f, ...rest] = one(text)
    expect(rest).toEqual([])
    expect(f).toMatchObject({ code: 'UNRECOGNISED_FAILURE', severity: 'error', node: null })
    expect(f!.evidence['Log line']).toBe('paste:2')
    expect(f!.evidence['Failure lines']).toBe("2: Traceback (most recent call last):\n5: KeyError: 'model_type'")
    expect(f!.evidence['Kinds of failure line']).toBe('Python traceback, exception')
  })

  it("is an error that names the exception type and the addresses, ports and paths the failing lines name (not the traceback's source files)", () => {
    const [f] = unrecognised(
      [
        'INFO 05-13 11:32:50 [core.py:58] Initializing a V1 LLM engine',
        'ERROR 05-13 11:32:51 [core.py:390] EngineCore hit a snag talking to 10.0.0.2:29501',
        'Traceback (most recent call last):',
        '  File "/usr/lib/python3.12/site-packages/vllm/v1/engine/core.py", line 54, in main',
        "zmq.error.ZMQError: Operation cannot be accomplished in current state (addr='tcp://10.0.0.2:5570') on /dev/shm/vllm-ipc",
      ].join('\n'),
    )
    expect(f).toMatchObject({ severity: 'error' })
    expect(f!.evidence['Exception type']).toBe('zmq.error.ZMQError')
    expect(f!.evidence['First failing line']).toContain('EngineCore hit a snag')
    expect(f!.evidence['Addresses, ports and paths named']).toBe('10.0.0.2:29501, 10.0.0.2:5570, /dev/shm/vllm-ipc')
  })

  it('the live watcher gives the same UNRECOGNISED_FAILURE once its log ends, and none while an error finding explains the log', () => {
    const text = 'Traceback (most recent call last):\n  File "x.py", line 1, in <module>\nKeyError: \'model_type\'\n'
    const watcher = createLogWatcher({ source: 'node-a:/tmp/vllm.log' })
    for (const chunk of [text.slice(0, 20), text.slice(20)]) watcher.push(chunk)
    watcher.end()
    expect(watcher.unexplained()).toMatchObject([{ code: 'UNRECOGNISED_FAILURE', severity: 'error', evidence: { 'Exception type': 'KeyError' } }])
    const explained = createLogWatcher({ source: 'x' })
    explained.push(
      `${text}RuntimeError: The server socket has failed to listen on any local network address. port: 29500, useIpv6: 0, code: -98, name: EADDRINUSE, message: address already in use\n`,
    )
    expect(explained.findings.map((f) => f.code)).toEqual(['PORT_IN_USE'])
    expect(explained.unexplained()).toEqual([])
  })

  it("a launcher's own readiness timeout is a failure line; waiting for it, or being ready after a while, is not", () => {
    for (const line of [
      '[2025-11-18 13:19:17]   ⚠️  vLLM not ready after 3 minutes - continuing anyway',
      'Server did not become ready within 600 s',
      'timed out waiting for the vLLM health endpoint',
      'model failed to become ready after 1800s',
    ])
      expect(
        unrecognised(`Starting the server\n${line}\n`).map((f) => f.evidence['Kinds of failure line']),
        line,
      ).toEqual([expect.stringContaining('never became ready')])
    for (const line of [
      'Waiting for vLLM API to become ready...',
      'vLLM server is ready after 42 s',
      'INFO:     Application startup complete.',
      'waiting up to 600 s for the server to be ready',
    ])
      expect(unrecognised(`Starting the server\n${line}\n`), line).toEqual([])
  })

  it("takes the node from Ray's prefix and reads torch's [rank1]:[E…] lines", () => {
    const [f] = unrecognised(
      '(RayWorkerWrapper pid=92234, ip=172.19.24.110) [rank1]:[E1224 13:23:05.483840160 ProcessGroupNCCL.cpp:542] [Rank 12] Collective WorkNCCL(SeqNum=1, OpType=BROADCAST) raised the following async exception: Watchdog caught collective operation timeout\n',
    )
    expect(f).toMatchObject({ node: '172.19.24.110' })
    expect(f!.evidence['Kinds of failure line']).toBe('glog E/F record')
  })

  it('reads ERROR records of vLLM and Python logging, NCCL WARN, non-zero exits and kills', () => {
    for (const [line, kind] of [
      [
        "ERROR 04-16 01:01:44 [worker_base.py:620] Error executing method 'init_device'. This might cause deadlock in distributed execution.",
        'ERROR/FATAL record',
      ],
      ['2025-07-25 14:16:34,565 ERROR services.py:1350 -- Failed to start the dashboard ', 'ERROR/FATAL record'],
      // (NCCL's "Cuda failure 'out of memory'" is GPU_OUT_OF_MEMORY since the newest-sources sweep)
      ['node1:123:456 [0] init.cc:400 NCCL WARN Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1000', 'NCCL WARN'],
      ['Status message: Job entrypoint command failed with exit code 1, last available logs (truncated to 20,000 chars):', 'non-zero exit'],
      ['vllm-head exited with code 137', 'non-zero exit'],
      ['Killed', 'killed or crashed'],
      ['Segmentation fault (core dumped)', 'killed or crashed'],
      // ray#8660's title, in glog's fatal layout
      ['F0804 12:51:02.000000   831 core_worker.cc:394] Check failed: !local_node_id_.IsNil() This node is disconnected.', 'glog E/F record'],
      ['worker  Exception: The raylet exited unexpectedly', 'exception'],
      // torch does not zero-pad the month (vllm#13535); Ray's C++ log marks critical lines C (ray#23857)
      ['[rank3]:[E219 08:58:32.606233339 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective operation timeout', 'glog E/F record'],
      ['[2022-04-12 13:46:39,948 C 74 74] (raylet) node_manager.cc:170: Check failed: something', 'glog E/F record'],
    ] as const) {
      const [f] = unrecognised(`${line}\n`)
      expect(f?.evidence['Kinds of failure line'], line).toBe(kind)
    }
  })

  it('quotes at most four lines and counts the rest', () => {
    const text = Array.from({ length: 9 }, (_, i) => `ERROR 01-01 00:00:0${i} [x.py:1] failure ${i}`).join('\n')
    const [f] = unrecognised(text)
    expect(f!.evidence['Failure lines']!.split('\n')).toHaveLength(4)
    expect(f!.evidence['Failure lines in all']).toBe('9')
  })

  it('is not added when a signature already named an error, nor for lines a signature matched', () => {
    expect(unrecognised(readFixture('logs/nccl-unhandled-system-vllm-5828.txt'))).toEqual([])
    expect(unrecognised(readFixture('logs/ray-version-mismatch-old-ray-1263.txt'))).toEqual([])
    // The 5-second GCS warning is logged at E level; it is explained, so nothing more is said.
    expect(
      unrecognised('[2025-07-23 10:05:49,679 E 51000 51000] gcs_rpc_client.h:151: Failed to connect to GCS at address 10.0.0.1:6379 within 5 seconds.\n'),
    ).toEqual([])
  })

  it('is added beside warnings when failure lines stay unexplained', () => {
    const text = `${readFixture('logs/ray-shm-fallback-llmaz-238.txt')}RuntimeError: something else broke\n`
    expect(one(text).map((f) => f.code)).toEqual(['RAY_SHM_TOO_SMALL', 'UNRECOGNISED_FAILURE'])
  })

  it('the live watcher never emits it (a running log has not ended)', () => {
    const w = createLogWatcher({ source: 's' })
    w.push('Traceback (most recent call last):\nRuntimeError: boom\n')
    expect([...w.findings, ...w.end()]).toEqual([])
  })

  it('near miss: warnings, deprecations, exit code 0, NCCL INFO and "error" in prose are not failure lines', () => {
    for (const line of [
      '2025-01-15 18:01:02,179 WARNING utils.py:580 -- Detecting docker specified CPUs. In previous versions of Ray, CPU detection in containers was incorrect.',
      '/usr/lib/python3/site-packages/transformers/utils/hub.py:124: FutureWarning: Using `TRANSFORMERS_CACHE` is deprecated and will be removed in v5 of Transformers. Use `HF_HOME` instead.',
      'UserWarning: resource_tracker: There appear to be 24 leaked semaphore objects to clean up at shutdown',
      "  warnings.warn('resource_tracker: There appear to be %d '",
      'DeprecationWarning: the load_module() method is deprecated',
      'vllm-head exited with code 0',
      'node1:123:456 [0] NCCL INFO NET/Plugin : Plugin load (libnccl-net.so) returned 2 : libnccl-net.so: cannot open shared object file: No such file or directory',
      'INFO 01-01 00:00:00 [x.py:1] retrying after a transient error',
      '[2025-11-07 05:43:08,926 W 11 11] global_state_accessor.cc:435: Retrying to get node with node ID 87a7b659',
    ]) {
      expect(one(`${line}\n`), line).toEqual([])
    }
  })
  it('a client\'s bad request that vLLM logs at ERROR ("Error with model …", a 4xx answered) is not a failure of the server', () => {
    // Real vLLM 0.24.0 on a healthy server, after a request naming an unknown model (test/real/captures/healthy-default/server.log):
    // logger.error("Error with model %s", error_check_ret) in vllm/entrypoints/openai/*/serving.py, 0.19.1 to 0.34.0.
    const current =
      "(APIServer pid=1657) ERROR 12-05 17:09:05 [serving.py:224] Error with model error=ErrorInfo(message='The model `no-such-model` does not exist.', type='NotFoundError', param='model', code=404)"
    // The flat ErrorResponse of vLLM <= 0.9 prints its fields at the top level.
    const flat =
      "ERROR 05-01 10:00:00 [serving_engine.py:180] Error with model object='error' message='The model `x` does not exist.' type='NotFoundError' param=None code=404"
    expect(one(`${current}\n${flat}\n`)).toEqual([])
    // A server-side failure logged the same way (5xx) still counts.
    expect(unrecognised(current.replace('code=404', 'code=500')).length).toBe(1)
  })
})

describe('healthy real captures and near misses: no error and no UNRECOGNISED_FAILURE', () => {
  const dir = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'logs')
  const files = readdirSync(dir).filter((f) => f.startsWith('healthy-') || f.includes('near-miss'))
  it('there are healthy captures and near misses to read', () => expect(files.length).toBeGreaterThanOrEqual(15))
  for (const file of files) {
    it(file, () => {
      const found = scanLog(readFixture(`logs/${file}`), file)
      expect(found.filter((f) => f.severity === 'error' || f.code === 'UNRECOGNISED_FAILURE').map((f) => f.code)).toEqual(
        // A worker process that died is a failure of another family: not silent, never an error here.
        file === 'ray-worker-died-near-miss-logic-rl-18.txt' ? ['UNRECOGNISED_FAILURE'] : [],
      )
    })
  }
})

describe('every failure capture gets a finding (none reads as "No findings")', () => {
  const dir = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'logs')
  const failing = readdirSync(dir).filter((f) => !f.startsWith('healthy-') && !f.includes('near-miss') && !f.startsWith('rendered-link-local'))
  for (const file of failing) {
    it(file, () => expect(scanLog(readFixture(`logs/${file}`), file).length).toBeGreaterThan(0))
  }
})

describe('a failure the program says it handled (the next lines announce a fallback)', () => {
  const tagsOf = (text: string) => scanLog(text, 'x.log').map((f) => `${f.code}:${f.severity}`)
  it('is not counted: a launcher falling back to another network, a loader continuing without an optional part, a mirror tried next', () => {
    for (const text of [
      'SSH cmd <- 10.9.0.2 FAILED rc=255 (5.0s): ssh: connect to host 10.9.0.2 port 22: Connection timed out\nControl machine cannot reach the fast network; falling back to management network for transfers\n',
      'ERROR 02-01 10:00:00 [loader.py:10] optional draft head could not be read\nINFO 02-01 10:00:00 [loader.py:11] continuing without speculative decoding\n',
      'curl: (7) Failed to connect to mirror-a port 443\nError: download from mirror-a failed\ntrying the next mirror: mirror-b\n',
    ])
      expect(tagsOf(text), text).toEqual([])
  })
  it('near miss: a failure after the fallback, or a fallback too far below, still counts; a retry is no recovery', () => {
    expect(
      tagsOf(
        'ssh: connect to host 10.9.0.2 port 22: Connection timed out\nfalling back to 10.0.0.2\nssh: connect to host 10.0.0.2 port 22: Connection refused\n',
      ),
    ).toEqual(['UNRECOGNISED_FAILURE:error'])
    expect(tagsOf('RuntimeError: engine failed\nline a\nline b\nline c\nfalling back to eager mode\n')).toEqual(['UNRECOGNISED_FAILURE:error'])
    expect(tagsOf('ERROR worker: cannot reach 10.0.0.1:6379\nretrying in 5 s\nERROR worker: cannot reach 10.0.0.1:6379\nretrying in 5 s\n')).toEqual([
      'UNRECOGNISED_FAILURE:error',
    ])
  })
})

describe("a native process's stack where the excerpt keeps only its frames", () => {
  it("is a failure line (the weakest): glibc's backtrace_symbols frames Ray prints, with or without the path's root, and glog's '@ 0x' frames", () => {
    const cases: [string, string][] = [
      // vllm-project/vllm#29373 (held-out batch 10, read after its score): the raylet's last frames, then the API server shuts down
      [
        [
          '(EngineCore_DP0 pid=37804)     /usr/local/lib/python3.12/dist-packages/ray/core/src/ray/raylet/raylet(+0xebef22) [0x5d9928c2bf22] boost::asio::io_context::run()',
          '(EngineCore_DP0 pid=37804)     /lib/x86_64-linux-gnu/libc.so.6(__libc_start_main+0x80) [0x77f524e20e40] __libc_start_main',
          '(APIServer pid=37667) INFO:     Shutting down',
          '(APIServer pid=37667) INFO:     Finished server process [37667]',
        ].join('\n'),
        'raylet(+0xebef22)',
      ],
      // ray-project/ray#45469 (2024): frames printed relative to the site-packages directory
      [
        'ray/core/src/ray/raylet/raylet(+0x38167c) [0x563e046e767c] ray::raylet::DependencyManager::RemoveTaskDependencies()\nray/core/src/ray/raylet/raylet(+0x36c0b6) [0x563e046d20b6] ray::raylet::LocalTaskManager::PoppedWorkerHandler()',
        'DependencyManager',
      ],
      // ray-project/ray#3287 and #3813 (glog's failure stack, Ray ≤ 0.7)
      ['    @     0x7fd4dec7b428 gsignal\n    @     0x7fd4dec7d02a abort\n    @           0x5b6b0d google::logging_fail()', 'gsignal'],
    ]
    for (const [text, shown] of cases) {
      const found = unrecognised(text)
      expect(found, text).toHaveLength(1)
      expect(found[0]!.severity).toBe('error')
      expect(JSON.stringify(found[0]!.evidence)).toContain(shown)
    }
  })

  it('is read only where nothing else is: a Check failed line above it is quoted instead', () => {
    const text = [
      '[2024-07-22 00:16:28,968 C 4126 4126] (raylet) core_worker_client_pool.cc:22:  Check failed: (_left_ != _right_)   vs',
      '*** StackTrace Information ***',
      '/home/ray/anaconda3/lib/python3.10/site-packages/ray/core/src/ray/raylet/raylet(+0xb8124a) [0x640a0e55024a] ray::operator<<()',
    ].join('\n')
    const found = unrecognised(text)
    expect(JSON.stringify(found[0]?.evidence)).toContain('Check failed')
    expect(JSON.stringify(found[0]?.evidence)).not.toContain('ray::operator')
  })

  it('near miss: object reprs and addresses in ordinary lines are not frames', () => {
    for (const line of [
      'INFO 12-01 10:00:00 [core_client.py:400] client=<vllm.v1.engine.core_client.AsyncMPClient object at 0x7f8b2c1d3e50>',
      '(RayWorkerWrapper pid=123) INFO cuda graph pool handle (0, 1) at [0x7f3c00000000]',
      'DEBUG mapped /dev/shm/psm_1 (size 4096) at 0x7f00deadbeef',
      'contact admin@ 0x1a2b3c4d5e6f team',
    ])
      expect(one(`${line}\n`), line).toEqual([])
  })
})

describe("other runtimes' crash and error heads (the Go, Rust and packaging tools around a deploy)", () => {
  it.each([
    // Go: the NVIDIA container toolkit, device plugins, operators
    [
      'panic: runtime error: invalid memory address or nil pointer dereference\n[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x1234]\n\ngoroutine 1 [running]:\nmain.main()',
      'runtime panic',
    ],
    // Rust: tokenizers, hf_xet, uv (a panic with no OS error in it)
    ["thread 'main' panicked at src/main.rs:10:5:\nindex out of bounds: the len is 3 but the index is 7", 'runtime panic'],
    ['Error from server (BadRequest): container "vllm" in pod "vllm-0" is waiting to start: ContainerCreating', 'tool error'],
    ["E: Package 'libnccl2' has no installation candidate", 'tool error'],
  ])('%#: an unrecognised failure of its kind', (text, kind) => {
    const [f] = unrecognised(text)
    expect(f?.severity).toBe('error')
    expect(f?.evidence['Kinds of failure line']).toContain(kind)
  })

  it("apt's warnings, and a sentence about a panic, are nothing", () => {
    expect(one('W: Some index files failed to download. They have been ignored, or old ones used instead.')).toEqual([])
    expect(one('INFO 05-13 11:32:50 [core.py:58] no panic: all workers ready')).toEqual([])
  })
})
