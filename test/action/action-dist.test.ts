/**
 * Runs the bundled action exactly as GitHub does: `node dist/index.js` with INPUT_* variables and
 * GITHUB_OUTPUT / GITHUB_STEP_SUMMARY files. Uses the committed dist/ (CI rebuilds it first and
 * fails on any difference).
 */
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { COMMANDS } from '../../src/action/action-inputs.js'
import { runAction } from '../support/action.js'

describe('node dist/index.js (the action as the runner starts it)', () => {
  it('a broken manifest gives located ::error annotations and a non-zero exit', () => {
    const r = runAction({ command: 'validate', manifest: 'test/fixtures/three-mistakes.yml' })
    expect(r.status).toBe(1)
    const errors = r.stdout.split('\n').filter((l) => l.startsWith('::error '))
    expect(errors.filter((l) => l.includes('file=test/fixtures/three-mistakes.yml'))).toHaveLength(3)
    expect(errors[0]).toMatch(/^::error title=manifest [A-Z_]+,file=test\/fixtures\/three-mistakes\.yml,line=10,col=5::/)
    expect(r.outputs['result']).toBe('invalid')
    expect(r.outputs['error-count']).toBe('3')
    expect(r.summary).toContain('manifest invalid: 3 problems')
  })

  it('a valid manifest writes outputs and a job summary and exits 0', () => {
    const r = runAction({ command: 'validate', manifest: 'src/manifest/examples/dgx-spark-pair.yml' })
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    expect(r.outputs).toMatchObject({ result: 'valid', 'error-count': '0', cluster: 'spark-pair' })
    expect(r.summary).toMatch(/^### ✅ passed: \S+ is valid: cluster spark-pair[\s\S]*<sub>vllm-ray-deploy validate<\/sub>/)
  })

  it('plan writes the plan as an output and a file', () => {
    const r = runAction({ command: 'plan', manifest: 'src/manifest/examples/dgx-spark-pair.yml', release: 'abc123' })
    expect(r.status).toBe(0)
    const plan = JSON.parse(r.outputs['plan']!) as { release: string; nodes: { name: string }[] }
    expect(plan.release).toBe('abc123')
    expect(plan.nodes.map((n) => n.name)).toEqual(['spark-a', 'spark-b'])
    expect(JSON.parse(readFileSync(r.outputs['plan-file']!, 'utf8'))).toEqual(plan)
    expect(r.summary).toContain('| image | spark-a |')
    expect(r.summary).toContain('| preflight | spark-a | facts probe')
    expect(r.summary).toContain('| smoke | all |')
  })

  it('an unknown command or a bad on-failure fails with a clear message', () => {
    const bad = runAction({ command: 'launch-missiles' })
    expect(bad.status).toBe(1)
    expect(bad.stdout).toContain(`input command must be one of ${COMMANDS.join(', ')}, got "launch-missiles"`)
    expect(bad.stdout).toMatch(/^::error .*input command must be one of/m)
    const onFailure = runAction({ command: 'validate', 'on-failure': 'explode' })
    expect(onFailure.stdout).toMatch(/on-failure must be one of rollback, stop, keep/)
  })

  it('masks every line of the SSH key', () => {
    const r = runAction({ command: 'preflight', manifest: 'test/fixtures/three-mistakes.yml', 'ssh-private-key': 'line-one\nline-two' })
    expect(r.stdout).toContain('::add-mask::line-one')
    expect(r.stdout).toContain('::add-mask::line-two')
  })
})

describe('what dist/index.js carries', () => {
  // @actions/http-client (undici, ~450 KB) is replaced by src/action/http-client-stub.ts
  // through tsconfig.json's paths: @actions/core needs it only for getIDToken.
  it('no undici (the HTTP client @actions/core needs only for OIDC), and no code of ours asks for an OIDC token', () => {
    const bundle = readFileSync('dist/index.js', 'utf8')
    expect(bundle).not.toContain('undici')
    const tsconfig = JSON.parse(readFileSync('tsconfig.json', 'utf8')) as { compilerOptions: { paths: Record<string, string[]> } }
    expect(Object.keys(tsconfig.compilerOptions.paths).sort()).toEqual(['@actions/http-client', '@actions/http-client/lib/auth'])
    const grep = spawnSync('grep', ['-rln', '--include=*.ts', 'getIDToken(', 'src'], { encoding: 'utf8' })
    expect(grep.status, grep.stdout).toBe(1)
  })
})
