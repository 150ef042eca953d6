/**
 * The deploy lock on the head node: one deploy at a time per cluster.
 *
 * Taken atomically (`mkdir` on the node, see src/plan/lock-commands.ts), it records who holds
 * it, for which run and release, since when, until when, and a random token. Expiry is judged
 * by the head's own clock (the scripts print it) and stamped by it too (the runner sends no times),
 * so runners with skewed clocks agree; a held lock is renewed by a LockHeartbeat. Whatever
 * the node returns is parsed and validated: a corrupt record is reported, never a crash.
 */
import { option } from '../command/option-words.js'
import { randomBytes } from 'node:crypto'
import { z } from 'zod'
import type { Manifest } from '../manifest/schema.js'
import { acquireLockCmd, deployLockDir, forceRemoveLockCmd, lockStatusCmd, removeLockIfCmd, renewLockCmd } from '../plan/lock-commands.js'
import { fail, ok, type Parsed, type Problem, type Result, problem } from '../result/result.js'
import { type Transport, outcome } from '../transport/transport.js'

export interface LockHolder {
  readonly who: string
  readonly run?: string
  readonly release: string
  readonly since: string
  readonly expiresAt: string
  readonly token: string
}

const LOCK_TIMEOUT_MS = 30_000
/** How often a waiting deploy asks again. */
const WAIT_POLL_MS = 2_000
/** A waiting deploy says so again after this long. */
const WAIT_NOTE_EVERY_MS = 30_000

// ---------------------------------------------------------------------------------------------
// pure: the node's answer, the holder record, the judgement

const isoTime = z.string().refine((s) => !Number.isNaN(Date.parse(s)), { message: 'not a date-time' })
const HolderSchema = z.object({
  who: z.string().min(1),
  run: z.string().optional(),
  release: z.string().min(1),
  since: isoTime,
  expiresAt: isoTime,
  token: z.string().regex(/^[0-9a-f]{32}$/, 'not a lock token (32 hex digits)'),
})

export type LockState = 'acquired' | 'held' | 'free' | 'busy' | 'changed' | 'removed' | 'renewed'
const STATES: readonly LockState[] = ['acquired', 'held', 'free', 'busy', 'changed', 'removed', 'renewed']

export interface LockResponse {
  /** The node's clock, epoch milliseconds. */
  readonly nowMs: number
  readonly state: LockState
  /** When the lock directory was made (node clock), when a lock exists. */
  readonly madeMs?: number
  /** The holder record as it is on the node (trailing newlines dropped), when a lock exists. */
  readonly record?: string
}

/** Read a lock script's answer (see src/plan/lock-commands.ts). */
const unreadable = (message: string) => fail(problem('LOCK_ANSWER_INVALID', message))

export function parseLockResponse(stdout: string): Parsed<LockResponse> {
  const cut = stdout.indexOf('\n---\n')
  const head = cut >= 0 ? stdout.slice(0, cut) : stdout
  const fields = new Map<string, string>()
  for (const line of head.split('\n')) {
    const eq = line.indexOf('=')
    if (eq > 0) fields.set(line.slice(0, eq).trim(), line.slice(eq + 1).trim())
  }
  const now = Number(fields.get('now'))
  if (!fields.has('now') || !Number.isInteger(now) || now <= 0)
    return unreadable(`no node time in the lock script's answer: ${JSON.stringify(stdout.slice(0, 200))}`)
  const state = fields.get('state') as LockState | undefined
  if (!state || !STATES.includes(state)) return unreadable(`no lock state in the lock script's answer: ${JSON.stringify(stdout.slice(0, 200))}`)
  const mtime = Number(fields.get('mtime'))
  const record = cut >= 0 ? stdout.slice(cut + 5).replace(/\n+$/, '') : undefined
  return ok({
    nowMs: now * 1000,
    state,
    ...(fields.has('mtime') && Number.isInteger(mtime) && mtime > 0 && { madeMs: mtime * 1000 }),
    ...(record !== undefined && { record }),
  })
}

