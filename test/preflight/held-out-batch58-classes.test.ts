/**
 * Classes found in session 57 (held-out batches 58–59 and the paste-format test run over every held-out batch), each
 * tested on public sources other than the capture that showed it, with near misses.
 */
import { describe, expect, it } from 'vitest'
import { exceptionType, failureKind } from '../../src/preflight/signature-fallback.js'
import { scan } from './support/paste-scan.js'

describe("Ray's re-raise of a task's exception in the caller (RayTaskError(<the task's type>)): an exception line with both types", () => {
  it.each([
    // ROCm/vllm#591 (the capture ends in the traceback's frames, before the task's own ModuleNotFoundError)
    [
      'ray.exceptions.RayTaskError(ModuleNotFoundError): ray::RayWorkerWrapper.__ray_call__() (pid=1152, ip=10.31.69.48, actor_id=c43f3b996680f147308b8ebc02000000, repr=<vllm.executor.ray_utils.RayWorkerWrapper object at 0x7830b3a7c8c0>)',
      'ray.exceptions.RayTaskError(ModuleNotFoundError)',
    ],
    // a two-node vLLM start on 16 L4s (vllm-project/vllm issue, behind torch's rank prefix)
    [
      '[rank0]: ray.exceptions.RayTaskError(RuntimeError): ray::RayWorkerWrapper.execute_method() (pid=10005, ip=10.10.10.171, actor_id=92f69d368cc5f16efeca171f01000000, repr= )',
      'ray.exceptions.RayTaskError(RuntimeError)',
    ],
    // lmdeploy's Ray executor building the model on a worker
    [
      'ray.exceptions.RayTaskError(RuntimeError): ray::RayWorkerWrapper.build_model() (pid=204922, ip=10.88.0.47, actor_id=df6ea170924aca6ab26175d905000000, repr=<lmdeploy.pytorch.engine.executor.ray_executor.RayWorkerWrapper object at 0x7fca744f8bb0>)',
      'ray.exceptions.RayTaskError(RuntimeError)',
    ],
    // a verl rollout's update on a worker that ran out of GPU memory (the task's torch.OutOfMemoryError by its class name)
    ['ray.exceptions.RayTaskError(OutOfMemoryError): ray::WorkerDict.actor_rollout_update_weights()', 'ray.exceptions.RayTaskError(OutOfMemoryError)'],
  ])('%s', (line, type) => {
    // (the collector reads a line once its prefixes are off: torch's `[rank0]: ` here)
    const record = line.replace(/^\[rank\d+\]: /, '')
    expect(failureKind(record)).toBe('exception')
    expect(exceptionType(record)).toBe(type)
    const found = scan(line)
    expect(found.some((f) => f.severity === 'error')).toBe(true)
    const unrecognised = found.find((f) => f.code === 'UNRECOGNISED_FAILURE')
    if (unrecognised) expect(unrecognised.evidence['Exception type']).toBe(type)
  })

  it('the head kept above a cut traceback is the first failing line, not the frame after it', () => {
    const log = [
      'ray.exceptions.RayTaskError(ModuleNotFoundError): ray::RayWorkerWrapper.__ray_call__() (pid=1152, ip=10.31.69.48)',
      '  File "/usr/local/lib/python3.12/dist-packages/ray/actor.py", line 1732, in __ray_call__',
      '    return fn(self, *args, **kwargs)',
    ].join('\n')
    const [finding] = scan(log).filter((f) => f.code === 'UNRECOGNISED_FAILURE')
    expect(finding?.evidence['First failing line']).toMatch(/^ray\.exceptions\.RayTaskError\(ModuleNotFoundError\)/)
  })

  it.each([
    // prose and calls that carry a bracket after an exception's name are no exception line
    'We catch RayTaskError(ValueError) in the driver and retry.',
    'INFO 12-05 10:00:00 [worker.py:12] retrying after ValueError(x) was handled',
    '    raise RuntimeError(msg)',
  ])('near miss: %s', (line) => {
    expect(failureKind(line)).not.toBe('exception')
  })
})

