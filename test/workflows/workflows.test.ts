/**
 * The deploy workflows read as data: the scheduled one can never deploy or roll back, each trigger
 * and input of the dispatch one reaches the job and command it should, inputs reach scripts only
 * through env, concurrency never cancels a rollout, and everything actionlint says is nothing.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { loadManifestFile } from '../../src/manifest/load.js'
import { type Context, condition, hasExpression, interpolate } from './expressions.js'

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
  readonly concurrency?: { readonly group: string; readonly 'cancel-in-progress': unknown }
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

  it('no other way to change the cluster: no reusable workflow, no other action, no script calling the tool, no deploy environment', () => {
    const w = byFile('scheduled-smoke.yml')
    for (const job of Object.values(w.jobs)) {
      expect(job.uses).toBeUndefined()
      expect(job.environment).toBeUndefined()
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

  const contexts: { label: string; ctx: Context }[] = [
    { label: 'push', ctx: { github: { event_name: 'push', sha: SHA }, inputs: {}, secrets: {}, vars: {}, runner: { temp: '/t' } } },
  ]
  for (const command of dispatch['command']!.options!)
    for (const dry of [false, true])
      for (const onFailure of dispatch['on-failure']!.options!)
        contexts.push({
          label: `dispatch ${command} dry-run=${dry} on-failure=${onFailure}`,
          ctx: {
            github: { event_name: 'workflow_dispatch', sha: SHA },
            inputs: { command, 'dry-run': dry, 'on-failure': onFailure, image: 'reg/x:1', release: 'r41' },
            secrets: {},
            vars: {},
            runner: { temp: '/t' },
          },
        })

  it('typed inputs: command, image, release, on-failure, dry-run', () => {
    expect(dispatch['command']).toMatchObject({ type: 'choice', options: ['deploy', 'preflight', 'smoke', 'rollback'] })
    expect(dispatch['image']).toMatchObject({ type: 'string' })
    expect(dispatch['release']).toMatchObject({ type: 'string' })
    expect(dispatch['on-failure']).toMatchObject({ type: 'choice', options: ['manifest', 'rollback', 'stop', 'keep'], default: 'manifest' })
    expect(dispatch['dry-run']).toMatchObject({ type: 'boolean', default: false })
  })

  it.each(contexts.map((c) => [c.label, c.ctx] as const))('%s', (label, ctx) => {
    const running = Object.entries(w.jobs).filter(([, j]) => condition(j.if, ctx))
    expect(running, 'exactly one job runs').toHaveLength(1)
    const [, job] = running[0]!
    const step = job.steps.find((s) => s.uses === './')!
    const w_ = Object.fromEntries(Object.entries(step.with ?? {}).map(([k, v]) => [k, interpolate(String(v), ctx)]))
    const inputs = ctx['inputs'] as Record<string, string | boolean>
    const expected = label === 'push' ? 'deploy' : inputs['dry-run'] ? 'plan' : String(inputs['command'])
    expect(w_['command']).toBe(expected)
    expect(w_['manifest']).toBe(MANIFEST)
    // Changing the cluster happens only in the protected environment; reading it never waits for approval.
    if (expected === 'deploy' || expected === 'rollback') expect(job.environment).toBe('spark-pair')
    else expect(job.environment).toBeUndefined()
    expect(w_['release']).toBe(SHA)
    if (expected === 'rollback') expect(w_['rollback-to']).toBe('r41')
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

describe('one rollout at a time, never cancelled', () => {
  it.each(cluster.map((w) => [w.file, w] as const))('%s: the cluster group, cancel-in-progress false', (_, w) => {
    expect(w.concurrency).toEqual({ group: 'vllm-ray-deploy-spark-pair', 'cancel-in-progress': false })
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
      const upload = job.steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'))
      expect(upload?.if).toBe('failure()')
      expect(upload?.with?.['path']).toBe('${{ runner.temp }}/vllm-ray-deploy/')
      const collect = job.steps.find((s) => s.run === '.github/scripts/collect-report.sh')
      expect(collect?.if).toBe('failure()')
    }
  })
})

describe('the scripts the workflows run', () => {
  const scripts = readdirSync('.github/scripts').map((f) => join('.github/scripts', f))
  it.each(scripts)('%s parses (bash -n) and shellcheck, when installed, finds nothing', (path) => {
    const syntax = spawnSync('bash', ['-n', path], { encoding: 'utf8' })
    expect(syntax.stderr).toBe('')
    expect(syntax.status).toBe(0)
    const sc = spawnSync('shellcheck', [path], { encoding: 'utf8' })
    if (sc.error === undefined) expect(sc.stdout + sc.stderr).toBe('')
  })

  it('every run: that names a script names one that exists and is executable', () => {
    for (const w of all)
      for (const s of steps(w)) for (const m of (s.run ?? '').matchAll(/(\.github\/scripts\/[\w.-]+)/g)) expect(statSync(m[1]!).mode & 0o111, m[1]).not.toBe(0)
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
