import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Readable } from 'node:stream'
import { argv, pipe, withEnv } from '../../src/command/shell.js'
import { parsePin, pinsFromKnownHosts } from '../../src/transport/host-keys.js'
import { LocalTransport } from '../../src/transport/local.js'
import { SshTransport, type SshTarget } from '../../src/transport/ssh.js'
import { sshConnected } from '../support/ssh-connected.js'
import { outcome } from '../../src/transport/transport.js'
import { type LoopbackSshd, newClientKey, startLoopbackSshd } from '../support/sshd.js'

let sshd: LoopbackSshd
let t: SshTransport

const target = (over: Partial<SshTarget> = {}): SshTarget => ({
  name: 'loop',
  host: '127.0.0.1',
  port: sshd.port,
  user: 'root',
  privateKey: sshd.clientKey,
  pins: pinsFromKnownHosts(sshd.knownHosts, '127.0.0.1', sshd.port),
  connectTimeoutMs: 10_000,
  ...over,
})

beforeAll(async () => {
  sshd = await startLoopbackSshd()
  t = await sshConnected(target())
})
afterAll(async () => {
  await t?.close()
  await sshd?.stop()
})

describe('SshTransport against a real sshd', () => {
  it('passes hostile arguments and env values through the remote shell byte for byte', async () => {
    const values = ["it's", '$(id)', '`id`', 'a;b', 'x\ny', '"q"', '\\', '*', '']
    const r = await t.run(argv('printf', '%s\\0', ...values), { timeoutMs: 10_000 })
    expect(r.code).toBe(0)
    expect(r.stdout.split('\0').slice(0, -1)).toEqual(values)
    const e = await t.run(withEnv({ V: '$(touch /tmp/x); `id`' }, 'printenv', 'V'), { timeoutMs: 10_000 })
    expect(e.stdout).toBe('$(touch /tmp/x); `id`\n')
  })

  it('reports a non-zero exit as data, never as a rejection', async () => {
    const r = await t.run(argv('sh', '-c', 'echo out; echo err >&2; exit 3'), { timeoutMs: 10_000 })
    expect(r).toMatchObject({ code: 3, stdout: 'out\n', stderr: 'err\n', timedOut: false })
  })

  it('fails a pipeline when an early stage fails (pipefail)', async () => {
    const r = await t.run(pipe(argv('false'), argv('cat')), { timeoutMs: 10_000 })
    expect(r.code).not.toBe(0)
  })

  it('kills the remote command at its deadline and says so', async () => {
    const marker = `vrd-timeout-${process.pid}-${Date.now()}`
    const r = await t.run(argv('bash', '-c', `exec -a ${marker} sleep 30`), { timeoutMs: 1500 })
    expect(r.timedOut).toBe(true)
    expect(r.code).toBeNull()
    const left = await t.run(argv('sh', '-c', `pgrep -f "^${marker}" || true`), { timeoutMs: 5000 })
    expect(left.stdout.trim()).toBe('')
  })

  /** Abort `ac` once the remote command has said `ready` on stdout: no race with a slow session start. */
  const abortWhenReady = (ac: AbortController) => (chunk: string) => {
    if (chunk.includes('ready')) ac.abort()
  }

  it('a cancel ends the remote command at once: the run says cancelled and the process is gone', async () => {
    const marker = `vrd-cancel-${process.pid}-${Date.now()}`
    const ac = new AbortController()
    const r = await t.run(argv('bash', '-c', `echo ready; exec -a ${marker} sleep 60`), {
      timeoutMs: 120_000,
      signal: ac.signal,
      onStdout: abortWhenReady(ac),
    })
    expect(r).toMatchObject({ code: null, cancelled: true, timedOut: false })
    expect(outcome(r)).toBe('cancelled')
    // sshd passes the TERM on (or the channel's end takes the command down): nothing keeps running.
    let left = 'x'
    for (let i = 0; i < 20 && left; i++) {
      left = (await t.run(argv('sh', '-c', `pgrep -f "^${marker}" || true`), { timeoutMs: 5000 })).stdout.trim()
      if (left) await new Promise((res) => setTimeout(res, 250))
    }
    expect(left).toBe('')
    // The connection still serves the next command; an already aborted signal starts nothing.
    expect((await t.run(argv('echo', 'next'), { timeoutMs: 5000 })).stdout).toBe('next\n')
    // The command is asked to stop first (SIGTERM, which it can trap to clean up), not killed outright.
    const ac2 = new AbortController()
    const trapped = await t.run(argv('bash', '-c', `trap 'echo term > /tmp/${marker}.term; exit 1' TERM; echo ready; sleep 60 & wait`), {
      timeoutMs: 120_000,
      signal: ac2.signal,
      onStdout: abortWhenReady(ac2),
    })
    expect(trapped.cancelled).toBe(true)
    expect((await t.run(argv('cat', `/tmp/${marker}.term`), { timeoutMs: 5000 })).stdout).toBe('term\n')
    await t.run(argv('rm', '-f', `/tmp/${marker}.term`), { timeoutMs: 5000 })
    const never = await t.run(argv('touch', `/tmp/${marker}`), { timeoutMs: 5000, signal: ac.signal })
    expect(never.cancelled).toBe(true)
    expect((await t.run(argv('sh', '-c', `test -e /tmp/${marker} && echo made || echo none`), { timeoutMs: 5000 })).stdout).toBe('none\n')
  })

  it('a cancel that arrives before the remote process exists is not lost: the command gets SIGTERM or never starts', async () => {
    // Several runs, each cancelled at a different point of the session's start (no sleeps: the
    // abort is queued behind 0..4 turns of the event loop while the channel opens).
    for (let turns = 0; turns < 5; turns++) {
      const marker = `/tmp/vrd-early-${process.pid}-${Date.now()}-${turns}`
      const ac = new AbortController()
      const run = t.run(argv('bash', '-c', `trap 'echo term > ${marker}.term; exit 1' TERM; touch ${marker}.started; sleep 60 & wait`), {
        timeoutMs: 120_000,
        signal: ac.signal,
      })
      for (let i = 0; i < turns; i++) await new Promise((res) => setImmediate(res))
      ac.abort()
      const r = await run
      expect(r.cancelled).toBe(true)
      const seen = (await t.run(argv('sh', '-c', `ls ${marker}.* 2>/dev/null | sed 's|.*\\.||' | sort | tr '\\n' ' '`), { timeoutMs: 5000 })).stdout
      // Either it never started, or it started and its TERM trap ran (never a silent SIGKILL). The
      // TERM may come after the trap is set but before the command's first line ran (no `started`).
      expect(['', 'term ', 'started term ']).toContain(seen)
      await t.run(argv('sh', '-c', `rm -f ${marker}.*`), { timeoutMs: 5000 })
    }
  })

  it('a stream stdin the command stops reading is closed, so its producer (docker save) ends too', async () => {
    const producer = new LocalTransport().stream(argv('sh', '-c', 'exec yes vrd'))
    const r = await t.run(argv('head', '-c', '5'), { timeoutMs: 20_000, stdin: producer.stdout })
    expect(r.stdout).toBe('vrd\nv')
    const ended = await Promise.race([producer.done, new Promise((res) => setTimeout(() => res('still running'), 10_000))])
    expect(ended).not.toBe('still running')
  })

  it('feeds stdin (string and stream) to the remote command', async () => {
    expect((await t.run(argv('wc', '-c'), { timeoutMs: 5000, stdin: 'hello' })).stdout.trim()).toBe('5')
    const big = Buffer.alloc(3 * 1024 * 1024, 'z')
    const r = await t.run(argv('wc', '-c'), { timeoutMs: 20_000, stdin: Readable.from([big]) })
    expect(r.stdout.trim()).toBe(String(big.length))
  })

  it('streams output while the command runs', async () => {
    const chunks: string[] = []
    await t.run(argv('sh', '-c', 'echo one; sleep 0.3; echo two'), { timeoutMs: 5000, onStdout: (c) => chunks.push(c) })
    expect(chunks.join('')).toBe('one\ntwo\n')
    expect(chunks.length).toBeGreaterThanOrEqual(2)
  })

  it('accepts a fingerprint pin as well as a key pin', async () => {
    const { execFileSync } = await import('node:child_process')
    const fp = execFileSync('ssh-keygen', ['-lf', '-'], { input: sshd.hostPublicKey, encoding: 'utf8' }).split(' ')[1]!
    const pin = parsePin(fp, 'test')!
    const t2 = await sshConnected(target({ pins: [pin] }))
    expect((await t2.run(argv('echo', 'ok'), { timeoutMs: 5000 })).stdout).toBe('ok\n')
    await t2.close()
  })

  it('refuses a host whose key does not match the pin, naming both fingerprints', async () => {
    const wrong = parsePin('SHA256:' + 'A'.repeat(43), 'manifest nodes[0].ssh.hostKeys[0]')!
    const r = await SshTransport.connect(target({ pins: [wrong] }))
    expect(r).toMatchObject({ ok: false, problem: { code: 'SSH_CONNECT_FAILED', evidence: { node: 'loop' } } })
    expect(r.ok ? '' : r.problem.message).toMatch(/does not match any pin: server presented ssh-ed25519 SHA256:/)
  })

  it('refuses to connect without any pin', async () => {
    const r = await SshTransport.connect(target({ pins: [] }))
    expect(r.ok ? '' : r.problem.message).toMatch(/no host key pinned/)
  })

  it('explains a refused key and an unreachable port', async () => {
    const refused = await SshTransport.connect(target({ privateKey: newClientKey() }))
    expect(refused.ok ? '' : refused.problem.message).toBe(`authentication as root on 127.0.0.1:${sshd.port} failed: the private key was refused`)
    const closed = await SshTransport.connect(target({ port: 1 }))
    expect(closed.ok ? '' : closed.problem.message).toMatch(/cannot connect to root@127.0.0.1:1: ECONNREFUSED/)
  })
})
