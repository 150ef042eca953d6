import { describe, expect, it } from 'vitest'
import type { ManifestNode } from '../../src/manifest/schema.js'
import { nodeFactsFromProbe } from '../../src/preflight/gather/gather.js'
import { parseProbeOutput } from '../../src/probe/probe-output.js'

const node = { name: 'spark-a', role: 'head', ssh: { host: '10.1.230.180', hostKeys: [] }, fabricIp: '192.168.200.12', gpus: 1 } as unknown as ManifestNode

describe("the probe's JSON is checked, not cast", () => {
  it('names the field that does not fit', () => {
    const r = parseProbeOutput(JSON.stringify({ errors: [], interfaces: [{ name: 'lo', up: 'yes', addresses: [] }] }))
    expect(r).toMatchObject({
      ok: false,
      problem: { message: expect.stringMatching(/^the facts probe's output does not fit its schema: interfaces\[0\]\.up: /) },
    })
  })

  it('a node whose probe printed a bad document has failed facts saying why (never a throw later)', () => {
    const { facts } = nodeFactsFromProbe(node, 'noise\n' + JSON.stringify({ errors: 'none' }))
    expect(facts).toMatchObject({ node: 'spark-a', ok: false, error: expect.stringMatching(/errors: /) })
  })

  it('keeps what it reads and drops what nothing reads', () => {
    const r = parseProbeOutput(
      JSON.stringify({ errors: [], interfaces: [{ name: 'lo', up: true, addresses: ['127.0.0.1/8'], altnames: [] }], peers: [], gpus: [], container: null }),
    )
    expect(r.ok && r.value.interfaces).toEqual([{ name: 'lo', up: true, addresses: ['127.0.0.1/8'] }])
  })
})
