import { describe, expect, it } from 'vitest'
import { type InputName, readActionInputs } from '../../src/action/action-inputs.js'
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
  it('on-failure unset is absent (the manifest decides); set, it is passed on', () => {
    const unset = readActionInputs(source({}))
    if (!unset.ok) throw new Error(unset.problem.message)
    expect(unset.value.values.onFailure).toBeUndefined()
    const set = readActionInputs(source({ 'on-failure': 'stop' }))
    if (!set.ok) throw new Error(set.problem.message)
    expect(set.value.values.onFailure).toBe('stop')
  })

  it('reads booleans as booleans and refuses anything but "true" / "false", naming the input', () => {
    const r = readActionInputs(source({ force: 'true' }))
    if (!r.ok) throw new Error(r.problem.message)
    expect(r.value.values).toMatchObject({ force: true, waitLock: false })
    expect(readActionInputs(source({ 'wait-lock': 'yes' }))).toMatchObject({
      ok: false,
      problem: { message: 'input wait-lock must be "true" or "false", got "yes"' },
    })
  })

  it('rejects an unknown command or on-failure, naming the input', () => {
    expect(readActionInputs(source({ command: 'launch' }))).toMatchObject({
      ok: false,
      problem: { message: expect.stringMatching(/^input command must be one of/) },
    })
    expect(readActionInputs(source({ 'on-failure': 'explode' }))).toMatchObject({
      ok: false,
      problem: { message: expect.stringMatching(/^input on-failure must be one of rollback, stop, keep/) },
    })
  })

  it('takes the defaults from action.yml through the runner, not from code', () => {
    const r = readActionInputs(source({}))
    if (!r.ok) throw new Error(r.problem.message)
    expect(r.value).toMatchObject({ command: 'validate', values: { manifest: '.github/vllm-ray-deploy.yml', logs: [] } })
    expect(r.value.values.release).toMatch(/^[0-9a-f]{40}$/)
  })
})
