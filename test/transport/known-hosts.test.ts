/**
 * Issue 24 item 12: known_hosts is read as OpenSSH reads it (hostfile.c / match.c): a negated
 * pattern that matches rejects the line whatever else on it matches, and an `@revoked` key is
 * refused even when a plain line lists it. Checked against the pure reader, against OpenSSH's own
 * `ssh-keygen -F` on the same text, and by connecting to a real sshd.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { argv } from '../../src/command/shell.js'
import { keyMatches, pinsFromKnownHosts } from '../../src/transport/host-keys.js'
import { SshTransport } from '../../src/transport/ssh.js'
import { type LoopbackSshd, startLoopbackSshd } from '../support/sshd.js'

let sshd: LoopbackSshd
beforeAll(async () => {
  sshd = await startLoopbackSshd()
})
afterAll(async () => {
  await sshd?.stop()
})

const name = () => `[127.0.0.1]:${sshd.port}`
const KEY = () => sshd.hostPublicKey.split(' ').slice(0, 2).join(' ')
const cases = () =>
  [
    { what: 'a plain line', text: `${name()} ${KEY()}`, connects: true },
    { what: 'a wildcard line', text: `*,127.0.0.* ${KEY()}`.replace('127.0.0.*', `[127.0.0.?]:${sshd.port}`), connects: true },
    { what: '*,!host (the negation names this host)', text: `*,!${name()} ${KEY()}`, connects: false },
    { what: '!*,host (a negation that matches everything)', text: `!*,${name()} ${KEY()}`, connects: false },
    { what: '@revoked beside a plain line with the same key', text: `@revoked * ${KEY()}\n${name()} ${KEY()}`, connects: false },
    { what: 'a @cert-authority line only', text: `@cert-authority * ${KEY()}`, connects: false },
  ] as const

describe('known_hosts as OpenSSH reads it', () => {
  it('the reader accepts exactly the lines OpenSSH accepts (ssh-keygen -F on the same file agrees)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vrd-kh-'))
    for (const c of cases()) {
      const blob = Buffer.from(KEY().split(' ')[1]!, 'base64')
      expect(keyMatches(blob, pinsFromKnownHosts(c.text, '127.0.0.1', sshd.port)) !== undefined, c.what).toBe(c.connects)
      // OpenSSH's own lookup, for the lines without markers (ssh-keygen -F lists matching plain lines).
      if (!c.text.includes('@')) {
        const file = join(dir, 'kh')
        writeFileSync(file, `${c.text}\n`)
        let found = ''
        try {
          found = execFileSync('ssh-keygen', ['-F', name(), '-f', file], { encoding: 'utf8' })
        } catch {}
        expect(found.includes(KEY()), `ssh-keygen -F for ${c.what}`).toBe(c.connects)
      }
    }
  })

  it('connecting to a real sshd follows the same verdicts; a revoked key is named as revoked', async () => {
    for (const c of cases()) {
      const attempt = SshTransport.connect({
        name: 'loop',
        host: '127.0.0.1',
        port: sshd.port,
        user: 'root',
        privateKey: sshd.clientKey,
        pins: pinsFromKnownHosts(c.text, '127.0.0.1', sshd.port),
        connectTimeoutMs: 10_000,
      })
      const r = await attempt
      if (c.connects) {
        expect(r.ok, c.what).toBe(true)
        if (!r.ok) continue
        expect((await r.value.run(argv('echo', 'ok'), { timeoutMs: 10_000 })).stdout, c.what).toBe('ok\n')
        await r.value.close()
      } else {
        if (r.ok) await r.value.close()
        expect(r, c.what).toMatchObject({ ok: false, problem: { code: 'SSH_CONNECT_FAILED' } })
        if (c.what.startsWith('@revoked')) expect(r.ok ? '' : r.problem.message).toMatch(/is marked @revoked in known_hosts:1: not connecting/)
      }
    }
  })
})
