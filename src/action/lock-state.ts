/**
 * What the main step leaves for the post step (post-lock.ts): the deploy lock this run holds, as the
 * runner's step state `STATE_vrd-lock`. Apart from post-lock.ts so the main step writes it without
 * loading the post step's code (its zod schema of the saved state, the lock's release over SSH)
 * before its first connection (bench row 6).
 */
import * as core from '@actions/core'
import { resolve } from 'node:path'
import type { LockHolder } from '../deploy/deploy-lock.js'
import type { SavedLock } from './post-lock.js'

export const LOCK_STATE = 'vrd-lock'

/**
 * Remember the lock this run holds, for the post step. The deploy orchestrator calls it (through
 * the Action adapter) right after it took the lock.
 */
export function saveLockForPost(manifestPath: string, cluster: string, holder: LockHolder): void {
  const state: SavedLock = {
    manifest: resolve(manifestPath),
    cluster,
    token: holder.token,
    release: holder.release,
    who: holder.who,
    ...(holder.run !== undefined && { run: holder.run }),
  }
  core.saveState(LOCK_STATE, JSON.stringify(state))
}

/** The main step released its lock itself: nothing for the post step to do. */
export const clearLockForPost = (): void => core.saveState(LOCK_STATE, '')
