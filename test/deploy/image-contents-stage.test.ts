/**
 * The image-contents stage on simulated nodes (support/sim-cluster.ts: every command recorded, the
 * state commands run for real on a temporary disk): an image that lacks Ray is refused after the
 * image gate and before anything changes — no container removed, no start.sh, `current` and the
 * running container as they were, no on-failure — and the probe's own failures (docker run failing,
 * a timeout, output that is not the probe's document) stop there too, each as IMAGE_PROBE_FAILED.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { deployRelease } from '../../src/deploy/rollout.js'
import type { RolloutOptions, RolloutReport } from '../../src/deploy/rollout-types.js'
import { planRollout } from '../../src/deploy/rollout-plan.js'
import { renderRolloutText } from '../../src/report/rollout-report.js'
import { STANDIN_CONTENTS, SimCluster, simManifest, simRolloutOptions } from './support/sim-cluster.js'

const RAYLESS = JSON.stringify({ ...STANDIN_CONTENTS, ray: { module: false, version: null, cli: null } })

let sim: SimCluster
afterEach(() => sim?.cleanup())

const options = (s: SimCluster, release: string, stages: string[] = []): RolloutOptions =>
  simRolloutOptions(s, release, { onStage: (stage, event) => event === 'start' && stages.push(stage) })

const current = async (s: SimCluster, node: string) => (await s.sh(node, `readlink ${s.stateDir(node)}/current || true`)).stdout.trim()

/** r1 deployed and serving, then r2 with another image whose contents `contents` says. */
async function refusedAfterR1(prepare: (s: SimCluster) => void): Promise<{ r: RolloutReport; stages: string[]; changes: string[] }> {
  sim = new SimCluster(simManifest())
  const r1 = await deployRelease(options(sim, 'r1'))
  expect(r1.result, JSON.stringify(r1.failure)).toBe('deployed')
  expect(r1.imageContents).toEqual(STANDIN_CONTENTS)
  const containersBefore = ['spark-a', 'spark-b'].map((n) => sim.node(n).container)
  sim.imageId = `sha256:${'c'.repeat(64)}`
  prepare(sim)
  const from = sim.log.length
  const stages: string[] = []
  const r = await deployRelease(options(sim, 'r2', stages))
  const changes = sim.log
    .slice(from)
    .map((l) => l.command)
    .filter((c) => /docker rm -f|start\.sh|serve\.sh|releases\/r2/.test(c))
  expect(['spark-a', 'spark-b'].map((n) => sim.node(n).container)).toEqual(containersBefore)
  expect([await current(sim, 'spark-a'), await current(sim, 'spark-b')]).toEqual(['releases/r1', 'releases/r1'])
  return { r, stages, changes }
}

