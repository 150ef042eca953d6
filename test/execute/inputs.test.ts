import { describe, expect, it } from 'vitest'
import { stdinProvider } from '../../src/execute/step-inputs.js'

describe('step stdin', () => {
  it('secret env: NAME=value lines from the environment, never from the manifest', async () => {
    const get = stdinProvider('/tmp/m.yml', { HF_TOKEN: 'hf_abc', OTHER: 'x y' })
    expect(await get({ kind: 'secret-env', names: ['HF_TOKEN', 'OTHER'] })).toEqual({ ok: true, value: 'HF_TOKEN=hf_abc\nOTHER=x y\n' })
  })

  it('a missing or multi-line secret is a SECRET_INVALID Problem that names it, not a throw', async () => {
    const get = stdinProvider('/tmp/m.yml', { A: 'one\ntwo' })
    expect(await get({ kind: 'secret-env', names: ['HF_TOKEN'] })).toMatchObject({
      ok: false,
      problem: { code: 'SECRET_INVALID', message: expect.stringMatching(/HF_TOKEN is not set for this run/) },
    })
    expect(await get({ kind: 'secret-env', names: ['A'] })).toMatchObject({
      ok: false,
      problem: { message: expect.stringMatching(/A has a line break at character 4 of 7/) },
    })
  })

  it('a launch script path is read relative to the manifest', async () => {
    const get = stdinProvider('test/fixtures/three-mistakes.yml', {})
    const read = await get({ kind: 'file', path: 'three-mistakes.yml' })
    expect(read.ok && read.value).toContain('fabricIP: 192.168.200.12')
  })

  it('a launch script that cannot be read is a Problem saying why and what to change', async () => {
    const read = await stdinProvider('test/fixtures/three-mistakes.yml', {})({ kind: 'file', path: 'no-such-script.sh' })
    expect(read).toMatchObject({ ok: false, problem: { code: 'SCRIPT_UNREADABLE', message: expect.stringMatching(/does not exist: check the path/) } })
  })
})
