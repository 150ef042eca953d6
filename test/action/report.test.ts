/**
 * The failure report is written by the action itself (no script in the consumer's repository):
 * outcome.txt gets one block per step, "did not finish" until the step ends; findings.json gathers
 * the findings of every step of the job. Then the bundled action, run as the runner runs it, leaves
 * the four files of a failed run in report-dir.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { MAX_REPORT_FILE_BYTES, mergedFindings, recordFindings, recordStepOutcome, reportDir, withOutcome } from '../../src/action/action-report.js'
import { runAction } from '../support/action.js'

const ENV = { GITHUB_SERVER_URL: 'https://github.com', GITHUB_REPOSITORY: 'o/r', GITHUB_RUN_ID: '7', GITHUB_RUN_ATTEMPT: '2' }

describe('outcome.txt', () => {
  it('a started step reads "did not finish"; its end replaces that block; another step adds its own', () => {
    let text = withOutcome('', { step: 'vrd', command: 'deploy' }, ENV)
    expect(text).toMatch(/^== step vrd: deploy\nresult: \(the step did not finish/)
    expect(text).toContain('run: https://github.com/o/r/actions/runs/7 (attempt 2)\n')
    text = withOutcome(text, { step: 'smoke', command: 'smoke' }, ENV)
    text = withOutcome(text, { step: 'vrd', command: 'deploy', result: 'failed', headline: 'release abc failed at preflight' }, ENV)
    expect(text.match(/^== step /gm)).toHaveLength(2)
    expect(text).toMatch(/^== step vrd: deploy\nresult: failed\nsummary: release abc failed at preflight$/m)
    expect(text).toMatch(/^== step smoke: smoke\nresult: \(the step did not finish/m)
    expect(text).not.toMatch(/vrd: deploy\nresult: \(the step did not finish/)
  })

  it('a headline with line breaks cannot forge another block', () => {
    const text = withOutcome('', { step: 'a', command: 'smoke', result: 'failed', headline: 'x\n== step b: deploy\nresult: deployed' }, ENV)
    expect(text.match(/^== step /gm)).toHaveLength(1)
  })
})

describe('findings.json', () => {
  it('concatenates the findings of each step; a broken file or output is treated as no findings', () => {
    const a = mergedFindings(undefined, '[{"code":"A"}]')
    const ab = mergedFindings(a, '[{"code":"B"}]')
    expect((JSON.parse(ab) as { code: string }[]).map((f) => f.code)).toEqual(['A', 'B'])
    expect(JSON.parse(mergedFindings('not json', '[{"code":"C"}]'))).toEqual([{ code: 'C' }])
    expect(JSON.parse(mergedFindings(a, '{"not":"a list"}'))).toEqual([{ code: 'A' }])
  })

  it('recordStepOutcome and recordFindings write under $RUNNER_TEMP/vllm-ray-deploy', () => {
    const env = { ...ENV, RUNNER_TEMP: mkdtempSync(join(tmpdir(), 'vrd-report-')) }
    expect(recordStepOutcome({ step: 'p', command: 'preflight' }, env)).toBeUndefined()
    expect(recordFindings('[{"code":"X"}]', env)).toBeUndefined()
    expect(readdirSync(reportDir(env)).sort()).toEqual(['findings.json', 'outcome.txt'])
    // A report directory that cannot be written is a problem to log, not an exception.
    const blocked = mkdtempSync(join(tmpdir(), 'vrd-report-'))
    writeFileSync(join(blocked, 'vllm-ray-deploy'), 'a file where the directory should be')
    expect(recordStepOutcome({ step: 'p', command: 'preflight' }, { RUNNER_TEMP: blocked })).toMatch(/could not write outcome\.txt/)
  })

  it('a report file past the bound (written by something else in the job) is not read into memory: replaced, and said', () => {
    const env = { ...ENV, RUNNER_TEMP: mkdtempSync(join(tmpdir(), 'vrd-report-')) }
    mkdirSync(reportDir(env), { recursive: true })
    for (const f of ['outcome.txt', 'findings.json']) writeFileSync(join(reportDir(env), f), Buffer.alloc(MAX_REPORT_FILE_BYTES + 1, 'x'))
    expect(recordStepOutcome({ step: 'p', command: 'preflight', result: 'passed', headline: 'ok' }, env)).toMatch(
      /outcome\.txt is larger than \d+ bytes; it was replaced/,
    )
    expect(recordFindings('[{"code":"X"}]', env)).toMatch(/findings\.json is larger than/)
    expect(readFileSync(join(reportDir(env), 'outcome.txt'), 'utf8')).toMatch(/^== step p: preflight\nresult: passed/)
    expect(JSON.parse(readFileSync(join(reportDir(env), 'findings.json'), 'utf8'))).toEqual([{ code: 'X' }])
  })
})

describe('the bundled action (dist/index.js) leaves the report of a failed step', () => {
  it('an invalid manifest: outcome.txt, findings-less, the summary file; report-dir names the folder', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vrd-report-manifest-'))
    const bad = join(dir, 'bad.yml')
    writeFileSync(bad, 'version: 1\ncluster: x\n')
    const r = runAction({ command: 'validate', manifest: bad })
    expect(r.status).toBe(1)
    expect(r.outputs['report-dir']).toBe(join(r.dir, 'vllm-ray-deploy'))
    const files = readdirSync(r.outputs['report-dir']!).sort()
    expect(files).toEqual(['outcome.txt', 'vllm-ray-deploy-validate-summary.md'])
    const outcome = readFileSync(join(r.outputs['report-dir']!, 'outcome.txt'), 'utf8')
    expect(outcome).toMatch(/^== step vllm-ray-deploy: validate\nresult: invalid\nsummary: .+/)
  })

  it('diagnose with an error finding: findings.json holds it', () => {
    const r = runAction({ command: 'diagnose', 'ray-nodes': 'test/preflight/fixtures/ray/ray-nodes-seed-repr.txt' })
    expect(r.status, r.stdout).toBe(1)
    const findings = JSON.parse(readFileSync(join(r.outputs['report-dir']!, 'findings.json'), 'utf8')) as { code: string }[]
    expect(findings.length).toBeGreaterThan(0)
    expect(findings).toEqual(JSON.parse(r.outputs['findings']!))
    expect(readFileSync(join(r.outputs['report-dir']!, 'outcome.txt'), 'utf8')).toMatch(/^result: failed$/m)
  })
})
