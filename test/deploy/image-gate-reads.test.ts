/**
 * The image gate reads each node's image ID once when the node already holds it (issue 40: the
 * gate read it before the delivery and again after, though nothing touched the node in between),
 * and again after a delivery that did touch it.
 */
import { describe, expect, it } from 'vitest'
import { imageGate } from '../../src/deploy/image-gate.js'
import type { Manifest } from '../../src/manifest/schema.js'
import type { Transport } from '../../src/transport/transport.js'
import { inspectingNode } from './support/inspect-node.js'
import { simManifest } from './support/sim-cluster.js'

const ID = `sha256:${'a'.repeat(64)}`

const node = (name: string, id: string | undefined, log: string[]): Transport => inspectingNode(name, () => id, log)

const preloaded = (): Manifest => {
  const m = simManifest()
  return { ...m, image: { ...m.image, distribution: 'preloaded' } }
}

describe('the image gate on nodes that already hold the image', () => {
  it.each([
    ['the manifest image (preloaded)', undefined],
    ["a rollback's expected image ID", ID],
  ])('%s: one `docker image inspect` per node, and the gate still ends on that ID', async (_what, expectId) => {
    const m = preloaded()
    const log: string[] = []
    const transports = new Map(m.nodes.map((n) => [n.name, node(n.name, ID, log)] as const))
    const r = await imageGate(m, m.image.ref, transports, { manifestPath: 'm.yml', ...(expectId && { expectId }) })
    expect(r.ok && r.value).toBe(ID)
    expect(log).toHaveLength(m.nodes.length)
    expect(new Set(log.map((l) => l.split(':')[0]))).toEqual(new Set(m.nodes.map((n) => n.name)))
    expect([...r.actions.values()].map((a) => a.action)).toEqual(m.nodes.map(() => 'present'))
  })

  it('a node without the image is read again after the delivery, and the gate stops on it', async () => {
    const m = preloaded()
    const log: string[] = []
    const [head, worker] = m.nodes
    const transports = new Map([
      [head!.name, node(head!.name, ID, log)],
      [worker!.name, node(worker!.name, undefined, log)],
    ])
    const r = await imageGate(m, m.image.ref, transports, { manifestPath: 'm.yml' })
    expect(r.ok).toBe(false)
    expect(r.findings.map((f) => [f.code, f.node])).toEqual([['IMAGE_MISSING', worker!.name]])
    expect(log.filter((l) => l.startsWith(`${head!.name}:`))).toHaveLength(1)
    expect(log.filter((l) => l.startsWith(`${worker!.name}:`))).toHaveLength(2)
  })
})
