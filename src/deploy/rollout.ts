/**
 * The rollout: one release brought onto every node through gates, in order, each stopping it with
 * findings: lock → host checks → image → release files → stop previous → Ray up → identity preflight
 * → vllm serve (start-up watcher) → smoke → activate `current` → prune → audit → unlock. It runs on
 * the plan (planRelease) and the executor; the gates are the executor's afterPhase hooks.
 *
 * A failed deploy does what on-failure says: `rollback` starts the release `current` still names
 * from its own files on the nodes, through the same gates; `stop` removes the new containers;
 * `keep` leaves them. `current` moves only after every gate of the new release passed.
 */
import { executePlan, type ExecuteResult } from '../execute/execute.js'
import { stdinProvider } from '../execute/inputs.js'
import { readLaunchScript } from '../manifest/launch-path.js'
import { watchVllmStartup } from '../preflight/watch-vllm.js'
import { expectationFromManifest } from '../manifest/expectation.js'
import { type Manifest, ManifestSchema } from '../manifest/schema.js'
import { runChecks } from '../preflight/checks/index.js'
import { sortFindings } from '../preflight/diagnose.js'
import type { FactsBundle } from '../preflight/facts.js'
import type { Finding } from '../preflight/finding.js'
import { gatherFacts } from '../preflight/gather/gather.js'
import { headOf, imageRef, removeContainer, vllmHealth } from '../plan/node-commands.js'
import { type PhaseName, planRelease } from '../plan/plan.js'
import { RELEASE_FILE, activateRelease, appendAudit, pruneReleases, readReleaseFile } from '../plan/release-commands.js'
import { type Transport, outcome, succeeded } from '../transport/transport.js'
import { hostChecks } from './host-checks.js'
import { type ImageGateResult, imageGate } from './image-gate.js'
import { LockHeartbeat, type LockHolder, acquireDeployLock, releaseDeployLock } from './lock.js'
import { type NodeState, commonCurrent, readNodeStates } from './node-state.js'
import { releaseFiles, releaseFingerprint } from './release-files.js'
import { runSmokeGate } from '../smoke/gate.js'
import { checkLaunchScript } from '../script-check/index.js'
import type { SmokeGate, SmokeGateResult } from './smoke-seam.js'

export type OnFailure = 'rollback' | 'stop' | 'keep'
export const ON_FAILURE: readonly OnFailure[] = ['rollback', 'stop', 'keep']

/** Stages outside the plan, for progress and log groups. */
export type RolloutStage =
  | 'script-check'
  | 'lock'
  | 'state'
  | 'host-checks'
  | 'image'
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
  readonly onFailure?: { readonly action: OnFailure | 'none'; readonly ok: boolean; readonly detail: string; readonly release?: string }
  readonly findings: readonly Finding[]
  readonly smoke?: SmokeGateResult
  readonly image?: { readonly bytesSent: number; readonly actions: Readonly<Record<string, string>> }
  readonly facts?: FactsBundle
  readonly nodes: readonly NodeRow[]
  readonly durationMs: number
}

const short = (id: string | undefined): string => (id ? id.replace(/^sha256:/, '').slice(0, 12) : '-')

/** One release started through the gates (a new one from the runner, or an old one from its files). */
interface GatedRun {
  readonly exec: ExecuteResult
  readonly findings: readonly Finding[]
  readonly facts?: FactsBundle
  readonly smoke?: SmokeGateResult
}

class Rollout {
  readonly started = Date.now()
  private stage: RolloutStage = 'lock'
  /** Renews the deploy lock while it is held (src/deploy/lock.ts). */
  private heartbeat?: LockHeartbeat
  constructor(readonly o: RolloutOptions) {}

  progress = (m: string): void => this.say(this.stage, m)

  /** A progress line labelled with `stage` (two gates that run at once each keep their own label). */
  say(stage: RolloutStage, m: string): void {
    const s = ((Date.now() - this.started) / 1000).toFixed(1).padStart(6)
    // A message that already names the stage (the smoke test's own "smoke: ...") is not prefixed twice.
    const text = m.startsWith(`${stage}: `) ? m.slice(stage.length + 2) : m
    this.o.onProgress?.(`[+${s}s] ${stage}: ${text}`)
  }

  async inStage<T>(stage: RolloutStage, fn: () => Promise<T>): Promise<T> {
    this.stage = stage
    this.o.onStage?.(stage, 'start')
    try {
      return await fn()
    } finally {
      this.o.onStage?.(stage, 'end')
    }
  }

