/**
 * A hub download on the lab, for real: the planner's step (src/deploy/weights/hub.ts) runs on the
 * lab's head over SSH, in a throw-away container of the lab's release image, where the real
 * huggingface_hub downloads the lab's stand-in model through HF_ENDPOINT from the lab's hub mirror
 * (src/lab/hub-mirror), which requires the token. What this proves, from the mirror's own request
 * log and the files on the nodes:
 * - run on one node, each file is downloaded once (the worker gets nothing: relaying it on is the
 *   weights stage's part), with the hub's sha256 matching the bytes on disk;
 * - a rerun downloads 0 files;
 * - a wrong token fails with HUB_UNAUTHORIZED (code, evidence, fix), no token in its text;
 * - a download interrupted mid-file (its container killed) resumes: the rerun fetches only the file
 *   that was cut off;
 * - the token is in no argv, output, mirror log or file on the node, and its 0600 file is gone after.
 */
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { argv, render } from '../../src/command/shell.js'
import { HF_TOKEN_ENV, HUB_DOWNLOAD_CONTAINER, type HubDownloadInput, planHubDownload } from '../../src/deploy/weights/hub.js'
import { parseHubDownload } from '../../src/deploy/weights/hub-listing.js'
import { stdinProvider } from '../../src/execute/step-inputs.js'
import { type HubMirror, fileDownloads, startHubMirror } from '../../src/lab/hub-mirror.js'
import { labTransports, labUp, loadLabManifest } from '../support/lab.js'
import type { Manifest } from '../../src/manifest/schema.js'
import type { Transport } from '../../src/transport/transport.js'
import { shardBytes } from './support/lab-nodes.js'

const TOKEN = `hf_lab${createHash('sha256').update(String(process.pid)).digest('hex').slice(0, 30)}`
const REPO = 'vrd-lab/toy-model'
const ROOT = '/var/lib/vrd/hub-e2e'
const TOKEN_FILE = `${ROOT}/state/hf-token`
const progress = (m: string) => process.stderr.write(`[hub-download-e2e] ${m}\n`)

let manifest: Manifest
let manifestPath: string
let transports: Map<string, Transport>
let mirror: HubMirror
/** The model directory the mirror serves. */
let modelDir: string
const head = () => transports.get('spark-a')!
const worker = () => transports.get('spark-b')!

const bytes = shardBytes

const sh = async (t: Transport, ...args: string[]) => t.run(argv(...args), { timeoutMs: 120_000 })

async function download(dest: string, token: string) {
  const input: HubDownloadInput = { repo: REPO, revision: mirror.commit, dest, image: manifest.image.ref, tokenFile: TOKEN_FILE, endpoint: mirror.endpoint }
  const [step] = planHubDownload(input)
  const provided = await stdinProvider(manifestPath, { [HF_TOKEN_ENV]: token })(step!.stdin!)
  if (!provided.ok) throw new Error(provided.problem.message)
  const stdin = provided.value as string
  const from = mirror.events.length
  const r = await head().run(step!.cmd, { stdin, timeoutMs: 300_000 })
  const parsed = parseHubDownload(input, { node: 'spark-a', code: r.code, stdout: r.stdout, stderr: r.stderr }, [token])
  return { step: step!, r, parsed, events: () => mirror.events.slice(from) }
}

