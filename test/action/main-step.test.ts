/**
 * The Action's main step (src/action/action-main.ts run()) in this process, with the runner's environment
 * and the real @actions/core (test/action/support/in-process.ts): what a workflow sees of each path
 * through it: outputs, annotations on the manifest's lines, masks set before anything is logged, log
 * groups per stage, the lock saved for the post step and cleared, the job summary and its file, the
 * failure report, and an internal error that fails the step instead of crashing it.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { run } from '../../src/action/action-main.js'
import { declaredDefault } from '../../src/action/metadata.js'
import { NODE_STATE_DIR } from '../../src/plan/node-commands.js'
import { ACTION_COMMANDS } from '../../src/tasks/command-table.js'
import { FINDINGS_FILE, MAX_REPORT_FILE_BYTES, OUTCOME_FILE } from '../../src/action/action-report.js'
import { type LoopbackSshd, startLoopbackSshd } from '../support/sshd.js'
import { inProcessStep } from './support/in-process.js'

const EXAMPLE = 'src/manifest/examples/dgx-spark-pair.yml'
/** The seeds' launch script (both of the incident's bugs). */
const SEED_SCRIPT = 'test/script-check/fixtures/spark-vllm-qwen35.sh'
const report = (dir: string, file: string) => readFileSync(join(dir, 'vllm-ray-deploy', file), 'utf8')
/** The workflow commands @actions/core wrote, one per line (`::name props::value`). */
const commands = (stdout: string, name: string) => stdout.split('\n').filter((l) => l.startsWith(`::${name}`))

