/**
 * The deploy workflows read as data: the scheduled one can never deploy or roll back, each trigger
 * and input of the dispatch one reaches the job and command it should (a dry run never the rollout,
 * whatever form its input arrives in), inputs reach scripts only through env, the key is used only
 * inside an environment, concurrency never cancels a rollout nor drops a queued run, and everything
 * actionlint says is nothing.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { loadManifestFile } from '../../src/manifest/load-manifest.js'
import { type Context, type Value, condition, hasExpression, interpolate } from './expressions.js'

interface Step {
  readonly id?: string
  readonly name?: string
  readonly uses?: string
  readonly run?: string
  readonly if?: string
  readonly with?: Readonly<Record<string, string | boolean | number>>
  readonly env?: Readonly<Record<string, string>>
}
interface Job {
  readonly name?: string
  readonly if?: string
  readonly uses?: string
  readonly 'runs-on': string | readonly string[]
  readonly environment?: string | { readonly name: string }
  readonly permissions?: unknown
  readonly concurrency?: unknown
  readonly 'timeout-minutes'?: number
  readonly steps: readonly Step[]
}
interface Workflow {
  readonly file: string
  readonly name: string
  readonly on: Readonly<Record<string, unknown>>
  readonly permissions?: unknown
  readonly concurrency?: { readonly group: string; readonly 'cancel-in-progress': unknown; readonly queue?: unknown }
  readonly jobs: Readonly<Record<string, Job>>
}

const DIR = '.github/workflows'
const all: Workflow[] = readdirSync(DIR)
  .filter((f) => /\.ya?ml$/.test(f))
  .map((f) => ({ file: f, ...(parse(readFileSync(join(DIR, f), 'utf8')) as Omit<Workflow, 'file'>) }))
const MANIFEST = '.github/vllm-ray-deploy.yml'
const onCluster = (w: Workflow) => Object.values(w.jobs).some((j) => j.steps?.some((s) => s.uses === './' && s.with?.['manifest'] === MANIFEST))
/** The cluster workflows: those that run this repository's action on the seed cluster's manifest. */
const cluster = all.filter(onCluster)
const byFile = (f: string): Workflow => all.find((w) => w.file === f) ?? expect.unreachable(`no ${f}`)
const steps = (w: Workflow) => Object.values(w.jobs).flatMap((j) => j.steps ?? [])

const SHA = '0123456789abcdef0123456789abcdef01234567'
const RUN_ID = '4242'
/** The environments (docs/workflows.md): reviewers on the first; both admit main only. */
const ROLLOUT_ENV = 'spark-pair'
const READ_ENV = 'spark-pair-check'
const envName = (j: Job) => (typeof j.environment === 'object' ? j.environment.name : j.environment)

describe('the workflows', () => {
  it('deploy.yml and scheduled-smoke.yml run the action on the cluster; the project CI is left as it was', () => {
    expect(cluster.map((w) => w.file).sort()).toEqual(['deploy.yml', 'scheduled-smoke.yml'])
    expect(all.map((w) => w.file)).toContain('ci.yml')
  })
})

describe('the scheduled workflow can never deploy or roll back', () => {
  const scheduled = all.filter((w) => 'schedule' in w.on)
  it('only scheduled-smoke.yml is scheduled, and nothing else triggers it (no inputs can reach it)', () => {
    expect(scheduled.map((w) => w.file)).toEqual(['scheduled-smoke.yml'])
    expect(Object.keys(byFile('scheduled-smoke.yml').on)).toEqual(['schedule'])
  })

  it('every action step has a literal command, preflight or smoke; no expression, no default', () => {
    const w = byFile('scheduled-smoke.yml')
    const actionSteps = steps(w).filter((s) => s.uses === './')
    expect(actionSteps.map((s) => s.with?.['command'])).toEqual(['preflight', 'smoke'])
    for (const s of actionSteps) {
      const command = s.with?.['command']
      expect(typeof command).toBe('string')
      expect(hasExpression(String(command))).toBe(false)
      expect(['preflight', 'smoke']).toContain(command)
      // Inputs that only a rollout uses are not even passed.
      for (const key of ['image', 'release', 'on-failure']) expect(s.with).not.toHaveProperty(key)
    }
  })

  it('no other way to change the cluster: no reusable workflow, no other action, no script calling the tool, only the read-only environment', () => {
    const w = byFile('scheduled-smoke.yml')
    for (const job of Object.values(w.jobs)) {
      expect(job.uses).toBeUndefined()
      expect(envName(job)).toBe(READ_ENV)
    }
    for (const s of steps(w)) {
      if (s.uses !== undefined && s.uses !== './') expect(s.uses).toMatch(/^actions\/(checkout|upload-artifact)@v\d+$/)
      if (s.run !== undefined) expect(s.run).not.toMatch(/vllm-ray-deploy\s|dist\/|node\s|npx|\bssh\b|docker|\bray\b/)
    }
  })
})

