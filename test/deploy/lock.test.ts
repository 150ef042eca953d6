/**
 * The deploy lock: the pure parts (the node's answer, the holder record, expiry by the node's
 * clock), then the real thing on a real sshd on 127.0.0.1 (commands run as this machine's user,
 * so the lock lives under /var/lib/vllm-ray-deploy/<a cluster name of this test run>).
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import {
  LockHeartbeat,
  acquireDeployLock,
  type LockHolder,
  deployLockStatus,
  holderRecord,
  judgeLock,
  parseHolder,
  parseLockResponse,
  releaseDeployLock,
} from '../../src/deploy/deploy-lock.js'
import { parseManifest } from '../../src/manifest/load-manifest.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { GUARD_EXPIRY_S, TAKE_GUARD, deployLockDir } from '../../src/plan/lock-commands.js'
import { pinsFromKnownHosts } from '../../src/transport/host-keys.js'
import type { SshTransport } from '../../src/transport/ssh.js'
import type { Transport } from '../../src/transport/transport.js'
import { type LoopbackSshd, startLoopbackSshd } from '../support/sshd.js'
import { sshConnected } from '../support/ssh-connected.js'

const TOKEN = '0123456789abcdef0123456789abcdef'
const record = (over: Record<string, unknown> = {}) =>
  JSON.stringify({ who: 'alice', run: '42', release: 'r1', since: '2026-12-03T10:00:00.000Z', expiresAt: '2026-12-03T11:00:00.000Z', token: TOKEN, ...over })
const at = (iso: string) => Math.floor(Date.parse(iso) / 1000)

describe("the lock scripts' answers", () => {
  it("reads a held lock with its record and the node's clock", () => {
    const r = parseLockResponse(`now=${at('2026-12-03T10:30:00Z')}\nstate=held\nmtime=${at('2026-12-03T10:00:00Z')}\n---\n${record()}\n`)
    expect(r).toEqual({
      ok: true,
      value: { nowMs: Date.parse('2026-12-03T10:30:00Z'), state: 'held', madeMs: Date.parse('2026-12-03T10:00:00Z'), record: record() },
    })
  })

  it('reports an answer without a node time or state as a problem, not a crash', () => {
    expect(parseLockResponse('')).toMatchObject({ ok: false, problem: { message: expect.stringMatching(/no node time/) } })
    expect(parseLockResponse('now=17\nstate=weird\n')).toMatchObject({ ok: false, problem: { message: expect.stringMatching(/no lock state/) } })
  })

  it('validates the holder record field by field', () => {
    expect(parseHolder(record())).toMatchObject({ ok: true, value: { who: 'alice', run: '42', release: 'r1', token: TOKEN } })
    expect(parseHolder('{"who":')).toMatchObject({ ok: false, problem: { message: expect.stringMatching(/not JSON/) } })
    expect(parseHolder(record({ token: 'x' }))).toMatchObject({ ok: false, problem: { message: expect.stringMatching(/invalid at token: not a lock token/) } })
    expect(parseHolder(record({ expiresAt: 'tomorrow' }))).toMatchObject({ ok: false, problem: { message: expect.stringMatching(/invalid at expiresAt/) } })
    expect(parseHolder('')).toMatchObject({ ok: false, problem: { message: expect.stringMatching(/no holder record/) } })
  })

  it("judges expiry by the node's clock; a corrupt record by the age of the lock directory", () => {
    const held = (now: string, rec: string, made = '2026-12-03T10:00:00Z') =>
      judgeLock({ nowMs: Date.parse(now), state: 'held', madeMs: Date.parse(made), record: rec }, 60 * 60_000)
    expect(held('2026-12-03T10:59:59Z', record())).toMatchObject({ held: true, stale: false })
    expect(held('2026-12-03T11:00:00Z', record())).toMatchObject({ held: true, stale: true })
    expect(held('2026-12-03T10:30:00Z', 'garbage')).toMatchObject({ held: true, stale: false, problem: expect.stringMatching(/not JSON/) })
    expect(held('2026-12-03T11:00:01Z', 'garbage')).toMatchObject({ held: true, stale: true })
    expect(judgeLock({ nowMs: 1, state: 'free' }, 1)).toEqual({ held: false })
  })
})

describe('the deploy lock on a real sshd', () => {
  let sshd: LoopbackSshd
  let manifest: Manifest
  const opened: SshTransport[] = []
  const connect = async () => {
    const t = await sshConnected({
      name: 'head',
      host: '127.0.0.1',
      port: sshd.port,
      user: 'root',
      privateKey: sshd.clientKey,
      pins: pinsFromKnownHosts(sshd.knownHosts, '127.0.0.1', sshd.port),
      connectTimeoutMs: 10_000,
    })
    opened.push(t)
    return t
  }

  beforeAll(async () => {
    sshd = await startLoopbackSshd()
    const parsed = parseManifest(readFileSync('src/manifest/examples/dgx-spark-pair.yml', 'utf8'), 'm.yml')
    manifest = { ...parsed.manifest!, cluster: `lock-test-${process.pid}-${Date.now()}` }
  })
  afterAll(async () => {
    for (const t of opened) await t.close()
    await sshd?.stop()
    if (manifest) rmSync(deployLockDir(manifest).replace(/\/deploy\.lock$/, ''), { recursive: true, force: true })
  })

  it('two acquisitions at once: exactly one wins, the other names the holder', async () => {
    const [a, b] = [await connect(), await connect()]
    const results = await Promise.all([
      acquireDeployLock(a, manifest, { who: 'alice', run: 'run-a', release: 'rel-a' }),
      acquireDeployLock(b, manifest, { who: 'bob', run: 'run-b', release: 'rel-b' }),
    ])
    const winners = results.filter((r) => r.ok)
    const losers = results.filter((r) => !r.ok)
    expect(winners).toHaveLength(1)
    expect(losers).toHaveLength(1)
    const won = winners[0]!.ok ? winners[0]!.value : undefined
    const lost = losers[0]!
    expect(lost.ok).toBe(false)
    if (lost.ok) return
    expect(lost.problem.holder).toEqual(won)
    expect(lost.problem.message).toContain(`is held by ${won!.who} (run ${won!.run}, release ${won!.release}) since ${won!.since}`)
    // The record on disk is the winner's, whole.
    expect(JSON.parse(readFileSync(`${deployLockDir(manifest)}/holder.json`, 'utf8'))).toEqual(won)
    const status = await deployLockStatus(a, manifest)
    expect(status).toEqual({ held: true, holder: won, stale: false })
    expect((await releaseDeployLock(a, manifest, won!.token)).released).toBe(true)
    expect(await deployLockStatus(a, manifest)).toEqual({ held: false })
  })

  it('ten at once: still exactly one', async () => {
    const ts = await Promise.all(Array.from({ length: 10 }, () => connect()))
    const results = await Promise.all(ts.map((t, i) => acquireDeployLock(t, manifest, { who: `w${i}`, release: 'r' })))
    expect(results.filter((r) => r.ok)).toHaveLength(1)
    const winner = results.find((r) => r.ok)!
    for (const r of results.filter((x) => !x.ok)) expect(r.ok ? undefined : r.problem.holder).toEqual(winner.ok ? winner.value : undefined)
    await releaseDeployLock(ts[0]!, manifest)
  })

  it("a release by token never removes someone else's lock; without a token it is forced", async () => {
    const t = await connect()
    const got = await acquireDeployLock(t, manifest, { who: 'carol', release: 'r2' })
    expect(got.ok).toBe(true)
    const wrong = await releaseDeployLock(t, manifest, 'f'.repeat(32))
    expect(wrong.released).toBe(false)
    expect(wrong.message).toMatch(/held by someone else, carol \(release r2\).*left alone/)
    expect((await deployLockStatus(t, manifest)).held).toBe(true)
    const forced = await releaseDeployLock(t, manifest)
    expect(forced).toMatchObject({ released: true, message: expect.stringMatching(/removed \(forced\)/) })
    expect(await releaseDeployLock(t, manifest, got.ok ? got.value.token : '')).toMatchObject({ released: false, message: expect.stringMatching(/not held/) })
  })

  it('an expired lock is broken, and the break is said', async () => {
    const t = await connect()
    const past = { ...manifest }
    const old = await acquireDeployLock(t, past, { who: 'dave', run: '7', release: 'old' })
    expect(old.ok).toBe(true)
    // Age the record: its expiry is in the past by the node's clock.
    const file = `${deployLockDir(manifest)}/holder.json`
    writeFileSync(file, record({ who: 'dave', run: '7', release: 'old', since: '2026-01-01T00:00:00.000Z', expiresAt: '2026-01-01T01:00:00.000Z' }) + '\n')
    expect(await deployLockStatus(t, manifest)).toMatchObject({ held: true, stale: true, holder: { who: 'dave' } })
    const progress: string[] = []
    const now = await acquireDeployLock(t, manifest, { who: 'erin', release: 'new', onProgress: (m) => progress.push(m) })
    expect(now.ok).toBe(true)
    expect(progress.join('\n')).toMatch(/broke the expired lock of dave \(run 7, release old\) since 2026-01-01T00:00:00.000Z/)
    expect((await deployLockStatus(t, manifest)).holder?.who).toBe('erin')
    await releaseDeployLock(t, manifest)
  })

  it('a corrupt record is reported with the way out, not a crash', async () => {
    const t = await connect()
    expect((await acquireDeployLock(t, manifest, { who: 'frank', release: 'r' })).ok).toBe(true)
    writeFileSync(`${deployLockDir(manifest)}/holder.json`, '{"who": "frank", trunc')
    const status = await deployLockStatus(t, manifest)
    expect(status).toMatchObject({ held: true, stale: false, problem: expect.stringMatching(/not JSON/) })
    const second = await acquireDeployLock(t, manifest, { who: 'gina', release: 'r' })
    expect(second).toMatchObject({
      ok: false,
      problem: { message: expect.stringMatching(/is held, but the lock's holder record is not JSON.*lock release --manifest <file> --force/) },
    })
    expect((await releaseDeployLock(t, manifest)).released).toBe(true)
  })

  it('a runner whose clock is 2 h behind cannot write a lock that is already expired: the head stamps since and expiresAt', async () => {
    const [a, b] = [await connect(), await connect()]
    const realNow = Date.now()
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(realNow - 2 * 3_600_000)
    const first = await acquireDeployLock(a, manifest, { who: 'skewed', release: 'r' })
    vi.useRealTimers()
    expect(first.ok).toBe(true)
    if (!first.ok) return
    // Stamped by the head (this machine's real clock): since is now, expiresAt one TTL later.
    const ttl = manifest.deploy.lockTtlMinutes * 60_000
    expect(Math.abs(Date.parse(first.value.since) - realNow)).toBeLessThan(ttl / 2)
    expect(Date.parse(first.value.expiresAt) - Date.parse(first.value.since)).toBeGreaterThanOrEqual(ttl - 1000)
    // A second deploy right after finds it held, not expired: no two rollouts at once.
    const progress: string[] = []
    const second = await acquireDeployLock(b, manifest, { who: 'punctual', release: 'r', onProgress: (m) => progress.push(m) })
    expect(second).toMatchObject({ ok: false, problem: { message: expect.stringMatching(/is held by skewed/) } })
    expect(progress.join('\n')).not.toMatch(/broke/)
    await releaseDeployLock(a, manifest, first.value.token)
  })

  it('a held lock is renewed by its heartbeat (head clock), and a heartbeat whose lock was taken over says it lost it', async () => {
    const [a, b] = [await connect(), await connect()]
    const got = await acquireDeployLock(a, manifest, { who: 'long-rollout', release: 'r' })
    expect(got.ok).toBe(true)
    if (!got.ok) return
    const renewed = new Promise<import('../../src/deploy/deploy-lock.js').LockHolder>((resolve) => {
      const beat = new LockHeartbeat(a, manifest, got.value, {
        everyMs: 1000,
        onRenewed: (h) => {
          void beat.stop()
          resolve(h)
        },
      })
      beat.start()
    })
    const h = await renewed
    expect(h).toMatchObject({ who: 'long-rollout', token: got.value.token, since: got.value.since })
    expect(Date.parse(h.expiresAt)).toBeGreaterThan(Date.parse(got.value.expiresAt))
    expect((await deployLockStatus(b, manifest)).holder).toEqual(h)
    // The holder's release by token still works after renewals.
    // Now someone forces it away and takes it: the next beat reports the loss and stops.
    await releaseDeployLock(b, manifest)
    const other = await acquireDeployLock(b, manifest, { who: 'intruder', release: 'x' })
    expect(other.ok).toBe(true)
    const lost = await new Promise<string>((resolve) => {
      new LockHeartbeat(a, manifest, h, { everyMs: 10, onLost: resolve }).start()
    })
    expect(lost).toMatch(/was lost: now held by intruder \(release x\)/)
    expect((await deployLockStatus(b, manifest)).holder?.who).toBe('intruder')
    await releaseDeployLock(b, manifest)
  })

  it('a holder that knows its record releases it in one command; one renewed since, or taken over, is read first', async () => {
    const t = await connect()
    let commands = 0
    const counted: Transport = {
      label: t.label,
      run: (c, o) => {
        commands++
        return t.run(c, o)
      },
      close: () => t.close(),
    }
    const got = await acquireDeployLock(t, manifest, { who: 'dave', run: 'o"q\\u', release: 'r3' })
    if (!got.ok) throw new Error(got.problem.message)
    // The record as the head wrote it, byte for byte.
    expect(holderRecord(got.value)).toBe(readFileSync(`${deployLockDir(manifest)}/holder.json`, 'utf8').replace(/\n$/, ''))
    expect(await releaseDeployLock(counted, manifest, got.value.token, got.value)).toMatchObject({
      released: true,
      message: expect.stringMatching(/released \(dave/),
    })
    expect(commands).toBe(1)
    expect(await deployLockStatus(t, manifest)).toEqual({ held: false })
    // Renewed by a heartbeat this holder did not hear back from: the first removal misses, the read finds it is still ours.
    const again = await acquireDeployLock(t, manifest, { who: 'dave', release: 'r4' })
    if (!again.ok) throw new Error(again.problem.message)
    const renewed = await new Promise<LockHolder>((resolve) => {
      const beat = new LockHeartbeat(t, manifest, again.value, { everyMs: 1000, onRenewed: (h) => void beat.stop().then(() => resolve(h)) })
      beat.start()
    })
    expect(renewed.expiresAt).not.toBe(again.value.expiresAt)
    commands = 0
    expect((await releaseDeployLock(counted, manifest, again.value.token, again.value)).released).toBe(true)
    expect(commands).toBe(3)
    // Taken over by someone else: left alone.
    const mine = await acquireDeployLock(t, manifest, { who: 'dave', release: 'r5' })
    if (!mine.ok) throw new Error(mine.problem.message)
    await releaseDeployLock(t, manifest)
    const theirs = await acquireDeployLock(t, manifest, { who: 'erin', release: 'r6' })
    expect(theirs.ok).toBe(true)
    expect(await releaseDeployLock(t, manifest, mine.value.token, mine.value)).toMatchObject({
      released: false,
      message: expect.stringMatching(/held by someone else, erin/),
    })
    expect((await deployLockStatus(t, manifest)).holder?.who).toBe('erin')
    await releaseDeployLock(t, manifest)
  })

  it('a leftover guard stops no renewal for long: an old one is taken over; a live one is a miss, and misses for 2/3 of the TTL lose the lock', async () => {
    const [a, b] = [await connect(), await connect()]
    const got = await acquireDeployLock(a, manifest, { who: 'guarded', release: 'r' })
    expect(got.ok).toBe(true)
    if (!got.ok) return
    const guard = `${deployLockDir(manifest)}.guard`
    // A guard left by a holder killed before its trap ran (SIGKILL), older than the expiry: taken over.
    mkdirSync(guard)
    const old = Date.now() / 1000 - GUARD_EXPIRY_S - 5
    utimesSync(guard, old, old)
    const renewed = await new Promise<string>((resolve) => {
      const beat = new LockHeartbeat(a, manifest, got.value, {
        everyMs: 10,
        onRenewed: (h) => {
          void beat.stop()
          resolve(h.expiresAt)
        },
      })
      beat.start()
    })
    expect(Date.parse(renewed)).toBeGreaterThan(Date.parse(got.value.expiresAt))
    expect(existsSync(guard)).toBe(false)
    // A live guard (another process inside it): the beat misses and says so ...
    mkdirSync(guard)
    const said: string[] = []
    const missed = new Promise<void>((resolve) => {
      const beat = new LockHeartbeat(a, manifest, got.value, {
        everyMs: 10,
        onProgress: (m) => {
          said.push(m)
          void beat.stop()
          resolve()
        },
      })
      beat.start()
    })
    await missed
    expect(said[0]).toMatch(/not renewed this time: another process held the lock guard/)
    // ... and once misses have lasted 2/3 of the TTL, the lock counts as lost (before it can expire).
    const beat = new LockHeartbeat(a, manifest, got.value, {})
    const ttlMs = manifest.deploy.lockTtlMinutes * 60_000
    const now = Date.now()
    const clock = vi.spyOn(Date, 'now').mockReturnValue(now + (ttlMs * 2) / 3 + 1000)
    try {
      await beat.renew()
    } finally {
      clock.mockRestore()
    }
    expect(beat.lost).toMatch(/was lost: not renewed for \d+ s of its \d+ s \(another process held the lock guard\); another deploy may break it/)
    rmSync(guard, { recursive: true, force: true })
    await releaseDeployLock(b, manifest)
  })

  it('the guard cannot outlive a holder that dash ends with TERM or HUP (dash runs no EXIT trap on a signal by itself)', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'vrd-guard-')), 'deploy.lock')
    mkdirSync(dir)
    for (const sig of ['TERM', 'HUP', 'INT']) {
      const r = spawnSync('dash', ['-c', `dir=$1\n${TAKE_GUARD}\ntake_guard || exit 9\nkill -${sig} $$\nsleep 5`, 'sh', dir], { timeout: 10_000 })
      expect(r.status === 143 || r.signal !== null, `${sig}: ${r.status} ${r.signal}`).toBe(true)
      expect(existsSync(`${dir}.guard`), sig).toBe(false)
    }
  })

  it('a holder record past the output bound: status reads it as unreadable, and --force removes it', async () => {
    const a = await connect()
    const dir = deployLockDir(manifest)
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'holder.json'), `{"who":"${'x'.repeat(4 * 1024 * 1024)}"}`)
    const s = await deployLockStatus(a, manifest)
    expect(s.error).toBeUndefined()
    expect(s).toMatchObject({ held: true })
    expect(s.problem).toBeDefined()
    expect(await releaseDeployLock(a, manifest)).toMatchObject({ released: true })
    expect(existsSync(dir)).toBe(false)
  })

  it('waits for a held lock when asked, with progress, and takes it once released', async () => {
    const [a, b] = [await connect(), await connect()]
    const first = await acquireDeployLock(a, manifest, { who: 'henry', run: '1', release: 'r' })
    expect(first.ok).toBe(true)
    const progress: string[] = []
    // Release only once the second taker says it is waiting (an event, not a guess at how long that takes).
    let saidWaiting: () => void = () => {}
    const waitingSaid = new Promise<void>((r) => (saidWaiting = r))
    const waiting = acquireDeployLock(b, manifest, {
      who: 'ivy',
      release: 'r',
      wait: true,
      waitTimeoutMs: 60_000,
      onProgress: (m) => {
        progress.push(m)
        saidWaiting()
      },
    })
    await waitingSaid
    await releaseDeployLock(a, manifest, first.ok ? first.value.token : undefined)
    const got = await waiting
    expect(got.ok).toBe(true)
    expect(progress[0]).toMatch(/waiting for the deploy lock: .* held by henry \(run 1, release r\)/)
    // And a bounded wait gives up, naming the holder.
    const gaveUp = await acquireDeployLock(a, manifest, { who: 'jack', release: 'r', wait: true, waitTimeoutMs: 1_000 })
    expect(gaveUp).toMatchObject({ ok: false, problem: { message: expect.stringMatching(/gave up waiting for the deploy lock after \d+ s: .*held by ivy/) } })
    await releaseDeployLock(a, manifest)
  })
})
