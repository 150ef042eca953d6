/**
 * The stages before anything changes: this run's secrets checked (inputs), the launch script read
 * (script-check), the deploy lock, and
 * every node's release state read while the host checks run. Each stops with nothing changed.
 */
import { modelRelays } from '../weights/weights-plan.js'
import { option } from '../../command/option-words.js'
import { dirname, relative, resolve } from 'node:path'
import type { Manifest } from '../../manifest/schema.js'
import type { Finding } from '../../preflight/finding.js'
import { headOf } from '../../plan/node-commands.js'
import { problem } from '../../result/result.js'
import { readLaunchScript as readScript } from '../../manifest/launch-path.js'
import { checkLaunchScriptWhenNeeded } from '../../script-check/load-checker.js'
import { distributionOf } from '../distribution/index.js'
import { evaluateHostChecks, gatherHostFacts } from '../host-checks.js'
import { LockHeartbeat, acquireDeployLock } from '../deploy-lock.js'
import { checkRunInputs } from '../run-inputs.js'
import { type PlannedPart, type StagePlanInput, onEveryNode, plannedLockHolder } from './plan-parts.js'
import { hostProbeCmd } from '../../plan/host-check-commands.js'
import { acquireLockCmd, deployLockDir } from '../../plan/lock-commands.js'
import { MINUTE, stepOf } from '../../plan/plan.js'
import { readNodeState } from '../../plan/release-commands.js'
import { type NodeState, commonCurrent, containerState, readNodeStates } from '../node-state.js'
import type { FactsBundle } from '../../preflight/facts.js'
import { type Stage, type StageInput, errorCodes, hasError, proceed, sayFindings, stop } from './stage.js'

export async function readLaunchScript(m: Manifest, manifestPath: string): Promise<string | undefined> {
  if (m.launch.mode !== 'script') return undefined
  // The one reader of a launch script (inside the repository unless the manifest allows otherwise, bounded).
  const read = await readScript(manifestPath, m.launch.path, { ...(m.launch.allowOutsideRepository && { allowOutsideRepository: true }) })
  return read.ok ? read.value.text : undefined
}

/**
 * The static launch-script check. Under `deploy.scriptCheck: warn` its errors are carried as
 * warnings (the live preflight decides); under `block` they stop the deploy. An unreadable script
 * is left to the release-files stage, which reports it with the path.
 */
export async function staticScriptCheck(m: Manifest, manifestPath: string): Promise<{ findings: Finding[]; blocking: Finding[] }> {
  const text = await readLaunchScript(m, manifestPath).catch(() => undefined)
  if (m.launch.mode !== 'script' || text === undefined) return { findings: [], blocking: [] }
  // The path as seen from here (the repository root in a workflow), so a finding's `Script line` annotates the file.
  const { findings } = await checkLaunchScriptWhenNeeded(text, { manifest: m, path: relative(process.cwd(), resolve(dirname(manifestPath), m.launch.path)) })
  if (m.deploy.scriptCheck === 'block') return { findings, blocking: findings.filter((f) => f.severity === 'error') }
  const warn = (f: Finding): Finding =>
    f.severity === 'error' ? { ...f, severity: 'warning', message: `${f.message} (launch script, read before it ran; deploy.scriptCheck: warn)` } : f
  return { findings: findings.map(warn), blocking: [] }
}

/** This run's secrets, checked before the first node command: a bad one stops here, naming it. */
export const inputsStage: Stage<'m'> = {
  name: 'inputs',
  needs: ['m'],
  adds: [],
  untouched: () => 'nothing was changed: a secret this run would hand the nodes cannot be used',
  async run(ctx) {
    const bad = checkRunInputs(ctx.m, ctx.o.env)
    if (bad.length === 0) return proceed()
    return stop(problem('SECRET_INVALID', bad.map((f) => f.message).join(' '), bad[0]!.fix), { findings: bad })
  },
}

/** The stage's part of `plan`, beside its run. */
const scriptCheckPart = ({ m }: StagePlanInput): PlannedPart[] =>
  m.launch.mode === 'script'
    ? [
        {
          name: 'script-check',
          description: `read ${m.launch.path} for the seed bug's overrides on this machine (deploy.scriptCheck: ${m.deploy.scriptCheck})`,
          parallel: false,
          steps: [],
        },
      ]
    : []

