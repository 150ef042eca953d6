/**
 * The weights stage with a hub source on the lab, through the deploy task both front doors call:
 * the lab's hub mirror (src/lab/hub-mirror) serves a stand-in model and requires the token; the
 * deploy downloads it with the real huggingface_hub client on the head only (model.distribution:
 * relay) and relays it over the fabric to the worker. What this proves, from the mirror's own
 * request log and the nodes:
 * - each file crosses the hub link once, not once per node; the worker holds the same bytes;
 * - the model is served from model.path with the hub offline;
 * - a redeploy downloads 0 files and moves 0 bytes;
 * - the token is in no outcome, progress line, mirror log or file under the state dir and the model;
 * - a mirror that serves the wrong bytes at the right size is refused against the hub's own digests.
 */
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { argv } from '../../src/command/shell.js'
import { type HubMirror, fileDownloads, startHubMirror } from '../../src/lab/hub-mirror.js'
import { labPaths, labTransports, labUp, loadLabManifest, resolveLabDir } from '../support/lab.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { clusterStateDir } from '../../src/plan/release-commands.js'
import { type DeployTaskOptions, deployTask } from '../../src/tasks/deploy-task.js'
import type { TaskOutcome } from '../../src/tasks/outcome.js'
import type { Transport } from '../../src/transport/transport.js'
import { shardBytes } from './support/lab-nodes.js'

const TOKEN = `hf_lab${createHash('sha256').update(`weights-hub-${process.pid}`).digest('hex').slice(0, 30)}`
const REPO = 'vrd-lab/standin-model'
const MODEL_PATH = '/var/lib/vrd/models/lab-hub'
const log: string[] = []
const progress = (m: string) => {
  log.push(m)
  process.stderr.write(`[weights-hub-e2e] ${m}\n`)
}

let manifest: Manifest
let manifestPath: string
let transports: Map<string, Transport>
let mirror: HubMirror
let creds: DeployTaskOptions['credentials']
let modelDir: string
const outcomes: TaskOutcome[] = []
const head = () => transports.get('spark-a')!
const worker = () => transports.get('spark-b')!
const sh = async (t: Transport, ...args: string[]) => t.run(argv(...args), { timeoutMs: 120_000 })
const deploy = async (release: string) => {
  const o = await deployTask(manifestPath, { credentials: creds, env: { ...process.env, HF_TOKEN: TOKEN }, onProgress: progress, release })
  outcomes.push(o)
  return o
}
const bytes = shardBytes

beforeAll(async () => {
  await labUp({ nodes: 2, onProgress: progress })
  const lab = await loadLabManifest()
  manifest = lab.manifest
  const paths = labPaths(resolveLabDir())
  creds = { privateKey: readFileSync(paths.sshKey, 'utf8'), knownHosts: readFileSync(paths.knownHosts, 'utf8') }
  const dir = mkdtempSync(join(tmpdir(), 'vrd-weights-hub-e2e-'))
  const model = join(dir, 'model')
  modelDir = model
  mkdirSync(model)
  writeFileSync(join(model, 'config.json'), '{"architectures": ["StandinForCausalLM"], "vocab_size": 256}\n')
  writeFileSync(join(model, 'tokenizer.json'), '{"model": {"type": "BPE"}}\n')
  writeFileSync(join(model, 'model-00001-of-00002.safetensors'), bytes('hub-shard-1', 3 << 20))
  writeFileSync(join(model, 'model-00002-of-00002.safetensors'), bytes('hub-shard-2', 2 << 20))
  mirror = await startHubMirror({ repo: REPO, dir: model, token: TOKEN })
  progress(`mirror at ${mirror.endpoint}, ${REPO}@${mirror.commit}`)
  manifestPath = join(dir, 'weights-hub.yml')
  writeFileSync(
    manifestPath,
    `${readFileSync(lab.path, 'utf8')}\nmodel:\n  path: ${MODEL_PATH}\n  source:\n    hub: { repo: ${REPO}, revision: ${mirror.commit}, endpoint: "${mirror.endpoint}", allowInsecure: true }\n  distribution: relay\n`,
  )
  transports = await labTransports(manifest)
  for (const t of transports.values()) {
    await sh(t, 'docker', 'rm', '-f', manifest.container.name)
    await sh(t, 'rm', '-rf', clusterStateDir(manifest), MODEL_PATH)
  }
}, 1_200_000)

afterAll(async () => {
  await mirror?.stop()
  for (const t of transports?.values() ?? []) {
    await sh(t, 'docker', 'rm', '-f', manifest.container.name)
    await sh(t, 'rm', '-rf', MODEL_PATH)
    await t.close()
  }
}, 120_000)

