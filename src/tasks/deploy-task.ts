/**
 * deploy and rollback: load the manifest, resolve the release id and on-failure, open one SSH
 * transport per node, run the rollout, and turn its report into one outcome for both front doors.
 */
import { userInfo } from 'node:os'
import { BUNDLE_DIR, type NodeLogs, bundleFiles, readNodeLogs } from '../deploy/diagnostics-bundle.js'
import { resolveReleaseId } from '../deploy/release-id.js'
import { ON_FAILURE, type OnFailure, type RolloutOptions, type RolloutReport, type RolloutStage, deployRelease, rollbackRelease } from '../deploy/rollout.js'
import { type Problem, type Result, fail, ok, problem } from '../result/result.js'
import type { LockHolder } from '../deploy/deploy-lock.js'
import type { SmokeGate } from '../deploy/smoke-seam.js'
import type { Manifest, ManifestNode } from '../manifest/schema.js'
import { hasErrors } from '../preflight/finding.js'
import { fabricTestOutput } from '../report/fabric-test-report.js'
import { findingsJson } from '../report/findings.js'
import { renderRolloutMarkdown, renderRolloutText, rolloutHeadline } from '../report/rollout-report.js'
import { SshTransport } from '../transport/ssh.js'
import { type SshCredentials, sshTargetFor } from '../transport/targets.js'
import type { Transport } from '../transport/transport.js'
import { type OutputFile, type TaskOutcome, usageError } from './outcome.js'
import { findingAnnotations } from './finding-annotations.js'
import { checkOverrides, loadOrFail, loadWithLaunchScript, withManifestWarnings } from './validate.js'

export interface DeployTaskOptions {
  readonly credentials: SshCredentials
  readonly env: NodeJS.ProcessEnv
  readonly release?: string
  readonly image?: string
  readonly force?: boolean
  readonly onFailure?: string
  /** rollback: the release to go back to (default: the one `previous` names). */
  readonly to?: string
  readonly smoke?: SmokeGate
  readonly waitLock?: boolean
  /** The deploy lock was taken (holder) or released (undefined): the Action saves it for its post step. */
  readonly onLock?: (lock: { readonly holder: LockHolder; readonly cluster: string } | undefined) => void
  readonly signal?: AbortSignal
  readonly onProgress?: (m: string) => void
  readonly onStage?: (stage: RolloutStage, event: 'start' | 'end') => void
  /** Make the diagnostics bundle even when the rollout passes (the CLI's --bundle-dir); a failed one always has it. */
  readonly bundle?: boolean
  /** Override how nodes are reached (tests); default SSH from the manifest. */
  readonly connect?: (m: Manifest, node: ManifestNode) => Promise<Result<Transport>>
}

/** Who runs the rollout, for the audit and the lock: the GitHub actor and run, or the local user. */
export function rolloutActor(env: NodeJS.ProcessEnv): { who: string; run?: string } {
  const run = env.GITHUB_RUN_ID ? `${env.GITHUB_REPOSITORY ?? ''}#${env.GITHUB_RUN_ID}${env.GITHUB_RUN_ATTEMPT ? `.${env.GITHUB_RUN_ATTEMPT}` : ''}` : undefined
  let local = 'unknown'
  try {
    local = userInfo().username
  } catch {}
  return { who: env.GITHUB_ACTOR ? `${env.GITHUB_ACTOR} (GitHub Actions)` : `${local}@${env.HOSTNAME ?? 'localhost'}`, ...(run && { run }) }
}

/** The errors the report shows: its error findings, and a failure that none of them is (a stop the summary names on its own). */
const errorCount = (r: RolloutReport): number => {
  const errors = r.findings.filter((f) => f.severity === 'error').length
  return r.result === 'failed' && errors === 0 ? 1 : errors
}

