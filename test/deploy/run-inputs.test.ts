/**
 * This run's secrets checked before the first node command (issue 34): a secret with a trailing
 * newline, a line break inside, a NUL, an empty or unset value, or a value past what one env string
 * may hold is a SECRET_INVALID finding naming it, found at the `inputs` stage of a deploy, before
 * the lock is taken or anything else reaches a node. Tried through the pure check, through a deploy
 * of the simulated cluster, and through the step that writes the env file (the same rule).
 */
import { afterEach, describe, expect, it } from 'vitest'
import { deployRelease } from '../../src/deploy/rollout.js'
import { checkRunInputs } from '../../src/deploy/run-inputs.js'
import { stdinProvider } from '../../src/execute/step-inputs.js'
import { MAX_SECRET_BYTES } from '../../src/execute/secret-value.js'
import { render } from '../../src/command/shell.js'
import { readNodeState } from '../../src/plan/release-commands.js'
import { PASSING_SMOKE, SimCluster, simManifest } from './support/sim-cluster.js'

let sim: SimCluster | undefined
afterEach(() => sim?.cleanup())

const withSecret = () =>
  simManifest((doc) => {
    const c = doc.container as Record<string, unknown>
    c.secretEnv = ['VLLM_API_KEY', 'WANDB_API_KEY']
  })

describe('checkRunInputs', () => {
  const m = withSecret()
  it.each([
    ['a trailing newline', 'sk-123\n', /VLLM_API_KEY \(container\.secretEnv\) has a line break at its end/],
    ['a trailing CRLF', 'sk-123\r\n', /has a carriage return at its end/],
    ['a line break inside', 'sk-1\n23', /has a line break at character 5 of 7/],
    ['a NUL', 'sk\0', /has a NUL byte/],
    ['nothing', '', /is empty/],
    ['too many bytes', 'x'.repeat(MAX_SECRET_BYTES + 1), /more than the 131072 one value may have/],
  ])('a secret with %s is SECRET_INVALID naming it, with a fix', (_what, value, message) => {
    const f = checkRunInputs(m, { VLLM_API_KEY: value, WANDB_API_KEY: 'ok' })
    expect(f).toHaveLength(1)
    expect(f[0]).toMatchObject({ code: 'SECRET_INVALID', severity: 'error', node: null, evidence: { Secret: 'VLLM_API_KEY' } })
    expect(f[0]!.message).toMatch(message)
    expect(f[0]!.fix).toContain('VLLM_API_KEY')
    // The value itself is never in the finding.
    if (value.length > 4) expect(JSON.stringify(f)).not.toContain(value.trim())
  })
  it('an unset secret names itself and how to set it in a workflow; good values pass', () => {
    const f = checkRunInputs(m, { VLLM_API_KEY: 'sk-123' })
    expect(f.map((x) => x.message)).toEqual(['The secret WANDB_API_KEY (container.secretEnv) is not set for this run.'])
    expect(f[0]!.fix).toContain('${{ secrets.WANDB_API_KEY }}')
    expect(checkRunInputs(m, { VLLM_API_KEY: 'sk-123', WANDB_API_KEY: 'w' })).toEqual([])
  })
  it('the hub token: white space around it is trimmed, a line break inside it is refused', () => {
    const hub = simManifest((doc) => {
      doc.model = { path: '/m', source: { hub: { repo: 'org/m', revision: 'a'.repeat(40) } } }
    })
    expect(checkRunInputs(hub, { HF_TOKEN: 'hf_abc\n' })).toEqual([])
    expect(checkRunInputs(hub, {})).toEqual([])
    expect(checkRunInputs(hub, { HF_TOKEN: 'hf_abc\nhf_def' })[0]).toMatchObject({ code: 'SECRET_INVALID', evidence: { Secret: 'HF_TOKEN' } })
  })
  it('the step that writes the env file applies the same rule', async () => {
    const provide = stdinProvider('m.yml', { VLLM_API_KEY: 'sk-123\n', WANDB_API_KEY: 'w' })
    await expect(provide({ kind: 'secret-env', names: ['VLLM_API_KEY', 'WANDB_API_KEY'] })).resolves.toMatchObject({
      ok: false,
      problem: { code: 'SECRET_INVALID', message: expect.stringMatching(/VLLM_API_KEY has a line break at its end/) },
    })
  })
})

describe('a deploy with a bad secret', () => {
  it('stops at inputs, before any node command (only the report reads the state after), naming the secret; nothing changed', async () => {
    const s = new SimCluster(withSecret())
    sim = s
    const stages: string[] = []
    const r = await deployRelease({
      manifest: s.manifest,
      manifestPath: '/nonexistent/manifest.yml',
      transports: s.transports(),
      env: { VLLM_API_KEY: 'sk-123\n', WANDB_API_KEY: 'w' },
      release: 'r1',
      who: 'test',
      smoke: PASSING_SMOKE,
      onProgress: () => {},
      onStage: (s, e) => e === 'start' && stages.push(s),
    })
    expect(r).toMatchObject({ result: 'failed', changed: false, failure: { stage: 'inputs' } })
    expect(r.failure?.reason).toContain('VLLM_API_KEY')
    expect(r.findings.map((f) => f.code)).toContain('SECRET_INVALID')
    expect(stages).toEqual(['inputs', 'report'])
    // The only commands after the refusal are the report's read of each node's state: no lock, no container, no file.
    for (const l of s.log) expect(l.command.startsWith(render(readNodeState(s.manifest)))).toBe(true)
    expect(s.log.some((l) => /deploy\.lock|docker (run|pull|rm)|release/.test(l.command.split('\n')[0]!))).toBe(false)
  })
})