/** The holder record, validated. */
export function parseHolder(record: string): Parsed<LockHolder> {
  if (record.trim() === '') return unreadable('the lock has no holder record (its holder.json is missing or empty)')
  let raw: unknown
  try {
    raw = JSON.parse(record)
  } catch {
    return unreadable(`the lock's holder record is not JSON: ${JSON.stringify(record.slice(0, 120))}`)
  }
  const r = HolderSchema.safeParse(raw)
  if (!r.success) {
    const issue = r.error.issues[0]!
    return unreadable(`the lock's holder record is invalid at ${issue.path.join('.') || '(top)'}: ${issue.message}`)
  }
  const h = r.data
  return ok({ who: h.who, ...(h.run !== undefined && { run: h.run }), release: h.release, since: h.since, expiresAt: h.expiresAt, token: h.token })
}

export interface LockView {
  readonly held: boolean
  readonly holder?: LockHolder
  /** The lock has passed its expiry (or, without a readable record, its directory is older than the TTL). */
  readonly stale?: boolean
  /** Why the record cannot be read, when it cannot. */
  readonly problem?: string
  /** The record as found, for a conditional removal. */
  readonly record?: string
}

/** What a response says about the lock, judged by the node's clock. */
export function judgeLock(r: LockResponse, ttlMs: number): LockView {
  if (r.state !== 'held' && r.state !== 'changed') return { held: false }
  if (r.record === undefined) return { held: false }
  const parsed = parseHolder(r.record)
  if (parsed.ok) return { held: true, holder: parsed.value, stale: Date.parse(parsed.value.expiresAt) <= r.nowMs, record: r.record }
  const stale = r.madeMs !== undefined && r.madeMs + ttlMs <= r.nowMs
  return { held: true, stale, problem: parsed.problem.message, record: r.record }
}

/** `alice (run 42, release abc123) since 2026-…, until 2026-…` */
export function describeHolder(h: LockHolder): string {
  return `${h.who} (${h.run ? `run ${h.run}, ` : ''}release ${h.release}) since ${h.since}, expires ${h.expiresAt}`
}

export const newLockToken = (): string => randomBytes(16).toString('hex')

// ---------------------------------------------------------------------------------------------
// on the head

/** The head's answer to one lock script, or a LOCK_UNANSWERED Problem saying why there is none. */
async function ask(head: Transport, cmd: Parameters<Transport['run']>[0], what: string): Promise<Result<LockResponse>> {
  const r = await head.run(cmd, { timeoutMs: LOCK_TIMEOUT_MS })
  const unanswered = (why: string) => fail(problem('LOCK_UNANSWERED', `cannot ${what} on ${head.label}: ${why}`))
  if (r.code !== 0) return unanswered(`${outcome(r)}${(r.stderr || r.stdout).trim() ? `: ${(r.stderr || r.stdout).trim().slice(-300)}` : ''}`)
  const parsed = parseLockResponse(r.stdout)
  return parsed.ok ? parsed : unanswered(parsed.problem.message)
}

/** Why the lock was not taken (DEPLOY_LOCKED), with its holder when it could be read. */
export interface LockRefusal extends Problem {
  readonly holder?: LockHolder
}

const refused = (message: string, holder?: LockHolder) =>
  fail<LockRefusal>({
    code: 'DEPLOY_LOCKED',
    message,
    evidence: holder ? { who: holder.who, run: holder.run ?? '-', release: holder.release, since: holder.since, expires: holder.expiresAt } : {},
    fix: `Wait for that rollout to finish (${option('wait-lock')} waits), or, if none runs any more, vllm-ray-deploy lock release --manifest <file> --force.`,
    ...(holder && { holder }),
  })

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