describe('deploy.yml sends each trigger and input to the right job and command', () => {
  const w = byFile('deploy.yml')
  const dispatch = (w.on['workflow_dispatch'] as { inputs: Record<string, { type: string; options?: string[]; default?: unknown }> }).inputs

  /**
   * The forms a dispatch's dry-run arrives in: GitHub (inputs.dry-run a boolean, event.inputs a
   * string), act given a JSON boolean (inputs.dry-run false, event.inputs the boolean), a string in
   * both (older runners, act given "true").
   */
  const DRY_FORMS: readonly { form: string; dry: boolean; inputs: Value; event: Value }[] = [
    { form: 'github', dry: false, inputs: false, event: 'false' },
    { form: 'github', dry: true, inputs: true, event: 'true' },
    { form: 'act-json-boolean', dry: false, inputs: false, event: false },
    { form: 'act-json-boolean', dry: true, inputs: false, event: true },
    { form: 'string', dry: false, inputs: 'false', event: 'false' },
    { form: 'string', dry: true, inputs: 'true', event: 'true' },
  ]
  const dispatchCtx = (inputs: Record<string, Value>, event: Value): Context => ({
    github: { event_name: 'workflow_dispatch', sha: SHA, run_id: RUN_ID, event: { inputs: { ...inputs, 'dry-run': event } } },
    inputs,
    secrets: {},
    vars: {},
    runner: { temp: '/t' },
  })
  const contexts: { label: string; dry: boolean; ctx: Context }[] = [
    { label: 'push', dry: false, ctx: { github: { event_name: 'push', sha: SHA, run_id: RUN_ID }, inputs: {}, secrets: {}, vars: {}, runner: { temp: '/t' } } },
  ]
  for (const command of dispatch['command']!.options!)
    for (const f of DRY_FORMS)
      for (const onFailure of dispatch['on-failure']!.options!)
        for (const release of ['r41', ''])
          contexts.push({
            label: `dispatch ${command} dry-run=${f.dry} (${f.form}) on-failure=${onFailure} release=${release || '(blank)'}`,
            dry: f.dry,
            ctx: dispatchCtx({ command, 'dry-run': f.inputs, 'on-failure': onFailure, image: 'reg/x:1', release }, f.event),
          })

  it('typed inputs: command, image, release, on-failure, dry-run', () => {
    expect(dispatch['command']).toMatchObject({ type: 'choice', options: ['deploy', 'preflight', 'smoke', 'rollback'] })
    expect(dispatch['image']).toMatchObject({ type: 'string' })
    expect(dispatch['release']).toMatchObject({ type: 'string' })
    expect(dispatch['on-failure']).toMatchObject({ type: 'choice', options: ['manifest', 'rollback', 'stop', 'keep'], default: 'manifest' })
    expect(dispatch['dry-run']).toMatchObject({ type: 'boolean', default: false })
  })

  it.each(contexts.map((c) => [c.label, c.dry, c.ctx] as const))('%s', (label, dry, ctx) => {
    const running = Object.entries(w.jobs).filter(([, j]) => condition(j.if, ctx))
    expect(running, 'exactly one job runs').toHaveLength(1)
    const [jobId, job] = running[0]!
    const step = job.steps.find((s) => s.uses === './')!
    const w_ = Object.fromEntries(Object.entries(step.with ?? {}).map(([k, v]) => [k, interpolate(String(v), ctx)]))
    const inputs = ctx['inputs'] as Record<string, string | boolean>
    const expected = label === 'push' ? 'deploy' : dry ? 'plan' : String(inputs['command'])
    expect(w_['command']).toBe(expected)
    expect(w_['manifest']).toBe(MANIFEST)
    // A dry run never reaches the job that changes the cluster, whatever form its input took.
    if (dry) expect(jobId).toBe('check')
    // Changing the cluster happens only in the protected environment; reading it never waits for approval.
    expect(envName(job)).toBe(expected === 'deploy' || expected === 'rollback' ? ROLLOUT_ENV : READ_ENV)
    // A push records its commit; a dispatched deploy (or its plan) the release input, else <sha>-<run id>,
    // so a commit already deployed can be deployed again with new content.
    const dispatchedDeploy = label !== 'push' && inputs['command'] === 'deploy'
    expect(w_['release']).toBe(dispatchedDeploy ? inputs['release'] || `${SHA}-${RUN_ID}` : SHA)
    if (expected === 'rollback') expect(w_['rollback-to']).toBe(inputs['release'])
    else expect(w_['rollback-to'] ?? '').toBe('')
    if (expected === 'deploy' && label !== 'push') {
      expect(w_['image']).toBe('reg/x:1')
      expect(w_['on-failure']).toBe(inputs['on-failure'] === 'manifest' ? '' : inputs['on-failure'])
    }
    if (label === 'push') expect([w_['image'], w_['on-failure']]).toEqual(['', ''])
  })

  it('a push deploys only when the manifest, a launch script or this workflow changes, on main', () => {
    expect(w.on['push']).toEqual({
      branches: ['main'],
      paths: ['.github/vllm-ray-deploy.yml', '.github/launch/**', '.github/workflows/deploy.yml'],
    })
  })
})

