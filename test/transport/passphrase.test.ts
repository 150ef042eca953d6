/**
 * Issue 24 item 16: a key with a passphrase can be used, through the CLI (--ssh-key-passphrase FILE
 * or $VRD_SSH_KEY_PASSPHRASE) and the Action (input ssh-key-passphrase, masked before anything is
 * printed), against a real sshd; without the passphrase the error says how to give it.
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { readActionInputs } from '../../src/action/action-inputs.js'
import { main } from '../../src/cli/cli-main.js'
import { type LoopbackSshd, startLoopbackSshd } from '../support/sshd.js'

const PASSPHRASE = 'correct horse battery staple'
let sshd: LoopbackSshd
let dir: string
let manifest: string
let lockedKey: string

beforeAll(async () => {
  sshd = await startLoopbackSshd()
  dir = mkdtempSync(join(tmpdir(), 'vrd-pass-'))
  // The authorised client key, re-encrypted with a passphrase (same public key).
  const file = join(dir, 'key')
  writeFileSync(file, sshd.clientKey)
  chmodSync(file, 0o600)
  execFileSync('ssh-keygen', ['-q', '-p', '-P', '', '-N', PASSPHRASE, '-f', file])
  lockedKey = readFileSync(file, 'utf8')
  manifest = join(dir, 'cluster.yml')
  writeFileSync(
    manifest,
    [
      'version: 1',
      `cluster: pass-${process.pid}-${Date.now()}`,
      'fabric: { interfaces: [lo], subnet: 127.0.0.0/8 }',
      'nodes:',
      `  - { name: head, role: head, ssh: { host: 127.0.0.1, port: ${sshd.port}, hostKeys: ["${sshd.hostPublicKey}"] }, fabricIp: 127.0.0.1, gpus: 1 }`,
      'image: { ref: "x:1" }',
      'vllm: { model: m, tensorParallelSize: 1 }',
      '',
    ].join('\n'),
  )
})
afterAll(async () => {
  await sshd?.stop()
})

async function cli(env: Record<string, string>, ...args: string[]) {
  let out = ''
  let err = ''
  const code = await main(args, { out: (s) => (out += s), err: (s) => (err += s), env })
  return { code, out, err }
}

describe('a private key with a passphrase', () => {
  it('CLI: without the passphrase the error says how to give it', async () => {
    const r = await cli({ VRD_SSH_PRIVATE_KEY: lockedKey }, 'lock', 'status', '--manifest', manifest)
    expect(r.code).not.toBe(0)
    expect(r.out + r.err).toMatch(/cannot be used .*passphrase.*--ssh-key-passphrase FILE or \$VRD_SSH_KEY_PASSPHRASE/)
  })

  it('CLI: --ssh-key-passphrase FILE and $VRD_SSH_KEY_PASSPHRASE both connect', async () => {
    const file = join(dir, 'phrase')
    writeFileSync(file, `${PASSPHRASE}\n`)
    const byFile = await cli({ VRD_SSH_PRIVATE_KEY: lockedKey }, 'lock', 'status', '--manifest', manifest, '--ssh-key-passphrase', file)
    expect(byFile).toMatchObject({ code: 0, out: expect.stringMatching(/: free/) })
    const byEnv = await cli({ VRD_SSH_PRIVATE_KEY: lockedKey, VRD_SSH_KEY_PASSPHRASE: PASSPHRASE }, 'lock', 'status', '--manifest', manifest)
    expect(byEnv).toMatchObject({ code: 0, out: expect.stringMatching(/: free/) })
    expect(byFile.out + byFile.err + byEnv.out + byEnv.err).not.toContain(PASSPHRASE)
  })

  it('Action: the ssh-key-passphrase input is read, masked first, and reaches the connection', async () => {
    const inputs = readActionInputs({
      get: (n) =>
        ({ command: 'preflight', manifest, 'ssh-private-key': lockedKey, 'ssh-key-passphrase': PASSPHRASE, force: 'false', 'wait-lock': 'false' })[
          n as string
        ] ?? '',
      getMultiline: () => [],
    })
    expect(inputs).toMatchObject({ ok: true, value: { values: { sshKeyPassphrase: PASSPHRASE } } })
    const written: string[] = []
    vi.spyOn(process.stdout, 'write').mockImplementation((c: string | Uint8Array) => {
      written.push(String(c))
      return true
    })
    const env: Record<string, string> = {
      INPUT_COMMAND: 'preflight',
      INPUT_MANIFEST: manifest,
      'INPUT_SSH-PRIVATE-KEY': lockedKey,
      'INPUT_SSH-KEY-PASSPHRASE': PASSPHRASE,
      INPUT_FORCE: 'false',
      'INPUT_WAIT-LOCK': 'false',
      GITHUB_OUTPUT: join(dir, 'out'),
      GITHUB_STATE: join(dir, 'state'),
      RUNNER_TEMP: dir,
    }
    writeFileSync(env.GITHUB_OUTPUT!, '')
    writeFileSync(env.GITHUB_STATE!, '')
    for (const [k, v] of Object.entries(env)) vi.stubEnv(k, v)
    try {
      const { run } = await import('../../src/action/action-main.js')
      await run()
    } finally {
      vi.unstubAllEnvs()
      vi.restoreAllMocks()
    }
    const printed = written.join('')
    const firstMask = printed.indexOf(`::add-mask::${PASSPHRASE}`)
    expect(firstMask).toBeGreaterThanOrEqual(0)
    expect(printed.slice(firstMask + PASSPHRASE.length + 12)).not.toContain(PASSPHRASE)
    expect(printed).not.toMatch(/cannot be used|authentication as root .* failed|cannot reach|cannot connect/)
    expect(printed).toMatch(/preflight/)
  })
})