  get cancelled(): boolean {
    return this.o.signal?.aborted ?? false
  }

  async onAll(m: Manifest, what: string, cmd: Parameters<Transport['run']>[0], stdin?: string): Promise<{ ok: boolean; detail: string }> {
    const rs = await Promise.all(
      m.nodes.map(async (n) => {
        const t = this.o.transports.get(n.name)
        if (!t) return `${n.name}: no connection`
        const r = await t.run(cmd, { timeoutMs: 120_000, ...(stdin !== undefined && { stdin }) })
        if (succeeded(r)) {
          if (r.stdout.trim()) this.progress(`[${n.name}] ${what}: ${r.stdout.trim().split('\n').join('; ')}`)
          return undefined
        }
        return `${n.name}: ${what} ${outcome(r)} ${r.stderr.trim().slice(-200)}`
      }),
    )
    const bad = rs.filter((x): x is string => !!x)
    return { ok: bad.length === 0, detail: bad.join('; ') }
  }

  /** The identity preflight: facts from every node and Ray, checks, findings. */
  async preflight(m: Manifest, say: (x: string) => void = this.progress): Promise<{ facts: FactsBundle; findings: Finding[] }> {
    const { facts } = await gatherFacts(m, { transportFor: async (n) => this.o.transports.get(n.name)!, onProgress: say })
    return { facts, findings: sortFindings(runChecks(facts, expectationFromManifest(m))) }
  }

  async smokeGate(m: Manifest, say: (x: string) => void = this.progress): Promise<SmokeGateResult> {
    return (this.o.smoke ?? runSmokeGate)({ manifest: m, transports: this.o.transports, env: this.o.env, onProgress: say })
  }

  /** Run a release's plan with the gates between its phases. */
  async gated(m: Manifest, release: string, files: 'write' | 'verify', releaseFilesFor?: (release: string, node: string) => string): Promise<GatedRun> {
    const plan = planRelease(m, { release, files })
    const findings: Finding[] = []
    let facts: FactsBundle | undefined
    let smoke: SmokeGateResult | undefined
    const exec = await executePlan(plan, {
      transports: this.o.transports,
      stdinFor: stdinProvider(this.o.manifestPath, this.o.env, { ...(releaseFilesFor && { releaseFiles: releaseFilesFor }) }),
      ...(this.o.signal && { signal: this.o.signal }),
      onProgress: (x) => this.progress(x.replace(/^== /, '')),
      onPhase: (phase, event) => {
        if (event === 'start') this.stage = phase.name
        this.o.onStage?.(phase.name, event)
      },
      afterPhase: async (phase) => {
        if (phase === 'preflight') {
          const r = await this.preflight(m)
          facts = r.facts
          for (const x of r.findings) findings.push(x)
          const errors = r.findings.filter((f) => f.severity === 'error')
          for (const f of r.findings) this.progress(`${f.severity} ${f.code}${f.node ? ` on ${f.node}` : ''}: ${f.message}`)
          return errors.length > 0 ? `identity preflight: ${[...new Set(errors.map((f) => f.code))].join(', ')}` : undefined
        }
        if (phase === 'vllm') {
          const w = await watchVllmStartup(this.o.transports.get(headOf(m).name)!, m, {
            deadlineMs: m.smoke.readyTimeoutSeconds * 1000,
            ...(facts?.ray && { ray: facts.ray }),
            ...(this.o.signal && { signal: this.o.signal }),
            onProgress: (x) => this.progress(x),
          })
          this.progress(`vllm: ${w.ready ? 'ready' : 'NOT ready'}: ${w.reason} (${(w.waitedMs / 1000).toFixed(1)} s)`)
          if (w.ready || w.cancelled) return undefined // a cancel: the executor ends the run as cancelled
          const stop = w.findings.filter((f) => f.severity === 'error')
          findings.push(
            ...(stop.length > 0
              ? stop
              : [
                  {
                    code: 'VLLM_NOT_READY' as const,
                    severity: 'error' as const,
                    node: headOf(m).name,
                    message: `vllm serve did not become ready: ${w.reason}.`,
                    evidence: { 'log tail': w.logTail.split('\n').slice(-10).join('\n') },
                    fix: `Read the full log on ${headOf(m).name}: docker exec ${m.container.name} cat /tmp/vllm-ray-deploy-serve.log`,
                  },
                ]),
          )
          return `vllm serve: ${w.reason}`
        }
        if (phase === 'smoke') {
          smoke = await this.smokeGate(m)
          for (const x of smoke.findings) findings.push(x)
          return smoke.ok ? undefined : `smoke test: ${smoke.findings.map((f) => f.code).join(', ') || 'failed'}`
        }
        return undefined
      },
    })
    if (!exec.ok && !exec.cancelled && !findings.some((f) => f.severity === 'error')) {
      for (const r of exec.results.filter((x) => x.status === 'failed')) {
        findings.push({
          code: 'DEPLOY_STEP_FAILED',
          severity: 'error',
          node: r.step.node,
          message: `Step ${r.step.action} of phase ${r.phase} failed on ${r.step.node}: ${r.detail ?? 'failed'}.`,
          evidence: { command: r.step.command.length > 400 ? `${r.step.command.slice(0, 400)}…` : r.step.command, result: r.detail ?? '' },
          fix: `Run the command on ${r.step.node} by hand to see why (vllm-ray-deploy plan shows every command).`,
        })
      }
    }
    return { exec, findings, ...(facts && { facts }), ...(smoke && { smoke }) }
  }

