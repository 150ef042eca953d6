/**
 * The deploy workflows run by act (host mode, the self-hosted runner's way) against the lab, in a
 * consumer's repository built from the adoption list of docs/workflows.md alone (run-act.ts): the secrets,
 * variables, manifest and event payloads as GitHub would hand them over, the action as a released
 * ref (`uses: example-org/vllm-ray-deploy@v0`: action.yml and dist/index.js), a dry run dispatched
 * with its input as a JSON boolean and as a string (nothing changes), a rollback, and the failure
 * artifact the action's own report fills. Run under the lab lock:
 *   VRD_LAB_DIR=/work/main/.lab flock /tmp/vrd-lab.flock npx vitest run test/workflows/act.e2e.test.ts
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { argv } from '../../src/command/shell.js'
import { type LabInfo, labTransports, labUp, loadLabManifest, scenarioScript } from '../support/lab.js'
import { nativeLabManifest } from '../../src/lab/native-manifest.js'
import { deployTask } from '../../src/tasks/deploy-task.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { auditLogPath, clusterStateDir } from '../../src/plan/release-commands.js'
import { deployLockDir } from '../../src/plan/lock-commands.js'
import type { Transport } from '../../src/transport/transport.js'
import { ACTION_REF, type ActCredentials, type ActResult, actBinary, adoptionList, commitChange, makeDeployRepo, runAct } from './act/run-act.js'

const ACTION_STEP = `Main ${ACTION_REF}`

const progress = (m: string) => process.stderr.write(`[act-e2e] ${m}\n`)
let info: LabInfo
let credentials: ActCredentials
let labManifest: string
let manifest: Manifest
let transports: Map<string, Transport>

beforeAll(async () => {
  actBinary() // builds act on first use, outside the timed runs
  info = await labUp({ nodes: 2, onProgress: progress })
  credentials = { sshKey: readFileSync(info.sshKeyPath, 'utf8'), knownHosts: readFileSync(info.knownHostsPath, 'utf8') }
  labManifest = readFileSync(info.manifestPath, 'utf8')
  manifest = (await loadLabManifest()).manifest
  transports = await labTransports(manifest)
}, 900_000)

/** No container and no releases: the push's deploy is a cold one. Also what this file leaves behind. */
async function cleanCluster(): Promise<void> {
  for (const t of transports.values()) {
    await t.run(argv('docker', 'rm', '-f', manifest.container.name), { timeoutMs: 60_000 })
    await t.run(argv('rm', '-rf', clusterStateDir(manifest)), { timeoutMs: 60_000 })
  }
}

afterAll(async () => {
  if (transports) {
    await cleanCluster()
    await Promise.all([...transports.values()].map((t) => t.close()))
  }
}, 120_000)

const headSha = (repo: string) => execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repo, encoding: 'utf8' }).trim()
const containerIds = async () =>
  Promise.all(
    [...transports.values()].map(async (t) =>
      (await t.run(argv('docker', 'inspect', '--format', '{{.Id}} {{.State.StartedAt}}', manifest.container.name), { timeoutMs: 30_000 })).stdout.trim(),
    ),
  )

/** What a run that changes nothing must leave as it was: the containers, the audit log, no lock. */
const clusterState = async () => {
  const head = transports.get(manifest.nodes.find((n) => n.role === 'head')!.name)!
  const audit = (await head.run(argv('cat', auditLogPath(manifest)), { timeoutMs: 30_000 })).stdout
  const lock = (await head.run(argv('test', '-e', deployLockDir(manifest)), { timeoutMs: 30_000 })).code === 0
  return { containers: await containerIds(), audit, lock }
}

const ip = (name: string, net: 'mgmtIp' | 'fabricIp') => info.nodes.find((n) => n.name === name)![net]
const show = (r: ActResult) => r.log.split('\n').slice(-80).join('\n')
const timings: string[] = []
const timed = (label: string, r: ActResult) => {
  timings.push(`${label}: ${(r.durationMs / 1000).toFixed(1)} s`)
  progress(`${label}: act took ${(r.durationMs / 1000).toFixed(1)} s, exit ${r.exitCode}`)
}

