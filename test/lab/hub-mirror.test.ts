/**
 * The lab's hub mirror speaks what huggingface_hub reads (hf_api.py repo_info / list_repo_tree,
 * file_download.py get_hf_file_metadata / http_get, utils/_http.py hf_raise_for_status): driven
 * here over real HTTP on loopback; the real client against it runs in test/deploy/hub-download.e2e.test.ts.
 */
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type HubMirror, fileDownloads, startHubMirror } from '../../src/lab/hub-mirror.js'

const TOKEN = 'hf_MirrorTestToken0123456789'
const REPO = 'vrd-lab/toy'
const weights = Buffer.alloc(1500, 7)
const config = Buffer.from('{"model_type":"toy"}\n')
let mirror: HubMirror
const auth = { Authorization: `Bearer ${TOKEN}` }

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hub-mirror-'))
  mkdirSync(join(dir, 'sub'))
  writeFileSync(join(dir, 'config.json'), config)
  writeFileSync(join(dir, 'sub', 'model.safetensors'), weights)
  mirror = await startHubMirror({ repo: REPO, dir, token: TOKEN, bind: '127.0.0.1' })
})
afterAll(async () => mirror?.stop())

const gitBlob = (b: Buffer) =>
  createHash('sha1')
    .update(Buffer.concat([Buffer.from(`blob ${b.length}\0`), b]))
    .digest('hex')
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex')

describe('hub mirror', () => {
  it('lists the revision as the hub does: commit, siblings; the tree with blob ids and LFS sha256 and size', async () => {
    const info = await (await fetch(`${mirror.endpoint}/api/models/${REPO}/revision/main`, { headers: auth })).json()
    expect(info).toMatchObject({ id: REPO, sha: mirror.commit, siblings: [{ rfilename: 'config.json' }, { rfilename: 'sub/model.safetensors' }] })
    const tree = await (await fetch(`${mirror.endpoint}/api/models/${REPO}/tree/${mirror.commit}?recursive=True&expand=False`, { headers: auth })).json()
    const pointer = `version https://git-lfs.github.com/spec/v1\noid sha256:${sha256(weights)}\nsize ${weights.length}\n`
    expect(tree).toEqual([
      { type: 'file', path: 'config.json', size: config.length, oid: gitBlob(config) },
      { type: 'directory', path: 'sub', oid: expect.stringMatching(/^[0-9a-f]{40}$/) },
      {
        type: 'file',
        path: 'sub/model.safetensors',
        size: weights.length,
        oid: gitBlob(Buffer.from(pointer)),
        lfs: { oid: sha256(weights), size: weights.length, pointerSize: pointer.length },
      },
    ])
  })

  it('answers HEAD with the headers get_hf_file_metadata reads, and GET with the bytes (a Range as 206)', async () => {
    const url = `${mirror.endpoint}/${REPO}/resolve/${mirror.commit}/sub/model.safetensors`
    const head = await fetch(url, { method: 'HEAD', headers: auth })
    expect(head.status).toBe(200)
    expect(Object.fromEntries(['x-repo-commit', 'etag', 'x-linked-etag', 'x-linked-size', 'content-length'].map((h) => [h, head.headers.get(h)]))).toEqual({
      'x-repo-commit': mirror.commit,
      etag: `"${sha256(weights)}"`,
      'x-linked-etag': `"${sha256(weights)}"`,
      'x-linked-size': String(weights.length),
      'content-length': String(weights.length),
    })
    const small = await fetch(`${mirror.endpoint}/${REPO}/resolve/main/config.json`, { method: 'HEAD', headers: auth })
    expect(small.headers.get('etag')).toBe(`"${gitBlob(config)}"`)
    expect(small.headers.get('x-linked-etag')).toBeNull()
    const all = Buffer.from(await (await fetch(url, { headers: auth })).arrayBuffer())
    expect(all.equals(weights)).toBe(true)
    const rest = await fetch(url, { headers: { ...auth, Range: 'bytes=1000-' } })
    expect(rest.status).toBe(206)
    expect(rest.headers.get('content-range')).toBe(`bytes 1000-1499/1500`)
    expect(Buffer.from(await rest.arrayBuffer()).length).toBe(500)
  })

  it("refuses a wrong or missing token with 401 and the hub's message; unknown revisions and repos as the hub does", async () => {
    const bad = await fetch(`${mirror.endpoint}/api/models/${REPO}/revision/main`, { headers: { Authorization: 'Bearer nope' } })
    expect(bad.status).toBe(401)
    expect(bad.headers.get('x-error-message')).toBe('Invalid credentials in Authorization header')
    expect((await fetch(`${mirror.endpoint}/${REPO}/resolve/main/config.json`)).status).toBe(401)
    const rev = await fetch(`${mirror.endpoint}/api/models/${REPO}/revision/v9`, { headers: auth })
    expect([rev.status, rev.headers.get('x-error-code')]).toEqual([404, 'RevisionNotFound'])
    const repo = await fetch(`${mirror.endpoint}/api/models/other/repo/revision/main`, { headers: auth })
    expect([repo.status, repo.headers.get('x-error-code')]).toEqual([401, 'RepoNotFound'])
  })

  it('logs every request (auth ok, bad or none) and never the token; file downloads are counted from the log', async () => {
    const from = mirror.events.length
    await fetch(`${mirror.endpoint}/${REPO}/resolve/main/config.json`, { headers: auth })
    await mirror.waitFor((e) => e.event === 'request' && e.path.endsWith('/config.json') && e.method === 'GET', from)
    expect(fileDownloads(mirror.events.slice(from), REPO)).toEqual([
      { event: 'request', method: 'GET', path: `/${REPO}/resolve/main/config.json`, status: 200, auth: 'ok', bytes: config.length },
    ])
    expect(mirror.events.map((e) => ('auth' in e ? e.auth : '')).filter(Boolean)).toEqual(expect.arrayContaining(['ok', 'bad', 'none']))
    expect(JSON.stringify(mirror.events)).not.toContain(TOKEN)
  })
})
