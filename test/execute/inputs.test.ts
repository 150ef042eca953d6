import { describe, expect, it } from 'vitest'
import { stdinProvider } from '../../src/execute/inputs.js'

describe('step stdin', () => {
  it('secret env: NAME=value lines from the environment, never from the manifest', async () => {
    const get = stdinProvider('/tmp/m.yml', { HF_TOKEN: 'hf_abc', OTHER: 'x y' })
    expect(await get({ kind: 'secret-env', names: ['HF_TOKEN', 'OTHER'] })).toBe('HF_TOKEN=hf_abc\nOTHER=x y\n')
  })

  it('a missing or multi-line secret is an error that names it', async () => {
    const get = stdinProvider('/tmp/m.yml', { A: 'one\ntwo' })
    await expect(get({ kind: 'secret-env', names: ['HF_TOKEN'] })).rejects.toThrow(/HF_TOKEN is not set for this run/)
    await expect(get({ kind: 'secret-env', names: ['A'] })).rejects.toThrow(/A has a line break at character 4 of 7/)
  })

  it('a launch script path is read relative to the manifest', async () => {
    const get = stdinProvider('test/fixtures/three-mistakes.yml', {})
    expect(await get({ kind: 'file', path: 'three-mistakes.yml' })).toContain('fabricIP: 192.168.200.12')
  })
})