describe('the main step', () => {
  it('validate: outputs, the job summary and its file byte for byte, the step marked as main, the report says it finished', async () => {
    const r = await inProcessStep(run, { with: { command: 'validate', manifest: EXAMPLE } })
    expect(r.exitCode).toBeUndefined()
    expect(r.outputs).toMatchObject({ result: 'valid', 'error-count': '0', cluster: 'spark-pair', 'report-dir': join(r.dir, 'vllm-ray-deploy') })
    expect(r.outputs.summary).toMatch(/^src\/manifest\/examples\/dgx-spark-pair\.yml is valid: cluster spark-pair, 2 nodes/)
    expect(r.outputs['summary-file']).toBe(join(r.dir, 'vllm-ray-deploy', 'vllm-ray-deploy-validate-summary.md'))
    expect(`${readFileSync(r.outputs['summary-file']!, 'utf8')}\n`).toBe(r.summary)
    expect(r.summary).toContain('<sub>vllm-ray-deploy validate</sub>')
    // The post step reads this to know it is the post step.
    expect(r.state).toEqual({ isPost: 'true' })
    expect(report(r.dir, OUTCOME_FILE)).toMatch(/^== step vllm-ray-deploy: validate\nresult: valid\nsummary: src\/manifest/)
    expect(commands(r.stdout, 'error')).toEqual([])
  })

  it('an invalid manifest: one error annotation per mistake on its line, the path relative to the workspace; the step fails with the headline', async () => {
    const r = await inProcessStep(run, { with: { command: 'validate', manifest: resolve('test/fixtures/three-mistakes.yml') } })
    expect(r.exitCode).toBe(1)
    expect(r.outputs).toMatchObject({ result: 'invalid', 'error-count': '3', summary: 'manifest invalid: 3 problems' })
    const errors = commands(r.stdout, 'error')
    expect(errors.slice(0, 3).map((l) => /file=([^,]+),line=(\d+),col=(\d+)/.exec(l)?.slice(1))).toEqual([
      ['test/fixtures/three-mistakes.yml', '10', '5'],
      ['test/fixtures/three-mistakes.yml', '15', '15'],
      ['test/fixtures/three-mistakes.yml', '22', '9'],
    ])
    expect(errors[0]).toContain('title=manifest UNKNOWN_KEY')
    // setFailed's line closes the log.
    expect(errors.at(-1)).toBe('::error::manifest invalid: 3 problems')
    expect(report(r.dir, OUTCOME_FILE)).toContain('result: invalid\nsummary: manifest invalid: 3 problems')
  })

  it('a wrong input is a usage error that names it: result error, the step fails, nothing runs', async () => {
    for (const [w, message] of [
      [{ command: 'nope' }, `input command must be one of ${ACTION_COMMANDS.join(', ')}, got "nope"`],
      [{ command: 'validate', manifest: '' }, 'input manifest is empty: give the path of the cluster manifest'],
      [{ command: 'validate', manifest: EXAMPLE, force: 'yes' }, 'input force must be "true" or "false", got "yes"'],
      [{ command: 'deploy', manifest: EXAMPLE }, 'deploy needs an SSH private key: input ssh-private-key (store the key in a secret)'],
    ] as const) {
      const r = await inProcessStep(run, { with: w })
      expect(r.exitCode, message).toBe(1)
      expect(r.outputs).toMatchObject({ result: 'error', summary: message })
      expect(commands(r.stdout, 'error')).toEqual([`::error title=vllm-ray-deploy::${message}`, `::error::${message}`])
      // The summary file is named after the command the workflow gave, even a wrong one.
      expect(r.outputs['summary-file']).toMatch(new RegExp(`vllm-ray-deploy-${w.command}-summary\\.md$`))
    }
  })

  it('diagnose: with a manifest the workflow named that does not exist, that is the error; without one it checks the pastes alone', async () => {
    const paste = { 'ray-nodes': 'test/preflight/fixtures/ray/ray-nodes-healthy.json' }
    const named = await inProcessStep(run, { with: { command: 'diagnose', manifest: 'no/such/manifest.yml', ...paste } })
    expect(named.exitCode).toBe(1)
    expect(named.outputs.result).toBe('invalid')
    expect(commands(named.stdout, 'error')[0]).toMatch(
      /^::error title=manifest FILE_NOT_FOUND,file=no\/such\/manifest\.yml,line=1,col=1::manifest file no\/such\/manifest\.yml does not exist/,
    )
    const pastes = await inProcessStep(run, { with: { command: 'diagnose', ...paste } })
    expect(pastes.exitCode).toBeUndefined()
    expect(pastes.outputs).toMatchObject({ result: 'passed', findings: '[]', 'error-count': '0' })
    expect(JSON.parse(report(pastes.dir, FINDINGS_FILE))).toEqual([])
  })

  it("the findings of the job's steps add up in findings.json; a report file past its bound is replaced with a warning, and the step still succeeds", async () => {
    const earlier = [{ code: 'EARLIER_STEP', severity: 'warning' }]
    const seed = await inProcessStep(run, {
      with: { command: 'diagnose', 'launch-script': SEED_SCRIPT, manifest: EXAMPLE },
      before: (dir) => {
        mkdirSync(join(dir, 'vllm-ray-deploy'))
        writeFileSync(join(dir, 'vllm-ray-deploy', FINDINGS_FILE), JSON.stringify(earlier))
      },
    })
    const found = JSON.parse(seed.outputs.findings!) as { code: string }[]
    expect(found.length).toBeGreaterThan(0)
    expect(JSON.parse(report(seed.dir, FINDINGS_FILE))).toEqual([...earlier, ...found])

    const big = await inProcessStep(run, {
      with: { command: 'validate', manifest: EXAMPLE },
      before: (dir) => {
        mkdirSync(join(dir, 'vllm-ray-deploy'))
        writeFileSync(join(dir, 'vllm-ray-deploy', OUTCOME_FILE), 'x'.repeat(MAX_REPORT_FILE_BYTES + 1))
      },
    })
    expect(big.exitCode).toBeUndefined()
    expect(commands(big.stdout, 'warning')[0]).toMatch(
      new RegExp(
        `^::warning::vllm-ray-deploy: failure report: .*${OUTCOME_FILE} is larger than ${MAX_REPORT_FILE_BYTES} bytes; it was replaced by this step's record$`,
      ),
    )
    expect(report(big.dir, OUTCOME_FILE)).toMatch(/^== step vllm-ray-deploy: validate\nresult: valid\n/)
  })

  it('an exception inside the step fails it as an internal error, and the report records result error', async () => {
    // A job summary that cannot be written (a directory where the file should be) makes @actions/core throw.
    const r = await inProcessStep(run, {
      with: { command: 'validate', manifest: EXAMPLE },
      summaryFile: (dir) => {
        mkdirSync(join(dir, 'summary-is-a-directory'))
        return join(dir, 'summary-is-a-directory')
      },
    })
    expect(r.exitCode).toBe(1)
    expect(commands(r.stdout, 'error')).toEqual([expect.stringMatching(/^::error::internal error \(a bug in vllm-ray-deploy\): EISDIR/)])
    expect(report(r.dir, OUTCOME_FILE)).toMatch(/result: error\nsummary: internal error \(a bug in vllm-ray-deploy\): EISDIR/)
  })

  it("reads action.yml's default to tell a named manifest from the default one; no action.yml, no default", () => {
    expect(declaredDefault('manifest', 'action.yml')).toBe('.github/vllm-ray-deploy.yml')
    expect(declaredDefault('command', 'action.yml')).toBeDefined()
    expect(declaredDefault('manifest', 'no/such/action.yml')).toBeUndefined()
  })

  it('finds action.yml from the sources as well as from the bundle (no file argument)', () => {
    expect(declaredDefault('manifest')).toBe('.github/vllm-ray-deploy.yml')
  })
})