  /** The manifest snapshot a release keeps on the head (a rollback runs with the release's own settings). */
  async releaseManifest(m: Manifest, release: string): Promise<Manifest | string> {
    const head = this.o.transports.get(headOf(m).name)!
    const r = await head.run(readReleaseFile(m, release, RELEASE_FILE.manifest), { timeoutMs: 30_000 })
    if (!succeeded(r)) return `release ${release} has no ${RELEASE_FILE.manifest} on ${headOf(m).name} (${outcome(r)})`
    try {
      const parsed = ManifestSchema.safeParse(JSON.parse(r.stdout))
      return parsed.success ? parsed.data : `release ${release}'s manifest snapshot does not validate: ${parsed.error.issues[0]?.message ?? ''}`
    } catch {
      return `release ${release}'s manifest snapshot is not JSON`
    }
  }

  /** Start an existing release from its own files on the nodes, through the image check and every gate. */
  async startExisting(
    m: Manifest,
    release: string,
    states: ReadonlyMap<string, NodeState>,
  ): Promise<{ ok: boolean; run?: GatedRun; image?: ImageGateResult; manifest?: Manifest; detail: string; findings: readonly Finding[] }> {
    const missing = m.nodes.filter((n) => !states.get(n.name)?.releases.includes(release)).map((n) => n.name)
    if (missing.length > 0) {
      const f: Finding = {
        code: 'RELEASE_NOT_FOUND',
        severity: 'error',
        node: missing.length === 1 ? missing[0]! : null,
        message: `Release ${release} is not on ${missing.join(', ')}.`,
        evidence: Object.fromEntries(m.nodes.map((n) => [`${n.name} releases`, states.get(n.name)?.releases.join(', ') || '(none)'])),
        fix: 'Roll back to a release every node keeps (vllm-ray-deploy rollback --to RELEASE), or deploy it again.',
      }
      return { ok: false, detail: f.message, findings: [f] }
    }
    const snap = await this.releaseManifest(m, release)
    if (typeof snap === 'string') return { ok: false, detail: snap, findings: [] }
    const head = this.o.transports.get(headOf(m).name)!
    const idFile = await head.run(readReleaseFile(m, release, RELEASE_FILE.imageId), { timeoutMs: 30_000 })
    const expectId = idFile.stdout.trim()
    const image = await this.inStage('image', () =>
      imageGate(snap, imageRef(snap), this.o.transports, { manifestPath: this.o.manifestPath, expectId, onProgress: (x) => this.progress(x) }),
    )
    if (!image.ok) return { ok: false, image, manifest: snap, detail: "the release's image is not on every node", findings: image.findings }
    const run = await this.gated(snap, release, 'verify')
    return {
      ok: run.exec.ok,
      run,
      image,
      manifest: snap,
      detail: run.exec.ok ? `release ${release} serves again` : `${run.exec.stoppedAt?.phase}: ${run.exec.stoppedAt?.reason}`,
      findings: run.findings,
    }
  }