function heldMessage(m: Manifest, head: Transport, v: LockView): string {
  const where = `the deploy lock of cluster ${m.cluster} on ${head.label}`
  if (v.holder) return `${where} is held by ${describeHolder(v.holder)}`
  return `${where} is held, but ${v.problem}; if no deploy is running, remove it: vllm-ray-deploy lock release --manifest <file> --force`
}

export async function acquireDeployLock(
  head: Transport,
  m: Manifest,
  req: { who: string; run?: string; release: string; wait?: boolean; waitTimeoutMs?: number; onProgress?: (m: string) => void },
): Promise<Result<LockHolder, LockRefusal>> {
  const dir = deployLockDir(m)
  const ttlMs = m.deploy.lockTtlMinutes * 60_000
  const started = Date.now()
  const deadline = started + (req.waitTimeoutMs ?? ttlMs)
  const token = newLockToken()
  const broke: string[] = []
  let lastNote = 0
  // The record without times: the head stamps `since` and `expiresAt` by its own clock.
  const unstamped = holderRequest(req, token)
  for (;;) {
    const a = await ask(head, acquireLockCmd(dir, unstamped, ttlSeconds(m)), 'take the deploy lock')
    if (!a.ok) return refused(a.problem.message)
    if (a.value.state === 'acquired') {
      const got = parseHolder(a.value.record ?? '')
      if (!got.ok) return refused(`took the deploy lock on ${head.label}, but cannot read it back: ${got.problem.message}`)
      req.onProgress?.(`deploy lock taken on ${head.label} by ${describeHolder(got.value)}`)
      return got
    }
    if (a.value.state === 'free') continue // released between our mkdir and our look
    const v = judgeLock(a.value, ttlMs)
    if (!v.held) continue
    if (v.stale && broke.length < 5) {
      const what = v.holder ? `expired lock of ${describeHolder(v.holder)}` : `stale lock without a readable record (${v.problem})`
      const b = await ask(head, removeLockIfCmd(dir, v.record ?? ''), 'break the expired deploy lock')
      if (!b.ok) return refused(b.problem.message, v.holder)
      if (b.value.state === 'removed') {
        broke.push(what)
        req.onProgress?.(`broke the ${what} on ${head.label}`)
      } else if (b.value.state === 'busy') {
        await sleep(500)
      }
      continue
    }
    const held = heldMessage(m, head, v)
    const brokeNote = broke.length ? ` (after breaking the ${broke.join('; ')})` : ''
    if (!req.wait) return refused(`${held}${brokeNote}; wait for it (${option('wait-lock')}) or try again later`, v.holder)
    if (Date.now() >= deadline) {
      return refused(`gave up waiting for the deploy lock after ${Math.round((Date.now() - started) / 1000)} s: ${held}${brokeNote}`, v.holder)
    }
    if (Date.now() - lastNote >= WAIT_NOTE_EVERY_MS) {
      lastNote = Date.now()
      req.onProgress?.(`waiting for the deploy lock: ${held} (waited ${Math.round((Date.now() - started) / 1000)} s)`)
    }
    await sleep(Math.max(0, Math.min(WAIT_POLL_MS, deadline - Date.now())))
  }
}

/** The lock's TTL in whole seconds, as the head's scripts take it. */
const ttlSeconds = (m: Manifest): number => m.deploy.lockTtlMinutes * 60

/** The holder record a runner sends: who, run, release and token; the head adds the times. */
function holderRequest(req: { who: string; run?: string; release: string }, token: string): string {
  return JSON.stringify({ who: req.who, ...(req.run !== undefined && { run: req.run }), release: req.release, token })
}

/**
 * Keeps a held lock alive: every `everyMs` (a third of the TTL by default) the head moves its
 * `expiresAt` to TTL from now, by the head's clock, while the record is still the one this holder
 * wrote. A renewal that finds the lock changed or gone reports it lost (`onLost`) and stops; one
 * that cannot reach the head tries again at the next beat (the lock is still valid until expiry).
 */