describe('the image-contents stage', () => {
  it('a Ray-less image under the Ray executor is refused before anything changes, the running release untouched', async () => {
    const { r, stages, changes } = await refusedAfterR1((s) => {
      s.imageContents = RAYLESS
    })
    expect(r).toMatchObject({ result: 'failed', changed: false, rolledBack: false, failure: { stage: 'image-contents' } })
    expect(r.failure!.reason).toContain('IMAGE_LACKS_RAY')
    expect(r.onFailure).toMatchObject({ action: 'none' })
    expect(r.onFailure!.detail).toContain('before the previous release is stopped')
    expect(r.findings.map((f) => f.code)).toEqual(['IMAGE_LACKS_RAY'])
    expect(r.findings[0]!.evidence['image ID']).toBe(sim.imageId)
    expect(r.imageContents?.ray).toEqual({ module: false, version: null, cli: null })
    expect(stages.slice(stages.indexOf('image'))).toEqual(['image', 'image-contents', 'audit', 'report'])
    expect(changes).toEqual([])
    // The probe ran once, on the head, against the new image by its ID.
    const probes = sim.log.filter((l) => /docker run --rm --network none/.test(l.command))
    expect(probes.map((p) => p.node)).toEqual(['spark-a', 'spark-a'])
    expect(probes[1]!.command).toContain(`--entrypoint python3 ${sim.imageId} -c`)
    expect(renderRolloutText('lab', r)).toContain('image contents: vLLM 0.17.0+standin, Ray (absent)')
  })

  it.each([
    [
      'docker run fails (no python3 in the image)',
      (s: SimCluster) =>
        s.fail({ node: 'spark-a', when: /docker run --rm/, result: { code: 127, stderr: 'exec: "python3": executable file not found in $PATH' } }),
      'python3',
    ],
    ['the probe times out', (s: SimCluster) => s.fail({ node: 'spark-a', when: /docker run --rm/, result: { code: 124, timedOut: true } }), 'docker run'],
    ['the probe prints something else', (s: SimCluster) => (s.imageContents = 'Traceback (most recent call last):\nImportError: boom'), 'printed no JSON'],
    ['the probe prints JSON of another shape', (s: SimCluster) => (s.imageContents = '{"ray": true}'), 'does not fit its schema'],
  ])('%s: IMAGE_PROBE_FAILED, refused before anything changes', async (_what, fault, says) => {
    const { r, changes } = await refusedAfterR1(fault)
    expect(r).toMatchObject({ result: 'failed', changed: false, failure: { stage: 'image-contents' } })
    expect(r.findings.map((f) => f.code)).toEqual(['IMAGE_PROBE_FAILED'])
    expect(JSON.stringify(r.findings[0]!.evidence)).toContain(says)
    expect(r.imageContents).toBeUndefined()
    expect(changes).toEqual([])
  })

  it('plan shows the stage after the image and before stop-previous, with its exact command on the head', () => {
    const m = simManifest()
    const plan = planRollout(m, { release: 'r2' })
    const names = plan.phases.map((p) => p.name)
    expect(names.indexOf('image-contents')).toBe(names.indexOf('image') + 1)
    expect(names.indexOf('image-contents')).toBeLessThan(names.indexOf('stop-previous'))
    const [step, ...rest] = plan.phases.find((p) => p.name === 'image-contents')!.steps
    expect(rest).toEqual([])
    expect(step!.node).toBe('spark-a')
    expect(step!.command).toMatch(/^timeout --kill-after=10 90 docker run --rm --network none --entrypoint python3 \S+vllm-standin:latest -c 'import json/)
  })
})

/** The commands that started the image-contents probe, per node. */
const probeRuns = (s: SimCluster, from = 0) => s.log.slice(from).filter((l) => /docker run --rm --network none/.test(l.command))

describe('the image-contents stage reads each image ID once (issue 40)', () => {
  it('a deploy of the image ID the current release recorded reuses its record; a new image ID is read again', async () => {
    sim = new SimCluster(simManifest())
    const r1 = await deployRelease(options(sim, 'r1'))
    expect(r1.result, JSON.stringify(r1.failure)).toBe('deployed')
    expect(probeRuns(sim)).toHaveLength(1)
    // The record went into the release's directory beside image-id.
    const record = (await sim.sh('spark-a', `cat ${sim.stateDir('spark-a')}/releases/r1/image-contents.json`)).stdout
    expect(JSON.parse(record)).toMatchObject({ v: 1, imageId: sim.imageId, contents: STANDIN_CONTENTS })

    // The same content again: unchanged, and the image is not probed again.
    let from = sim.log.length
    const again = await deployRelease(options(sim, 'r2'))
    expect(again.result, JSON.stringify(again.failure)).toBe('unchanged')
    expect(probeRuns(sim, from)).toEqual([])
    expect(again.imageContents).toEqual(STANDIN_CONTENTS)

    // Forced onto the same image ID: not probed, and the new release carries the record on.
    from = sim.log.length
    const forced = await deployRelease({ ...options(sim, 'r3'), force: true })
    expect(forced.result, JSON.stringify(forced.failure)).toBe('deployed')
    expect(probeRuns(sim, from)).toEqual([])
    expect((await sim.sh('spark-a', `cat ${sim.stateDir('spark-a')}/releases/r3/image-contents.json`)).stdout).toBe(record)

    // Another image ID: read again, in that image, and what it says decides (here: no Ray, refused).
    sim.imageId = `sha256:${'d'.repeat(64)}`
    sim.imageContents = RAYLESS
    from = sim.log.length
    const other = await deployRelease(options(sim, 'r4'))
    expect(probeRuns(sim, from).map((p) => p.node)).toEqual(['spark-a'])
    expect(probeRuns(sim, from)[0]!.command).toContain(`--entrypoint python3 ${sim.imageId} -c`)
    expect(other).toMatchObject({ result: 'failed', failure: { stage: 'image-contents' } })
    expect(other.findings.map((f) => f.code)).toEqual(['IMAGE_LACKS_RAY'])
  })

  it.each([
    ['a record of another image ID', (r: Record<string, unknown>) => ({ ...r, imageId: `sha256:${'e'.repeat(64)}` })],
    ['a record made by another probe program', (r: Record<string, unknown>) => ({ ...r, probe: 'sha256:0000000000000000' })],
    ['a record that does not fit its schema', (r: Record<string, unknown>) => ({ ...r, contents: { ray: true } })],
  ])('%s on the node is not used: the image is read again', async (_what, edit) => {
    sim = new SimCluster(simManifest())
    expect((await deployRelease(options(sim, 'r1'))).result).toBe('deployed')
    const file = `${sim.stateDir('spark-a')}/releases/r1/image-contents.json`
    const record = JSON.parse((await sim.sh('spark-a', `cat ${file}`)).stdout) as Record<string, unknown>
    await sim.sh('spark-a', `printf '%s\\n' '${JSON.stringify(edit(record))}' > ${file}`)
    const from = sim.log.length
    const again = await deployRelease({ ...options(sim, 'r2'), force: true })
    expect(again.result, JSON.stringify(again.failure)).toBe('deployed')
    expect(probeRuns(sim, from).map((p) => p.node)).toEqual(['spark-a'])
    expect(again.imageContents).toEqual(STANDIN_CONTENTS)
  })
})