  /** Docker, fabric link and address, GPUs, disk, node-to-node SSH for relay: before anything changes. */
  async hostChecks(m: Manifest): Promise<Finding[]> {
    const findings = await hostChecks(m, this.o.transports, { relay: m.image.distribution === 'relay' })
    for (const f of findings) this.progress(`${f.severity} ${f.code}${f.node ? ` on ${f.node}` : ''}: ${f.message}`)
    if (findings.length === 0)
      this.progress(
        `every node passed (docker, ${m.fabric.interfaces.join(',')} up with its fabric IP, GPUs, disk${m.image.distribution === 'relay' ? ', head-to-worker SSH' : ''})`,
      )
    return findings
  }

  /** Take the deploy lock on the head, or a finding naming its holder. */
  async lock(m: Manifest, release: string): Promise<{ ok: true; holder: LockHolder } | { ok: false; finding: Finding; message: string }> {
    return this.inStage('lock', async () => {
      const head = this.o.transports.get(headOf(m).name)!
      const got = await acquireDeployLock(head, m, {
        who: this.o.who,
        ...(this.o.run && { run: this.o.run }),
        release,
        ...(this.o.waitLock && { wait: true }),
        onProgress: (x) => this.progress(x),
      })
      if (got.ok) {
        this.o.onLock?.({ holder: got.holder, cluster: m.cluster })
        this.heartbeat = new LockHeartbeat(head, m, got.holder, { onProgress: (x) => this.progress(x) }).start()
        return got
      }
      const finding: Finding = {
        code: 'DEPLOY_LOCKED',
        severity: 'error',
        node: headOf(m).name,
        message: `Another rollout holds the deploy lock: ${got.message}.`,
        evidence: got.holder
          ? { who: got.holder.who, run: got.holder.run ?? '-', release: got.holder.release, since: got.holder.since, expires: got.holder.expiresAt }
          : {},
        fix: 'Wait for that rollout to finish (--wait-lock waits), or, if none runs any more, vllm-ray-deploy lock release --manifest <file> --force.',
      }
      return { ok: false, finding, message: got.message }
    })
  }

  async unlock(m: Manifest, holder: LockHolder): Promise<void> {
    await this.heartbeat?.stop()
    const head = this.o.transports.get(headOf(m).name)!
    const r = await releaseDeployLock(head, m, holder.token)
    this.progress(r.message)
    if (r.released) this.o.onLock?.(undefined)
  }

  async audit(m: Manifest, entry: Record<string, unknown>): Promise<void> {
    await this.inStage('audit', async () => {
      const line = `${JSON.stringify({ at: new Date().toISOString(), who: this.o.who, ...(this.o.run && { run: this.o.run }), cluster: m.cluster, ...entry })}\n`
      const r = await this.onAll(m, 'audit', appendAudit(m), line)
      this.progress(r.ok ? 'one line appended to audit.jsonl on every node' : `audit not written everywhere: ${r.detail}`)
    })
  }

  async table(m: Manifest, facts: FactsBundle | undefined, stateLabel: (n: string, s: NodeState) => string): Promise<NodeRow[]> {
    const states = await readNodeStates(m, this.o.transports)
    return m.nodes.map((n) => {
      const s = states.get(n.name)!
      const rayNode = facts?.ray?.nodes.find((r) => r.alive && r.address === n.fabricIp)
      const container = facts?.nodes.find((f) => f.node === n.name)?.container
      const rayIdentity = rayNode ? `${rayNode.address}${rayNode.isHead ? ' (head)' : ''}` : (container?.rayNodeIp ?? '-')
      return {
        node: n.name,
        role: n.role,
        release: s.current ?? '-',
        imageId: short(s.container?.imageId ?? s.imageId),
        rayIdentity,
        state: s.error ? `unknown (${s.error})` : stateLabel(n.name, s),
      }
    })
  }
}

const containerState = (s: NodeState): string =>
  s.container ? (s.container.running ? `running ${s.container.release || '?'}` : `stopped ${s.container.release || '?'}`) : 'no container'

/**
 * The static launch-script check as the deploy's first gate. Under `deploy.scriptCheck: warn` its
 * errors are carried as warnings (the live preflight decides); under `block` they stop the deploy.
 * An unreadable script is left to the release-files step, which reports it with the path.
 */
