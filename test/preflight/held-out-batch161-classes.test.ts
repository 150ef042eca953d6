/**
 * Classes found in session 63's seventh round (held-out batches 161–164, collected from fetched repositories once the search budget was
 * spent), tested on renderings other than the capture that showed them, with near misses.
 */
import { describe, expect, it } from 'vitest'
import { bad } from './support/paste-scan.js'

// (anyscale/templates' fintech notebook, held-out batch 163: a Ray Train worker group that timed out while the autoscaler added nodes, retried by
// the controller and then ran, read as a failure)
describe("Ray Train's controller retrying a failure it then recovers from", () => {
  const retried = (after: string) =>
    [
      '(TrainController pid=81941) [FailurePolicy] RETRY',
      '(TrainController pid=81941)   Source: controller',
      '(TrainController pid=81941) Error: Training failed due to controller error:',
      '(TrainController pid=81941)     raise WorkerGroupStartupTimeoutError(',
      '(TrainController pid=81941) ray.train.ControllerError: Training failed due to controller error:',
      '(TrainController pid=81941) [State Transition] SCHEDULING -> RESCHEDULING.',
      after,
    ].join('\n')

  it('the failure lines between RETRY and RUNNING were handled: nothing', () => {
    expect(bad(retried('(TrainController pid=81941) [State Transition] SCHEDULING -> RUNNING.'))).toEqual([])
  })

  it('a retry that never reaches RUNNING, or a failure after it runs, is counted', () => {
    expect(bad(retried('(TrainController pid=81941) [State Transition] RESCHEDULING -> SCHEDULING.')).length).toBeGreaterThan(0)
    expect(
      bad(
        `${retried('(TrainController pid=81941) [State Transition] SCHEDULING -> RUNNING.')}\nRuntimeError: CUDA error: an illegal memory access was encountered`,
      ).length,
    ).toBeGreaterThan(0)
  })

  it('the controller giving up (RAISE) is a failure', () => {
    expect(
      bad('(TrainController pid=1) [FailurePolicy] RAISE\n(TrainController pid=1) ray.train.ControllerError: Training failed due to controller error:').length,
    ).toBeGreaterThan(0)
  })
})
