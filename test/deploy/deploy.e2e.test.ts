/**
 * deploy and rollback on the lab, end to end, through the same task both front doors call: a cold
 * deploy that ends serving, an unchanged redeploy that restarts nothing, the seed bug stopped at the
 * preflight gate with an automatic rollback (and with keep), rollback on demand, a cancelled
 * rollout, and no secret value anywhere (logs, report, facts, audit, plan, `ps` on the nodes).
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { argv } from '../../src/command/shell.js'
import { deployLockStatus } from '../../src/deploy/deploy-lock.js'
import { labPaths, resolveLabDir, scenarioScript } from '../support/lab.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { clusterStateDir } from '../../src/plan/release-commands.js'
import { type DeployTaskOptions, deployTask, rollbackTask } from '../../src/tasks/deploy-task.js'
import { planTask } from '../../src/tasks/plan-task.js'
import type { TaskOutcome } from '../../src/tasks/outcome.js'
import { headCompletion } from './support/head-completion.js'
import type { Transport } from '../../src/transport/transport.js'
import { leaveLabNodes, openLab } from './support/lab-nodes.js'

const SECRET = `s3cr3t-${Math.random().toString(36).slice(2)}-value`
let manifest: Manifest
let transports: Map<string, Transport>
let dir: string
let healthy: string
let seedBug: string
let creds: DeployTaskOptions['credentials']
const log: string[] = []
const outcomes: TaskOutcome[] = []
const deploy = async (path: string, o: DeployTaskOptions): Promise<TaskOutcome> => {
  const out = await deployTask(path, o)
  outcomes.push(out)
  return out
}
const progress = (m: string) => {
  log.push(m)
  process.stderr.write(`[deploy-e2e] ${m}\n`)
}

const opts = (extra: Partial<DeployTaskOptions> = {}): DeployTaskOptions => ({
  credentials: creds,
  env: { ...process.env, VRD_TEST_SECRET: SECRET },
  onProgress: progress,
  ...extra,
})
const run = async (t: Transport, ...args: string[]) => (await t.run(argv(...args), { timeoutMs: 60_000 })).stdout.trim()
const head = () => transports.get('spark-a')!
const json = (o: TaskOutcome) =>
  o.json as {
    result: string
    release: string
    changed: boolean
    rolledBack: boolean
    failure?: { stage: string }
    onFailure?: { action: string; ok: boolean }
    findings: { code: string }[]
    image?: { bytesSent: number; actions: Record<string, string> }
    nodes: { node: string; release: string; rayIdentity: string; state: string }[]
  }

async function currentOnEveryNode(): Promise<string[]> {
  return Promise.all([...transports.values()].map(async (t) => (await run(t, 'readlink', `${clusterStateDir(manifest)}/current`)).split('/').pop() ?? ''))
}
async function containers(): Promise<string[]> {
  return Promise.all(
    [...transports.values()].map((t) =>
      run(
        t,
        'docker',
        'inspect',
        '--format',
        '{{.Id}} {{.State.StartedAt}} {{.State.Running}} {{index .Config.Labels "io.vllm-ray-deploy.release"}}',
        manifest.container.name,
      ),
    ),
  )
}
const completion = () => headCompletion(head(), manifest)

/** Greps the argv of every process on the nodes for the secret while a rollout runs. */
function watchPs(): { stop: () => Promise<string[]> } {
  let on = true
  const seen: string[] = []
  const loop = (async () => {
    while (on) {
      for (const t of transports.values()) {
        const r = await t.run(argv('ps', '-eo', 'args'), { timeoutMs: 30_000 })
        seen.push(...r.stdout.split('\n').filter((l) => l.includes(SECRET)))
      }
      await new Promise((r) => setTimeout(r, 300))
    }
  })()
  return {
    stop: async () => {
      on = false
      await loop
      return seen
    },
  }
}

beforeAll(async () => {
  const lab = await openLab(progress)
  creds = lab.creds
  dir = mkdtempSync(join(tmpdir(), 'vrd-deploy-e2e-'))
  const text = readFileSync(lab.path, 'utf8')
  const withSecret = text.replace(/^container:\n/m, 'container:\n  secretEnv: [VRD_TEST_SECRET]\n')
  healthy = join(dir, 'healthy.yml')
  writeFileSync(healthy, withSecret)
  writeFileSync(join(dir, 'seed-bug.sh'), scenarioScript('seed-bug'), { mode: 0o755 })
  seedBug = join(dir, 'seed-bug.yml')
  writeFileSync(seedBug, withSecret.replace(/^launch:\n {2}mode: builtin\n/m, 'launch:\n  mode: script\n  path: seed-bug.sh\n'))
  expect(readFileSync(seedBug, 'utf8')).toContain('path: seed-bug.sh')
  manifest = lab.manifest
  transports = lab.transports
}, 900_000)