/** Who has the lock instead, in words. */
const lostTo = (v: LockView): string =>
  v.holder ? `now held by ${describeHolder(v.holder)}` : v.held ? `its record was replaced by one this tool cannot read (${v.problem})` : 'no longer held'

export class LockHeartbeat {
  private timer?: NodeJS.Timeout
  private record?: string
  private stopped = false
  private inFlight?: Promise<void>
  /** Why the lock was lost, once it was. */
  lost?: string
  holder: LockHolder
  /** When the lock was last known to be ours with a fresh expiry (taken or renewed), on this machine's clock. */
  private renewedAt = Date.now()

  constructor(
    private readonly head: Transport,
    private readonly m: Manifest,
    holder: LockHolder,
    private readonly opts: {
      readonly everyMs?: number
      readonly onRenewed?: (h: LockHolder) => void
      readonly onLost?: (why: string) => void
      readonly onProgress?: (msg: string) => void
    } = {},
  ) {
    this.holder = holder
  }

  start(): this {
    const every = this.opts.everyMs ?? Math.max(1000, Math.floor((ttlSeconds(this.m) * 1000) / 3))
    const beat = () => {
      if (this.stopped) return
      this.inFlight = this.renew().finally(() => {
        this.inFlight = undefined
        if (!this.stopped && !this.lost) this.timer = setTimeout(beat, every)
      })
    }
    this.timer = setTimeout(beat, every)
    return this
  }

  /** No renewal after this; waits for one in flight, so a release that follows sees the last record. */
  async stop(): Promise<void> {
    this.stopped = true
    clearTimeout(this.timer)
    await this.inFlight
  }

  /**
   * A renewal that could not happen (the head unreachable, the guard busy): said once per miss, and
   * after misses for two thirds of the TTL the lock counts as lost, before it can expire under a
   * rollout that believes it holds it.
   */
  private missed(why: string): void {
    const ttlMs = ttlSeconds(this.m) * 1000
    const since = Date.now() - this.renewedAt
    if (since >= (ttlMs * 2) / 3)
      this.lose(`not renewed for ${Math.round(since / 1000)} s of its ${ttlSeconds(this.m)} s (${why}); another deploy may break it`)
    else this.opts.onProgress?.(`deploy lock not renewed this time: ${why}`)
  }

  /** One renewal now. */
  async renew(): Promise<void> {
    const dir = deployLockDir(this.m)
    if (this.record === undefined) {
      const s = await ask(this.head, lockStatusCmd(dir), 'read the deploy lock')
      if (!s.ok) return this.missed(s.problem.message)
      const v = judgeLock(s.value, ttlSeconds(this.m) * 1000)
      if (!v.holder || v.holder.token !== this.holder.token) return this.lose(lostTo(v))
      this.record = v.record
    }
    const { since, token } = this.holder
    const r = await ask(this.head, renewLockCmd(dir, this.record!, holderRequest(this.holder, token), since, ttlSeconds(this.m)), 'renew the deploy lock')
    if (!r.ok) return this.missed(r.problem.message)
    if (r.value.state === 'busy') return this.missed('another process held the lock guard')
    if (r.value.state !== 'renewed') {
      return this.lose(lostTo(judgeLock(r.value, ttlSeconds(this.m) * 1000)))
    }
    const got = parseHolder(r.value.record ?? '')
    if (!got.ok) return this.lose(got.problem.message)
    this.record = r.value.record
    this.holder = got.value
    this.renewedAt = Date.now()
    this.opts.onRenewed?.(got.value)
  }

  private lose(why: string): void {
    if (this.stopped) return
    this.lost = `the deploy lock of cluster ${this.m.cluster} on ${this.head.label} was lost: ${why}`
    this.opts.onProgress?.(this.lost)
    this.opts.onLost?.(this.lost)
  }
}

