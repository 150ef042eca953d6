/**
 * A node whose connection went away (it rebooted, a link dropped, its sshd session died): the
 * command that was running says so (no exit status, "connection lost"), and the next command goes
 * on a new connection with the same pins — never the lost command again. A node that does not
 * answer any more gives the connect error as the command's result, not a crash. Real sshd; the
 * connection is cut from the server side (the command kills its own sshd session process).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { argv } from '../../src/command/shell.js'
import { connectionLost } from '../../src/deploy/node-events.js'
import { pinsFromKnownHosts } from '../../src/transport/host-keys.js'
import type { SshTransport } from '../../src/transport/ssh.js'
import { sshConnected } from '../support/ssh-connected.js'
import { outcome } from '../../src/transport/transport.js'
import { type LoopbackSshd, startLoopbackSshd } from '../support/sshd.js'

let sshd: LoopbackSshd | undefined
let t: SshTransport | undefined
afterEach(async () => {
  await t?.close()
  await sshd?.stop()
  t = undefined
  sshd = undefined
})

async function connect(extraConfig: readonly string[] = []): Promise<SshTransport> {
  sshd = await startLoopbackSshd({ extraConfig })
  const s = sshd
  t = await sshConnected({
    name: 'loop',
    host: '127.0.0.1',
    port: s.port,
    user: 'root',
    privateKey: s.clientKey,
    pins: pinsFromKnownHosts(s.knownHosts, '127.0.0.1', s.port),
    connectTimeoutMs: 10_000,
  })
  return t
}

/** Counts its runs in a file, then kills the sshd session that carries it (the command's grandparent). */
const cutOwnConnection = (counter: string) =>
  argv('bash', '-c', 'echo run >> "$1"; kill -KILL "$(ps -o ppid= -p "$PPID" | tr -d " ")"; sleep 5', 'cut', counter)

describe('a lost SSH connection', () => {
  it('the running command says the connection was lost; the next command runs on a new connection; nothing runs twice', async () => {
    const tr = await connect()
    const counter = join(mkdtempSync(join(tmpdir(), 'vrd-reconnect-')), 'runs')
    const lost = await tr.run(cutOwnConnection(counter), { timeoutMs: 30_000 })
    expect(lost.code).toBeNull()
    expect(lost.timedOut).toBe(false)
    expect(connectionLost(lost)).toBe(true)
    expect(outcome(lost)).toBe('ended without an exit status (connection lost)')

    const next = await tr.run(argv('echo', 'back'), { timeoutMs: 30_000 })
    expect(next).toMatchObject({ code: 0, stdout: 'back\n' })
    // Several commands at once after another cut share one new connection, and all run.
    await tr.run(cutOwnConnection(counter), { timeoutMs: 30_000 })
    const many = await Promise.all([1, 2, 3].map((i) => tr.run(argv('echo', String(i)), { timeoutMs: 30_000 })))
    expect(many.map((r) => r.stdout)).toEqual(['1\n', '2\n', '3\n'])
    expect(readFileSync(counter, 'utf8')).toBe('run\nrun\n')
  })

  it('a node that no longer answers: the command ends with the connect error, as data', async () => {
    const tr = await connect()
    await sshd!.stop()
    const counter = join(mkdtempSync(join(tmpdir(), 'vrd-reconnect-')), 'runs')
    await tr.run(cutOwnConnection(counter), { timeoutMs: 30_000 })
    const r = await tr.run(argv('echo', 'x'), { timeoutMs: 30_000 })
    expect(r.code).toBeNull()
    expect(connectionLost(r)).toBe(true)
    expect(r.stderr).toMatch(/the connection to loop went away and a new one failed: cannot connect to root@127\.0\.0\.1:\d+: ECONNREFUSED/)
  })

  it('a channel the server refuses on a live connection (MaxSessions) fails that command only: the running one goes on, no new connection', async () => {
    const tr = await connect(['MaxSessions 1'])
    const dir = mkdtempSync(join(tmpdir(), 'vrd-sessions-'))
    const go = join(dir, 'go')
    let started!: () => void
    const running = new Promise<void>((r) => (started = r))
    const first = tr.run(argv('sh', '-c', 'echo started; while [ ! -e "$1" ]; do sleep 0.05; done; echo done', 'wait', go), {
      timeoutMs: 60_000,
      onStdout: (c) => c.includes('started') && started(),
    })
    await running
    const refused = await tr.run(argv('echo', 'second'), { timeoutMs: 30_000 })
    expect(refused.code).toBeNull()
    expect(refused.stderr).toMatch(/channel open failure/i)
    expect(refused.stderr).not.toMatch(/went away/)
    writeFileSync(go, '')
    expect(await first).toMatchObject({ code: 0, stdout: 'started\ndone\n' })
  })
})