async function staticScriptCheck(m: Manifest, manifestPath: string): Promise<{ findings: Finding[]; blocking: Finding[] }> {
  if (m.launch.mode !== 'script') return { findings: [], blocking: [] }
  const text = await withLaunchScript(m, manifestPath).catch(() => undefined)
  if (text === undefined) return { findings: [], blocking: [] }
  const { findings } = checkLaunchScript(text, { manifest: m, path: m.launch.path })
  if (m.deploy.scriptCheck === 'block') return { findings, blocking: findings.filter((f) => f.severity === 'error') }
  return {
    findings: findings.map((f) =>
      f.severity === 'error'
        ? { ...f, severity: 'warning' as const, message: `${f.message} (launch script, read before it ran; deploy.scriptCheck: warn)` }
        : f,
    ),
    blocking: [],
  }
}

async function withLaunchScript(m: Manifest, manifestPath: string): Promise<string | undefined> {
  if (m.launch.mode !== 'script') return undefined
  const read = await readLaunchScript(manifestPath, m.launch.path, { ...(m.launch.allowOutsideRepository && { allowOutsideRepository: true }) })
  return read.ok ? read.text : undefined
}

export async function deployRelease(o: RolloutOptions): Promise<RolloutReport> {
  const m: Manifest = o.image ? { ...o.manifest, image: { ...o.manifest.image, ref: o.image } } : o.manifest
  const r = new Rollout(o)
  const onFailure = o.onFailure ?? m.deploy.onFailure
  const image = imageRef(m)
  const base = { release: o.release }
  /** Findings of gates that passed with warnings (host checks), carried into the report. */
  const early: Finding[] = []
  const finish = async (rep0: Omit<RolloutReport, 'nodes' | 'durationMs' | 'command'>, facts?: FactsBundle): Promise<RolloutReport> => {
    const rep = { ...rep0, findings: [...early, ...rep0.findings] }
    await r.audit(m, {
      command: 'deploy',
      release: rep.release,
      imageId: rep.imageId ?? null,
      fingerprint: rep.fingerprint ?? null,
      result: rep.result,
      rolledBack: rep.rolledBack,
      previous: rep.previousRelease ?? null,
      ...(rep.failure && { failedAt: rep.failure.stage }),
    })
    const nodes = await r.inStage('report', () => r.table(m, facts ?? rep.facts, (_n, s) => containerState(s)))
    return { command: 'deploy', ...rep, nodes, durationMs: Date.now() - r.started }
  }

  /** A stop before the lock was held or anything changed: no audit line, the nodes as they are. */
  const stoppedBeforeAnyChange = async (stage: RolloutStage, reason: string, detail: string, findings: Finding[]): Promise<RolloutReport> => {
    const nodes = await r.inStage('report', () => r.table(m, undefined, (_n, s) => containerState(s)))
    return {
      command: 'deploy',
      ...base,
      result: 'failed',
      changed: false,
      rolledBack: false,
      failure: { stage, reason },
      onFailure: { action: 'none', ok: true, detail },
      findings,
      nodes,
      durationMs: Date.now() - r.started,
    }
  }

  // launch.mode: script: the script is read before anything runs (the seeds' two bugs are visible in it).
  const script = await r.inStage('script-check', () => staticScriptCheck(m, o.manifestPath))
  if (script.blocking.length > 0) {
    const reason = [...new Set(script.blocking.map((f) => f.code))].join(', ')
    return stoppedBeforeAnyChange(
      'script-check',
      reason,
      'nothing was changed: the launch script was stopped before it ran (deploy.scriptCheck: block)',
      script.findings,
    )
  }
  early.push(...script.findings)

  const lock = await r.lock(m, o.release)
  if (!lock.ok) return stoppedBeforeAnyChange('lock', lock.message, 'nothing was changed: another rollout holds the lock', [lock.finding])
  try {
    // Both only read the nodes: the release state and the host checks run at once.
    const [states, host] = await Promise.all([r.inStage('state', () => readNodeStates(m, o.transports)), r.inStage('host-checks', () => r.hostChecks(m))])
    const unreadable = [...states.values()].filter((s) => s.error)
    if (unreadable.length > 0) {
      return finish({
        ...base,
        result: 'failed',
        changed: false,
        rolledBack: false,
        failure: { stage: 'state', reason: unreadable.map((s) => `${s.node}: ${s.error}`).join('; ') },
        findings: [],
      })
    }
    const current = commonCurrent(states)
    const headState = states.get(headOf(m).name)!
    const previousRelease = current?.current ?? headState.current
    r.say('state', `current release: ${previousRelease ?? '(none)'}; deploying ${o.release}${o.force ? ' (--force)' : ''}`)

    if (host.some((f) => f.severity === 'error')) {
      return finish({
        ...base,
        result: 'failed',
        changed: false,
        rolledBack: false,
        ...(previousRelease && { previousRelease }),
        failure: { stage: 'host-checks', reason: [...new Set(host.filter((f) => f.severity === 'error').map((f) => f.code))].join(', ') },
        onFailure: { action: 'none', ok: true, detail: 'nothing was changed on the nodes (host checks come before anything changes)' },
        findings: host,
      })
    }
    early.push(...host)

    /** A cancel before the release touched any container (before or during the image transfer). */
    const cancelledAtImage = (reason: string, image?: RolloutReport['image']) =>
      finish({
        ...base,
        result: 'cancelled',
        changed: false,
        rolledBack: false,
        ...(previousRelease && { previousRelease }),
        failure: { stage: 'image', reason },
        onFailure: { action: 'none', ok: true, detail: `cancelled: current still names ${previousRelease ?? '(none)'}` },
        findings: [],
        ...(image && { image }),
      })
    if (r.cancelled) return cancelledAtImage('cancelled before anything changed')
    const img = await r.inStage('image', () =>
      imageGate(m, image, o.transports, { manifestPath: o.manifestPath, onProgress: r.progress, ...(o.signal && { signal: o.signal }) }),
    )
    const imageSummary = { bytesSent: img.bytesSent, actions: Object.fromEntries([...img.actions].map(([k, v]) => [k, v.action])) }
    if (r.cancelled) return cancelledAtImage('cancelled during the image transfer; no container was touched', imageSummary)
    if (!img.ok || !img.imageId) {
      return finish({
        ...base,
        result: 'failed',
        changed: false,
        rolledBack: false,
        ...(previousRelease && { previousRelease }),
        failure: { stage: 'image', reason: img.findings.map((f) => f.message).join(' ') },
        onFailure: { action: 'none', ok: true, detail: 'nothing was changed on the nodes (the image gate comes first)' },
        findings: img.findings,
        image: imageSummary,
      })
    }
    const imageId = img.imageId
    const launchScript = await withLaunchScript(m, o.manifestPath)
    const spec = { manifest: m, imageId, ...(launchScript !== undefined && { launchScript }) }
    const fingerprint = releaseFingerprint(spec)
    r.progress(`fingerprint ${fingerprint.slice(0, 19)}…, current ${current?.fingerprint?.slice(0, 19) ?? '(none)'}…`)

    // Unchanged: same fingerprint as current everywhere, containers running, vLLM healthy → touch nothing.
    if (!o.force && current && current.fingerprint === fingerprint) {
      const running = [...states.values()].every((s) => s.container?.running && s.container.id === s.currentContainer)
      const health = running ? await o.transports.get(headOf(m).name)!.run(vllmHealth(m), { timeoutMs: 30_000 }) : undefined
      if (running && health && succeeded(health)) {
        const release = current.current!
        r.progress(`unchanged: release ${release} already runs this exact content; no image bytes moved, no container restarted`)
        // Both gates only read the running cluster, so they run at once; both are reported.
        const [pf, smoke] = await Promise.all([
          r.inStage('preflight', () => r.preflight(m, (x) => r.say('preflight', x))),
          r.inStage('smoke', () => r.smokeGate(m, (x) => r.say('smoke', x))),
        ])
        const pfErrors = pf.findings.filter((f) => f.severity === 'error')
        const ok = pfErrors.length === 0 && smoke.ok
        return finish(
          {
            result: ok ? 'unchanged' : 'failed',
            release,
            previousRelease: release,
            imageId,
            fingerprint,
            changed: false,
            rolledBack: false,
            ...(!ok && {
              failure: {
                stage: pfErrors.length > 0 ? 'preflight' : 'smoke',
                reason: pfErrors.length > 0 ? pfErrors.map((f) => f.code).join(', ') : 'smoke test failed',
              },
              onFailure: {
                action: 'none' as const,
                ok: true,
                detail: 'nothing was changed: the running release itself fails its gates (redeploy with --force)',
              },
            }),
            findings: [...pf.findings, ...smoke.findings],
            smoke,
            facts: pf.facts,
            image: imageSummary,
          },
          pf.facts,
        )
      }
      r.progress('same content as current, but it is not running healthy: redeploying it')
    }

    // A release id names one content: refuse to rewrite the release the cluster falls back on.
    if ((o.release === previousRelease || o.release === headState.previous) && current?.fingerprint !== fingerprint) {
      return finish({
        ...base,
        result: 'failed',
        changed: false,
        rolledBack: false,
        ...(previousRelease && { previousRelease }),
        failure: {
          stage: 'release-files',
          reason: `release ${o.release} already exists on the nodes with other content; give this deploy a new release id (--release)`,
        },
        onFailure: { action: 'none', ok: true, detail: 'nothing was changed on the nodes' },
        findings: [],
        imageId,
        fingerprint,
      })
    }
    const meta = { who: o.who, createdAt: new Date().toISOString(), ...(o.run && { run: o.run }) }
    const release = o.release === previousRelease && current ? previousRelease : o.release
    const filesFor = (rel: string, node: string): string =>
      JSON.stringify({ files: releaseFiles({ ...spec, release: rel }, m.nodes.find((n) => n.name === node)!, meta) })
    const run = await r.gated(m, release, 'write', filesFor)
    const common = {
      release,
      ...(previousRelease && { previousRelease }),
      imageId,
      fingerprint,
      image: imageSummary,
      ...(run.smoke && { smoke: run.smoke }),
      ...(run.facts && { facts: run.facts }),
    }
    if (run.exec.ok) {
      const act = await r.inStage('activate', () => r.onAll(m, 'activate', activateRelease(m, release)))
      if (!act.ok)
        return finish({
          ...common,
          result: 'failed',
          changed: true,
          rolledBack: false,
          failure: { stage: 'activate', reason: act.detail },
          findings: run.findings,
        })
      await r.inStage('prune', () => r.onAll(m, 'prune', pruneReleases(m)))
      return finish({ ...common, result: 'deployed', changed: true, rolledBack: false, findings: run.findings })
    }
    const stoppedAt = run.exec.stoppedAt!
    const failure = { stage: stoppedAt.phase as RolloutStage, reason: stoppedAt.reason }
    if (run.exec.cancelled) {
      return finish({
        ...common,
        result: 'cancelled',
        changed: true,
        rolledBack: false,
        failure,
        onFailure: { action: 'none', ok: true, detail: `cancelled: stopped after ${stoppedAt.phase}; current still names ${previousRelease ?? '(none)'}` },
        findings: run.findings,
      })
    }
    r.progress(`release ${release} failed at ${stoppedAt.phase}: ${stoppedAt.reason}; on-failure: ${onFailure}`)
    const handled = await r.inStage(
      'on-failure',
      async (): Promise<NonNullable<RolloutReport['onFailure']> & { findings?: readonly Finding[]; facts?: FactsBundle }> => {
        if (onFailure === 'keep')
          return {
            action: 'keep',
            ok: true,
            detail: `kept the failed release ${release}'s containers running for debugging; current still names ${previousRelease ?? '(none)'}`,
          }
        if (onFailure === 'rollback' && previousRelease && current) {
          const back = await r.inStage('rollback', () => r.startExisting(m, previousRelease, states))
          // current names the same release, but its containers are new ones: record them.
          if (back.ok) await r.onAll(back.manifest ?? m, 'activate', activateRelease(back.manifest ?? m, previousRelease))
          return {
            action: 'rollback',
            ok: back.ok,
            release: previousRelease,
            detail: back.ok
              ? `rolled back: release ${previousRelease} started again from its files on the nodes and passed every gate`
              : `rollback to ${previousRelease} failed: ${back.detail}`,
            findings: back.findings,
            ...(back.run?.facts && { facts: back.run.facts }),
          }
        }
        const stop = await r.onAll(m, 'stop', removeContainer(m.container.name))
        const why = onFailure === 'rollback' ? `no earlier release to roll back to, so stopped the new containers instead` : 'stopped the new containers'
        return { action: 'stop', ok: stop.ok, detail: `${why}${stop.ok ? '' : ` (${stop.detail})`}; current still names ${previousRelease ?? '(none)'}` }
      },
    )
    const { findings: backFindings = [], facts: backFacts, ...onFailureReport } = handled
    return finish(
      {
        ...common,
        result: 'failed',
        changed: true,
        rolledBack: handled.action === 'rollback' && handled.ok,
        failure,
        onFailure: onFailureReport,
        findings: [...run.findings, ...backFindings.map((f) => ({ ...f, message: `(rollback to ${previousRelease}) ${f.message}` }))],
      },
      backFacts ?? run.facts,
    )
  } finally {
    await r.unlock(m, lock.holder)
  }
}

