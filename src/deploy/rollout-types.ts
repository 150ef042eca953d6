/** What a rollout (deploy or rollback) takes and what it reports. */
import type { PerformanceComparison } from '../smoke/performance.js'
import { type Manifest, ON_FAILURE, type OnFailure } from '../manifest/schema.js'
import type { FactsBundle } from '../preflight/facts.js'
import type { Finding } from '../preflight/finding.js'
import type { PhaseName } from '../plan/plan.js'
import type { ImageContents } from '../probe/image-contents-probe.js'
import type { Transport } from '../transport/transport.js'
import type { LockHolder } from './deploy-lock.js'
import type { SmokeGate, SmokeGateResult } from './smoke-seam.js'
import type { WeightsReport } from './weights/transfer.js'

/** One list of failure policies: the manifest schema's (the Action's and the CLI's `on-failure` read it too). */
export { ON_FAILURE, type OnFailure }

/** Every stage name, for progress lines, log groups and the report's `failure.stage`. */
export type RolloutStage =
  | 'inputs'
  | 'script-check'
  | 'lock'
  | 'state'
  | 'host-checks'
  | 'snapshot'
  | 'image'
  | 'weights'
  | 'fingerprint'
  | PhaseName
  /** The stages that run the launch's phases and the cluster wait (their phases carry the names; src/plan/plan.ts launchLabels). */
  | 'launch'
  | 'cluster'
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
  /** How often the held lock is renewed; default a third of deploy.lockTtlMinutes. */
  readonly lockRenewEveryMs?: number
  /** The lock was taken (holder) or released (undefined): the Action saves it for its post step. */
  readonly onLock?: (lock: { readonly holder: LockHolder; readonly cluster: string } | undefined) => void
  /**
   * The rollout failed at `stage` (not a cancel, not a lost lock), before on-failure changes
   * anything: the failed release still runs (the diagnostics bundle reads its logs now).
   */
  readonly onFailed?: (stage: RolloutStage) => Promise<void>
}

export type RolloutResult = 'deployed' | 'unchanged' | 'rolled-back' | 'failed' | 'cancelled'

export interface NodeRow {
  readonly node: string
  readonly role: string
  readonly release: string
  readonly imageId: string
  /** Under Ray: the address Ray registered the node under; `-` when unknown (and under vLLM's native executor). */
  readonly rayIdentity: string
  /** Under vLLM's native executor: the node's `--node-rank` (no Ray runs, so no Ray identity). */
  readonly nativeRank?: number
  readonly state: string
}

/** One node's rank of the fabric test, as its own result line says (src/probe/collective-program.ts). */
export interface FabricTestRank {
  readonly node: string
  readonly rank: number
  readonly ok: boolean
  /** `NCCL (torch …)`, `Gloo (torch …)`, `stdlib TCP ring`; unset when the rank reported no result. */
  readonly path?: string
  /** Bytes this rank all-reduced (what it moved, not what was asked). */
  readonly bytes?: number
  readonly msPerAllReduce?: number
  readonly busGBps?: number
  /** NCCL's network (`IB`, `Socket`) when NCCL said. */
  readonly ncclNetwork?: string
  /** Why the rank failed. */
  readonly error?: string
}

/**
 * The fabric-test stage: `ran` with every rank's result, or why it did not run (`disabled`:
 * `preflight.collective: false`; `skipped`: the deploy started nothing, so there was nothing to
 * test it for). Absent when the rollout never reached the stage, or for a rollback (it starts a
 * release from its files and runs no fabric test).
 */
export type FabricTestReport =
  | { readonly status: 'passed' | 'failed'; readonly ranks: readonly FabricTestRank[] }
  | { readonly status: 'disabled' | 'skipped'; readonly reason: string }

export interface OnFailureReport {
  readonly action: OnFailure | 'none'
  readonly ok: boolean
  readonly detail: string
  readonly release?: string
}

export interface RolloutReport {
  readonly command: 'deploy' | 'rollback'
  /** The vLLM executor the release runs with (vllm.executorBackend): which identity check its preflight gate ran (every rollout sets it; absent reads as ray). */
  readonly executor?: Manifest['vllm']['executorBackend']
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
  /** The performance gate: this release's smoke figures against the running release's, side by side. */
  readonly performance?: PerformanceComparison
  readonly image?: { readonly bytesSent: number; readonly actions: Readonly<Record<string, string>> }
  /** The model's files on every node (with `model:`): bytes moved, files skipped, time. */
  readonly weights?: WeightsReport
  /** What the release's image holds: Ray, vLLM, torch and its NCCL, Python (the image-contents stage). */
  readonly imageContents?: ImageContents
  /** The fabric test: each node's path, time per all-reduce and bus bandwidth, or why it did not run. */
  readonly fabricTest?: FabricTestReport
  readonly facts?: FactsBundle
  /**
   * After on-failure rolled back: the release that runs now, what its gates saw (its facts, its
   * findings, also in `findings`). `facts` and the rest of `findings` are what the failed release showed.
   */
  readonly afterRollback?: { readonly release: string; readonly facts?: FactsBundle; readonly findings: readonly Finding[] }
  readonly nodes: readonly NodeRow[]
  readonly durationMs: number
}
