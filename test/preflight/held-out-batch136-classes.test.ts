/**
 * Classes found in session 63's second round (held-out batches 136–140, scored first at 8a8fe0f: 20/24 right, no false alarm on 7
 * healthy), each tested on public sources and renderings other than the capture that showed it, with near misses.
 */
import { describe, expect, it } from 'vitest'
import { bad, codes, one } from './support/paste-scan.js'

// (eugr/spark-vllm-docker#21: uv's resolver giving up inside a docker build, every line behind BuildKit's seconds, read as nothing)
describe("docker build's plain progress before each line (BuildKit)", () => {
  it.each([
    // the seconds alone, as the issue stores the build
    '0.176 Using Python 3.12.3 environment at: /usr\n0.759   × No solution found when resolving dependencies:\n0.759   ╰─▶ Because only vllm==0.15.0rc2.dev75+g3a92c6f3b.cu130 is available and',
    // the step and the seconds, as `docker build --progress=plain` prints them
    '#12 0.759   × No solution found when resolving dependencies:\n#12 0.759   ╰─▶ Because only vllm==0.15.0 is available and vllm==0.15.0 has no wheels with a matching platform tag (e.g., `manylinux_2_39_aarch64`)',
    // pip in a RUN step, then BuildKit's own ERROR line for the step
    '#9 41.27 ERROR: Could not find a version that satisfies the requirement vllm==0.99.0 (from versions: 0.10.0, 0.11.0)\n#9 ERROR: process "/bin/sh -c pip install vllm==0.99.0" did not complete successfully: exit code: 1',
    // an import check in a RUN step
    '#14 3.201 Traceback (most recent call last):\n#14 3.201   File "<string>", line 1, in <module>\n#14 3.202 ImportError: libcudart.so.12: cannot open shared object file: No such file or directory',
  ])('%#: the failure under the prefix is read', (text) => {
    expect(bad(text).length, codes(text).join(', ')).toBeGreaterThan(0)
  })

  it('a build that worked stays healthy, and a table whose first column has three decimals reads as it is', () => {
    const build = [
      '#8 [3/5] RUN pip install vllm==0.15.0',
      '#8 0.512 Collecting vllm==0.15.0',
      '#8 41.27 Successfully installed vllm-0.15.0',
      '#8 DONE 44.1s',
    ].join('\n')
    expect(bad(build)).toEqual([])
    expect(bad('0.759 12.301 0.002\n1.250 12.900 0.004')).toEqual([])
  })
})

// (ray-project/ray#42683: `ray status` pasted with an actor pending inside a reserved group, read as nothing)
describe('`ray status` demands pasted into a log', () => {
  it.each([
    [`Demands:\n {'GPU': 0.9}: 1+ pending tasks/actors (1+ using placement groups)`, "{'GPU': 0.9}", undefined],
    // a vLLM placement group pinned to the fabric address no node registered under (the seed incident, Ray's side)
    [
      `Pending Demands:\n {'GPU': 1.0, 'node:192.168.200.12': 0.001} * 1, {'GPU': 1.0} * 1 (PACK): 1+ pending placement groups`,
      "{'GPU': 1.0, 'node:192.168.200.12': 0.001} * 1, {'GPU': 1.0} * 1",
      '192.168.200.12',
    ],
    // a training job's strict group (vllm-project/vllm#12670's status, as a reporter quotes it)
    [`Demands:\n {'GPU': 1.0, 'CPU': 1.0} * 8 (STRICT_PACK): 1+ pending placement groups`, "{'GPU': 1.0, 'CPU': 1.0} * 8", undefined],
  ])('%#: PLACEMENT_GROUP_PENDING (a warning) with the demand', (text, demand, pin) => {
    const f = one(text, 'PLACEMENT_GROUP_PENDING')
    expect(f.severity).toBe('warning')
    expect(f.evidence['Pending demand (ray status)']).toBe(demand)
    if (pin) {
      expect(f.evidence['Pinned to']).toBe(`node:${pin}`)
      expect(f.fix).toContain('--node-ip-address')
    } else expect(f.evidence['Pinned to']).toBeUndefined()
  })

  it('a cluster with no demands, and the usage lines above them, give nothing', () => {
    const status = ['Usage:', ' 0.0/64.0 CPU', ' 2.0/2.0 GPU (2.0 used of 2.0 reserved in placement groups)', 'Demands:', ' (no resource demands)'].join('\n')
    expect(codes(status)).toEqual([])
  })
})
