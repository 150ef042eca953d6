import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { argv } from '../../src/command/shell.js'
import { ensureNoRayImage, type LabImageVariant } from '../support/lab.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { clusterStateDir } from '../../src/plan/release-commands.js'
import type { RolloutReport } from '../../src/deploy/rollout-types.js'
import { type DeployTaskOptions, deployTask } from '../../src/tasks/deploy-task.js'
import type { Transport } from '../../src/transport/transport.js'
import { leaveLabNodes, openLab } from './support/lab-nodes.js'

let manifest: Manifest
let manifestPath: string
let transports: Map<string, Transport>
let creds: DeployTaskOptions['credentials']
let noRay: LabImageVariant
const progress = (m: string) => process.stderr.write(`[image-contents-e2e] ${m}\n`)

const run = async (t: Transport, ...args: string[]) => (await t.run(argv(...args), { timeoutMs: 60_000 })).stdout.trim()
const head = () => transports.get('spark-a')!
const currents = () => Promise.all([...transports.values()].map((t) => run(t, 'readlink', `${clusterStateDir(manifest)}/current`)))
const started = () =>
  Promise.all(
    [...transports.values()].map((t) => run(t, 'docker', 'inspect', '--format', '{{.Id}} {{.State.StartedAt}} {{.State.Running}}', manifest.container.name)),
  )
async function completion(): Promise<string> {
  const body = JSON.stringify({ model: manifest.vllm.servedModelName, prompt: 'Say hello', max_tokens: 4 })
  const url = `http://127.0.0.1:${manifest.vllm.port}/v1/completions`
  const out = await run(head(), 'curl', '--silent', '--fail', '--max-time', '30', '-H', 'Content-Type: application/json', '--data', body, url)
  return (JSON.parse(out) as { choices: { text: string }[] }).choices[0]!.text
}

beforeAll(async () => {
  const lab = await openLab(progress)
  noRay = await ensureNoRayImage({ onProgress: progress })
  creds = lab.creds
  manifest = lab.manifest
  manifestPath = lab.path
  transports = lab.transports
}, 900_000)

afterAll(async () => {
  await leaveLabNodes(transports, manifest)
}, 120_000)

describe.sequential('a Ray-less image on the lab', () => {
  it('r1 (the stand-in, with Ray) deploys and serves; its image contents are in the report', async () => {
    const o = await deployTask(manifestPath, { credentials: creds, env: process.env, release: 'r1', onProgress: progress })
    expect(o.exitCode, o.text).toBe(0)
    const r = o.json as RolloutReport
    expect(r.result).toBe('deployed')
    progress(`r1 image contents: ${JSON.stringify(r.imageContents)}`)
    expect(r.imageContents).toMatchObject({ ray: { module: true, cli: '/opt/venv/bin/ray' }, vllm: { module: true, cli: '/opt/venv/bin/vllm' } })
    expect(r.imageContents?.ray.version).toMatch(/^\d+\.\d+\.\d+/)
    expect(o.text).toContain('image contents: vLLM ')
  }, 600_000)

  it('the Ray-less image is refused at image-contents with IMAGE_LACKS_RAY, r1 still serving, untouched', async () => {
    const before = { started: await started(), current: await currents() }
    expect(before.started.every((s) => s.endsWith(' true'))).toBe(true)
    const stages: { stage: string; event: string; at: number }[] = []
    const t0 = Date.now()
    const o = await deployTask(manifestPath, {
      credentials: creds,
      env: process.env,
      release: 'r2',
      image: noRay.ref,
      onProgress: progress,
      onStage: (stage, event) => stages.push({ stage, event, at: Date.now() - t0 }),
    })
    const r = o.json as RolloutReport
    expect(o.exitCode, o.text).not.toBe(0)
    expect(r).toMatchObject({ result: 'failed', changed: false, rolledBack: false, failure: { stage: 'image-contents' } })
    const lacks = r.findings.find((f) => f.code === 'IMAGE_LACKS_RAY')
    expect(lacks, o.text).toBeDefined()
    expect(lacks!.evidence).toMatchObject({ image: noRay.ref, 'image ID': noRay.id, 'ray module': 'no', 'ray command': '(none)' })
    expect(r.imageContents?.vllm.module).toBe(true)
    // Nothing after the image-contents stage ran, and the running release is as it was.
    const ran = new Set(stages.map((s) => s.stage))
    for (const later of ['fingerprint', 'release-files', 'stop-previous', 'ray-head', 'vllm', 'on-failure']) expect(ran.has(later), later).toBe(false)
    expect(await started()).toEqual(before.started)
    expect(await currents()).toEqual(before.current)
    expect((await completion()).length).toBeGreaterThan(0)
    const refusedAt = stages.find((s) => s.stage === 'image-contents' && s.event === 'end')!.at
    const contents = stages.find((s) => s.stage === 'image-contents' && s.event === 'start')!.at
    progress(`refused ${refusedAt} ms after the deploy started (image-contents stage ${refusedAt - contents} ms); report durationMs ${r.durationMs}`)
  }, 600_000)
})
