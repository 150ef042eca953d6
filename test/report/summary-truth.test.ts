/**
 * The job summary tells the truth (issue 27, item 4), through the tasks both front doors call:
 * every command's summary starts with its verdict (a node that cannot be reached included), a
 * section names only the checks that ran, a launch-script finding annotates the script's line
 * whichever command found it, a container without a release label is never "running ?", and an
 * option a message names is said in the words of the front door that runs it.
 */
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { fail, ok, problem, type Result } from '../../src/result/result.js'
import { allInWords, inWords, OPTION_INPUTS, option } from '../../src/command/option-words.js'
import { containerState, parseNodeState } from '../../src/deploy/node-state.js'
import type { RolloutReport } from '../../src/deploy/rollout.js'
import { INPUT_NAMES } from '../../src/action/action-inputs.js'
import { rolloutHeadline } from '../../src/report/rollout-report.js'
import { VERDICT_LINE } from '../../src/report/verdict.js'
import { renderSummary } from '../../src/report/summary.js'
import { loadManifestFile } from '../../src/manifest/load-manifest.js'
import { proveCluster } from '../../src/smoke/cluster-proof.js'
import { placementLine } from '../../src/smoke/gate.js'
import { renderSmokeMarkdown, renderSmokeText } from '../../src/smoke/smoke-report.js'
import { deployTask, rollbackTask, rolloutOutcome } from '../../src/tasks/deploy-task.js'
import { diagnoseTask } from '../../src/tasks/diagnose-task.js'
import { lockTask } from '../../src/tasks/lock-task.js'
import { type TaskOutcome, usageError } from '../../src/tasks/outcome.js'
import { planTask } from '../../src/tasks/plan-task.js'
import { preflightTask } from '../../src/tasks/preflight.js'
import { smokeTask } from '../../src/tasks/smoke.js'
import { validateTask } from '../../src/tasks/validate.js'
import type { Transport } from '../../src/transport/transport.js'

const EXAMPLE = 'src/manifest/examples/dgx-spark-pair.yml'
const SCRIPT = 'test/script-check/fixtures/spark-vllm-qwen35.sh'
const credentials = { privateKey: 'unused' }
/** SSH that fails the way a wrong key or a dead host does: before any command runs. */
const unreachable = async (): Promise<Result<Transport>> => fail(problem('SSH_CONNECT_FAILED', 'connect ECONNREFUSED 10.1.230.180:22'))
/** A node that answers every command with a failure (nothing on it is readable). */
const refusing = async (): Promise<Result<Transport>> =>
  ok({
    label: 'refusing',
    run: async () => ({ code: 1, signal: null, stdout: '', stderr: 'refused', durationMs: 1, timedOut: false }),
    close: async () => {},
  })

/** The example manifest in launch.mode script, the seeds' launch script beside it. */
function scriptManifest(scriptCheck: 'warn' | 'block'): { manifest: string; script: string } {
  const dir = mkdtempSync(join(tmpdir(), 'vrd-truth-'))
  const script = join(dir, 'launch.sh')
  copyFileSync(SCRIPT, script)
  const text = readFileSync(EXAMPLE, 'utf8').replace(/launch:\n {2}mode: builtin\n/, `launch:\n  mode: script\n  path: launch.sh\n`)
  const manifest = join(dir, 'cluster.yml')
  writeFileSync(
    manifest,
    /\ndeploy:\n/.test(text) ? text.replace(/\ndeploy:\n/, `\ndeploy:\n  scriptCheck: ${scriptCheck}\n`) : `${text}\ndeploy:\n  scriptCheck: ${scriptCheck}\n`,
  )
  return { manifest, script }
}

