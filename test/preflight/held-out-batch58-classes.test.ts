/**
 * Classes found in session 57 (held-out batches 58–59 and the paste-format test run over every held-out batch), each
 * tested on public sources other than the capture that showed it, with near misses.
 */
import { describe, expect, it } from 'vitest'
import { exceptionType, failureKind } from '../../src/preflight/signature-fallback.js'
import { scanLog } from '../../src/preflight/signatures.js'

const scan = (text: string) => scanLog(text.endsWith('\n') ? text : `${text}\n`, 'paste')

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
