/** What a rollout (deploy or rollback) takes and what it reports. */
import type { Manifest } from '../manifest/schema.js'
import type { FactsBundle } from '../preflight/facts.js'
import type { Finding } from '../preflight/finding.js'
import type { PhaseName } from '../plan/plan.js'
import type { ImageContents } from '../probe/image-contents.js'
import type { Transport } from '../transport/transport.js'
import type { LockHolder } from './lock.js'
import type { SmokeGate, SmokeGateResult } from './smoke-seam.js'

export type OnFailure = 'rollback' | 'stop' | 'keep'
export const ON_FAILURE: readonly OnFailure[] = ['rollback', 'stop', 'keep']

/** Every stage name, for progress lines, log groups and the report's `failure.stage`. */
export type RolloutStage =
  | 'script-check'
  | 'lock'
  | 'state'
  | 'host-checks'
  | 'snapshot'
  | 'image'
  | 'fingerprint'
  | PhaseName
  | 'activate'
  | 'prune'
  | 'audit'
  | 'rollback'
  | 'on-failure'
  | 'report'

export interface RolloutOptions {
  readonly manifest: Manifest
  readonly manifestPath: string
  readonly transports: ReadonlyMap<string, Transport>
  readonly env: NodeJS.ProcessEnv
  /** The release id (validated by the caller). */
  readonly release: string
  readonly force?: boolean
  readonly onFailure?: OnFailure
  /** Who and which run (audit, lock). */
  readonly who: string
  readonly run?: string
  readonly smoke?: SmokeGate
  readonly signal?: AbortSignal
  readonly onProgress?: (m: string) => void
  readonly onStage?: (stage: RolloutStage, event: 'start' | 'end') => void
  /** Image override (the Action's `image` input). */
  readonly image?: string
  /** Wait for a held deploy lock instead of failing at once. */
  readonly waitLock?: boolean
  /** The lock was taken (holder) or released (undefined): the Action saves it for its post step. */
  readonly onLock?: (lock: { readonly holder: LockHolder; readonly cluster: string } | undefined) => void
}

export type RolloutResult = 'deployed' | 'unchanged' | 'rolled-back' | 'failed' | 'cancelled'

export interface NodeRow {
  readonly node: string
  readonly role: string
  readonly release: string
  readonly imageId: string
  readonly rayIdentity: string
  readonly state: string
}

export interface OnFailureReport {
  readonly action: OnFailure | 'none'
  readonly ok: boolean
  readonly detail: string
  readonly release?: string
}

export interface RolloutReport {
  readonly command: 'deploy' | 'rollback'
  readonly result: RolloutResult
  readonly release: string
  /** The release `current` named before this rollout. */
  readonly previousRelease?: string
  readonly imageId?: string
  readonly fingerprint?: string
  readonly changed: boolean
  readonly rolledBack: boolean
  /** Where the rollout stopped and why. */
  readonly failure?: { readonly stage: RolloutStage; readonly reason: string }
  /** What on-failure did, in words (rollback / stop / keep, and how it went). */
  readonly onFailure?: OnFailureReport
  readonly findings: readonly Finding[]
  readonly smoke?: SmokeGateResult
  readonly image?: { readonly bytesSent: number; readonly actions: Readonly<Record<string, string>> }
  /** What the release's image holds: Ray, vLLM, torch and its NCCL, Python (the image-contents stage). */
  readonly imageContents?: ImageContents
  readonly facts?: FactsBundle
  /**
   * After on-failure rolled back: the release that runs now, what its gates saw (its facts, its
   * findings, also in `findings`). `facts` and the rest of `findings` are what the failed release showed.
   */
  readonly afterRollback?: { readonly release: string; readonly facts?: FactsBundle; readonly findings: readonly Finding[] }
  readonly nodes: readonly NodeRow[]
  readonly durationMs: number
}
