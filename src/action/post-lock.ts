/**
 * The Action's post step (`runs.post` with `post-if: always()`): releases a deploy lock the main
 * step left behind (a cancelled or crashed run), and only that lock, by its token. The main step
 * saves what the post step needs with `saveLockForPost`; the runner hands it back as
 * `STATE_vrd-lock`. Phase detection follows actions/checkout and actions/typescript-action: the
 * main step saves `isPost`, which only the post step can read.
 *
 * A post step must never fail the job: a lock already gone, another holder, an unreachable head
 * are each logged, and the step succeeds.
 */
import * as core from '@actions/core'
import { LOCK_STATE } from './lock-state.js'
import { z } from 'zod'
import { deployLockStatus, describeHolder, releaseDeployLock } from '../deploy/deploy-lock.js'
import { loadManifestFile } from '../manifest/manifest-file.js'
import { fail, ok, type Parsed, problem } from '../result/result.js'
import { logSink } from '../report/log-sink.js'
import { headOf } from '../plan/node-basics.js'
import { SshTransport } from '../transport/ssh.js'
import { sshTargetFor } from '../transport/targets.js'

export { clearLockForPost, LOCK_STATE, saveLockForPost } from './lock-state.js'

/** The holder's `who`/`release` come from the head: every line through the log sink. */
const info = logSink((m) => core.info(m))
const warning = logSink((m) => core.warning(m))

const SavedLockSchema = z.object({
  manifest: z.string().min(1),
  cluster: z.string().min(1),
  token: z.string().regex(/^[0-9a-f]{32}$/),
  release: z.string(),
  who: z.string().optional(),
  run: z.string().optional(),
})
export type SavedLock = z.infer<typeof SavedLockSchema>

const unreadable = (message: string) => fail(problem('SAVED_LOCK_INVALID', message))

export function parseSavedLock(raw: string): Parsed<SavedLock> {
  let json: unknown
  try {
    json = JSON.parse(raw)
  } catch {
    return unreadable(`the saved lock state is not JSON: ${JSON.stringify(raw.slice(0, 80))}`)
  }
  const r = SavedLockSchema.safeParse(json)
  if (!r.success) return unreadable(`the saved lock state is invalid at ${r.error.issues[0]!.path.join('.') || '(top)'}: ${r.error.issues[0]!.message}`)
  return ok(r.data)
}

/** The post step. Logs what it did; never fails the job. */
export async function runPost(): Promise<void> {
  try {
    const raw = core.getState(LOCK_STATE)
    if (!raw) {
      info('vllm-ray-deploy post: this run holds no deploy lock; nothing to release')
      return
    }
    const saved = parseSavedLock(raw)
    if (!saved.ok) {
      warning(`vllm-ray-deploy post: ${saved.problem.message}; no lock released`)
      return
    }
    const lock = saved.value
    const key = core.getInput('ssh-private-key')
    if (key) for (const line of key.split('\n')) if (line.trim()) core.setSecret(line.trim())
    if (!key) {
      warning(
        `vllm-ray-deploy post: no ssh-private-key input, cannot reach the head to release the deploy lock of ${lock.cluster} (release ${lock.release}); it expires by itself, or: vllm-ray-deploy lock release --manifest ${lock.manifest} --force`,
      )
      return
    }
    const { manifest, errors } = await loadManifestFile(lock.manifest)
    if (!manifest) {
      warning(
        `vllm-ray-deploy post: cannot read the manifest ${lock.manifest} (${errors[0]?.message ?? 'invalid'}); the deploy lock of ${lock.cluster} was not released`,
      )
      return
    }
    // The lock lives under the cluster name it was taken with.
    const m = manifest.cluster === lock.cluster ? manifest : { ...manifest, cluster: lock.cluster }
    const known = core.getInput('known-hosts')
    const head = headOf(m)
    const passphrase = core.getInput('ssh-key-passphrase')
    if (passphrase) core.setSecret(passphrase)
    const connected = await SshTransport.connect(
      sshTargetFor(m, head, { privateKey: key.endsWith('\n') ? key : `${key}\n`, ...(passphrase && { passphrase }), ...(known && { knownHosts: known }) }),
    )
    if (!connected.ok) {
      warning(`vllm-ray-deploy post: cannot reach the head ${head.name} to release the deploy lock: ${connected.problem.message}`)
      return
    }
    const t = connected.value
    try {
      const s = await deployLockStatus(t, m)
      if (s.error) {
        warning(`vllm-ray-deploy post: ${s.error}`)
      } else if (!s.held) {
        info(`vllm-ray-deploy post: the deploy lock of ${m.cluster} is already released; nothing to do`)
      } else if (!s.holder || s.holder.token !== lock.token) {
        info(
          `vllm-ray-deploy post: the deploy lock of ${m.cluster} is now held by ${s.holder ? describeHolder(s.holder) : `an unreadable record (${s.problem})`}, not by this run: left alone`,
        )
      } else {
        const r = await releaseDeployLock(t, m, lock.token)
        if (r.released) info(`vllm-ray-deploy post: released the deploy lock this run left behind: ${r.message}`)
        else info(`vllm-ray-deploy post: ${r.message}`)
      }
    } finally {
      await t.close()
    }
  } catch (err) {
    warning(`vllm-ray-deploy post: could not release the deploy lock: ${(err as Error).message}`)
  }
}