/** `rollback [--to RELEASE]`: start an earlier release from its own files on the nodes and make it current. */
export async function rollbackRelease(o: Omit<RolloutOptions, 'release' | 'force'> & { readonly to?: string }): Promise<RolloutReport> {
  const m = o.manifest
  const r = new Rollout({ ...o, release: o.to ?? 'previous' })
  const lock = await r.lock(m, o.to ?? 'previous')
  if (!lock.ok) {
    const nodes = await r.inStage('report', () => r.table(m, undefined, (_n, s) => containerState(s)))
    return {
      command: 'rollback',
      release: o.to ?? '-',
      result: 'failed',
      changed: false,
      rolledBack: false,
      failure: { stage: 'lock', reason: lock.message },
      findings: [lock.finding],
      nodes,
      durationMs: Date.now() - r.started,
    }
  }
  try {
    return await rollbackLocked(r, o)
  } finally {
    await r.unlock(m, lock.holder)
  }
}

async function rollbackLocked(r: Rollout, o: Omit<RolloutOptions, 'release' | 'force'> & { readonly to?: string }): Promise<RolloutReport> {
  const m = o.manifest
  const states = await r.inStage('state', () => readNodeStates(m, o.transports))
  const head = states.get(headOf(m).name)!
  const target = o.to ?? head.previous
  const finish = async (rep: Omit<RolloutReport, 'nodes' | 'durationMs' | 'command'>, facts?: FactsBundle): Promise<RolloutReport> => {
    await r.audit(m, {
      command: 'rollback',
      release: rep.release,
      imageId: rep.imageId ?? null,
      result: rep.result,
      rolledBack: rep.rolledBack,
      previous: rep.previousRelease ?? null,
    })
    const nodes = await r.inStage('report', () => r.table(m, facts, (_n, s) => containerState(s)))
    return { command: 'rollback', ...rep, nodes, durationMs: Date.now() - r.started }
  }
  const previousRelease = head.current
  const host = await r.inStage('host-checks', () => r.hostChecks(m))
  if (host.some((f) => f.severity === 'error')) {
    return finish({
      release: target ?? '-',
      result: 'failed',
      changed: false,
      rolledBack: false,
      ...(previousRelease && { previousRelease }),
      failure: { stage: 'host-checks', reason: [...new Set(host.filter((f) => f.severity === 'error').map((f) => f.code))].join(', ') },
      findings: host,
    })
  }
  if (!target)
    return finish({
      release: '-',
      result: 'failed',
      changed: false,
      rolledBack: false,
      ...(previousRelease && { previousRelease }),
      failure: {
        stage: 'state',
        reason: `no previous release on ${headOf(m).name}${head.problems ? ` (${head.problems.join('; ')})` : ''}; name one with --to (releases: ${head.releases.join(', ') || 'none'})`,
      },
      findings: [],
    })
  const back = await r.inStage('rollback', () => r.startExisting(m, target, states))
  const snap = back.manifest ?? m
  const imageId = back.image?.imageId
  if (!back.ok) {
    return finish(
      {
        release: target,
        result: back.run?.exec.cancelled ? 'cancelled' : 'failed',
        changed: true,
        rolledBack: false,
        ...(previousRelease && { previousRelease }),
        ...(imageId && { imageId }),
        failure: { stage: back.run?.exec.stoppedAt?.phase ?? 'rollback', reason: back.detail },
        findings: back.findings,
        ...(back.run?.smoke && { smoke: back.run.smoke }),
      },
      back.run?.facts,
    )
  }
  const act = await r.inStage('activate', () => r.onAll(snap, 'activate', activateRelease(snap, target)))
  return finish(
    {
      release: target,
      result: act.ok ? 'rolled-back' : 'failed',
      changed: true,
      rolledBack: act.ok,
      ...(previousRelease && { previousRelease }),
      ...(imageId && { imageId }),
      ...(!act.ok && { failure: { stage: 'activate' as const, reason: act.detail } }),
      findings: back.findings,
      ...(back.run?.smoke && { smoke: back.run.smoke }),
      ...(back.run?.facts && { facts: back.run.facts }),
    },
    back.run?.facts,
  )
}
