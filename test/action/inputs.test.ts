import { describe, expect, it } from 'vitest'
import { type InputName, effectiveOnFailure, readActionInputs } from '../../src/action/inputs.js'
import { inputEnv } from '../support/action.js'

/** Inputs exactly as the runner would give them for this `with:` (defaults from action.yml). */
function source(withInputs: Record<string, string>) {
  const env = inputEnv(withInputs)
  const get = (name: InputName) => env[`INPUT_${name.toUpperCase()}`] ?? ''
  return {
    get,
    getMultiline: (name: InputName) =>
      get(name)
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean),
  }
}

describe('the Action inputs object', () => {
  it('on-failure unset: the manifest decides; set: it overrides deploy.onFailure', () => {
    const unset = readActionInputs(source({}))
    expect(unset.ok && unset.inputs.onFailure).toBeUndefined()
    if (!unset.ok) throw new Error(unset.error)
    expect(effectiveOnFailure(unset.inputs, { deploy: { onFailure: 'keep' } })).toBe('keep')
    const set = readActionInputs(source({ 'on-failure': 'stop' }))
    if (!set.ok) throw new Error(set.error)
    expect(effectiveOnFailure(set.inputs, { deploy: { onFailure: 'keep' } })).toBe('stop')
  })

  it('rejects an unknown command or on-failure, naming the input', () => {
    expect(readActionInputs(source({ command: 'launch' }))).toMatchObject({ ok: false, error: expect.stringMatching(/^input command must be one of/) })
    expect(readActionInputs(source({ 'on-failure': 'explode' }))).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^input on-failure must be one of rollback, stop, keep/),
    })
  })

  it('takes the defaults from action.yml through the runner, not from code', () => {
    const r = readActionInputs(source({}))
    if (!r.ok) throw new Error(r.error)
    expect(r.inputs).toMatchObject({ command: 'validate', manifest: '.github/vllm-ray-deploy.yml', logs: [] })
    expect(r.inputs.release).toMatch(/^[0-9a-f]{40}$/)
  })
})