export function rolloutOutcome(cluster: string, r: RolloutReport, manifest?: Manifest, bundle: readonly OutputFile[] = []): TaskOutcome {
  const headline = rolloutHeadline(cluster, r)
  const ok = r.result === 'deployed' || r.result === 'unchanged' || r.result === 'rolled-back'
  const json = findingsJson(r.findings)
  const { facts, afterRollback, ...rest } = r
  return {
    exitCode: r.result === 'cancelled' ? 130 : ok && !hasErrors(r.findings) ? 0 : 1,
    headline,
    text: renderRolloutText(cluster, r),
    json: {
      ...rest,
      ...(afterRollback && { afterRollback: { release: afterRollback.release, findings: findingsJson(afterRollback.findings).findings } }),
      findings: json.findings,
    },
    summary: renderRolloutMarkdown(cluster, r, manifest),
    annotations: findingAnnotations(r.findings),
    outputs: {
      result: r.result,
      release: r.release,
      'previous-release': r.previousRelease ?? '',
      'image-id': r.imageId ?? '',
      'weights-id': r.weights?.identity ?? '',
      'weights-bytes-moved': r.weights ? String(r.weights.bytesMoved.runner + r.weights.bytesMoved.fabric) : '',
      'weights-files-skipped': r.weights ? String(r.weights.filesSkipped) : '',
      ...(r.command === 'deploy' && { 'fabric-test': fabricTestOutput(r.fabricTest) }),
      changed: String(r.changed),
      'rolled-back': String(r.rolledBack),
      findings: JSON.stringify(json.findings),
      'error-count': String(errorCount(r)),
      'warning-count': String(r.findings.filter((f) => f.severity === 'warning').length),
      ...(r.smoke?.outputs ?? {}),
    },
    files: [
      ...(facts ? [{ output: 'facts-file' as const, fileName: 'vllm-ray-deploy-facts.json', content: JSON.stringify(facts, null, 2) + '\n' }] : []),
      ...bundle,
    ],
  }
}

/**
 * A rollout with its diagnostics bundle (src/deploy/diagnostics-bundle.ts): the nodes' logs are read
 * when it fails, before on-failure replaces the failed release (or after it, when asked for a bundle
 * of a rollout that passed); the bundle's files go to report-dir/bundle/, bundle.json last.
 */
async function withBundle(
  m: Manifest,
  transports: ReadonlyMap<string, Transport>,
  opts: DeployTaskOptions,
  rollout: (onFailed: RolloutOptions['onFailed']) => Promise<RolloutReport>,
): Promise<{ report: RolloutReport; bundle: OutputFile[] }> {
  let logs: NodeLogs | undefined
  const report = await rollout(async () => {
    logs = await readNodeLogs(transports, m)
  })
  const failed = report.result === 'failed'
  if (!failed && !opts.bundle) return { report, bundle: [] }
  logs ??= await readNodeLogs(transports, m)
  const files = bundleFiles({ m, report, logs, why: failed ? 'failed' : 'requested', now: new Date() })
  return { report, bundle: files.map((f) => ({ output: 'bundle', fileName: `${BUNDLE_DIR}/${f.path}`, content: f.content })) }
}

/** One transport per node, closed after `fn`; a node that cannot be reached is a Problem (nothing was changed). */
async function withTransports<T>(m: Manifest, opts: DeployTaskOptions, fn: (t: Map<string, Transport>) => Promise<T>): Promise<Result<T>> {
  const connect = opts.connect ?? ((mm: Manifest, node: ManifestNode) => SshTransport.connect(sshTargetFor(mm, node, opts.credentials)))
  const opened = await Promise.all(m.nodes.map(async (n) => [n.name, await connect(m, n)] as const))
  const transports = new Map(opened.flatMap(([name, r]) => (r.ok ? [[name, r.value] as const] : [])))
  try {
    const failed = opened.flatMap(([name, r]) => (r.ok ? [] : [[name, r.problem.message] as const]))
    if (failed.length > 0) {
      const message = `cannot reach every node, nothing was changed: ${failed.map(([n, e]) => `${n}: ${e}`).join('; ')}`
      return fail(
        problem(
          'NODE_UNREACHABLE',
          message,
          'Check the SSH settings of those nodes (vllm-ray-deploy preflight shows how each is reached).',
          Object.fromEntries(failed),
        ),
      )
    }
    return ok(await fn(transports))
  } finally {
    await Promise.all([...transports.values()].map((t) => t.close()))
  }
}