describe('inputs and outputs reach scripts only through env', () => {
  it.each(all.map((w) => [w.file, w] as const))('%s: no ${{ }} inside any run: script', (_, w) => {
    for (const s of steps(w)) if (s.run !== undefined) expect(hasExpression(s.run), `${w.file}: ${s.name ?? s.run}`).toBe(false)
  })

  it('every dispatch input is used, and the scripts see them as environment variables', () => {
    const w = byFile('deploy.yml')
    const text = readFileSync(join(DIR, 'deploy.yml'), 'utf8')
    const inputs = Object.keys((w.on['workflow_dispatch'] as { inputs: Record<string, unknown> }).inputs)
    for (const name of inputs) expect(text, name).toContain(`inputs.${name}`)
    const envValues = steps(w).flatMap((s) => (s.run !== undefined ? Object.values(s.env ?? {}) : []))
    for (const name of ['command', 'image', 'release', 'on-failure'])
      expect(
        envValues.some((v) => v.includes(`inputs.${name}`)),
        name,
      ).toBe(true)
  })
})

describe('one run against the cluster at a time, in order: none cancelled, none dropped', () => {
  // Without `queue: max` a newer pending run in the group cancels the older pending one: a scheduled
  // smoke could silently replace a queued deploy.
  it.each(cluster.map((w) => [w.file, w] as const))('%s: the cluster group, cancel-in-progress false, queue max', (_, w) => {
    expect(w.concurrency).toEqual({ group: 'vllm-ray-deploy-spark-pair', 'cancel-in-progress': false, queue: 'max' })
    for (const job of Object.values(w.jobs)) expect(job.concurrency).toBeUndefined()
  })

  it("the group names the manifest's cluster", async () => {
    const { manifest, errors } = await loadManifestFile(MANIFEST)
    expect(errors).toEqual([])
    expect(`vllm-ray-deploy-${manifest!.cluster}`).toBe(byFile('deploy.yml').concurrency!.group)
  })
})

describe('least privilege, the runner, time limits, secrets, the failure artifact', () => {
  it.each(cluster.map((w) => [w.file, w] as const))('%s', (_, w) => {
    expect(w.permissions).toEqual({ contents: 'read' })
    for (const job of Object.values(w.jobs)) {
      expect(job.permissions).toBeUndefined()
      expect(job['runs-on']).toEqual(['self-hosted', 'linux', 'vllm-deployer'])
      expect(job['timeout-minutes']).toBeGreaterThan(0)
      expect(job['timeout-minutes']).toBeLessThanOrEqual(180)
      const checkout = job.steps[0]!
      expect(checkout.uses).toBe('actions/checkout@v6')
      expect(checkout.with?.['persist-credentials']).toBe(false)
      for (const s of job.steps.filter((x) => x.uses === './')) {
        expect(s.with?.['ssh-private-key']).toBe('${{ secrets.CLUSTER_SSH_KEY }}')
        expect(s.with?.['known-hosts']).toBe('${{ vars.CLUSTER_KNOWN_HOSTS }}')
        expect(s.id).toBeDefined()
      }
      // The action writes the report itself: the job uploads report-dir and runs no script of ours.
      const upload = job.steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'))
      expect(upload?.if).toBe('failure()')
      expect(upload?.with?.['path']).toBe('${{ runner.temp }}/vllm-ray-deploy/')
      for (const s of job.steps) expect(s.run ?? '').not.toMatch(/\.github\/scripts|collect-report/)
    }
  })

  // A secret used by a job without an environment is a repository secret: anyone who can dispatch a
  // workflow from a branch could reach it without the environment's reviewers.
  it.each(all.map((w) => [w.file, w] as const))('%s: every job that uses a secret runs in an environment', (_, w) => {
    for (const [id, job] of Object.entries(w.jobs)) {
      const text = JSON.stringify(job)
      if (/secrets\./.test(text)) expect(envName(job), `${w.file} job ${id}`).toMatch(new RegExp(`^(${ROLLOUT_ENV}|${READ_ENV})$`))
      // HF_TOKEN (the model's secret) only where a rollout needs it.
      if (/secrets\.HF_TOKEN/.test(text)) expect(envName(job)).toBe(ROLLOUT_ENV)
    }
  })
})

describe('actionlint', () => {
  it('reports nothing on .github/workflows/* (with shellcheck on the run: scripts when installed)', () => {
    const bin = execFileSync('bash', ['.ci/tools', 'actionlint'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim()
    const r = spawnSync(bin, ['-no-color'], { encoding: 'utf8' })
    expect(r.stdout + r.stderr).toBe('')
    expect(r.status).toBe(0)
  }, 600_000)

  it('is a real check: it flags a script that interpolates an input', () => {
    const bin = execFileSync('bash', ['.ci/tools', 'actionlint'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim()
    const bad = readFileSync(join(DIR, 'deploy.yml'), 'utf8').replace(
      'echo "vllm-ray-deploy: $COMMAND of spark-pair, triggered by $EVENT"',
      'echo "${{ github.event.head_commit.message }}"',
    )
    const r = spawnSync(bin, ['-no-color', '-'], { input: bad, encoding: 'utf8' })
    expect(r.status).toBe(1)
    expect(r.stdout).toMatch(/potentially untrusted/)
  }, 600_000)
})
