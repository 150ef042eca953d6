/**
 * `deploy --bundle-dir DIR` (issue 39): a deploy that fails writes the diagnostics bundle there —
 * bundle.json indexing every file — and no secret of the run is in it (the SSH key's lines, the
 * Hugging Face token), through the CLI's own redaction. A one-node cluster on this machine through
 * a real sshd on loopback, stopped by the deploy's gates.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { main } from '../../src/cli/cli-main.js'
import { type LoopbackSshd, startLoopbackSshd } from '../support/sshd.js'

const PLANTED = 'planted-service-token-0123456789'
let sshd: LoopbackSshd
let dir: string
beforeAll(async () => {
  sshd = await startLoopbackSshd()
  dir = mkdtempSync(join(tmpdir(), 'vrd-bundle-dir-'))
}, 60_000)
afterAll(async () => {
  await sshd?.stop()
})

const files = (root: string): string[] =>
  readdirSync(root).flatMap((n) => (statSync(join(root, n)).isDirectory() ? files(join(root, n)).map((f) => `${n}/${f}`) : [n]))

describe('deploy --bundle-dir', () => {
  it('a failed deploy leaves the bundle there, with no secret of the run in any file', async () => {
    const manifest = join(dir, 'loopback.yml')
    writeFileSync(
      manifest,
      [
        'version: 1',
        'cluster: loopback',
        'fabric: { interfaces: [lo], subnet: 127.0.0.0/8 }',
        'nodes:',
        '  - name: here',
        '    role: head',
        `    ssh: { host: 127.0.0.1, port: ${sshd.port}, hostKeys: ["${sshd.hostPublicKey}"] }`,
        '    fabricIp: 127.0.0.1',
        '    gpus: 1',
        'image: { ref: "vrd-bundle/absent:1" }',
        // Planted where the bundle copies from: the manifest's effective values.
        `container: { name: vrd-bundle-no-such-container, env: { MY_SERVICE_TOKEN: "${PLANTED}", NCCL_DEBUG: WARN } }`,
        'vllm: { model: m, tensorParallelSize: 1 }',
        '',
      ].join('\n'),
    )
    const key = join(dir, 'key')
    writeFileSync(key, sshd.clientKey, { mode: 0o600 })
    const out = join(dir, 'bundle')
    const HF = 'hf_PlantedCliTokenAbcdefghijklmnopq77'
    let said = ''
    const code = await main(['deploy', '--manifest', manifest, '--ssh-key', key, '--release', 'r1', '--bundle-dir', out], {
      out: (s) => {
        said += s
      },
      err: (s) => {
        said += s
      },
      env: { ...process.env, HF_TOKEN: HF },
    })
    expect(code, said).toBe(1)
    expect(existsSync(join(out, 'bundle.json')), said).toBe(true)
    const index = JSON.parse(readFileSync(join(out, 'bundle.json'), 'utf8'))
    expect(index).toMatchObject({ cluster: 'loopback', release: 'r1', result: 'failed', why: 'failed' })
    expect(files(out).sort()).toEqual([...index.files.map((f: { path: string }) => f.path), 'bundle.json'].sort())
    expect(files(out)).toContain('nodes/here/engine.log')
    expect(readFileSync(join(out, 'manifest.effective.json'), 'utf8')).toContain('"MY_SERVICE_TOKEN": "***"')
    const keyLines = sshd.clientKey.split('\n').filter((l) => l.trim() && !l.startsWith('-----'))
    for (const f of files(out)) {
      const text = readFileSync(join(out, f), 'utf8')
      expect(text, f).not.toContain(HF)
      expect(text, f).not.toContain(PLANTED)
      for (const line of keyLines) expect(text, f).not.toContain(line.trim())
    }
  }, 120_000)
})
