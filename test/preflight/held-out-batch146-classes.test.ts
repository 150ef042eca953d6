/**
 * Classes found in session 63's fourth round (held-out batches 146–150, scored first at 325d244: 11/14 right, 14/14 with the collectors'
 * alsoFair codes, no false alarm on 3 healthy), tested on renderings other than the captures that showed them, with near misses.
 */
import { describe, expect, it } from 'vitest'
import { codes, one } from './support/paste-scan.js'

// (vllm-project/vllm-ascend#10343 and vllm-project/vllm#35547: the front-end's start of its engines failing while the weights still
// loaded, the paste cut before the raise line: read as an unrecognised failure)
describe("a traceback through the front-end's start of its engines while the weights still load", () => {
  const progress = (done: number, of: number, at: string) =>
    `Loading safetensors checkpoint shards:  ${Math.floor((done * 100) / of)}% Completed | ${done}/${of} [${at}<05:11, 13.56s/it]`
  it.each([
    [
      `${progress(138, 161, '42:52')}\nTraceback (most recent call last):\n  File "/vllm-workspace/vllm/vllm/entrypoints/cli/serve.py", line 279, in run_multi_api_server\n    with launch_core_engines(`,
      'run_multi_api_server',
      '138 of 161 shards after 42:52',
    ],
    [
      `(Worker_TP0 pid=1) ${progress(40, 64, '10:01')}\n  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/utils.py", line 900, in wait_for_engine_startup\n    raise TimeoutError(`,
      'wait_for_engine_startup',
      '40 of 64 shards after 10:01',
    ],
  ])('%#: ENGINE_DEAD naming the step and how far the weights got', (text, fn, loaded) => {
    const f = one(text, 'ENGINE_DEAD')
    expect(f.evidence['Failed in']).toBe(fn)
    expect(f.evidence['Weights loaded when it failed']).toBe(loaded)
    expect(f.fix).toContain('VLLM_ENGINE_READY_TIMEOUT_S')
  })

  it('weights that finished loading, or no weights line at all, leave the traceback to its own exception', () => {
    const frame = '  File "/vllm-workspace/vllm/vllm/entrypoints/cli/serve.py", line 279, in run_multi_api_server\nValueError: bad value'
    expect(codes(`${progress(161, 161, '42:52')}\n${frame}`)).not.toContain('ENGINE_DEAD/error')
    expect(codes(frame)).not.toContain('ENGINE_DEAD/error')
  })
})