const unreachable = (p: Problem): TaskOutcome => ({ ...usageError(p.message), exitCode: 1, outputs: { result: 'failed' } })

function onFailureOf(value: string | undefined): Result<OnFailure | undefined> {
  if (value === undefined || value === '') return ok(undefined)
  if ((ON_FAILURE as readonly string[]).includes(value)) return ok(value as OnFailure)
  return fail(problem('USAGE', `on-failure must be one of ${ON_FAILURE.join(', ')}, got "${value}"`))
}

/** What a deploy and a rollback take alike from the task's options: the smoke gate, the lock, the cancel, progress and stage events. */
function sharedRolloutOptions(opts: DeployTaskOptions, onFailed: RolloutOptions['onFailed']) {
  return {
    ...(opts.smoke && { smoke: opts.smoke }),
    ...(opts.waitLock && { waitLock: true }),
    ...(opts.onLock && { onLock: opts.onLock }),
    ...(opts.signal && { signal: opts.signal }),
    ...(opts.onProgress && { onProgress: opts.onProgress }),
    ...(opts.onStage && { onStage: opts.onStage }),
    onFailed,
  }
}

export async function deployTask(path: string, opts: DeployTaskOptions): Promise<TaskOutcome> {
  const bad = checkOverrides({ ...(opts.image !== undefined && { image: opts.image }), ...(opts.release !== undefined && { release: opts.release }) })
  if (bad) return bad
  const loaded = await loadWithLaunchScript(path)
  if (!loaded.ok) return loaded.problem
  const m = loaded.value.manifest
  const release = resolveReleaseId(opts.release, opts.env, new Date())
  if (!release.ok) return usageError(release.problem.message)
  const policy = onFailureOf(opts.onFailure)
  if (!policy.ok) return usageError(policy.problem.message)
  const onFailure = policy.value
  const actor = rolloutActor(opts.env)
  const out = await withTransports(m, opts, (transports) =>
    withBundle(m, transports, opts, (onFailed) =>
      deployRelease({
        manifest: m,
        manifestPath: path,
        transports,
        env: opts.env,
        release: release.value,
        ...actor,
        ...(opts.force && { force: true }),
        ...(onFailure && { onFailure }),
        ...(opts.image && { image: opts.image }),
        ...sharedRolloutOptions(opts, onFailed),
      }),
    ),
  )
  return withManifestWarnings(out.ok ? rolloutOutcome(m.cluster, out.value.report, m, out.value.bundle) : unreachable(out.problem), loaded.value.warnings)
}

export async function rollbackTask(path: string, opts: DeployTaskOptions): Promise<TaskOutcome> {
  const loaded = await loadOrFail(path)
  const warned = (o: TaskOutcome) => (loaded.ok ? withManifestWarnings(o, loaded.value.warnings) : o)
  if (!loaded.ok) return loaded.problem
  const m = loaded.value.manifest
  if (opts.to !== undefined) {
    const to = resolveReleaseId(opts.to, {}, new Date())
    if (!to.ok) return usageError(to.problem.message)
  }
  const actor = rolloutActor(opts.env)
  const out = await withTransports(m, opts, (transports) =>
    withBundle(m, transports, opts, (onFailed) =>
      rollbackRelease({
        manifest: m,
        manifestPath: path,
        transports,
        env: opts.env,
        ...actor,
        ...(opts.to && { to: opts.to }),
        ...sharedRolloutOptions(opts, onFailed),
      }),
    ),
  )
  return warned(out.ok ? rolloutOutcome(m.cluster, out.value.report, m, out.value.bundle) : unreachable(out.problem))
}
