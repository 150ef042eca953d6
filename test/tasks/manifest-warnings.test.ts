/**
 * Issue #27's silent drop, end to end without a lab: a script-mode manifest with `container.env`
 * (and a launch script beside it) passes `validate`, but `validate`, `plan` and `deploy` each say
 * that container.env is not read, at its line and column: in the text the CLI prints, in the JSON,
 * after the summary's verdict line, and as a `warning` annotation the Action turns into ::warning.
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { fail, problem } from '../../src/result/result.js'
import { main } from '../../src/cli/cli-main.js'
import { deployTask } from '../../src/tasks/deploy-task.js'
import type { TaskOutcome } from '../../src/tasks/outcome.js'
import { rolloutOutcome } from '../../src/tasks/deploy-task.js'
import { validateTask, withManifestWarnings } from '../../src/tasks/validate.js'
import { loadManifestFile } from '../../src/manifest/load-manifest.js'

const MANIFEST = `version: 1
cluster: pair
fabric:
  interfaces: [enp1s0f1np1]
  subnet: 192.168.200.0/24
nodes:
  - { name: spark-a, role: head, ssh: { host: 10.1.230.180 }, fabricIp: 192.168.200.12, gpus: 1 }
  - { name: spark-b, role: worker, ssh: { host: 10.1.230.181 }, fabricIp: 192.168.200.13, gpus: 1 }
image:
  ref: vllm/vllm-openai:v0.11.0
container:
  name: vllm-ray
  env:
    NCCL_DEBUG: INFO
vllm:
  model: Qwen/Qwen3-0.6B
  tensorParallelSize: 2
launch:
  mode: script
  path: launch.sh
  allowOutsideRepository: true
`
/** container.env's key: line 13, column 3. */
const WHERE = ':13:3:'

function cluster(): string {
  const dir = mkdtempSync(join(tmpdir(), 'vrd-warn-'))
  writeFileSync(
    join(dir, 'launch.sh'),
    '#!/bin/bash\ndocker run -d --name "$VRD_CONTAINER" --network host "$VRD_IMAGE" ray start --block --node-ip-address="$VRD_NODE_IP"\n',
  )
  const path = join(dir, 'cluster.yml')
  writeFileSync(path, MANIFEST)
  return path
}

async function cli(...args: string[]) {
  let out = ''
  let err = ''
  const code = await main(args, { out: (s) => (out += s), err: (s) => (err += s), env: {} })
  return { code, out, err }
}