describe.sequential('the three triggers on the lab', () => {
  let repo: string
  let pushRelease: string

  it('push to main (manifest changed) -> deploy: a cold deploy ends green, the summary shows every identity matching', async () => {
    await cleanCluster()
    repo = makeDeployRepo({ manifest: labManifest })
    // The consumer's repository is the adoption list and nothing else: no action code, no scripts.
    const files = execFileSync('git', ['ls-files'], { cwd: repo, encoding: 'utf8' }).trim().split('\n').sort()
    expect(files).toEqual(
      adoptionList()
        .map((f) => f.to)
        .sort(),
    )
    pushRelease = headSha(repo)
    const r = await runAct(repo, { event: 'push', workflow: 'deploy.yml', eventFile: 'push.json', credentials, onLine: (l) => progress(`act: ${l}`) })
    timed('push -> deploy (cold)', r)
    expect(r.exitCode, show(r)).toBe(0)
    expect(r.jobSucceeded).toBe(true)
    // The rollout job (the one with the deploy environment) ran, and only it.
    expect(new Set(r.steps.map((s) => s.job))).toEqual(new Set(['deploy/deploy spark-pair']))
    expect(r.steps.find((s) => s.step === ACTION_STEP)?.ok).toBe(true)
    expect(r.log).toMatch(/::set-output:: result=deployed/)
    expect(r.log).toContain(`::set-output:: release=${pushRelease}`)
    const summary = r.summaries.find((s) => s.includes('<sub>vllm-ray-deploy deploy</sub>'))
    expect(summary, show(r)).toBeDefined()
    expect(summary).toMatch(new RegExp(`### ✅ passed: deploy lab: release ${pushRelease} deployed and serving`))
    const f = ip('spark-a', 'fabricIp')
    expect(summary).toContain(`| spark-a | head | ${ip('spark-a', 'mgmtIp')} | ${f} | ✅ ${f} | ✅ node:${f} |`)
    expect(summary).toContain('```mermaid')
    expect(summary).not.toContain('❌')
    expect(r.artifacts.size).toBe(0)
    // The key reached the action as a secret: act masked it in the log.
    expect(r.log).not.toContain(credentials.sshKey.split('\n')[1]!)
  }, 900_000)

  it('workflow_dispatch command: smoke on the healthy lab passes; the summary carries the latency table', async () => {
    const r = await runAct(repo, { event: 'workflow_dispatch', workflow: 'deploy.yml', eventFile: 'dispatch-smoke.json', credentials })
    timed('dispatch smoke', r)
    expect(r.exitCode, show(r)).toBe(0)
    expect(new Set(r.steps.map((s) => s.job))).toEqual(new Set(['deploy/smoke spark-pair']))
    expect(r.log).toMatch(/::set-output:: verdict=passed/)
    const summary = r.summaries.find((s) => s.includes('<sub>vllm-ray-deploy smoke</sub>'))
    expect(summary, show(r)).toBeDefined()
    expect(summary).toMatch(/### ✅ passed: smoke test of lab: passed/)
    expect(summary).toContain('#### Smoke test latency')
    expect(summary).toMatch(/\| streamed request \| ✅ \| \d+ ms \|/)
    expect(summary).toContain(`| spark-a | head | ${ip('spark-a', 'mgmtIp')} | ${ip('spark-a', 'fabricIp')} | ✅ ${ip('spark-a', 'fabricIp')} |`)
  }, 600_000)

  it('workflow_dispatch command: preflight on the healthy lab passes (read-only job, the environment without reviewers)', async () => {
    const r = await runAct(repo, { event: 'workflow_dispatch', workflow: 'deploy.yml', eventFile: 'dispatch-preflight.json', credentials })
    timed('dispatch preflight', r)
    expect(r.exitCode, show(r)).toBe(0)
    expect(new Set(r.steps.map((s) => s.job))).toEqual(new Set(['deploy/preflight spark-pair']))
    expect(r.summaries.find((s) => s.includes('<sub>vllm-ray-deploy preflight</sub>'))).toContain('### ✅ passed: preflight of lab: no findings')
  }, 600_000)

  it('workflow_dispatch command: deploy of the seed bug fails with VLLM_PIN_NOT_IN_RAY and rolls back; the summary shows the mismatch in the table and the diagram; the artifact holds it all', async () => {
    // The change a person pushes: the launch script with the incident, named by the manifest.
    commitChange(repo, '.github/launch/seed-bug.sh', scenarioScript('seed-bug'), 'launch through our own script')
    commitChange(
      repo,
      '.github/vllm-ray-deploy.yml',
      labManifest.replace(/^launch:\n {2}mode: builtin\n/m, 'launch:\n  mode: script\n  path: launch/seed-bug.sh\n'),
      'use the launch script',
    )
    expect(readFileSync(join(repo, '.github/vllm-ray-deploy.yml'), 'utf8')).toContain('path: launch/seed-bug.sh')
    const bugRelease = headSha(repo)
    const r = await runAct(repo, {
      event: 'workflow_dispatch',
      workflow: 'deploy.yml',
      eventFile: 'dispatch-deploy.json',
      credentials,
      onLine: (l) => progress(`act: ${l}`),
    })
    timed('dispatch deploy (seed bug, rolled back)', r)
    expect(r.exitCode, show(r)).not.toBe(0)
    expect(r.jobSucceeded).toBe(false)
    expect(new Set(r.steps.map((s) => s.job))).toEqual(new Set(['deploy/deploy spark-pair']))
    expect(r.log).toMatch(/::error title=VLLM_PIN_NOT_IN_RAY on spark-a::/)
    expect(r.log).toMatch(/::set-output:: rolled-back=true/)
    const summary = r.summaries.find((s) => s.includes('<sub>vllm-ray-deploy deploy</sub>'))
    expect(summary, show(r)).toBeDefined()
    // A dispatched deploy records <commit SHA>-<run id> (deploy.yml), so the same commit can be deployed again.
    expect(summary).toMatch(new RegExp(`release ${bugRelease}-\\d+ failed at preflight`))
    // The table on top is what runs now (the rolled-back release); what the failed release showed has its own section.
    const at = summary!.indexOf(`#### What the failed release ${bugRelease}`)
    expect(at, 'a section for the failed release').toBeGreaterThan(0)
    const failedSection = summary!.slice(at)
    expectSeedBugSummary(failedSection, '#####')
    expect(summary!.split('\n')[0]).toMatch(/^### ❌ failed: /)
    // After the rollback each node runs the push's release again, and the table says so.
    expect(summary).toMatch(new RegExp(`\\| spark-a \\| head \\|[^\\n]*\\| ${pushRelease} \\|`))
    // The failure step ran: the action's report uploaded (through the upload-artifact stand-in).
    expect(
      r.steps.filter((s) => s.step.startsWith('Main Upload')).map((s) => s.ok),
      show(r),
    ).toEqual([true])
    const [name, files] = [...r.artifacts][0] ?? expect.unreachable('no artifact')
    expect(name).toMatch(/^vllm-ray-deploy-\d+-\d+$/)
    const names = [...files.keys()].sort()
    expect(names.filter((f) => !f.startsWith('bundle/'))).toEqual([
      'findings.json',
      'outcome.txt',
      'vllm-ray-deploy-deploy-summary.md',
      'vllm-ray-deploy-facts.json',
    ])
    // The failed deploy's diagnostics bundle rides along (issue 39): its index, and both nodes' engine logs.
    expect(names).toEqual(
      expect.arrayContaining(['bundle/bundle.json', 'bundle/timeline.txt', 'bundle/nodes/spark-a/engine.log', 'bundle/nodes/spark-b/engine.log']),
    )
    // The summary file is what the step wrote to GITHUB_STEP_SUMMARY (act printed it from there).
    expect(files.get('vllm-ray-deploy-deploy-summary.md')!.trimEnd()).toBe(summary!.trimEnd())
    const facts = JSON.parse(files.get('vllm-ray-deploy-facts.json')!) as { ray: { nodes: { address: string; isHead: boolean }[] } }
    expect(facts.ray.nodes.find((n) => n.isHead)?.address).toBe(ip('spark-a', 'mgmtIp'))
    expect((JSON.parse(files.get('findings.json')!) as { code: string }[]).map((f) => f.code)).toContain('VLLM_PIN_NOT_IN_RAY')
    expect(files.get('outcome.txt')).toMatch(/^== step vrd: deploy\nresult: failed\nsummary: .+/m)
  }, 900_000)

  it.each([
    ['a JSON boolean', 'dispatch-dry-run-boolean.json'],
    ['a string', 'dispatch-dry-run-string.json'],
  ])(
    'workflow_dispatch deploy with dry-run as %s: the plan job only; lock, audit log and containers untouched',
    async (_, eventFile) => {
      const before = await clusterState()
      const r = await runAct(repo, { event: 'workflow_dispatch', workflow: 'deploy.yml', eventFile, credentials })
      timed(`dispatch dry run (${eventFile})`, r)
      expect(r.exitCode, show(r)).toBe(0)
      expect(new Set(r.steps.map((s) => s.job))).toEqual(new Set(['deploy/plan spark-pair']))
      expect(r.log).toMatch(/::set-output:: result=planned/)
      expect(r.log).not.toMatch(/deploy lock taken/)
      expect(await clusterState()).toEqual(before)
    },
    600_000,
  )

  it('schedule -> preflight + smoke of the running (rolled back) cluster, green, and nothing redeployed', async () => {
    const before = await containerIds()
    const r = await runAct(makeDeployRepo({ manifest: labManifest }), {
      event: 'schedule',
      workflow: 'scheduled-smoke.yml',
      eventFile: 'schedule.json',
      credentials,
    })
    timed('schedule -> preflight + smoke', r)
    expect(r.exitCode, show(r)).toBe(0)
    expect(r.steps.filter((s) => s.step === ACTION_STEP).map((s) => s.ok)).toEqual([true, true])
    expect(r.summaries.map((s) => /<sub>(vllm-ray-deploy \w+)<\/sub>/.exec(s)?.[1])).toEqual(
      expect.arrayContaining(['vllm-ray-deploy preflight', 'vllm-ray-deploy smoke']),
    )
    // Every summary's first line is its verdict.
    for (const s of r.summaries) expect(s.split('\n')[0]).toMatch(/^### (✅|⚠️|❌|⏹️) /u)
    expect(r.log).not.toMatch(/::set-output:: result=deployed/)
    expect(await containerIds()).toEqual(before)
  }, 600_000)

  it('workflow_dispatch rollback: the rollout job (spark-pair) runs the rollback command to the previous release', async () => {
    const r = await runAct(repo, { event: 'workflow_dispatch', workflow: 'deploy.yml', eventFile: 'dispatch-rollback.json', credentials })
    timed('dispatch rollback', r)
    expect(new Set(r.steps.map((s) => s.job))).toEqual(new Set(['deploy/rollback spark-pair']))
    expect(
      r.summaries.find((s) => s.includes('<sub>vllm-ray-deploy rollback</sub>')),
      show(r),
    ).toBeDefined()
    expect(r.log).toMatch(/::set-output:: result=(rolled-back|failed)/)
  }, 900_000)
})

/** The seed bug as the operator sees it: ❌ on the head's Ray identity and vLLM pin, in the table and the diagram. */
function expectSeedBugSummary(summary: string, findingHeading = '####'): void {
  const headMgmt = ip('spark-a', 'mgmtIp')
  const headFabric = ip('spark-a', 'fabricIp')
  expect(summary).toContain(
    `| spark-a | head | ${headMgmt} | ${headFabric} | ❌ ${headMgmt} (not the fabric IP) | ❌ node:${headFabric} (Ray knows spark-a as ${headMgmt}) |`,
  )
  expect(summary).toContain(`- ❌ **spark-a**: vLLM pins bundle 0 to node:${headFabric}, but Ray knows it as ${headMgmt}.`)
  const diagram = /```mermaid\n([\s\S]*?)\n```/.exec(summary)?.[1] ?? ''
  expect(diagram).toContain(`n0_ray["Ray head<br/>✗ ${headMgmt}, not the fabric IP"]`)
  expect(diagram).toContain(`n0_vllm["vLLM pins<br/>node:${headFabric}"]`)
  expect(diagram).toContain(`n0_vllm -.-|"✗ Ray knows spark-a as ${headMgmt}"| n0_ray`)
  expect(diagram).toMatch(/class [^\n]*\bn0_vllm\b[^\n]* bad/)
  expect(summary).toContain(`${findingHeading} \`VLLM_PIN_NOT_IN_RAY\` on spark-a`)
}

describe.sequential("the consumer's workflows under vLLM's native executor (issue 34)", () => {
  let mpRepo: string

  it('push -> deploy under mp: green, its summary speaks of ranks, not Ray', async () => {
    // A release under Ray first (from the CLI's task), so the dispatched rollback below has one to go to.
    const dir = mkdtempSync(join(tmpdir(), 'vrd-act-mp-'))
    writeFileSync(join(dir, 'ray.yml'), labManifest)
    const first = await deployTask(join(dir, 'ray.yml'), {
      credentials: { privateKey: credentials.sshKey, knownHosts: credentials.knownHosts },
      env: process.env,
      onProgress: progress,
      release: 'act-ray-before-mp',
      force: true,
    })
    expect(first.exitCode, first.text).toBe(0)
    mpRepo = makeDeployRepo({ manifest: nativeLabManifest(labManifest) })
    const r = await runAct(mpRepo, { event: 'push', workflow: 'deploy.yml', eventFile: 'push.json', credentials })
    timed('push -> deploy under mp', r)
    expect(r.exitCode, show(r)).toBe(0)
    expect(r.log).toMatch(/::set-output:: result=deployed/)
    const summary = r.summaries.find((s) => s.includes('<sub>vllm-ray-deploy deploy</sub>'))
    expect(summary?.split('\n')[0]).toMatch(/^### ✅ /u)
    expect(summary).not.toMatch(/Ray identity|vLLM pins/)
  }, 900_000)

  it('schedule -> preflight + smoke of a healthy mp cluster: green on every node (the smoke looks at the worker too)', async () => {
    const before = await containerIds()
    const r = await runAct(mpRepo, { event: 'schedule', workflow: 'scheduled-smoke.yml', eventFile: 'schedule.json', credentials })
    timed('schedule under mp -> preflight + smoke', r)
    expect(r.exitCode, show(r)).toBe(0)
    expect(r.steps.filter((s) => s.step === ACTION_STEP).map((s) => s.ok)).toEqual([true, true])
    expect(r.log).not.toMatch(/SMOKE_NATIVE_NODE_MISSING|SMOKE_CHECK_INCOMPLETE/)
    const smoke = r.summaries.find((s) => s.includes('<sub>vllm-ray-deploy smoke</sub>'))
    expect(smoke?.split('\n')[0]).toMatch(/^### ✅ /u)
    expect(smoke).not.toMatch(/Ray identity|vLLM pins/)
    expect(await containerIds()).toEqual(before)
  }, 900_000)

  it('push of a broken mp release (its rendezvous cannot complete): red, rolled back to the running mp release, the artifact holds the report', async () => {
    const before = await containerIds()
    commitChange(mpRepo, '.github/vllm-ray-deploy.yml', nativeLabManifest(labManifest, ['masterPort: 22']), 'native: master port 22')
    const r = await runAct(mpRepo, { event: 'push', workflow: 'deploy.yml', eventFile: 'push.json', credentials, onLine: (l) => progress(`act: ${l}`) })
    timed('push -> broken deploy under mp (rolled back)', r)
    expect(r.exitCode, show(r)).not.toBe(0)
    expect(r.log).toMatch(/::set-output:: rolled-back=true/)
    expect(r.log).toMatch(/::error title=(ENGINE_DEAD|RENDEZVOUS_NODE_NOT_RUNNING) on spark-a::/)
    const summary = r.summaries.find((s) => s.includes('<sub>vllm-ray-deploy deploy</sub>'))
    expect(summary?.split('\n')[0]).toMatch(/^### ❌ failed: /u)
    expect(summary).toMatch(/failed at vllm/)
    expect(summary).not.toMatch(/Ray identity|vLLM pins/)
    // The failure step uploaded the action's report.
    expect(
      r.steps.filter((s) => s.step.startsWith('Main Upload')).map((s) => s.ok),
      show(r),
    ).toEqual([true])
    const [name, files] = [...r.artifacts][0] ?? expect.unreachable('no artifact')
    expect(name).toMatch(/^vllm-ray-deploy-\d+-\d+$/)
    expect([...files.keys()]).toEqual(expect.arrayContaining(['findings.json', 'outcome.txt', 'vllm-ray-deploy-deploy-summary.md']))
    expect(files.get('vllm-ray-deploy-deploy-summary.md')!.trimEnd()).toBe(summary!.trimEnd())
    expect((JSON.parse(files.get('findings.json')!) as { code: string }[]).map((f) => f.code)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^(ENGINE_DEAD|RENDEZVOUS_NODE_NOT_RUNNING)$/)]),
    )
    expect(files.get('outcome.txt')).toMatch(/^== step vrd: deploy\nresult: failed\nsummary: .+/m)
    // The rollback started the mp release again: new containers, and current never moved.
    expect(await containerIds()).not.toEqual(before)
  }, 900_000)

  it('workflow_dispatch rollback from the mp release: back to the release before it, green', async () => {
    const r = await runAct(mpRepo, { event: 'workflow_dispatch', workflow: 'deploy.yml', eventFile: 'dispatch-rollback.json', credentials })
    timed('dispatch rollback from mp', r)
    expect(r.exitCode, show(r)).toBe(0)
    expect(r.log).toMatch(/::set-output:: result=rolled-back/)
    expect(r.log).toContain('::set-output:: release=act-ray-before-mp')
  }, 900_000)
})

afterAll(() => progress(`act run times:\n  ${timings.join('\n  ')}`))
