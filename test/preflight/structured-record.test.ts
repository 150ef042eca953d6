/**
 * Log lines wrapped in structured records (docker's json-file, journald JSON, Loki, Cloud Logging,
 * zap/klog JSON, logfmt from Go and logrus) read as the lines the programs printed.
 */
import { describe, expect, it } from 'vitest'
import { scanLog } from '../../src/preflight/signatures.js'
import { unwrapRecord } from '../../src/preflight/structured-record.js'

const codes = (text: string) => scanLog(text, 'paste').map((f) => `${f.severity}:${f.code}`)
const json = (o: unknown) => JSON.stringify(o)

describe('unwrapRecord', () => {
  it('takes the message out of each record format, its own newlines as lines, an error level as ERROR', () => {
    expect(unwrapRecord(json({ log: 'INFO ready\n', stream: 'stdout', time: '2026-01-01T00:00:00Z' }))).toEqual(['INFO ready'])
    expect(unwrapRecord(json({ MESSAGE: 'x', _PID: '12', __REALTIME_TIMESTAMP: '1' }))).toEqual(['x'])
    // (a message of several lines is read by its own lines: no ERROR before a traceback)
    expect(
      unwrapRecord(json({ textPayload: 'Traceback (most recent call last):\n  File "a.py", line 1, in <module>\nValueError: v', severity: 'ERROR' })),
    ).toEqual(['Traceback (most recent call last):', '  File "a.py", line 1, in <module>', 'ValueError: v'])
    expect(unwrapRecord(json({ jsonPayload: { message: 'hello' }, severity: 'INFO', timestamp: 't' }))).toEqual(['hello'])
    expect(unwrapRecord(json({ level: 'error', ts: 1.7e9, msg: 'ray head did not start', error: 'exit status 1' }))).toEqual([
      'ERROR ray head did not start: exit status 1',
    ])
    expect(unwrapRecord('time=2026-01-01T00:00:00Z level=INFO msg="(APIServer pid=1) say \\"hi\\"" component=vllm')).toEqual(['(APIServer pid=1) say "hi"'])
    expect(unwrapRecord('time="2026-01-01T00:00:00Z" level=error msg="container exited" error="exit status 137"')).toEqual([
      'ERROR container exited: exit status 137',
    ])
    // a message that names its own level keeps it
    expect(unwrapRecord(json({ level: 'error', time: 't', msg: 'ERROR 01-20 13:03:52 [core.py:936] x' }))).toEqual(['ERROR 01-20 13:03:52 [core.py:936] x'])
  })

  it('leaves lines that are not log records as printed', () => {
    for (const line of [
      json({ object: 'error', message: 'The model `x` does not exist.', type: 'NotFoundError', code: 404 }),
      json({ id: 'cmpl-1', object: 'text_completion', model: 'm', choices: [] }),
      '{"log": broken json',
      'Set tensor_parallel_size=2 and msg=hello in the launcher',
      'INFO 01-01 [arg_utils.py:1] non-default args: model=x tensor_parallel_size=2',
      '["a", "b"]',
    ])
      expect(unwrapRecord(line), line).toBeUndefined()
  })
})

describe('the log signatures read through the record', () => {
  it('finds the family inside each format (several collectors and loggers)', () => {
    const cases: [string, string][] = [
      // docker's json-file driver, vLLM's start-up memory refusal
      [
        json({
          log: '(EngineCore_DP0 pid=251) ValueError: Free memory on device cuda:0 (10.0/119.7 GiB) on startup is less than desired GPU memory utilization (0.9, 107.7 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.\n',
          stream: 'stderr',
          time: '2026-03-01T10:00:00.000000001Z',
        }),
        'error:GPU_OUT_OF_MEMORY',
      ],
      // journalctl -o json, the kernel's OOM kill
      [
        json({
          __REALTIME_TIMESTAMP: '1767225600000000',
          SYSLOG_IDENTIFIER: 'kernel',
          PRIORITY: '3',
          MESSAGE:
            'Out of memory: Killed process 4242 (python3) total-vm:129000000kB, anon-rss:120000000kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:240000kB oom_score_adj:0',
        }),
        'error:OOM_KILLED',
      ],
      // Cloud Logging, a traceback in one record
      [
        json({
          textPayload:
            'Traceback (most recent call last):\n  File "/app/serve.py", line 9, in <module>\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.10 GiB of which 1.06 GiB is free.',
          severity: 'ERROR',
          timestamp: '2026-02-01T00:00:00Z',
        }),
        'error:GPU_OUT_OF_MEMORY',
      ],
      // logfmt (docker model-runner's component=vllm), a port another process holds
      ['time=2026-04-01T00:00:00.000Z level=INFO msg="(APIServer pid=12) OSError: [Errno 98] Address already in use" component=vllm', 'error:PORT_IN_USE'],
      // zap JSON from a launcher: an error record in words no rule knows is never silent
      [json({ level: 'error', ts: 1767225600.1, logger: 'launcher', msg: 'ray head did not come up', error: 'exit status 1' }), 'error:UNRECOGNISED_FAILURE'],
    ]
    for (const [line, code] of cases) expect(codes(`${line}\n`), line).toContain(code)
  })

  it('healthy records stay clean, and line numbers stay those of the records', () => {
    const healthy = [
      json({ log: 'INFO 03-01 10:00:00 [api_server.py:1] Starting vLLM API server 0 on http://0.0.0.0:8000\n', stream: 'stdout', time: 't' }),
      json({ level: 'info', ts: 1, msg: 'ray head is up', nodes: 2 }),
      'time=2026-04-01T00:00:00Z level=INFO msg="(APIServer pid=12) INFO:     Application startup complete." component=vllm',
      json({ object: 'error', message: 'The model `x` does not exist.', type: 'NotFoundError', code: 404 }),
    ].join('\n')
    expect(scanLog(`${healthy}\n`, 'paste')).toEqual([])
    const found = scanLog(`${healthy}\n${json({ textPayload: 'a\nb\nOSError: [Errno 98] Address already in use', severity: 'ERROR' })}\n`, 'paste')
    const port = found.find((f) => f.code === 'PORT_IN_USE')
    expect(port).toBeDefined()
    // the record's own line in the paste (the message's three lines are all line 5)
    expect(port!.evidence['Log line']).toBe('paste:5')
  })
})

describe("the CRI log file's line (containerd, CRI-O: /var/log/pods/…/0.log)", () => {
  it('takes off the time, the stream and the F/P tag', () => {
    const text = [
      '2026-05-01T10:00:00.123456789Z stdout F INFO 05-01 10:00:00 [api_server.py:1] Starting vLLM API server',
      '2026-05-01T10:00:01.000000001Z stderr F (EngineCore_DP0 pid=251) OSError: [Errno 98] Address already in use',
    ].join('\n')
    expect(codes(`${text}\n`)).toContain('error:PORT_IN_USE')
    expect(scanLog('2026-05-01T10:00:00.1Z stdout F INFO 05-01 10:00:00 [api_server.py:1] Application startup complete.\n', 'paste')).toEqual([])
  })
})
