/**
 * The host gates on the lab for real (#21 items 2–5): a healthy lab gives none of their findings;
 * then one thing is broken inside a node container (the fabric MTU, a firewall drop of Ray's port,
 * the GPU stand-in's memory, the driver version), or the manifest names what the nodes lack (an
 * RDMA device, a link speed), the check names the node and the values on each, and it is restored.
 * The checks are the registry's `before-change` entries, as a deploy runs them before it changes
 * anything, and the preflight runs them too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { argv } from '../../src/command/shell.js'
import { readFileSync } from 'node:fs'
import { hostChecks } from '../../src/deploy/host-checks.js'
import { dockerBinary, type LabInfo, labTransports, labUp, loadLabManifest, runLabScenario } from '../support/lab.js'
import type { Manifest } from '../../src/manifest/schema.js'
import type { Finding } from '../../src/preflight/finding.js'
import { preflightManifest } from '../../src/tasks/preflight.js'
import { LocalTransport } from '../../src/transport/local.js'
import type { Transport } from '../../src/transport/transport.js'

let manifest: Manifest
let transports: Map<string, Transport>
let containerOf: (node: string) => string
let lab: LabInfo
const local = new LocalTransport()
const progress = (m: string) => process.stderr.write(`[gates] ${m}\n`)
const tags = (f: readonly Finding[]) => f.map((x) => `${x.code}@${x.node ?? 'cluster'}`)

async function inNode(node: string, ...args: string[]): Promise<string> {
  const r = await local.run(argv(dockerBinary(), 'exec', containerOf(node), ...args), { timeoutMs: 30_000 })
  expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0)
  return r.stdout
}

/** The host checks, timed (reported, not asserted: the bench holds the bound). */
async function check(m: Manifest = manifest): Promise<Finding[]> {
  const started = Date.now()
  const findings = await hostChecks(m, transports, { relay: true })
  progress(`host checks of ${m.nodes.length} nodes in ${Date.now() - started} ms: ${tags(findings).join(', ') || 'none'}`)
  return findings
}

const head = () => manifest.nodes.find((n) => n.role === 'head')!
const worker = () => manifest.nodes.find((n) => n.role === 'worker')!

beforeAll(async () => {
  const info = await labUp({ nodes: 2, onProgress: progress })
  lab = info
  containerOf = (node) => info.nodes.find((n) => n.name === node)!.container
  ;({ manifest } = await loadLabManifest())
  transports = await labTransports(manifest)
}, 900_000)

afterAll(async () => {
  for (const t of transports?.values() ?? []) await t.close()
})

