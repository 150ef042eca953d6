import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { argv } from '../../src/command/shell.js'
import { ensureNoRayImage, type LabImageVariant } from '../support/lab.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { clusterStateDir } from '../../src/plan/release-commands.js'
import type { RolloutReport } from '../../src/deploy/rollout-types.js'
import { type DeployTaskOptions, deployTask } from '../../src/tasks/deploy-task.js'
import type { Transport } from '../../src/transport/transport.js'
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { leaveLabNodes, manifestVariant, openLab } from './support/lab-nodes.js'

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

/**
 * An image whose config says linux/arm64 (what an arm64 build gives; docker 20.10's import ignores --platform, so the
 * archive is written by hand: one empty layer, a config naming the architecture), loaded into this machine's docker.
 */
function loadArm64Image(ref: string): string {
  const docker = process.env.VRD_DOCKER || 'docker'
  const dir = mkdtempSync(join(tmpdir(), 'vrd-arm64-'))
  execFileSync('tar', ['cf', join(dir, 'layer.tar'), '-T', '/dev/null'])
  const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex')
  const layer = sha(execFileSync('cat', [join(dir, 'layer.tar')]))
  const config = JSON.stringify({ architecture: 'arm64', os: 'linux', config: {}, rootfs: { type: 'layers', diff_ids: [`sha256:${layer}`] } })
  writeFileSync(join(dir, `${sha(config)}.json`), config)
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify([{ Config: `${sha(config)}.json`, RepoTags: [ref], Layers: ['layer.tar'] }]))
  execFileSync('tar', ['cf', join(dir, 'image.tar'), '-C', dir, 'manifest.json', `${sha(config)}.json`, 'layer.tar'])
  execFileSync(docker, ['load', '-i', join(dir, 'image.tar')])
  return execFileSync(docker, ['image', 'inspect', '--format', '{{.Os}}/{{.Architecture}}', ref], { encoding: 'utf8' }).trim()
}

describe.sequential('an image of another CPU architecture on the lab', () => {
  it('`load` of a linux/arm64 image to the x86_64 lab is refused at the image gate before a byte is sent; r1 still serving, untouched', async () => {
    const ref = 'vrd-test/arm64-only:e2e'
    expect(loadArm64Image(ref)).toBe('linux/arm64')
    const before = { started: await started(), current: await currents() }
    const path = manifestVariant(manifestPath, 'arm64-load', (doc) => {
      doc.setIn(['image', 'ref'], ref)
      doc.setIn(['image', 'distribution'], 'load')
    })
    const o = await deployTask(path, { credentials: creds, env: process.env, release: 'r3', onProgress: progress })
    const r = o.json as RolloutReport
    expect(o.exitCode, o.text).not.toBe(0)
    expect(r).toMatchObject({ result: 'failed', changed: false, rolledBack: false, failure: { stage: 'image' } })
    expect(r.image?.bytesSent).toBe(0)
    const found = r.findings.filter((f) => f.code === 'IMAGE_PLATFORM_MISMATCH')
    expect(found.map((f) => f.node).sort()).toEqual(manifest.nodes.map((n) => n.name).sort())
    expect(found[0]!.evidence).toMatchObject({ 'image platform': 'linux/arm64' })
    expect(found[0]!.evidence[`${found[0]!.node} CPU`]).toMatch(/^x86_64 \(linux\/amd64\)$/)
    // Nothing was sent: no node holds the image, and the running release is as it was.
    for (const t of transports.values()) expect(await run(t, 'docker', 'image', 'ls', '-q', ref)).toBe('')
    expect(await started()).toEqual(before.started)
    expect(await currents()).toEqual(before.current)
  }, 600_000)
})