/**
 * The record a holder's lock holds on the head, as the acquire and renew scripts write it: the
 * request this tool sent, closed with the head's `since` and `expiresAt` (STAMP in
 * src/plan/lock-commands.ts). A record that differs (a hand edit, another writer) simply does not
 * match the conditional removal, which then reads the lock first.
 */
export const holderRecord = (h: LockHolder): string =>
  `${holderRequest(h, h.token).slice(0, -1)},"since":${JSON.stringify(h.since)},"expiresAt":${JSON.stringify(h.expiresAt)}}`

/**
 * Releases the lock: without a token, whatever lock is there (forced); with one, only this
 * holder's. `held`: the holder as this process last wrote it (taken or renewed), so its record is
 * known and one conditional removal releases it; when the record on the head is another, the lock
 * is read and judged first, as without it.
 */
export async function releaseDeployLock(head: Transport, m: Manifest, token?: string, held?: LockHolder): Promise<{ released: boolean; message: string }> {
  const dir = deployLockDir(m)
  const where = `the deploy lock of cluster ${m.cluster} on ${head.label}`
  if (token !== undefined && held?.token === token) {
    const r = await ask(head, removeLockIfCmd(dir, holderRecord(held)), 'release the deploy lock')
    if (r.ok && r.value.state === 'removed') return { released: true, message: `${where} released (${describeHolder(held)})` }
    if (r.ok && r.value.state === 'free') return { released: false, message: `${where} is not held (nothing to release)` }
  }
  if (token === undefined) {
    for (let tries = 0; tries < 20; tries++) {
      const f = await ask(head, forceRemoveLockCmd(dir), 'remove the deploy lock')
      if (!f.ok) return { released: false, message: f.problem.message }
      if (f.value.state === 'removed') return { released: true, message: `${where} was removed (forced)` }
      if (f.value.state !== 'busy') return { released: false, message: `${where} was not held` }
      // A renewal or a release holds the guard for milliseconds; a dead one's guard expires (GUARD_EXPIRY_S).
      await sleep(500)
    }
    return { released: false, message: `${where} could not be removed: its guard stayed taken (another process is changing it)` }
  }
  for (let tries = 0; tries < 10; tries++) {
    const s = await ask(head, lockStatusCmd(dir), 'read the deploy lock')
    if (!s.ok) return { released: false, message: s.problem.message }
    const v = judgeLock(s.value, m.deploy.lockTtlMinutes * 60_000)
    if (!v.held) return { released: false, message: `${where} is not held (nothing to release)` }
    if (!v.holder) return { released: false, message: `${where} is held but ${v.problem}: left alone (a release by token only removes its own lock)` }
    if (v.holder.token !== token) return { released: false, message: `${where} is held by someone else, ${describeHolder(v.holder)}: left alone` }
    const r = await ask(head, removeLockIfCmd(dir, v.record!), 'release the deploy lock')
    if (!r.ok) return { released: false, message: r.problem.message }
    if (r.value.state === 'removed') return { released: true, message: `${where} released (${describeHolder(v.holder)})` }
    if (r.value.state === 'busy') await sleep(500)
    // `changed` or `free`: look again.
  }
  return { released: false, message: `${where} could not be released: another process kept changing it` }
}

/**
 * What holds the lock now. `problem`: the record exists but cannot be read. `error`: the head
 * could not be asked at all (then `held` says nothing).
 */
export async function deployLockStatus(
  head: Transport,
  m: Manifest,
): Promise<{ held: boolean; holder?: LockHolder; stale?: boolean; problem?: string; error?: string }> {
  const s = await ask(head, lockStatusCmd(deployLockDir(m)), 'read the deploy lock')
  if (!s.ok) return { held: false, error: s.problem.message }
  const v = judgeLock(s.value, m.deploy.lockTtlMinutes * 60_000)
  if (!v.held) return { held: false }
  return { held: true, ...(v.holder && { holder: v.holder }), stale: v.stale ?? false, ...(v.problem && { problem: v.problem }) }
}
