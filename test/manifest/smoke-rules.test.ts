import { describe, expect, it } from 'vitest'
import { parseManifest } from '../../src/manifest/load-manifest.js'

const base = (smoke: string) =>
  [
    'version: 1',
    'cluster: c',
    'fabric: {interfaces: [eth1], subnet: 10.0.0.0/24}',
    'nodes:',
    '  - {name: a, role: head, ssh: {host: h}, fabricIp: 10.0.0.2, gpus: 1}',
    'image: {ref: img}',
    'vllm: {model: m, tensorParallelSize: 1}',
    smoke,
  ].join('\n')

describe('smoke settings', () => {
  it('an empty prompt list is an error at its position (a smoke test that asks nothing proves nothing)', () => {
    const { errors } = parseManifest(base('smoke:\n  prompts: []\n'), 'm.yml')
    expect(errors.map((e) => `${e.line}:${e.col} ${e.code}`)).toEqual(['9:12 OUT_OF_RANGE'])
    expect(errors[0]!.message).toMatch(/at least 1 item/)
  })

  it('no smoke section gives the default single prompt', () => {
    const { manifest, errors } = parseManifest(base(''), 'm.yml')
    expect(errors).toEqual([])
    expect(manifest!.smoke.prompts).toHaveLength(1)
  })
})

describe('smoke settings for the live smoke test', () => {
  it('a bad regex, a URL that is not http(s), a bad secret name and an unknown finish reason are errors at their lines', () => {
    const { errors } = parseManifest(
      base('smoke:\n  url: ftp://x\n  apiKeySecret: "not a name"\n  prompts:\n    - prompt: hi\n      expect: {regex: "(", finishReason: done}\n'),
      'm.yml',
    )
    expect(errors.map((e) => `${e.line} ${e.path.join('.')}`)).toEqual([
      '9 smoke.url',
      '10 smoke.apiKeySecret',
      '13 smoke.prompts.0.expect.regex',
      '13 smoke.prompts.0.expect.finishReason',
    ])
    expect(errors[0]!.message).toMatch(/http:\/\/ or https:\/\//)
    expect(errors[2]!.message).toMatch(/not a valid regular expression/)
  })

  it('defaults: tunnel (no url), streamed request, metrics and cluster proof on, no burst', () => {
    const { manifest } = parseManifest(base(''), 'm.yml')
    expect(manifest!.smoke).toMatchObject({ stream: true, metrics: true, clusterProof: true, burst: { requests: 0 } })
    expect(manifest!.smoke.url).toBeUndefined()
  })
})