describe('colour codes whose escape byte a copy dropped ([36m(RayWorkerWrapper pid=…)[0m): taken off like the codes they were', () => {
  const frames = [
    '!!!!!!! Segfault encountered !!!!!!!',
    '  File "<unknown>", line 0, in cuGraphLaunch',
    '  File "<unknown>", line 0, in at::cuda::CUDAGraph::replay()',
  ]
  it.each([
    // NVIDIA-NeMo/RL#1932 as stored: Ray's cyan worker prefix, its escape bytes gone
    ['[36m(RayWorkerWrapper pid=3634859, ip=10.52.97.42)[0m ', '10.52.97.42'],
    // the same with vLLM 2026's own prefix colour (`\x1b[0;36m…\x1b[0;0m`), escapes gone
    ['[0;36m(Worker_TP1 pid=3310, ip=10.0.0.7)[0;0m ', '10.0.0.7'],
    // a raylet's line in Ray's yellow
    ['[33m(raylet, ip=192.168.200.13)[0m ', '192.168.200.13'],
  ])('%s', (prefix, ip) => {
    const found = scan(frames.map((l) => prefix + l).join('\n'))
    const [unrecognised] = found.filter((f) => f.code === 'UNRECOGNISED_FAILURE')
    expect(unrecognised?.severity).toBe('error')
    expect(unrecognised?.evidence['First failing line']).toBe('!!!!!!! Segfault encountered !!!!!!!')
    expect(unrecognised?.node ?? unrecognised?.evidence['Node (log prefix)']).toBe(ip)
  })

  it("a bracketed word that only looks like a code stays (one, inside the line): `[5m]` in a message is the message's", () => {
    const [f] = scan('ValueError: bad unit [5m] for --timeout').filter((x) => x.code === 'UNRECOGNISED_FAILURE')
    expect(f?.evidence['First failing line']).toBe('ValueError: bad unit [5m] for --timeout')
  })
})

describe("a native signal handler's crash banner is a failure line (never silent)", () => {
  it.each([
    // vLLM/SGLang/TRT-LLM workers (NVIDIA-NeMo/RL#1932; a TRT-LLM start crashing in nvmlSystemGetConfComputeSettings)
    '!!!!!!! Segfault encountered !!!!!!!',
    // abseil's failure-signal handler in Ray's C++ workers (a vLLM worker behind Ray's prefix, vllm-project/vllm issue)
    '(RayWorkerWrapper pid=239, ip=10.185.131.6) *** SIGSEGV received at time=1741685673 on cpu 53 ***',
    '*** SIGABRT received at time=1733401234 on cpu 7 ***',
  ])('%s', (line) => {
    const found = scan(line)
    expect(found.some((f) => f.severity === 'error')).toBe(true)
  })

  it.each(['We fixed the segfault encountered in the last release.', 'INFO 12-05 10:00:00 [x.py:1] installed handlers for SIGSEGV and SIGABRT'])(
    'near miss: %s',
    (line) => {
      expect(failureKind(line)).toBeUndefined()
    },
  )
})

describe("a shell running an option word as a command: the start script's line before it lost its `\\`", () => {
  it.each([
    // held-out batch 18 (richard0571's four-Spark start), bash in Chinese, after docker's refusal of the half command
    ["docker: 'docker run' requires at least 1 argument\nbash: 行 9: -e: 未找到命令", '-e', '8'],
    // bash in English: the volume line lost its `\`
    ['bash: line 12: --gpus: command not found', '--gpus', '11'],
    // bash in German, a script run by name
    ['./start-worker.sh: Zeile 3: -v: Befehl nicht gefunden', '-v', '2'],
  ])('%s', (log, option, cut) => {
    const [f] = scan(log).filter((x) => x.code === 'UNRECOGNISED_FAILURE')
    expect(f?.severity).toBe('error')
    expect(f?.evidence['Option run as a command']).toBe(option)
    expect(f?.fix).toContain(`End line ${cut} of the start script`)
    expect(f?.fix).toContain('SCRIPT_CONTINUATION_BROKEN')
  })

  it('a command that is missing (not an option) is no lost continuation', () => {
    const found = scan('bash: line 12: vllm: command not found')
    expect(found.some((f) => f.severity === 'error')).toBe(true)
    expect(found.some((f) => f.evidence['Option run as a command'] !== undefined || f.fix.includes('trailing'))).toBe(false)
  })
})