export const scriptCheckStage: Stage<'m'> = {
  name: 'script-check',
  needs: ['m'],
  adds: [],
  plan: scriptCheckPart,
  untouched: () => 'nothing was changed: the launch script was stopped before it ran (deploy.scriptCheck: block)',
  async run(ctx) {
    const script = await staticScriptCheck(ctx.m, ctx.o.manifestPath)
    const findings = script.findings
    if (script.blocking.length === 0) return proceed({}, { findings })
    return stop(
      problem(
        'SCRIPT_CHECK_BLOCKED',
        errorCodes(script.blocking),
        `Fix ${ctx.m.launch.mode === 'script' ? ctx.m.launch.path : 'the launch script'} as its findings say.`,
      ),
      { findings },
    )
  },
}

/** The stage's part of `plan`, beside its run. */
const lockPart = ({ m, release }: StagePlanInput): PlannedPart[] => [
  {
    name: 'lock',
    description: `take the cluster's deploy lock on ${release.head} (mkdir is atomic; an expired lock is broken, a held one stops the deploy)`,
    parallel: false,
    steps: [
      stepOf(m)(
        headOf(m),
        'lock',
        'take the deploy lock',
        acquireLockCmd(deployLockDir(m), plannedLockHolder(release.release), m.deploy.lockTtlMinutes * 60),
        MINUTE,
      ),
    ],
  },
]

export const lockStage: Stage<'m' | 'release', 'lock' | 'heartbeat'> = {
  name: 'lock',
  needs: ['m', 'release'],
  adds: ['lock', 'heartbeat'],
  plan: lockPart,
  untouched: () => 'nothing was changed: another rollout holds the lock',
  async run(ctx) {
    const { m, o, io } = ctx
    const head = headOf(m)
    const got = await acquireDeployLock(o.transports.get(head.name)!, m, {
      who: o.who,
      ...(o.run && { run: o.run }),
      release: ctx.release,
      ...(o.waitLock && { wait: true }),
      onProgress: io.progress,
    })
    if (got.ok) {
      // Renewed while held (by the head's clock), so a rollout longer than deploy.lockTtlMinutes keeps it.
      const heartbeat = new LockHeartbeat(o.transports.get(head.name)!, m, got.value, {
        onProgress: io.progress,
        ...(o.lockRenewEveryMs && { everyMs: o.lockRenewEveryMs }),
      }).start()
      o.onLock?.({ holder: got.value, cluster: m.cluster })
      return proceed({ lock: got.value, heartbeat })
    }
    const { evidence, fix } = got.problem
    const locked: Finding = {
      code: 'DEPLOY_LOCKED',
      severity: 'error',
      node: head.name,
      message: `Another rollout holds the deploy lock: ${got.problem.message}.`,
      evidence,
      fix,
    }
    return stop({ code: 'DEPLOY_LOCKED', message: got.problem.message, evidence, fix }, { findings: [locked] })
  },
}

async function runHostChecks({ m, o, io }: StageInput<'m'>): Promise<{ facts: FactsBundle; findings: Finding[] }> {
  const { relay: imageRelay = false, alsoChecked } = distributionOf(m).hostChecks
  // The weights relay needs the same head → worker SSH over the fabric as the image relay.
  const relay = imageRelay || modelRelays(m)
  const facts = await gatherHostFacts(m, o.transports, { relay })
  const findings = evaluateHostChecks(m, facts, { relay })
  sayFindings(io, findings)
  if (findings.length === 0)
    io.say(
      'host-checks',
      `every node passed (docker and its NVIDIA runtime, CDI specs, ${m.fabric.interfaces.join(',')} up with its fabric IP, GPUs, disk, OOM guard on unified memory${alsoChecked ? `, ${alsoChecked}` : ''})`,
    )
  return { facts, findings }
}

/** The stage's part of `plan`, beside its run. */
const statePart = ({ m }: StagePlanInput): PlannedPart[] => {
  const { relay: imageRelay = false, alsoChecked } = distributionOf(m).hostChecks
  const relay = imageRelay || modelRelays(m)
  return [
    {
      name: 'state',
      description: `read every node's releases and run the host checks, at once; a release already current everywhere is not started again: only the preflight and the smoke test run`,
      parallel: true,
      steps: [
        ...onEveryNode(m, 'state', 'read current, previous, the releases and the container', () => readNodeState(m)),
        ...onEveryNode(
          m,
          'host-checks',
          `host checks: docker and its NVIDIA runtime, CDI specs, GPUs, the fabric interfaces, disk, OOM guard${alsoChecked ? `, ${alsoChecked}` : ''}`,
          (n) => hostProbeCmd(m, n, relay).cmd,
        ),
      ],
    },
  ]
}

