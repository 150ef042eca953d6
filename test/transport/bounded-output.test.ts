/**
 * Bytes from a node are bounded where they enter (issue 24 item 1): every command's stdout and
 * stderr, over SSH and on this machine, and the stderr of a streaming producer. Tried through four
 * sources: an endless stdout over a real sshd (`cat /dev/zero`, as a holder.json linked to
 * /dev/zero), an endless stderr over SSH, a local run, and LocalTransport.stream's stderr.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { argv } from '../../src/command/shell.js'
import { BoundedOutput, DEFAULT_OUTPUT_LIMIT_BYTES } from '../../src/transport/bounded-output.js'
import { pinsFromKnownHosts } from '../../src/transport/host-keys.js'
import { LocalTransport } from '../../src/transport/local.js'
import type { SshTransport } from '../../src/transport/ssh.js'
import { sshConnected } from '../support/ssh-connected.js'
import { outcome, succeeded } from '../../src/transport/transport.js'
import { type LoopbackSshd, startLoopbackSshd } from '../support/sshd.js'

let sshd: LoopbackSshd
let ssh: SshTransport
const local = new LocalTransport()

beforeAll(async () => {
  sshd = await startLoopbackSshd()
  ssh = await sshConnected({
    name: 'loop',
    host: '127.0.0.1',
    port: sshd.port,
    user: 'root',
    privateKey: sshd.clientKey,
    pins: pinsFromKnownHosts(sshd.knownHosts, '127.0.0.1', sshd.port),
    connectTimeoutMs: 10_000,
  })
})
afterAll(async () => {
  await ssh?.close()
  await sshd?.stop()
})

const LIMIT = 256 * 1024

describe('every command output is bounded where it enters', () => {
  it('BoundedOutput keeps the first bytes, splits no UTF-8 character, and says what it cut', () => {
    const o = new BoundedOutput('stdout', 5)
    expect(o.push(Buffer.from('abc'))).toBe('abc')
    expect(o.push(Buffer.from('dé€'))).toBe('d') // 'é' would straddle the limit: held, never half-decoded
    expect(o.push('more')).toBe('')
    expect(o.over).toBe(true)
    expect(o.text()).toMatch(/^abcd[^\n]*\n\[stdout cut: more than 5 bytes \(13 read\); the command was stopped\]\n$/)
    const fits = new BoundedOutput('stderr', 5)
    fits.push('12345')
    expect(fits.over).toBe(false)
    expect(fits.text()).toBe('12345')
  })

  const sources = [
    { name: 'ssh stdout (a holder.json linked to /dev/zero)', via: () => ssh, cmd: argv('cat', '/dev/zero'), stream: 'stdout' },
    { name: 'ssh stderr', via: () => ssh, cmd: argv('sh', '-c', 'yes err >&2'), stream: 'stderr' },
    { name: 'local stdout', via: () => local, cmd: argv('cat', '/dev/zero'), stream: 'stdout' },
    { name: 'local stderr', via: () => local, cmd: argv('sh', '-c', 'yes err >&2'), stream: 'stderr' },
  ] as const

  for (const s of sources) {
    it(`${s.name}: an endless output is cut at the limit, the command stopped, and the result says so`, async () => {
      const r = await s.via().run(s.cmd, { timeoutMs: 120_000, maxOutputBytes: LIMIT })
      expect(r.outputCut).toBe(s.stream)
      expect(r.timedOut).toBe(false)
      expect(succeeded(r)).toBe(false)
      expect(outcome(r)).toBe(`stopped: its ${s.stream} passed the output limit`)
      const text = r[s.stream]
      expect(Buffer.byteLength(text)).toBeLessThan(LIMIT + 200)
      expect(text).toMatch(new RegExp(`\\[${s.stream} cut: more than ${LIMIT} bytes \\(\\d+ read\\); the command was stopped\\]\\n$`))
    })
  }

  it('the default limit applies when the caller sets none (ssh, /dev/zero)', async () => {
    const r = await ssh.run(argv('cat', '/dev/zero'), { timeoutMs: 120_000 })
    expect(r.outputCut).toBe('stdout')
    expect(Buffer.byteLength(r.stdout)).toBeLessThan(DEFAULT_OUTPUT_LIMIT_BYTES + 200)
  })

  it('output under the limit is whole and untouched', async () => {
    for (const t of [ssh, local]) {
      const r = await t.run(argv('head', '-c', String(LIMIT), '/dev/zero'), { timeoutMs: 60_000, maxOutputBytes: LIMIT })
      expect(r.code).toBe(0)
      expect(r.outputCut).toBeUndefined()
      expect(r.stdout.length).toBe(LIMIT)
    }
  })

  it("LocalTransport.stream's stderr is bounded too: a producer that floods stderr is stopped", async () => {
    const p = local.stream(argv('sh', '-c', 'yes err >&2'))
    p.stdout.resume()
    const r = await p.done
    expect(r.outputCut).toBe('stderr')
    expect(Buffer.byteLength(r.stderr)).toBeLessThan(DEFAULT_OUTPUT_LIMIT_BYTES + 200)
  })
})
