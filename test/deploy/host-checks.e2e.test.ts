/**
 * Host checks on the lab for real: a healthy lab gives no findings (relay SSH included); then one
 * thing is broken for real inside a node container (its fabric link down, its fabric address
 * removed), the checks name it, and it is restored.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { argv } from '../../src/command/shell.js'
import { hostChecks } from '../../src/deploy/host-checks.js'
import { dockerBinary, labTransports, labUp, loadLabManifest } from '../support/lab.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { LocalTransport } from '../../src/transport/local.js'
import type { Transport } from '../../src/transport/transport.js'

let manifest: Manifest
let transports: Map<string, Transport>
let containerOf: (node: string) => string
const local = new LocalTransport()
const progress = (m: string) => process.stderr.write(`[host-checks] ${m}\n`)

async function inNode(node: string, ...args: string[]): Promise<void> {
  const r = await local.run(argv(dockerBinary(), 'exec', containerOf(node), ...args), { timeoutMs: 30_000 })
  expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0)
}

beforeAll(async () => {
  const info = await labUp({ nodes: 2, onProgress: progress })
  containerOf = (node) => info.nodes.find((n) => n.name === node)!.container
  ;({ manifest } = await loadLabManifest())
  transports = await labTransports(manifest)
}, 900_000)

afterAll(async () => {
  for (const t of transports?.values() ?? []) await t.close()
})

it('a healthy lab passes every host check, relay SSH over the fabric included', async () => {
  const started = Date.now()
  const findings = await hostChecks(manifest, transports, { relay: true, imageBytes: 1_000_000_000 })
  expect(findings).toEqual([])
  progress(`host checks of ${manifest.nodes.length} nodes in ${Date.now() - started} ms`)
}, 120_000)

it("spark-b's fabric link down: FABRIC_LINK_DOWN on spark-b and RELAY_SSH_FAILED from the head; restored after", async () => {
  const worker = manifest.nodes.find((n) => n.role === 'worker')!
  const ifname = manifest.fabric.interfaces[0]!
  await inNode(worker.name, 'ip', 'link', 'set', ifname, 'down')
  try {
    const findings = await hostChecks(manifest, transports, { relay: true })
    expect(findings.map((f) => `${f.code}@${f.node}`)).toEqual([`FABRIC_LINK_DOWN@${worker.name}`, `RELAY_SSH_FAILED@${manifest.nodes[0]!.name}`])
    expect(findings[0]!.evidence).toMatchObject({ Interface: ifname, State: 'DOWN' })
  } finally {
    await inNode(worker.name, 'ip', 'link', 'set', ifname, 'up')
  }
  expect(await hostChecks(manifest, transports, { relay: true })).toEqual([])
}, 180_000)

it("spark-b's fabric address removed: FABRIC_ADDRESS_MISSING naming the ip addr add; restored after", async () => {
  const worker = manifest.nodes.find((n) => n.role === 'worker')!
  const ifname = manifest.fabric.interfaces[0]!
  const cidr = `${worker.fabricIp}/${manifest.fabric.subnet.split('/')[1]}`
  await inNode(worker.name, 'ip', 'addr', 'del', cidr, 'dev', ifname)
  try {
    const findings = await hostChecks(manifest, transports, {})
    expect(findings.map((f) => `${f.code}@${f.node}`)).toEqual([`FABRIC_ADDRESS_MISSING@${worker.name}`])
    expect(findings[0]!.fix).toContain(`ip addr add ${cidr} dev ${ifname}`)
  } finally {
    await inNode(worker.name, 'ip', 'addr', 'add', cidr, 'brd', '+', 'dev', ifname)
  }
  expect(await hostChecks(manifest, transports, { relay: true })).toEqual([])
}, 180_000)