/** Both only read the nodes: the release state and the host checks run at once. */
export const stateStage: Stage<'m' | 'release', 'states' | 'current' | 'previousRelease' | 'hostFacts'> = {
  name: 'state',
  needs: ['m', 'release'],
  adds: ['states', 'current', 'previousRelease', 'hostFacts'],
  plan: statePart,
  labelsItself: true,
  untouched: () => 'nothing was changed on the nodes (host checks come before anything changes)',
  async run(ctx) {
    const { m, o, io } = ctx
    const [states, host] = await Promise.all([io.inStage('state', () => readNodeStates(m, o.transports)), io.inStage('host-checks', () => runHostChecks(ctx))])
    const unreadable = [...states.values()].filter((s) => s.error)
    if (unreadable.length > 0) {
      const message = unreadable.map((s) => `${s.node}: ${s.error}`).join('; ')
      return stop(problem('NODE_STATE_UNREADABLE', message, 'Make sure every node is reachable and its state directory readable, then run again.'), {
        adds: { states, hostFacts: host.facts },
      })
    }
    const headState = states.get(headOf(m).name)!
    const current = commonCurrent(states)
    const previousRelease = current?.current ?? headState.current
    if (ctx.command === 'deploy')
      io.say('state', `current release: ${previousRelease ?? '(none)'}; deploying ${ctx.release}${o.force ? ` (${option('force')})` : ''}`)
    const adds = { states, current, previousRelease, hostFacts: host.facts }
    const findings = host.findings
    if (hasError(findings))
      return stop(problem('HOST_CHECKS_FAILED', errorCodes(findings), 'Fix what the host checks found.'), { at: 'host-checks', adds, findings })
    return proceed(adds, { findings })
  },
}

/** `rollback`: the release to go back to, `--to` or the one `previous` names on the head. */
/**
 * Where the release `current` names is not what runs (a deploy that stopped it and could not bring
 * it back, a node lost mid-rollout): the nodes it is missing from, in words; undefined when it runs
 * on every node. A plain rollback then goes back to that release, not to the one before it.
 */
export function currentNotRunning(states: ReadonlyMap<string, NodeState> | undefined, current: string | undefined): string | undefined {
  if (!states || !current) return undefined
  const missing = [...states.values()].flatMap((s) => {
    if (s.error) return []
    const c = s.container
    // No container under the manifest's name, and none was recorded at activation: a launch script
    // that names its own; what runs is not known here, so it is taken to run.
    if (!c) return s.currentContainer ? [`${s.node} (no container)`] : []
    const release = c.release || (s.currentContainer === c.id ? s.current : undefined)
    return c.running && (release === undefined || release === current) ? [] : [`${s.node} (${containerState(s)})`]
  })
  return missing.length > 0 ? missing.join(', ') : undefined
}

export const rollbackTargetStage = (to: string | undefined): Stage<'m' | 'states', 'release'> => ({
  name: 'state',
  needs: ['m', 'states'],
  adds: ['release'],
  untouched: () => 'nothing was changed on the nodes',
  async run(ctx) {
    const head = ctx.states.get(headOf(ctx.m).name)
    const down = to ? undefined : currentNotRunning(ctx.states, head?.current)
    const target = to ?? (down ? head?.current : head?.previous)
    if (target) {
      if (down)
        ctx.io.progress(`current names ${target}, which is not running on ${down}: the rollback starts ${target} again (name a release to go elsewhere)`)
      return proceed({ release: target })
    }
    // Each release on the head, the one running marked: the ones a rollback can go to are the others.
    const mark = (r: string) => (r === head?.current ? `${r} (current)` : head?.failed?.includes(r) ? `${r} (failed)` : r)
    const releases = head?.releases.map(mark).join(', ') || 'none'
    const others = head?.releases.filter((r) => r !== head.current) ?? []
    return stop(
      problem(
        'NO_PREVIOUS_RELEASE',
        `nothing to roll back to on ${headOf(ctx.m).name}: its previous link names no release${head?.current ? ` (current is ${head.current})` : ''}${head?.problems ? ` (${head.problems.join('; ')})` : ''}; releases there: ${releases}${others.length > 0 ? `; name one with ${option('to')} (in the deploy workflow: its release field)` : ''}`,
        others.length > 0
          ? `Name the release to go back to: a rollback with ${option('to', 'RELEASE')} (in the deploy workflow, its release field), one of ${others.join(', ')}.`
          : 'There is no other release on the nodes to go back to: deploy the one you want instead.',
        { releases },
      ),
    )
  },
})