describe('every command summary starts with its verdict', () => {
  const runs: [string, () => Promise<TaskOutcome>, RegExp][] = [
    ['validate', () => validateTask(EXAMPLE), /^### ✅ passed: /u],
    ['validate, invalid', () => validateTask('test/fixtures/three-mistakes.yml'), /^### ❌ failed: manifest invalid/u],
    ['plan', () => planTask(EXAMPLE), /^### ✅ passed: plan for spark-pair/u],
    ['diagnose', () => diagnoseTask({ rayNodes: 'test/preflight/fixtures/ray/ray-nodes-healthy.json' }), /^### ✅ passed: diagnosis/u],
    ['a usage error', async () => usageError('input ssh-private-key is required for smoke'), /^### ❌ failed: input ssh-private-key/u],
    ['preflight, SSH fails', () => preflightTask(EXAMPLE, { credentials, connect: unreachable }), /^### ❌ failed: preflight of spark-pair/u],
    ['smoke, SSH fails', () => smokeTask(EXAMPLE, { credentials, env: {}, connect: unreachable }), /^### ❌ failed: smoke test of spark-pair: failed/u],
    ['deploy, SSH fails', () => deployTask(EXAMPLE, { credentials, env: {}, connect: unreachable }), /^### ❌ failed: cannot reach every node.*ECONNREFUSED/u],
    ['rollback, SSH fails', () => rollbackTask(EXAMPLE, { credentials, env: {}, connect: unreachable }), /^### ❌ failed: cannot reach every node/u],
    ['lock status, SSH fails', () => lockTask('status', EXAMPLE, { credentials, connect: unreachable }), /^### ❌ failed: cannot reach the head spark-a/u],
  ]
  it.each(runs)('%s', async (_name, run, first) => {
    const outcome = await run()
    const line = outcome.summary.split('\n')[0]!
    expect(line).toMatch(VERDICT_LINE)
    expect(line).toMatch(first)
  })
})

describe('a section says only what ran', () => {
  it('a smoke run claims no Ray identity preflight', async () => {
    const outcome = await smokeTask(EXAMPLE, { credentials, env: {}, connect: unreachable })
    expect(outcome.summary).not.toMatch(/Ray identity preflight/)
  })

  it('a rollback that stopped before any check claims none; its headline names no release "-"', () => {
    const report: RolloutReport = {
      command: 'rollback',
      release: '-',
      result: 'failed',
      changed: false,
      rolledBack: false,
      failure: { stage: 'state', reason: `no previous release on spark-a; name one with ${option('to')} (releases: r1)` },
      findings: [],
      nodes: [],
      durationMs: 900,
    }
    const outcome = rolloutOutcome('spark-pair', report)
    expect(outcome.summary).not.toMatch(/preflight/i)
    expect(outcome.summary).toContain('No findings.')
    expect(rolloutHeadline('spark-pair', report)).not.toMatch(/release -|release {2}/)
    expect(inWords(rolloutHeadline('spark-pair', report), 'cli')).toMatch(
      /^rollback spark-pair: failed at state: no previous release on spark-a; name one with --to/,
    )
  })

  it('a finding about no single node is headed by the cluster', async () => {
    const outcome = await diagnoseTask({
      rayNodes: 'test/preflight/fixtures/ray/seed-ray-nodes.txt',
      logs: ['test/preflight/fixtures/logs/vllm-pg-wait-new.txt'],
    })
    const clusterWide = (outcome.json as { findings: { node: string | null; code: string }[] }).findings.filter((f) => f.node === null)
    expect(clusterWide.length).toBeGreaterThan(0)
    for (const f of clusterWide) expect(outcome.summary).toContain(`#### \`${f.code}\` on the cluster`)
    expect(outcome.summary).not.toMatch(/ on -\n|\| - \|/)
    for (const a of outcome.annotations) expect(a.title).not.toMatch(/ on -$/)
  })
})

describe('a launch-script finding annotates its file and line, whichever command found it', () => {
  it('preflight (the script read before facts are gathered)', async () => {
    const { manifest, script } = scriptManifest('warn')
    const outcome = await preflightTask(manifest, { credentials, connect: unreachable })
    const scripted = outcome.annotations.filter((a) => a.title.startsWith('SCRIPT_'))
    expect(scripted.length).toBeGreaterThan(0)
    for (const a of scripted) expect(a).toMatchObject({ file: relative(process.cwd(), script), line: expect.any(Number) })
  })

  it("deploy (the script check is the deploy's first gate)", async () => {
    const { manifest, script } = scriptManifest('block')
    // The example names HF_TOKEN in container.secretEnv: set, so the deploy gets past its inputs.
    const outcome = await deployTask(manifest, { credentials, env: { HF_TOKEN: 'hf_example_token' }, connect: refusing })
    expect(outcome.outputs.result).toBe('failed')
    const scripted = outcome.annotations.filter((a) => a.title.startsWith('SCRIPT_'))
    expect(scripted.length).toBeGreaterThan(0)
    for (const a of scripted) expect(a).toMatchObject({ file: relative(process.cwd(), script), line: expect.any(Number) })
  })
})

describe("a container's state names its release", () => {
  const state = (lines: string) => containerState(parseNodeState('spark-a', lines))
  it('a launch script started it (no label): the release that recorded it, else unknown; never "?"', () => {
    expect(state('current=r2\ncurrent-container=cid\ncontainer=cid true 2026-12-03T14:00:00Z sha256:i <no value>\n')).toBe('running r2')
    expect(state('current=r2\ncurrent-container=old\ncontainer=cid true 2026-12-03T14:00:00Z sha256:i <no value>\n')).toBe(
      'running, release unknown (the container has no release label)',
    )
    expect(state('container=cid true 2026-12-03T14:00:00Z sha256:i r3\n')).toBe('running r3')
    for (const s of [state('container=cid false 0 sha256:i <no value>\n'), state('')]) expect(s).not.toMatch(/\?/)
  })
})

describe('options in the words of the front door', () => {
  it('a failed rollback names the rollback-to input in the Action and --to in the CLI', () => {
    const report: RolloutReport = {
      command: 'rollback',
      release: '-',
      result: 'failed',
      changed: false,
      rolledBack: false,
      failure: { stage: 'state', reason: `no previous release on spark-a; name one with ${option('to')} (releases: r1)` },
      findings: [],
      nodes: [],
      durationMs: 900,
    }
    const outcome = rolloutOutcome('spark-pair', report)
    const action = allInWords(outcome, 'action')
    const cli = allInWords(outcome, 'cli')
    for (const s of [action.headline, action.summary, action.text]) {
      expect(s).toContain('name one with the `rollback-to` input')
      expect(s).not.toMatch(/--to|\u2060/)
    }
    expect(cli.text).toContain('name one with --to (releases: r1)')
    expect(cli.text).not.toMatch(/\u2060/)
    expect(inWords(`redeploy with ${option('force')}; a rollback with ${option('to', 'RELEASE')}`, 'action')).toBe(
      'redeploy with the `force` input; a rollback with the `rollback-to` input (RELEASE)',
    )
  })

  it('diagnose without any input names the inputs in a workflow and the options in a terminal', async () => {
    const outcome = await diagnoseTask({})
    expect(allInWords(outcome, 'action').headline).toBe(
      'diagnose needs at least one of the `facts` input, the `ray-nodes` input, the `ray-status` input, the `logs` input, the `launch-script` input',
    )
    expect(allInWords(outcome, 'cli').text).toBe('error: diagnose needs at least one of --facts, --ray-nodes, --ray-status, --log, --launch-script\n')
  })

  it("the words of each option are the command table's: every option the Action takes, under its real Action input", async () => {
    const { OPTIONS } = await import('../../src/tasks/command-table.js')
    const specs = Object.values(OPTIONS) as { flag: string; input?: string }[]
    // Derived from the table (src/command/option-words.ts): exactly its options with an input.
    expect(OPTION_INPUTS).toEqual(Object.fromEntries(specs.filter((o) => o.input !== undefined).map((o) => [o.flag, o.input])))
    expect(Object.keys(OPTION_INPUTS)).toContain('to')
    expect(Object.keys(OPTION_INPUTS)).not.toContain('json') // CLI only
    for (const input of Object.values(OPTION_INPUTS)) expect(INPUT_NAMES as readonly string[], `${input} is an Action input`).toContain(input)
    expect(inWords(`run again with ${option('to', 'RELEASE')}`, 'action')).toBe('run again with the `rollback-to` input (RELEASE)')
  })

  it('no message in the core names one of these options literally: each goes through option()', () => {
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? files(join(dir, f)) : f.endsWith('.ts') ? [join(dir, f)] : []))
    const flags = Object.keys(OPTION_INPUTS).join('|')
    const literal = new RegExp(`(['"\`][^'"\`\\n]*?)--(${flags})(?![a-z-])`)
    // CLI-only commands (no Action input carries them) are quoted whole, as a command to type.
    const cliOnly = /vllm-ray-deploy (lock|validate|preflight|diagnose) [^'"`]*$/
    const found: string[] = []
    // lock and lab are CLI-only commands: their messages are in the CLI's words wherever they run.
    const sources = ['src/deploy', 'src/smoke', 'src/report', 'src/preflight', 'src/script-check', 'src/tasks'].flatMap(files)
    for (const file of sources.filter((f) => !/src\/tasks\/(lock|lab)-task\.ts$/.test(f))) {
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (/^\s*(\*|\/\/|\/\*)/.test(line)) return
          const m = literal.exec(line)
          if (m && !cliOnly.test(m[1]!)) found.push(`${file}:${i + 1}: ${line.trim()}`)
        })
    }
    expect(found).toEqual([])
  })
})

describe('no placement group: the cluster has the finding, not "-" or "no nodes"', () => {
  it('the smoke figures, the operator summary and the progress line', async () => {
    const { manifest } = await loadManifestFile(EXAMPLE)
    const proof = proveCluster(manifest!, { pgs: {}, nodes: [] })
    const missing = proof.findings.find((f) => f.code === 'SMOKE_PLACEMENT_GROUP_MISSING')!
    expect(missing.node).toBeNull()
    expect(placementLine(proof)).not.toMatch(/no nodes/)
    expect(placementLine(proof)).toMatch(/no live placement group/)
    const report = { cluster: 'spark-pair', model: 'm', via: 'v', proof, findings: proof.findings }
    expect(renderSmokeMarkdown(report)).toContain('| `SMOKE_PLACEMENT_GROUP_MISSING` | error | the cluster |')
    expect(renderSmokeText(report)).toContain('ERROR SMOKE_PLACEMENT_GROUP_MISSING on the cluster:')
    const summary = renderSummary({ verdict: 'failed', headline: 'smoke', nodes: [], findings: proof.findings, checks: ['smoke test'] })
    expect(summary).toContain('#### `SMOKE_PLACEMENT_GROUP_MISSING` on the cluster')
    expect(summary).not.toMatch(/ on -$/m)
  })
})