beforeAll(async () => {
  await labUp({ nodes: 2, onProgress: progress })
  const lab = await loadLabManifest()
  manifest = lab.manifest
  manifestPath = lab.path
  transports = await labTransports(manifest)
  for (const t of transports.values()) await sh(t, 'rm', '-rf', ROOT)
  // The release image on the head, as the image stage leaves it.
  const pulled = await head().run(argv('docker', 'pull', manifest.image.ref), { timeoutMs: 300_000 })
  expect(pulled.code, pulled.stderr).toBe(0)
  const model = mkdtempSync(join(tmpdir(), 'hub-model-'))
  modelDir = model
  writeFileSync(join(model, 'config.json'), '{"architectures": ["ToyForCausalLM"], "model_type": "toy"}\n')
  writeFileSync(join(model, 'tokenizer.json'), '{"version": "1.0", "model": {"type": "WordLevel"}}\n')
  writeFileSync(join(model, 'model-00001-of-00002.safetensors'), bytes('shard-1', 3 << 20))
  writeFileSync(join(model, 'model-00002-of-00002.safetensors'), bytes('shard-2', 2 << 20))
  mirror = await startHubMirror({ repo: REPO, dir: model, token: TOKEN })
  progress(`mirror at ${mirror.endpoint}, ${REPO}@${mirror.commit}`)
}, 1_200_000)

afterAll(async () => {
  await mirror?.stop()
  for (const t of transports?.values() ?? []) {
    await sh(t, 'rm', '-rf', ROOT)
    await t.close()
  }
})

describe('a hub download on the lab head, with the real huggingface_hub client through the mirror', () => {
  const dest = `${ROOT}/models/toy`

  it("downloads each file once, on the head only, and lists the hub's hashes, which match the bytes", async () => {
    const d = await download(dest, TOKEN)
    expect(d.r.code, d.r.stderr.slice(-2000)).toBe(0)
    if (!d.parsed.ok) throw new Error(JSON.stringify(d.parsed.problem))
    const l = d.parsed.value
    expect(l.commit).toBe(mirror.commit)
    expect(l.files).toEqual(mirror.files.map((f) => ({ path: f.path, size: f.size, blobId: f.oid, ...(f.lfs && { sha256: f.lfs.oid }) })))
    expect(l.files.filter((f) => f.sha256).map((f) => f.path)).toEqual(['model-00001-of-00002.safetensors', 'model-00002-of-00002.safetensors'])
    expect([...l.fetched].sort()).toEqual(mirror.files.map((f) => f.path).sort())
    // The mirror saw one GET per file, each with the token.
    const gets = fileDownloads(d.events(), REPO)
    expect(gets.map((g) => g.path.split('/').pop()).sort()).toEqual(mirror.files.map((f) => f.path).sort())
    expect(gets.every((g) => g.status === 200 && g.auth === 'ok')).toBe(true)
    // The bytes on the head are the hub's: sha256sum on the node against the listing.
    const sums = await sh(head(), 'sh', '-c', 'cd "$1" && sha256sum model-*.safetensors', 'sh', dest)
    for (const f of l.files.filter((x) => x.sha256)) expect(sums.stdout).toContain(`${f.sha256}  ${f.path}`)
    // The worker downloaded nothing.
    expect((await sh(worker(), 'test', '-e', dest)).code).toBe(1)
    expect((await sh(head(), 'docker', 'ps', '-a', '--filter', `name=${HUB_DOWNLOAD_CONTAINER}`, '--format', '{{.Names}}')).stdout.trim()).toBe('')
  })

  it('a rerun downloads 0 files', async () => {
    const d = await download(dest, TOKEN)
    expect(d.parsed).toMatchObject({ ok: true, value: { fetched: [] } })
    expect(fileDownloads(d.events(), REPO)).toEqual([])
  })

  it('the token is in no argv, output, mirror log or file on the node; its 0600 file is gone', async () => {
    const d = await download(dest, TOKEN)
    expect(d.parsed.ok).toBe(true)
    expect(render(d.step.cmd)).not.toContain(TOKEN)
    expect(d.r.stdout + d.r.stderr).not.toContain(TOKEN)
    expect(JSON.stringify(mirror.events)).not.toContain(TOKEN)
    expect((await sh(head(), 'test', '-e', TOKEN_FILE)).code).toBe(1)
    // grep -r exits 1 when nothing under ROOT (the model, the client's metadata, the state dir) holds it.
    const grep = await sh(head(), 'grep', '-rlF', TOKEN, ROOT)
    expect([grep.code, grep.stdout]).toEqual([1, ''])
  })
})