afterAll(async () => {
  await leaveLabNodes(transports, manifest)
}, 120_000)

describe.sequential('deploy on the lab', () => {
  it('a cold deploy ends serving, with Ray on the fabric IPs and current on every node; no secret in any process argv', async () => {
    const ps = watchPs()
    const o = await deploy(healthy, opts({ release: 'r1' }))
    const inArgv = await ps.stop()
    expect(o.exitCode, o.text).toBe(0)
    const r = json(o)
    expect(r.result).toBe('deployed')
    expect(o.outputs).toMatchObject({ result: 'deployed', release: 'r1', 'previous-release': '', changed: 'true', 'rolled-back': 'false' })
    expect(o.outputs['image-id']).toMatch(/^sha256:[0-9a-f]{64}$/)
    expect(await currentOnEveryNode()).toEqual(['r1', 'r1'])
    // Ray knows each node by its fabric address (this lab instance's: 172.30.200.12 and .13 on instance 1).
    const [fa, fb] = manifest.nodes.map((n) => n.fabricIp)
    expect(r.nodes.map((n) => n.rayIdentity)).toEqual([`${fa} (head)`, fb])
    expect((await completion()).length).toBeGreaterThan(0)
    expect(inArgv).toEqual([])
    // The secret did reach the container (so the leak checks here and at the end would see a leak if there were one).
    expect(await run(head(), 'docker', 'exec', manifest.container.name, 'printenv', 'VRD_TEST_SECRET')).toBe(SECRET)
    // The release directory: files, checksums, secrets apart in a 0600 file.
    const rel = `${clusterStateDir(manifest)}/releases/r1`
    expect(await run(head(), 'sh', '-c', `cd ${rel} && sha256sum --check --quiet SHA256SUMS && echo ok`)).toBe('ok')
    expect(await run(head(), 'stat', '-c', '%a', `${rel}/secret.env`)).toBe('600')
    expect(await run(head(), 'grep', '-c', 'secret.env', `${rel}/SHA256SUMS`).catch(() => '0')).toBe('0')
    expect((await run(head(), 'ls', rel)).split('\n').sort()).toEqual([
      'SHA256SUMS',
      'env',
      'fingerprint',
      // What the image-contents probe read in this image ID, so the next deploy of it need not read it again.
      'image-contents.json',
      'image-id',
      'manifest.json',
      // The smoke's figures, kept on the head for the next deploy's performance gate.
      'performance.json',
      'release.json',
      'secret.env',
      'serve.sh',
      'start.sh',
    ])
  }, 600_000)

  it('plan shows what that deploy ran: its steps in order, and the commands in start.sh and serve.sh', async () => {
    const plan = await planTask(healthy, { release: 'r1' })
    expect(plan.exitCode, plan.text).toBe(0)
    type Step = { id: string; action: string; runs?: { command: string } }
    const nodes = (plan.json as { nodes: { name: string; steps: Step[] }[] }).nodes
    const imageId = await run(head(), 'cat', `${clusterStateDir(manifest)}/releases/r1/image-id`)
    // The deploy's progress so far (the lab's start and r1): the plan steps it started, in order.
    const phases = new Set((plan.json as { phases: { name: string }[] }).phases.map((p) => p.name))
    const started = log
      // `stage: [node] action: …`; a step whose action is its stage's name is labelled once: `stage: [node] …`.
      .map((l) => /^\[\+ *[\d.]+s\] ([\w-]+): \[([\w-]+)\] (?:([\w-]+): |(?![\w-]+: ))(?!ok in|FAILED)/.exec(l))
      .filter((x): x is RegExpExecArray => !!x && phases.has(x[1]!))
      .map((x) => [x[2], x[3] ?? x[1]] as const)
    for (const n of nodes) {
      const planned = n.steps.filter((s) => s.action !== 'image').map((s) => s.action)
      const ran = started.filter(([node, action]) => node === n.name && action !== 'image').map(([, action]) => action)
      expect(ran, n.name).toEqual(planned)
      for (const [file, action] of [
        ['start.sh', 'ray-start'],
        ['serve.sh', 'vllm-serve'],
      ] as const) {
        const step = n.steps.find((s) => s.action === action)
        if (!step) continue
        const written = await run(transports.get(n.name)!, 'tail', '-n', '1', `${clusterStateDir(manifest)}/releases/r1/${file}`)
        // The written file names the image by its ID where the plan shows the reference.
        expect(written.endsWith(step.runs!.command.split(manifest.image.ref).join(imageId)), `${n.name} ${file}:\n${written}\n${step.runs!.command}`).toBe(true)
      }
    }
  }, 60_000)

  it('an immediate second deploy moves no image bytes, restarts no container and says unchanged', async () => {
    const before = await containers()
    const o = await deploy(healthy, opts({ release: 'r2' }))
    expect(o.exitCode, o.text).toBe(0)
    const r = json(o)
    expect(r.result).toBe('unchanged')
    expect(o.outputs).toMatchObject({ result: 'unchanged', release: 'r1', changed: 'false' })
    expect(r.image).toEqual({ bytesSent: 0, actions: { 'spark-a': 'up-to-date', 'spark-b': 'up-to-date' } })
    expect(await containers()).toEqual(before)
    expect(await currentOnEveryNode()).toEqual(['r1', 'r1'])
    expect(o.text).toMatch(/unchanged/)
  }, 600_000)

  it('the seed bug is stopped at the preflight gate with VLLM_PIN_NOT_IN_RAY, and the rollback serves r1 again', async () => {
    const o = await deploy(seedBug, opts({ release: 'bug1' }))
    expect(o.exitCode, o.text).toBe(1)
    const r = json(o)
    expect(r.result).toBe('failed')
    expect(r.failure?.stage).toBe('preflight')
    expect(r.findings.map((f) => f.code)).toContain('VLLM_PIN_NOT_IN_RAY')
    expect(r.onFailure).toMatchObject({ action: 'rollback', ok: true })
    expect(o.outputs).toMatchObject({ result: 'failed', release: 'bug1', 'previous-release': 'r1', 'rolled-back': 'true' })
    expect(await currentOnEveryNode()).toEqual(['r1', 'r1'])
    expect((await containers()).map((c) => c.split(' ').slice(2).join(' '))).toEqual(['true r1', 'true r1'])
    expect((await completion()).length).toBeGreaterThan(0)
  }, 900_000)

  it('with on-failure keep the failed containers stay; rollback --to r1 then serves r1 again', async () => {
    const before = await containers()
    const o = await deploy(seedBug, opts({ release: 'bug2', onFailure: 'keep' }))
    expect(o.exitCode, o.text).toBe(1)
    expect(json(o).onFailure?.action).toBe('keep')
    // The seed bug's own containers (its launch script labels nothing) still run.
    const kept = await containers()
    expect(kept.map((c) => c.split(' ')[2])).toEqual(['true', 'true'])
    expect(kept.map((c) => c.split(' ')[0])).not.toEqual(before.map((c) => c.split(' ')[0]))
    expect(kept.map((c) => c.split(' ')[3])).toEqual(['<no', '<no'])
    expect(await currentOnEveryNode()).toEqual(['r1', 'r1'])
    const back = await rollbackTask(healthy, opts({ to: 'r1' }))
    outcomes.push(back)
    expect(back.exitCode, back.text).toBe(0)
    expect(json(back).result).toBe('rolled-back')
    expect((await containers()).map((c) => c.split(' ').slice(2).join(' '))).toEqual(['true r1', 'true r1'])
    expect((await completion()).length).toBeGreaterThan(0)
  }, 900_000)

  it('two deploys started at once: exactly one proceeds, the other fails at once naming the holder; nothing is corrupted', async () => {
    const [a, b] = await Promise.all([deploy(healthy, opts({ release: 'twin-a' })), deploy(healthy, opts({ release: 'twin-b' }))])
    const locked = [a, b].filter((o) => json(o).failure?.stage === 'lock')
    const went = [a, b].filter((o) => json(o).failure?.stage !== 'lock')
    expect(locked).toHaveLength(1)
    expect(went).toHaveLength(1)
    expect(json(went[0]!).result).toBe('unchanged')
    const holder = went[0] === a ? 'twin-a' : 'twin-b'
    expect(locked[0]!.exitCode).toBe(1)
    expect(json(locked[0]!).findings.map((f) => f.code)).toEqual(['DEPLOY_LOCKED'])
    expect(locked[0]!.text).toContain(`release ${holder}`)
    expect(json(locked[0]!).changed).toBe(false)
    expect(await currentOnEveryNode()).toEqual(['r1', 'r1'])
    expect((await deployLockStatus(head(), manifest)).held).toBe(false)
    for (const t of transports.values())
      expect(await run(t, 'sh', '-c', `cd ${clusterStateDir(manifest)}/current && sha256sum --check --quiet SHA256SUMS && echo ok`)).toBe('ok')
  }, 600_000)

  it.skipIf(!existsSync('dist/cli/index.js'))(
    'the CLI killed with SIGTERM mid-rollout exits 130, leaves no lock and current unchanged',
    async () => {
      const paths = labPaths(resolveLabDir())
      const child = spawn(
        process.execPath,
        ['dist/cli/index.js', 'deploy', '--manifest', healthy, '--ssh-key', paths.sshKey, '--known-hosts', paths.knownHosts, '--release', 'r4', '--force'],
        { env: { ...process.env, VRD_TEST_SECRET: SECRET }, stdio: ['ignore', 'pipe', 'pipe'] },
      )
      let err = ''
      let sent = false
      child.stderr.setEncoding('utf8').on('data', (c: string) => {
        err += c
        if (!sent && /ray-head: \[spark-a\] ray-start/.test(err)) {
          sent = true
          child.kill('SIGTERM')
        }
      })
      child.stdout.resume()
      const code = await new Promise<number | null>((r) => child.on('close', r))
      log.push(err)
      expect(sent, err).toBe(true)
      expect(code, err).toBe(130)
      expect(err).toMatch(/SIGTERM: stopping the step in flight and starting no other/)
      expect(err).not.toMatch(/vllm-serve/)
      expect((await deployLockStatus(head(), manifest)).held).toBe(false)
      expect(await currentOnEveryNode()).toEqual(['r1', 'r1'])
    },
    600_000,
  )

  it('a cancelled rollout (SIGTERM) stops the step in flight and starts no other, leaves current unchanged and exits 130', async () => {
    const cancel = new AbortController()
    const o = await deploy(
      healthy,
      opts({
        release: 'r3',
        force: true,
        signal: cancel.signal,
        onProgress: (m) => {
          progress(m)
          if (/ray-head: \[spark-a\] ray-start/.test(m)) cancel.abort()
        },
      }),
    )
    expect(o.exitCode, o.text).toBe(130)
    expect(json(o).result).toBe('cancelled')
    expect(json(o).failure?.stage).toBe('ray-head')
    // The step in flight ended as cancelled, and no later step started.
    expect(log.some((l) => /ray-head: \[spark-a\] ray-start: FAILED \(cancelled\)/.test(l))).toBe(true)
    expect(log.some((l) => /ray-workers: \[spark-b\] ray-start: start release r3/.test(l))).toBe(false)
    expect(await currentOnEveryNode()).toEqual(['r1', 'r1'])
    expect((await deployLockStatus(head(), manifest)).held).toBe(false)
    expect(log.some((l) => /vllm-serve/.test(l) && /r3/.test(l))).toBe(false)
  }, 600_000)

  it('a cancel during the smoke gate (issue 33): exit 130, no activate, prune or on-failure, the lock released, no container of r4 left running', async () => {
    const cancel = new AbortController()
    const at = log.length
    const o = await deploy(
      healthy,
      opts({
        release: 'r4',
        force: true,
        signal: cancel.signal,
        onProgress: (m) => {
          progress(m)
          if (!cancel.signal.aborted && /(^|\] )smoke: /.test(m)) cancel.abort()
        },
      }),
    )
    expect(o.exitCode, o.text).toBe(130)
    expect(json(o)).toMatchObject({ result: 'cancelled', rolledBack: false, failure: { stage: 'smoke' } })
    expect(json(o).onFailure?.action).toBe('stop')
    const after = log.slice(at)
    expect(after.some((l) => /(^|\] )(activate|prune): /.test(l))).toBe(false)
    expect(await currentOnEveryNode()).toEqual(['r1', 'r1'])
    expect((await deployLockStatus(head(), manifest)).held).toBe(false)
    // What it started is stopped: no container of the rollout's name runs on any node.
    for (const t of transports.values()) expect((await run(t, 'docker', 'ps', '-q', '--filter', `name=^${manifest.container.name}$`)).trim(), t.label).toBe('')
  }, 600_000)

  it('no secret value in logs, reports, facts, audit lines or the plan', async () => {
    const plan = await planTask(healthy, { release: 'x' })
    const audit = await Promise.all([...transports.values()].map((t) => run(t, 'cat', `${clusterStateDir(manifest)}/audit.jsonl`)))
    const auditLines = audit.flatMap((a) => a.split('\n')).map((l) => JSON.parse(l) as { release: string; result: string; who: string })
    expect(auditLines.filter((l) => l.release === 'r1' && l.result === 'deployed')).toHaveLength(2)
    expect(auditLines.filter((l) => l.release === 'bug1' && l.result === 'failed')).toHaveLength(2)
    const reports = outcomes.map((o) => [o.text, o.summary, JSON.stringify(o.json), JSON.stringify(o.outputs), ...o.files.map((f) => f.content)].join('\n'))
    expect(outcomes.some((o) => o.files.some((f) => f.output === 'facts-file'))).toBe(true)
    const everything = [log.join('\n'), plan.text, JSON.stringify(plan.json), audit.join('\n'), ...reports].join('\n')
    expect(everything).not.toContain(SECRET)
  }, 300_000)
})
