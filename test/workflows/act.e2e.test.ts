/**
 * The deploy workflows run by act (host mode, the self-hosted runner's way) against the lab: the
 * secrets, variables, manifest and event payloads as GitHub would hand them over, the action
 * itself (`uses: ./`, dist/index.js), and the failure artifact. Run under the lab lock:
 *   VRD_LAB_DIR=/work/main/.lab flock /tmp/vrd-lab.flock npx vitest run test/workflows/act.e2e.test.ts
 */
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { labUp, type LabInfo } from '../../src/lab/index.js'
import { runLabScenario } from '../../src/lab/scenario.js'
import { type ActCredentials, type ActResult, actBinary, makeDeployRepo, runAct } from './act/run-act.js'

const progress = (m: string) => process.stderr.write(`[act-e2e] ${m}\n`)
let info: LabInfo
let credentials: ActCredentials
let labManifest: string

beforeAll(async () => {
  actBinary() // builds act on first use, outside the timed runs
  info = await labUp({ nodes: 2, onProgress: progress })
  credentials = { sshKey: readFileSync(info.sshKeyPath, 'utf8'), knownHosts: readFileSync(info.knownHostsPath, 'utf8') }
  labManifest = readFileSync(info.manifestPath, 'utf8')
}, 900_000)

const ip = (name: string, net: 'mgmtIp' | 'fabricIp') => info.nodes.find((n) => n.name === name)![net]
const show = (r: ActResult) => r.log.split('\n').slice(-80).join('\n')
const timings: string[] = []
const timed = (label: string, r: ActResult) => {
  timings.push(`${label}: ${(r.durationMs / 1000).toFixed(1)} s`)
  progress(`${label}: act took ${(r.durationMs / 1000).toFixed(1)} s, exit ${r.exitCode}`)
}

describe('workflow_dispatch, command: preflight (the machinery: act, secrets, vars, the action, the summary)', () => {
  it('on a healthy lab: the check job passes and its summary shows every identity matching', async () => {
    const scenario = await runLabScenario('healthy', { onProgress: progress })
    expect(scenario.execution.ok).toBe(true)
    const repo = makeDeployRepo({ manifest: labManifest })
    const r = await runAct(repo, { event: 'workflow_dispatch', workflow: 'deploy.yml', eventFile: 'dispatch-preflight.json', credentials })
    timed('dispatch preflight (healthy)', r)
    expect(r.exitCode, show(r)).toBe(0)
    expect(r.jobSucceeded).toBe(true)
    // Only the read-only job ran, and its action step ran the preflight.
    expect(new Set(r.steps.map((s) => s.job))).toEqual(new Set(['deploy/preflight spark-pair']))
    expect(r.steps.find((s) => s.step === 'Main ./')?.ok).toBe(true)
    const summary = r.summaries.find((s) => s.startsWith('## vllm-ray-deploy preflight'))
    expect(summary, show(r)).toBeDefined()
    expect(summary).toContain('### ✅ passed: preflight of lab: no findings')
    expect(summary).toContain(`| spark-a | head | ${ip('spark-a', 'mgmtIp')} | ${ip('spark-a', 'fabricIp')} | ✅ ${ip('spark-a', 'fabricIp')} | ✅ node:${ip('spark-a', 'fabricIp')} |`)
    expect(summary).toContain('```mermaid')
    // No failure, so no artifact.
    expect(r.artifacts.size).toBe(0)
    // The key reached the action as a secret: act masked it in the log.
    expect(r.log).not.toContain(credentials.sshKey.split('\n')[1]!)
  }, 600_000)

  it('on the seed bug: the job fails with VLLM_PIN_NOT_IN_RAY; the summary marks the mismatch in the table and the diagram; the artifact holds facts, summary and findings', async () => {
    const scenario = await runLabScenario('seed-bug', { onProgress: progress })
    expect(scenario.execution.ok).toBe(true)
    const repo = makeDeployRepo({ manifest: labManifest })
    const r = await runAct(repo, { event: 'workflow_dispatch', workflow: 'deploy.yml', eventFile: 'dispatch-preflight.json', credentials })
    timed('dispatch preflight (seed bug)', r)
    expect(r.exitCode, show(r)).not.toBe(0)
    expect(r.jobSucceeded).toBe(false)
    expect(r.log).toMatch(/::error title=VLLM_PIN_NOT_IN_RAY on spark-a::/)
    const summary = r.summaries.find((s) => s.startsWith('## vllm-ray-deploy preflight'))!
    expect(summary, show(r)).toBeDefined()
    expectSeedBugSummary(summary)
    // The failure steps ran: the report collected and uploaded (through the upload-artifact stand-in).
    expect(r.steps.filter((s) => s.step.startsWith('Main Collect') || s.step.startsWith('Main Upload')).map((s) => s.ok), show(r)).toEqual([true, true])
    const [name, files] = [...r.artifacts][0] ?? expect.unreachable('no artifact')
    expect(name).toMatch(/^vllm-ray-deploy-\d+-\d+$/)
    expect([...files.keys()].sort()).toEqual(['findings.json', 'outcome.txt', 'vllm-ray-deploy-facts.json', 'vllm-ray-deploy-preflight-summary.md'])
    // The summary file is what the step wrote to GITHUB_STEP_SUMMARY (act printed it from there).
    expect(files.get('vllm-ray-deploy-preflight-summary.md')!.trimEnd()).toBe(summary.trimEnd())
    const facts = JSON.parse(files.get('vllm-ray-deploy-facts.json')!) as { ray: { nodes: { address: string; isHead: boolean }[] } }
    expect(facts.ray.nodes.find((n) => n.isHead)?.address).toBe(ip('spark-a', 'mgmtIp'))
    expect((JSON.parse(files.get('findings.json')!) as { code: string }[]).map((f) => f.code)).toContain('VLLM_PIN_NOT_IN_RAY')
    expect(files.get('outcome.txt')).toMatch(/^result: failed$/m)
  }, 600_000)
})

/** The seed bug as the operator sees it: ❌ on the head's Ray identity and vLLM pin, in the table and the diagram. */
function expectSeedBugSummary(summary: string): void {
  const headMgmt = ip('spark-a', 'mgmtIp')
  const headFabric = ip('spark-a', 'fabricIp')
  expect(summary).toMatch(/### ❌ failed: /)
  expect(summary).toContain(
    `| spark-a | head | ${headMgmt} | ${headFabric} | ❌ ${headMgmt} (not the fabric IP) | ❌ node:${headFabric} (Ray knows spark-a as ${headMgmt}) |`,
  )
  expect(summary).toContain(`- ❌ **spark-a**: vLLM pins bundle 0 to node:${headFabric}, but Ray knows it as ${headMgmt}.`)
  const diagram = /```mermaid\n([\s\S]*?)\n```/.exec(summary)?.[1] ?? ''
  expect(diagram).toContain(`n0_ray["Ray head<br/>✗ ${headMgmt}, not the fabric IP"]`)
  expect(diagram).toContain(`n0_vllm["vLLM pins<br/>node:${headFabric}"]`)
  expect(diagram).toContain(`n0_vllm -.-|"✗ Ray knows spark-a as ${headMgmt}"| n0_ray`)
  expect(diagram).toMatch(/class [^\n]*\bn0_vllm\b[^\n]* bad/)
  expect(summary).toContain('#### `VLLM_PIN_NOT_IN_RAY` on spark-a')
}

afterAll(() => progress(`act run times:\n  ${timings.join('\n  ')}`))