describe('the main step against a real sshd (a one-node cluster on this machine)', () => {
  let sshd: LoopbackSshd
  let manifest: string
  const cluster = `main-step-${process.pid}-${Date.now()}`
  const API_KEY = 'sk-in-process-api-key-0123456789'

  beforeAll(async () => {
    sshd = await startLoopbackSshd()
    const dir = mkdtempSync(join(tmpdir(), 'vrd-main-step-'))
    manifest = join(dir, 'cluster.yml')
    writeFileSync(
      manifest,
      [
        'version: 1',
        `cluster: ${cluster}`,
        'fabric: { interfaces: [lo], subnet: 127.0.0.0/8 }',
        'nodes:',
        `  - { name: here, role: head, ssh: { host: 127.0.0.1, port: ${sshd.port}, hostKeys: ["${sshd.hostPublicKey}"] }, fabricIp: 127.0.0.1, gpus: 1 }`,
        'image: { ref: "vrd-main-step/absent:1" }',
        'container: { name: vrd-main-step-no-such-container }',
        'vllm: { model: m, tensorParallelSize: 1 }',
        'smoke: { apiKeySecret: VRD_TEST_API_KEY }',
        `launch: { mode: script, path: ${resolve(SEED_SCRIPT)} }`,
        '',
      ].join('\n'),
    )
  })

  afterAll(async () => {
    await sshd?.stop()
    // What the deploy left on "the node" (this machine): its audit line and the released lock's folder.
    rmSync(join(NODE_STATE_DIR, cluster), { recursive: true, force: true })
  })

  it("deploy: every secret masked before the first log line, the launch script's findings as warnings on its lines, a log group per stage, the lock saved for the post step while held and cleared once released", async () => {
    // The runner trims an input (core.getInput): the passphrase is masked as the step reads it.
    const passphrase = '  not-a-real-passphrase  '
    const r = await inProcessStep(run, {
      with: { command: 'deploy', manifest, 'ssh-private-key': sshd.clientKey, 'ssh-key-passphrase': passphrase, release: 'r1' },
      env: { VRD_TEST_API_KEY: API_KEY },
    })
    const lines = r.stdout.split('\n').filter((l) => l !== '')
    const masks = lines.filter((l) => l.startsWith('::add-mask::')).map((l) => l.slice('::add-mask::'.length))
    const keyLines = sshd.clientKey
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
    expect(new Set(masks)).toEqual(new Set([...keyLines, passphrase.trim(), API_KEY]))
    const firstOther = lines.findIndex((l) => !l.startsWith('::add-mask::'))
    expect(lines.slice(0, firstOther).length).toBe(masks.length)
    // No secret anywhere but in its mask.
    for (const secret of [API_KEY, passphrase.trim(), keyLines[1]!]) expect(lines.slice(firstOther).join('\n')).not.toContain(secret)
    // The launch script is read before anything runs: under deploy.scriptCheck warn, its findings are warnings on its lines.
    const warnings = commands(r.stdout, 'warning')
    expect(warnings.length).toBeGreaterThan(0)
    for (const w of warnings) {
      expect(w).toMatch(/^::warning title=SCRIPT_[A-Z_]+ on [^,]+,file=test\/script-check\/fixtures\/spark-vllm-qwen35\.sh,line=\d+::/)
      expect(w).toContain('(launch script, read before it ran; deploy.scriptCheck: warn)')
    }
    expect(warnings.some((w) => w.includes('SCRIPT_VLLM_HOST_IP_OVERRIDE') && w.includes('line=24'))).toBe(true)
    // It ran as far as the host checks (no GPU, no Docker image here) and failed there, nothing changed.
    expect(r.exitCode).toBe(1)
    expect(r.outputs).toMatchObject({ result: 'failed', changed: 'false', release: 'r1' })
    // One group per stage, never nested (GitHub cannot nest them).
    const groups = lines.filter((l) => l.startsWith('::group::') || l === '::endgroup::')
    expect(groups.filter((l) => l.startsWith('::group::')).map((l) => l.slice('::group::'.length))).toEqual(expect.arrayContaining(['inputs', 'lock', 'state']))
    for (let i = 0; i < groups.length; i++) expect(groups[i]!.startsWith('::group::'), `${i}: ${groups[i]}`).toBe(i % 2 === 0)
    // The lock: saved when taken (for a post step after a crash), then cleared when the deploy released it.
    const state = readFileSync(join(r.dir, 'state'), 'utf8')
    const saved = [...state.matchAll(/^vrd-lock<<(ghadelimiter_[^\n]+)\n([\s\S]*?)\n?\1$/gm)].map((m) => m[2]!)
    expect(saved).toHaveLength(2)
    expect(JSON.parse(saved[0]!)).toMatchObject({ manifest: resolve(manifest), release: 'r1', token: expect.stringMatching(/^[0-9a-f]{32}$/) })
    expect(saved[1]).toBe('')
  }, 60_000)
})
