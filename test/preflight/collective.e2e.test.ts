/**
 * The fabric collective on the lab for real (#21 item 3): every node runs its rank in a throw-away
 * container of the lab's image (the vLLM stand-in, no torch: the program's standard-library ring)
 * over the real fabric network, at once. A healthy lab passes; the worker's firewall dropping new
 * connections into the ephemeral range (where Gloo's, NCCL's and this ring's data sockets listen)
 * gives FABRIC_COLLECTIVE_FAILED naming the worker, within the run's own timeout; it is restored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { argv } from '../../src/command/shell.js'
import { dockerBinary, labTransports, labUp, loadLabManifest } from '../support/lab.js'
import { expectationFromManifest } from '../../src/manifest/expectation.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { imageRef, pullImage } from '../../src/plan/node-commands.js'
import { runCollectiveChecks } from '../../src/preflight/checks/index.js'
import type { FactsBundle } from '../../src/preflight/facts.js'
import { runCollective } from '../../src/preflight/gather/run-collective.js'
import { LocalTransport } from '../../src/transport/local.js'
import type { Transport } from '../../src/transport/transport.js'

let manifest: Manifest
let transports: Map<string, Transport>
let containerOf: (node: string) => string
const local = new LocalTransport()
const progress = (m: string) => process.stderr.write(`[collective] ${m}\n`)
const TIMEOUT = 8

async function inNode(node: string, ...args: string[]): Promise<string> {
  const r = await local.run(argv(dockerBinary(), 'exec', containerOf(node), ...args), { timeoutMs: 30_000 })
  expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0)
  return r.stdout
}

async function collective() {
  const c = await runCollective(manifest, transports, { image: imageRef(manifest), timeoutSeconds: TIMEOUT, onProgress: progress })
  const facts: FactsBundle = { schemaVersion: 1, gatheredAt: new Date().toISOString(), nodes: [], collective: c }
  const findings = runCollectiveChecks(facts, expectationFromManifest(manifest))
  progress(`collective in ${c.durationMs} ms: ${findings.map((f) => `${f.code}@${f.node ?? 'cluster'}`).join(', ') || 'no findings'}`)
  return { c, findings }
}

beforeAll(async () => {
  const info = await labUp({ nodes: 2, onProgress: progress })
  containerOf = (node) => info.nodes.find((n) => n.name === node)!.container
  ;({ manifest } = await loadLabManifest())
  transports = await labTransports(manifest)
  // The image on every node, as the image stage leaves it (the rank never pulls).
  for (const [name, t] of transports) {
    const r = await t.run(pullImage(imageRef(manifest)), { timeoutMs: 300_000 })
    expect(r.code, `${name}: ${r.stderr}`).toBe(0)
  }
}, 900_000)

afterAll(async () => {
  for (const t of transports?.values() ?? []) await t.close()
})

const head = () => manifest.nodes.find((n) => n.role === 'head')!
const worker = () => manifest.nodes.find((n) => n.role === 'worker')!

describe('the fabric collective on the lab', () => {
  it('a healthy lab: every rank all-reduces over the fabric, no finding', async () => {
    const { c, findings } = await collective()
    expect(c.ranks.map((r) => [r.node, r.line?.ok, r.line?.impl])).toEqual(manifest.nodes.map((n) => [n.name, true, 'stdlib']))
    expect(c.addr).toBe(head().fabricIp)
    expect(findings).toEqual([])
  }, 180_000)

  it("the worker's firewall drops new connections into the ephemeral range: FABRIC_COLLECTIVE_FAILED naming the worker", async () => {
    const range = (await inNode(worker().name, 'cat', '/proc/sys/net/ipv4/ip_local_port_range')).trim().split(/\s+/).join(':')
    const rule = ['INPUT', '-i', manifest.fabric.interfaces[0]!, '-p', 'tcp', '--dport', range, '--syn', '-j', 'DROP']
    await inNode(worker().name, 'iptables', '-I', ...rule)
    try {
      const { c, findings } = await collective()
      expect(findings.map((f) => `${f.code}@${f.node}`)).toEqual([`FABRIC_COLLECTIVE_FAILED@${worker().name}`])
      expect(findings[0]!.message).toContain(`${head().name} could not connect to ${worker().name} at ${worker().fabricIp}:`)
      expect(c.ranks.every((r) => !r.line?.ok)).toBe(true)
    } finally {
      await inNode(worker().name, 'iptables', '-D', ...rule)
    }
    expect((await collective()).findings).toEqual([])
  }, 180_000)
})