function expectWarned(outcome: TaskOutcome, path: string): void {
  expect(outcome.annotations.filter((a) => a.level === 'warning')).toEqual([
    expect.objectContaining({ title: 'manifest KEY_NOT_READ_IN_LAUNCH_MODE', file: path, line: 13, col: 3 }),
  ])
  const [verdict, , ...rest] = outcome.summary.split('\n')
  expect(verdict).toMatch(/^### (✅ passed|❌ failed)/) // the verdict stays the first line
  expect(rest.join('\n')).toMatch(/\| `container\.env` \| container\.env is not read with launch\.mode: script/)
  expect((outcome.json as { manifestWarnings: { path: string; line: number }[] }).manifestWarnings).toEqual([
    expect.objectContaining({ path: 'container.env', line: 13, col: 3, code: 'KEY_NOT_READ_IN_LAUNCH_MODE' }),
  ])
}

describe('launch.mode script with container.env', () => {
  it('validate: valid (exit 0), with the warning at container.env in the text, the JSON, the summary and the annotations', async () => {
    const path = cluster()
    const r = await cli('validate', '--manifest', path)
    expect(r.code).toBe(0)
    expect(r.out).toContain(`1 warning in ${path}:\n${path}${WHERE} container.env is not read with launch.mode: script`)
    expect(r.out).toMatch(/is valid \(1 warning\): cluster pair/)
    const json = await cli('validate', '--manifest', path, '--json')
    expect(JSON.parse(json.out)).toMatchObject({ valid: true, manifestWarnings: [{ path: 'container.env', line: 13, col: 3 }] })
    const outcome = await validateTask(path)
    expectWarned(outcome, path)
    expect(outcome.outputs['warning-count']).toBe('1')
  })

  it('plan: the plan, and the warning before it', async () => {
    const path = cluster()
    const r = await cli('plan', '--manifest', path)
    expect(r.code).toBe(0)
    expect(r.out.indexOf(`${path}${WHERE} container.env is not read`)).toBeGreaterThanOrEqual(0)
    expect(r.out.indexOf(`${path}${WHERE}`)).toBeLessThan(r.out.indexOf('launch-head'))
  })

  it('deploy: the warning travels with whatever the deploy ends in (here: no node reachable, nothing changed)', async () => {
    const path = cluster()
    const outcome = await deployTask(path, {
      credentials: { privateKey: 'unused' },
      env: {},
      release: 'r1',
      connect: async (_m, node) => fail(problem('SSH_CONNECT_FAILED', `connect ECONNREFUSED ${node.ssh.host}:22`)),
    })
    expect(outcome.exitCode).toBe(1)
    expect(outcome.headline).toMatch(/cannot reach every node/)
    expect(outcome.text).toContain(`${path}${WHERE} container.env is not read with launch.mode: script`)
    expect(outcome.annotations).toContainEqual(expect.objectContaining({ level: 'warning', file: path, line: 13, col: 3 }))
  })

  it("the counts a workflow reads say what the summary shows: the manifest's warnings, and a failure that is not a finding", async () => {
    const { warnings } = await loadManifestFile(cluster())
    expect(warnings).toHaveLength(1)
    const base = { release: 'r1', changed: false, rolledBack: false, nodes: [], durationMs: 1 } as const
    const deployed = withManifestWarnings(rolloutOutcome('pair', { ...base, command: 'deploy', result: 'deployed', changed: true, findings: [] }), warnings)
    expect(deployed.outputs).toMatchObject({ 'warning-count': '1', 'error-count': '0' })
    const failed = rolloutOutcome('pair', {
      ...base,
      command: 'rollback',
      release: '-',
      result: 'failed',
      failure: { stage: 'state', reason: 'nothing to roll back to on spark-a' },
      findings: [],
    })
    expect(failed.outputs['error-count']).toBe('1')
    expect(failed.summary).toContain('nothing to roll back to on spark-a')
  })

  it('the same manifest with the built-in launcher has no warning', async () => {
    const path = cluster()
    writeFileSync(path, MANIFEST.replace(/launch:\n[\s\S]*$/, 'launch:\n  mode: builtin\n'))
    const outcome = await validateTask(path)
    expect(outcome.exitCode).toBe(0)
    expect(outcome.annotations).toEqual([])
    expect(outcome.text).not.toMatch(/warning/)
  })
})

describe('the Action', () => {
  afterEach(() => {
    vi.restoreAllMocks()
    vi.unstubAllEnvs()
  })

  it('validate prints a ::warning annotation at the manifest file, line 13, column 3, and the step succeeds', async () => {
    const path = cluster()
    const dir = mkdtempSync(join(tmpdir(), 'vrd-warn-action-'))
    const written: string[] = []
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk))
      return true
    })
    const env = { INPUT_COMMAND: 'validate', INPUT_MANIFEST: path, INPUT_FORCE: 'false', 'INPUT_WAIT-LOCK': 'false' }
    for (const [k, v] of Object.entries(env)) vi.stubEnv(k, v)
    vi.stubEnv('GITHUB_OUTPUT', join(dir, 'out'))
    vi.stubEnv('GITHUB_STATE', join(dir, 'state'))
    vi.stubEnv('RUNNER_TEMP', dir)
    writeFileSync(join(dir, 'out'), '')
    writeFileSync(join(dir, 'state'), '')
    process.exitCode = undefined
    const { run } = await import('../../src/action/action-main.js')
    await run()
    const exitCode = process.exitCode
    process.exitCode = undefined
    const printed = written.join('')
    expect(exitCode ?? 0).toBe(0)
    const warnings = printed.split('\n').filter((l) => l.startsWith('::warning '))
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(
      /^::warning title=manifest KEY_NOT_READ_IN_LAUNCH_MODE,file=[^,]*cluster\.yml,line=13,col=3::container\.env is not read with launch\.mode: script/,
    )
    expect(printed).not.toMatch(/^::error /m)
  })
})