describe.sequential('a hub source through the lab mirror', () => {
  it('downloads each file once (on the head), relays it to the worker, serves it from the path', async () => {
    const o = await deploy('h1')
    expect(o.exitCode, o.text).toBe(0)
    const gets = fileDownloads(mirror.events, REPO)
    const names = gets.map((g) => g.path.split('/').pop()).sort()
    expect(names).toEqual(mirror.files.map((f) => f.path).sort())
    expect(gets.every((g) => g.auth === 'ok')).toBe(true)
    // The same bytes on both nodes, and they are the hub's (its sha256 for the LFS files).
    for (const t of [head(), worker()]) {
      const sums = await sh(t, 'sh', '-c', 'cd "$1" && sha256sum model-*.safetensors', 'sh', MODEL_PATH)
      for (const f of mirror.files.filter((x) => x.lfs)) expect(sums.stdout).toContain(`${f.lfs!.oid}  ${f.path}`)
      const env = await sh(t, 'docker', 'exec', manifest.container.name, 'printenv', 'HF_HUB_OFFLINE')
      expect(env.stdout.trim()).toBe('1')
    }
    const models = await sh(head(), 'curl', '--silent', '--fail', '--max-time', '30', `http://127.0.0.1:${manifest.vllm.port}/v1/models`)
    expect((JSON.parse(models.stdout) as { data: { root: string }[] }).data[0]!.root).toBe(MODEL_PATH)
  }, 900_000)

  it('a redeploy downloads 0 files and moves 0 bytes', async () => {
    const from = mirror.events.length
    const o = await deploy('h2')
    expect(o.exitCode, o.text).toBe(0)
    expect(fileDownloads(mirror.events.slice(from), REPO)).toEqual([])
    expect(o.outputs['weights-bytes-moved']).toBe('0')
  }, 900_000)

  it('a mirror serving wrong bytes of the right size is refused at the weights stage: the file, both digests, the running release untouched', async () => {
    const shard = 'model-00002-of-00002.safetensors'
    const hubSha = mirror.files.find((f) => f.path === shard)!.lfs!.oid
    const served = readFileSync(join(modelDir, shard)).map((b) => b ^ 0xff)
    const servedSha = createHash('sha256').update(served).digest('hex')
    const running = async (t: Transport) =>
      (
        await sh(
          t,
          'docker',
          'inspect',
          '--format',
          '{{.State.Running}} {{index .Config.Labels "io.vllm-ray-deploy.release"}} {{.State.StartedAt}}',
          manifest.container.name,
        )
      ).stdout.trim()
    const currentOf = async (t: Transport) => (await sh(t, 'readlink', `${clusterStateDir(manifest)}/current`)).stdout.trim()
    const before = await Promise.all([running(head()), running(worker())])
    const currentBefore = await Promise.all([currentOf(head()), currentOf(worker())])
    expect(before.every((x) => x.startsWith('true '))).toBe(true)
    // The head must download the shard again: its file and huggingface_hub's record of it gone.
    await sh(head(), 'rm', '-f', `${MODEL_PATH}/${shard}`, `${MODEL_PATH}/.cache/huggingface/download/${shard}.metadata`)
    await mirror.corrupt([shard])
    const from = mirror.events.length
    const o = await deploy('h3')
    await mirror.corrupt([])
    expect(o.exitCode, o.text).not.toBe(0)
    expect(mirror.events.slice(from).some((e) => e.event === 'corrupted' && e.path.endsWith(shard))).toBe(true)
    const report = o.json as {
      result: string
      failure?: { stage: string; reason: string }
      changed: boolean
      findings: { code: string; node: string; evidence: Record<string, string> }[]
    }
    expect(report.failure?.stage).toBe('weights')
    expect(report.changed).toBe(false)
    const finding = report.findings.find((f) => f.code === 'WEIGHTS_DIGEST_MISMATCH')
    expect(finding?.node).toBe('spark-a')
    expect(finding?.evidence[shard]).toContain(hubSha)
    expect(finding?.evidence[shard]).toContain(servedSha)
    expect(o.text).toContain(shard)
    // Nothing changed: the same release current and its containers still the same running ones.
    expect(await Promise.all([currentOf(head()), currentOf(worker())])).toEqual(currentBefore)
    expect(await Promise.all([running(head()), running(worker())])).toEqual(before)
    // The wrong bytes are not left behind as if finished: the next deploy downloads the shard again, and it is right.
    expect((await sh(head(), 'test', '-e', `${MODEL_PATH}/${shard}`)).code).toBe(1)
    const again = await deploy('h4')
    expect(again.exitCode, again.text).toBe(0)
    const sums = await sh(worker(), 'sha256sum', `${MODEL_PATH}/${shard}`)
    expect(sums.stdout).toContain(hubSha)
  }, 900_000)

  it('the token is in no outcome, progress line, mirror log, or file on the nodes', async () => {
    for (const o of outcomes) expect(JSON.stringify([o.text, o.summary, o.json, o.outputs])).not.toContain(TOKEN)
    expect(log.join('\n')).not.toContain(TOKEN)
    expect(JSON.stringify(mirror.events)).not.toContain(TOKEN)
    for (const t of [head(), worker()]) {
      // grep -r exits 1 when no file under the state dir or the model holds it.
      const grep = await sh(t, 'grep', '-rlF', TOKEN, clusterStateDir(manifest), MODEL_PATH)
      expect(grep.code, grep.stdout).toBe(1)
    }
  }, 120_000)
})