describe('failures', () => {
  it('a wrong token: HUB_UNAUTHORIZED with evidence and a fix, no token in its text, nothing downloaded', async () => {
    const wrong = 'hf_wrongwrongwrongwrongwrong123'
    const d = await download(`${ROOT}/models/wrong`, wrong)
    expect(d.r.code).not.toBe(0)
    expect(d.parsed.ok).toBe(false)
    if (d.parsed.ok) return
    expect(d.parsed.problem).toMatchObject({
      code: 'HUB_UNAUTHORIZED',
      evidence: { node: 'spark-a', repo: REPO, revision: mirror.commit, endpoint: mirror.endpoint, status: '401' },
    })
    expect(d.parsed.problem.fix).toMatch(/valid token with read access/)
    const text = JSON.stringify(d.parsed.problem) + d.r.stdout + d.r.stderr
    expect(text).not.toContain(wrong)
    expect(text).not.toContain(TOKEN)
    expect(d.events().some((e) => e.event === 'request' && e.auth === 'bad' && e.status === 401)).toBe(true)
    expect(fileDownloads(d.events(), REPO)).toEqual([])
    expect((await sh(head(), 'test', '-e', TOKEN_FILE)).code).toBe(1)
  })

  it('no room for the files: DISK_SPACE_LOW before anything is downloaded, naming the bytes needed and free', async () => {
    // A 1 MiB file system at the destination (the shards are 5 MiB).
    const small = `${ROOT}/models/small`
    expect((await sh(head(), 'sh', '-c', 'mkdir -p "$1" && mount -t tmpfs -o size=1m tmpfs "$1"', 'sh', small)).code).toBe(0)
    try {
      const d = await download(small, TOKEN)
      expect(d.parsed.ok).toBe(false)
      if (d.parsed.ok) return
      expect(d.parsed.problem.code).toBe('DISK_SPACE_LOW')
      expect(d.parsed.problem.evidence.detail).toMatch(/^\d+ bytes to download, \d+ bytes free under /)
      expect(fileDownloads(d.events(), REPO)).toEqual([])
    } finally {
      await sh(head(), 'umount', small)
    }
  })

  it('a mirror whose body never ends (no length, the bytes again and again): the download ends, the space comes back, no partial file is left', async () => {
    // The files fit the 64 MiB destination (the room check passes); the endless shard would fill it.
    const small = `${ROOT}/models/endless`
    const endless = 'model-00001-of-00002.safetensors'
    expect((await sh(head(), 'sh', '-c', 'mkdir -p "$1" && mount -t tmpfs -o size=64m tmpfs "$1"', 'sh', small)).code).toBe(0)
    await mirror.endless([endless])
    try {
      const from = mirror.events.length
      const d = await download(small, TOKEN)
      expect(mirror.events.slice(from).some((e) => e.event === 'endless')).toBe(true)
      expect(d.parsed.ok).toBe(false)
      if (d.parsed.ok) return
      // Stopped by the guard (more bytes than the listing's largest file), or by the full disk first on a fast link.
      const named = d.parsed.problem
      if (named.code === 'HUB_RESPONSE_TOO_LONG')
        expect(named.evidence.detail).toMatch(/\.incomplete: \d+ bytes received, more than the largest file the hub lists \(\d+ bytes\)$/)
      else
        expect(named).toMatchObject({
          code: 'DISK_SPACE_LOW',
          evidence: { detail: expect.stringMatching(/filled during the download, though \d+ bytes were to come/) },
        })
      progress(`endless body: ${named.code}: ${named.evidence.detail}`)
      // The space is back: nothing of the endless file is left under the destination.
      const left = (await sh(head(), 'sh', '-c', `find "$1" -name "*.incomplete" -o -name "${endless}"`, 'sh', small)).stdout.trim()
      expect(left).toBe('')
      expect((await sh(head(), 'test', '-e', TOKEN_FILE)).code).toBe(1)
    } finally {
      await mirror.endless([])
      await sh(head(), 'umount', small)
    }
  })

  it("the hub sends its LFS files to a CDN on another host: followed, the token never goes there, the bytes match the hub's digests", async () => {
    const model = mkdtempSync(join(tmpdir(), 'hub-cdn-'))
    for (const f of mirror.files) writeFileSync(join(model, f.path), readFileSync(join(modelDir, f.path)))
    const cdn = await startHubMirror({ repo: REPO, dir: model, token: 'not-the-token', open: true })
    await mirror.redirect(cdn.endpoint)
    try {
      const dest = `${ROOT}/models/cdn`
      const from = mirror.events.length
      const d = await download(dest, TOKEN)
      expect(d.parsed.ok, JSON.stringify(d.parsed)).toBe(true)
      const lfs = mirror.files.filter((f) => f.lfs)
      // The hub answered 302 for each LFS file; the CDN served them, and no request carried the token there.
      expect(mirror.events.slice(from).filter((e) => e.event === 'request' && e.status === 302).length).toBeGreaterThanOrEqual(lfs.length)
      const served = cdn.events.filter((e) => e.event === 'request' && e.method === 'GET')
      expect(served.map((e) => e.path.split('/').pop()).sort()).toEqual(lfs.map((f) => f.path).sort())
      expect(cdn.events.filter((e) => e.event === 'request').map((e) => e.auth)).not.toContain('ok')
      progress(`cdn redirect: the CDN saw auth ${[...new Set(cdn.events.filter((e) => e.event === 'request').map((e) => e.auth))].join(', ')}`)
      for (const f of lfs) expect((await sh(head(), 'sha256sum', `${dest}/${f.path}`)).stdout).toContain(f.lfs!.oid)
    } finally {
      await mirror.redirect(undefined)
      await cdn.stop()
    }
  })

  it('a download cut off mid-file resumes: the rerun fetches only the file that was cut off', async () => {
    const dest = `${ROOT}/models/cut`
    const cut = 'model-00002-of-00002.safetensors'
    await mirror.stall([cut])
    const from = mirror.events.length
    const first = download(dest, TOKEN)
    // Wait until the shard is half sent and every other file is complete, then kill the download.
    await mirror.waitFor((e) => e.event === 'stalled' && e.path === cut, from)
    const others = mirror.files.map((f) => f.path).filter((p) => p !== cut)
    for (const p of others) await mirror.waitFor((e) => e.event === 'request' && e.method === 'GET' && e.status === 200 && e.path.endsWith(`/${p}`), from)
    await mirror.stall([])
    expect((await sh(head(), 'docker', 'kill', HUB_DOWNLOAD_CONTAINER)).code).toBe(0)
    const killed = await first
    // The mirror logs the cut-off GET only once it sees the client gone; wait for that line, so it
    // is not counted as the rerun's.
    await mirror.waitFor((e) => e.event === 'request' && e.method === 'GET' && e.path.endsWith(`/${cut}`), from)
    expect(killed.parsed).toMatchObject({ ok: false, problem: { code: 'HUB_DOWNLOAD_FAILED', evidence: { node: 'spark-a' } } })
    expect((await sh(head(), 'test', '-e', TOKEN_FILE)).code).toBe(1)
    expect((await sh(head(), 'test', '-e', `${dest}/${cut}`)).code).toBe(1)

    const again = await download(dest, TOKEN)
    expect(again.parsed).toMatchObject({ ok: true, value: { fetched: [cut] } })
    expect(fileDownloads(again.events(), REPO).map((g) => g.path.split('/').pop())).toEqual([cut])
    const want = mirror.files.find((f) => f.path === cut)!.lfs!.oid
    expect((await sh(head(), 'sha256sum', `${dest}/${cut}`)).stdout).toContain(want)
  })
})
