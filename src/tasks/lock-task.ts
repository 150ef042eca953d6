/**
 * `lock status` and `lock release [--force]`: the deploy lock on the head, from either front door.
 * A plain release removes only an expired (or unreadable and old) lock; a live one needs --force.
 */
import type { Result } from '../result/result.js'
import { verdictLine } from '../report/verdict.js'
import { deployLockStatus, describeHolder, releaseDeployLock } from '../deploy/deploy-lock.js'
import type { Manifest, ManifestNode } from '../manifest/schema.js'
import { headOf } from '../plan/node-basics.js'
import { SshTransport } from '../transport/ssh.js'
import { type SshCredentials, sshTargetFor } from '../transport/targets.js'
import type { Transport } from '../transport/transport.js'
import { type TaskOutcome, usageError } from './outcome.js'
import { loadOrFail } from './validate.js'

export const LOCK_SUBCOMMANDS = ['status', 'release'] as const

export interface LockTaskOptions {
  readonly credentials: SshCredentials
  readonly force?: boolean
  /** Override how the head is reached (tests); default SSH from the manifest. */
  readonly connect?: (m: Manifest, node: ManifestNode) => Promise<Result<Transport>>
}

function lockOutcome(exitCode: 0 | 1, headline: string, json: Record<string, unknown>): TaskOutcome {
  return {
    exitCode,
    headline,
    text: `${headline}\n`,
    json,
    summary: `${verdictLine(exitCode === 0 ? 'passed' : 'failed', headline)}\n`,
    annotations: exitCode === 0 ? [] : [{ level: 'error', title: 'deploy lock', message: headline }],
    // A CLI-only task: the lock's state is in `json`; the Action's outputs carry only the verdict.
    outputs: { result: exitCode === 0 ? 'ok' : 'failed' },
    files: [],
  }
}

export async function lockTask(sub: string | undefined, path: string, opts: LockTaskOptions): Promise<TaskOutcome> {
  if (!sub || !(LOCK_SUBCOMMANDS as readonly string[]).includes(sub)) {
    return usageError(`lock needs status or release${sub ? `, not "${sub}"` : ''} (vllm-ray-deploy lock status --manifest F)`)
  }
  if (opts.force && sub !== 'release') return usageError('--force only goes with lock release')
  const loaded = await loadOrFail(path)
  if (!loaded.ok) return loaded.problem
  const m = loaded.value.manifest
  const head = headOf(m)
  const connected = await (opts.connect ?? ((mm, node) => SshTransport.connect(sshTargetFor(mm, node, opts.credentials))))(m, head)
  if (!connected.ok) {
    return lockOutcome(1, `cannot reach the head ${head.name} to read the deploy lock: ${connected.problem.message}`, {
      result: 'error',
      error: connected.problem.message,
    })
  }
  const t: Transport = connected.value
  try {
    const s = await deployLockStatus(t, m)
    if (s.error) return lockOutcome(1, s.error, { result: 'error', error: s.error })
    const where = `deploy lock of ${m.cluster} on ${head.name}`
    const state = s.held
      ? (s.holder ? `held by ${describeHolder(s.holder)}` : `held, but ${s.problem}`) + (s.stale ? ' (expired: the next deploy breaks it)' : '')
      : 'free'
    if (sub === 'status') {
      return lockOutcome(0, `${where}: ${state}`, {
        result: s.held ? 'held' : 'free',
        held: s.held,
        ...(s.holder && { holder: s.holder }),
        ...(s.held && { stale: s.stale }),
        ...(s.problem && { problem: s.problem }),
      })
    }
    if (!s.held) return lockOutcome(0, `${where}: free, nothing to release`, { result: 'free', released: false })
    if (!opts.force && !s.stale) {
      return lockOutcome(1, `${where}: ${state}; not released. If that deploy is no longer running, add --force`, {
        result: 'held',
        released: false,
        ...(s.holder && { holder: s.holder }),
      })
    }
    // An expired lock with a readable record goes by its token, so a deploy that took it meanwhile keeps its own.
    const r = await releaseDeployLock(t, m, opts.force ? undefined : s.holder?.token)
    return lockOutcome(r.released ? 0 : 1, `${where}: ${r.message}`, {
      result: r.released ? 'released' : 'held',
      released: r.released,
      ...(s.holder && { holder: s.holder }),
    })
  } finally {
    await t.close()
  }
}