describe('the host gates on the lab', () => {
  it('a healthy lab gives none of them', async () => {
    expect(await check()).toEqual([])
  }, 120_000)

  it("a fabric MTU changed on one node: FABRIC_MTU_MISMATCH naming it, each node's MTU, and the ip link set that fixes it", async () => {
    const ifname = manifest.fabric.interfaces[0]!
    await inNode(worker().name, 'ip', 'link', 'set', ifname, 'mtu', '1400')
    try {
      const f = await check()
      expect(tags(f)).toEqual([`FABRIC_MTU_MISMATCH@${worker().name}`])
      expect(f[0]!.evidence).toEqual({ [`${head().name} MTU`]: `${ifname} 1500`, [`${worker().name} MTU`]: `${ifname} 1400` })
      expect(f[0]!.fix).toContain(`${worker().name} (ip link set ${ifname} mtu 1500)`)
    } finally {
      await inNode(worker().name, 'ip', 'link', 'set', ifname, 'mtu', '1500')
    }
  }, 120_000)

  it("Ray's port dropped by the head's firewall for new connections: FABRIC_PORT_BLOCKED from the worker, naming the port", async () => {
    const rule = ['INPUT', '-p', 'tcp', '--dport', String(manifest.ray.port), '--syn', '-j', 'DROP']
    await inNode(head().name, 'iptables', '-I', ...rule)
    try {
      const f = await check()
      expect(tags(f)).toEqual([`FABRIC_PORT_BLOCKED@${worker().name}`])
      expect(f[0]!.evidence).toEqual({
        [`${worker().name} → ${head().name} ${head().fabricIp}:${manifest.ray.port}`]: 'Ray GCS (ray.port): timeout (no answer within 2 s)',
      })
    } finally {
      await inNode(head().name, 'iptables', '-D', ...rule)
    }
  }, 120_000)

  it('NCCL_IB_HCA naming an RDMA device the nodes lack: NCCL_IB_HCA_MISSING on each, with the devices there', async () => {
    const m: Manifest = { ...manifest, container: { ...manifest.container, env: { ...manifest.container.env, NCCL_IB_HCA: 'mlx5_99' } } }
    const f = await check(m)
    expect(tags(f)).toEqual(manifest.nodes.map((n) => `NCCL_IB_HCA_MISSING@${n.name}`))
    expect(f[0]!.evidence).toMatchObject({ NCCL_IB_HCA: 'mlx5_99', [`RDMA devices on ${f[0]!.node} (/sys/class/infiniband)`]: '(none)' })
  }, 120_000)

  it("a memory shortfall on one node (the GPU stand-in's free memory lowered): UNIFIED_MEMORY_SHORT with the utilization that fits", async () => {
    // No release container of this name runs, as before a first deploy: the memory must be free now.
    const m: Manifest = { ...manifest, container: { ...manifest.container, name: 'vrd-gates-not-started' } }
    const saved = await inNode(worker().name, 'cat', '/var/lib/vrd-lab-gpu/memory')
    await inNode(worker().name, 'sh', '-c', 'echo "122502 40000" > /var/lib/vrd-lab-gpu/memory')
    try {
      const f = await check(m)
      expect(tags(f)).toEqual([`UNIFIED_MEMORY_SHORT@${worker().name}`])
      expect(f[0]!.evidence).toMatchObject({ Available: '39.1 GiB (41943040000 bytes)', gpu_memory_utilization: '0.9' })
      expect(f[0]!.fix).toContain('--gpu-memory-utilization in vllm.args to 0.3')
    } finally {
      await inNode(worker().name, 'sh', '-c', `printf '%s' '${saved.trim()}\n' > /var/lib/vrd-lab-gpu/memory`)
    }
  }, 120_000)

  it('a node whose NVIDIA driver differs (the stand-in upgraded on one node): NODE_DRIFT with one row per node', async () => {
    await inNode(worker().name, 'sed', '-i', 's/^driver=580.95.05$/driver=580.105.08/', '/usr/bin/nvidia-smi')
    try {
      const f = await check()
      expect(tags(f)).toEqual(['NODE_DRIFT@cluster'])
      expect(f[0]).toMatchObject({ severity: 'error', evidence: { [head().name]: 'NVIDIA driver 580.95.05', [worker().name]: 'NVIDIA driver 580.105.08' } })
    } finally {
      await inNode(worker().name, 'sed', '-i', 's/^driver=580.105.08$/driver=580.95.05/', '/usr/bin/nvidia-smi')
    }
  }, 120_000)

  it('a manifest expecting 200 Gb/s links where the lab has 10 Gb/s: FABRIC_LINK_SPEED warnings on each node', async () => {
    const m: Manifest = { ...manifest, fabric: { ...manifest.fabric, linkSpeedGbps: 200 } }
    const f = await check(m)
    expect(f.map((x) => `${x.severity} ${x.code}@${x.node}`)).toEqual(manifest.nodes.map((n) => `warning FABRIC_LINK_SPEED@${n.name}`))
    expect(await check()).toEqual([])
  }, 120_000)
})

describe('after launch', () => {
  it("a node whose image reports another Ray version: the preflight's VERSION_SKEW with each node's Ray; none before or after", async () => {
    const r = await runLabScenario('healthy', { dir: lab.dir })
    expect(r.execution.ok).toBe(true)
    const credentials = { privateKey: readFileSync(lab.sshKeyPath, 'utf8'), knownHosts: readFileSync(lab.knownHostsPath, 'utf8') }
    const preflight = async () => {
      const started = Date.now()
      const p = await preflightManifest(manifest, { credentials })
      progress(`preflight in ${Date.now() - started} ms: ${tags(p.findings).join(', ') || 'none'}`)
      return p
    }
    const healthy = await preflight()
    expect(healthy.findings).toEqual([])
    const ray = healthy.facts.nodes.find((n) => n.node === worker().name)?.container?.versions.ray
    expect(ray).toMatch(/^\d+\.\d+\.\d+$/)
    const c = manifest.container.name
    const where = (
      await inNode(worker().name, 'docker', 'exec', c, 'python3', '-c', "import importlib.metadata as m; print(m.distribution('ray')._path)")
    ).trim()
    await inNode(worker().name, 'docker', 'exec', c, 'sed', '-i', `s/^Version: ${ray}$/Version: 2.49.1/`, `${where}/METADATA`)
    try {
      const f = (await preflight()).findings
      expect(tags(f)).toEqual(['VERSION_SKEW@cluster'])
      expect(f[0]!.evidence).toEqual({ [`${head().name} Ray`]: ray, [`${worker().name} Ray`]: '2.49.1' })
    } finally {
      await inNode(worker().name, 'docker', 'exec', c, 'sed', '-i', `s/^Version: 2.49.1$/Version: ${ray}/`, `${where}/METADATA`)
    }
    expect((await preflight()).findings).toEqual([])
  }, 600_000)
})
