/**
 * The host gates of the check registry over a facts bundle: node match, the fabric (MTU, link
 * speed, RDMA devices for NCCL_IB_HCA, ports), unified memory and the kernel log. The host facts
 * are those the node probe read on the lab (test/deploy/fixtures/host-probe-*.json), put on the
 * incident's healthy Spark pair with the RDMA devices a DGX Spark's ConnectX-7 shows.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { Expectation } from '../../../src/manifest/expectation.js'
import { CHECKS, CHECK_STAGES, FACT_NEEDS, runChecks } from '../../../src/preflight/checks/index.js'
import { ibHcaNames } from '../../../src/preflight/checks/fabric-link.js'
import type { FactsBundle, HostFacts, NodeFacts } from '../../../src/preflight/facts.js'
import { FINDING_CODES } from '../../../src/preflight/finding.js'
import { expectation, healthyFacts, seedBugFacts, withContainer, withNode } from '../fixtures/facts.js'

const captured = JSON.parse(readFileSync('test/deploy/fixtures/host-probe-worker-healthy.json', 'utf8'))
const SPARK_RDMA = ['rocep1s0f0', 'rocep1s0f1', 'roceP2p1s0f0', 'roceP2p1s0f1']
const host: HostFacts = { ...captured.host, rdmaDevices: SPARK_RDMA, relay: undefined }

/** The healthy pair with host facts, fabric MTU/speed, and the ports each node probed. */
const withHostFacts = (b: FactsBundle): FactsBundle => ({
  ...b,
  nodes: b.nodes.map(
    (n): NodeFacts => ({
      ...n,
      host,
      interfaces: n.interfaces.map((i) =>
        i.name === 'enp1s0f1np1' ? { ...i, flags: ['BROADCAST', 'MULTICAST', 'UP', 'LOWER_UP'], mtu: 9000, speedMbps: 200_000 } : i,
      ),
      gpus: n.gpus.map((g) => ({ ...g, memoryTotalMiB: 122_502, memoryFreeMiB: 119_808 })),
      ports: n.peers.map((p) => ({ peer: p.peer, ip: p.ip, port: 6379, purpose: 'Ray GCS (ray.port)', state: 'open' as const })),
    }),
  ),
})
const healthy = withHostFacts(healthyFacts)
const full: Expectation = { ...expectation, gpuMemoryUtilization: 0.85, fabricMtu: 9000, fabricLinkSpeedGbps: 200 }
const tags = (b: FactsBundle, e: Expectation = full) => runChecks(b, e).map((f) => `${f.severity} ${f.code}@${f.node ?? 'cluster'}`)
const only = (b: FactsBundle, code: string, e: Expectation = full) => runChecks(b, e).filter((f) => f.code === code)
const setIface = (b: FactsBundle, node: string, change: Partial<NodeFacts['interfaces'][number]>) =>
  withNode(b, node, (n) => ({ ...n, interfaces: n.interfaces.map((i) => (i.name === 'enp1s0f1np1' ? { ...i, ...change } : i)) }))
const setHost = (b: FactsBundle, node: string, change: Partial<HostFacts>) => withNode(b, node, (n) => ({ ...n, host: { ...n.host, ...change } }))

describe('the registry', () => {
  it('holds each check once with a stage, the facts it needs, and known finding codes', () => {
    for (const c of CHECKS) {
      expect(CHECK_STAGES).toContain(c.stage)
      for (const n of c.needs) expect(FACT_NEEDS).toContain(n)
      for (const code of c.codes) expect(FINDING_CODES).toContain(code)
    }
    expect(new Set(CHECKS.map((c) => c.run)).size).toBe(CHECKS.length)
  })

  it('the before-change stage reads only the hosts: the incident (a Ray and vLLM matter) passes it, the full run does not', () => {
    const incident = withHostFacts(seedBugFacts)
    expect(runChecks(incident, full, { stages: ['before-change'] })).toEqual([])
    expect(runChecks(incident, full).length).toBeGreaterThan(0)
  })

  it('runs only the entries whose facts are present: an old bundle without host facts gets none of the host findings', () => {
    const broken = setHost(setIface(healthy, 'spark-b', { mtu: 1500 }), 'spark-b', { driverVersion: '570.1' })
    expect(tags(broken)).toEqual(['error NODE_DRIFT@cluster', 'error FABRIC_MTU_MISMATCH@spark-b'])
    expect(tags(healthyFacts)).toEqual([])
  })

  it('a healthy pair with every host fact gives nothing', () => {
    expect(tags(healthy)).toEqual([])
  })
})

describe('node match', () => {
  it('a kernel that differs is a warning with one row per node naming only what differs', () => {
    const f = only(setHost(healthy, 'spark-b', { kernel: '6.11.0-1016-nvidia' }), 'NODE_DRIFT')
    expect(f).toEqual([
      expect.objectContaining({ severity: 'warning', evidence: { 'spark-a': `kernel ${host.kernel}`, 'spark-b': 'kernel 6.11.0-1016-nvidia' } }),
    ])
  })

  it('a driver that differs is an error; a node without the NVIDIA hook is not drift but NVIDIA_RUNTIME_MISSING on that node', () => {
    expect(only(setHost(healthy, 'spark-a', { driverVersion: '580.126.09' }), 'NODE_DRIFT')[0]).toMatchObject({
      severity: 'error',
      message: 'The nodes differ in NVIDIA driver.',
    })
    const noHook = setHost(healthy, 'spark-b', { docker: { ...host.docker!, nvidiaHook: undefined }, nvidiaContainer: { cdiSpecs: [] } })
    expect(only(noHook, 'NODE_DRIFT')).toEqual([])
    expect(tags(noHook)).toEqual(['error NVIDIA_RUNTIME_MISSING@spark-b'])
  })

  it("the container's NCCL and torch are compared like Ray's (VERSION_SKEW)", () => {
    const b = withContainer(healthy, 'spark-b', (c) => ({ ...c, versions: { ...c.versions, nccl: '2.27.3' } }))
    const a = withContainer(b, 'spark-a', (c) => ({ ...c, versions: { ...c.versions, nccl: '2.28.9' } }))
    expect(only(a, 'VERSION_SKEW')).toEqual([expect.objectContaining({ severity: 'error', evidence: { 'spark-a NCCL': '2.28.9', 'spark-b NCCL': '2.27.3' } })])
  })
})

describe('the fabric', () => {
  it('an MTU that differs between the ends names the odd node, each MTU, and the command', () => {
    const f = only(setIface(healthy, 'spark-b', { mtu: 1500 }), 'FABRIC_MTU_MISMATCH', expectation)
    expect(f).toEqual([
      expect.objectContaining({
        node: 'spark-b',
        evidence: { 'spark-a MTU': 'enp1s0f1np1 9000', 'spark-b MTU': 'enp1s0f1np1 1500' },
        fix: expect.stringContaining('spark-b (ip link set enp1s0f1np1 mtu 9000)'),
      }),
    ])
  })

  it('one MTU everywhere that is not fabric.mtu: both nodes named, the manifest value in the evidence', () => {
    const b = setIface(setIface(healthy, 'spark-a', { mtu: 1500 }), 'spark-b', { mtu: 1500 })
    expect(only(b, 'FABRIC_MTU_MISMATCH')).toEqual([
      expect.objectContaining({
        node: null,
        message: 'The fabric MTU is 1500, not the 9000 fabric.mtu expects.',
        evidence: expect.objectContaining({ 'fabric.mtu': '9000' }),
      }),
    ])
    expect(only(b, 'FABRIC_MTU_MISMATCH', expectation)).toEqual([])
  })

  it('a link that negotiated 100G where 200G is expected is a warning on that node; without the manifest, against the faster end', () => {
    const b = setIface(healthy, 'spark-b', { speedMbps: 100_000 })
    expect(tags(b)).toEqual(['warning FABRIC_LINK_SPEED@spark-b'])
    expect(only(b, 'FABRIC_LINK_SPEED', expectation)[0]!.message).toContain('below the 200 Gb/s of the fastest fabric link')
  })

  it.each([
    ['rocep1s0f1', []],
    ['rocep1s0f1:1,roceP2p1s0f1:1', []],
    ['rocep', []],
    ['=rocep', ['spark-a', 'spark-b']],
    ['mlx5_99', ['spark-a', 'spark-b']],
    ['^mlx5_0', []],
  ])('NCCL_IB_HCA=%s: NCCL_IB_HCA_MISSING on %j', (value, nodes) => {
    const b = withContainer(
      withContainer(healthy, 'spark-a', (c) => ({ ...c, env: { ...c.env, NCCL_IB_HCA: value } })),
      'spark-b',
      (c) => ({ ...c, env: { ...c.env, NCCL_IB_HCA: value } }),
    )
    expect(only(b, 'NCCL_IB_HCA_MISSING').map((f) => f.node)).toEqual(nodes)
  })

  it("before any container runs, the manifest's container.env is what NCCL will get; NCCL_IB_DISABLE=1 means no RDMA is wanted", () => {
    const bare: FactsBundle = { ...healthy, nodes: healthy.nodes.map(({ container: _, ...n }) => n) }
    const f = only(bare, 'NCCL_IB_HCA_MISSING', { ...full, containerEnv: { NCCL_IB_HCA: 'mlx5_99' } })
    expect(f.map((x) => x.node)).toEqual(['spark-a', 'spark-b'])
    expect(f[0]).toMatchObject({
      evidence: { From: 'container.env in the manifest', 'RDMA devices on spark-a (/sys/class/infiniband)': SPARK_RDMA.join(', ') },
    })
    expect(only(bare, 'NCCL_IB_HCA_MISSING', { ...full, containerEnv: { NCCL_IB_HCA: 'mlx5_99', NCCL_IB_DISABLE: '1' } })).toEqual([])
    expect(ibHcaNames('=mlx5_0:1,mlx5_1')).toEqual({ names: ['mlx5_0', 'mlx5_1'], exact: true })
  })

  it('a port that gets no answer from a peer that answers ping is FABRIC_PORT_BLOCKED; a refusal or a dead peer is not', () => {
    const port = (state: 'timeout' | 'refused') =>
      withNode(healthy, 'spark-b', (n) => ({ ...n, ports: [{ peer: 'spark-a', ip: '192.168.200.12', port: 6379, purpose: 'Ray GCS (ray.port)', state }] }))
    expect(only(port('timeout'), 'FABRIC_PORT_BLOCKED')).toEqual([
      expect.objectContaining({ node: 'spark-b', evidence: { 'spark-b → spark-a 192.168.200.12:6379': 'Ray GCS (ray.port): timeout' } }),
    ])
    expect(only(port('refused'), 'FABRIC_PORT_BLOCKED')).toEqual([])
    const dead = withNode(port('timeout'), 'spark-b', (n) => ({ ...n, peers: n.peers.map((p) => ({ ...p, reachable: false })) }))
    expect(only(dead, 'FABRIC_PORT_BLOCKED')).toEqual([])
  })
})

describe('unified memory', () => {
  const stopped = (b: FactsBundle) =>
    withContainer(
      withContainer(b, 'spark-a', (c) => ({ ...c, running: false })),
      'spark-b',
      (c) => ({ ...c, running: false }),
    )

  it("less free than gpu_memory_utilization × total before a start: UNIFIED_MEMORY_SHORT with the driver's numbers and the utilization that fits", () => {
    const b = withNode(stopped(healthy), 'spark-b', (n) => ({ ...n, gpus: n.gpus.map((g) => ({ ...g, memoryFreeMiB: 61_251 })) }))
    const f = only(b, 'UNIFIED_MEMORY_SHORT')
    expect(f.map((x) => x.node)).toEqual(['spark-b'])
    expect(f[0]).toMatchObject({
      evidence: { gpu_memory_utilization: '0.85', Source: 'nvidia-smi memory.total / memory.free' },
      fix: expect.stringContaining('to 0.48'),
    })
  })

  it("GB10's driver reports no memory ([N/A]): /proc/meminfo is read instead", () => {
    const na = withNode(stopped(healthy), 'spark-a', (n) => ({
      ...n,
      gpus: n.gpus.map(({ memoryTotalMiB: _t, memoryFreeMiB: _f, ...g }) => g),
      host: { ...host, memTotalBytes: 128_000_000_000, memAvailableBytes: 100_000_000_000 },
    }))
    expect(only(na, 'UNIFIED_MEMORY_SHORT')[0]).toMatchObject({ node: 'spark-a', evidence: { Source: '/proc/meminfo MemTotal / MemAvailable' } })
  })

  it('not while the release runs (it holds its own reservation), and never on a GPU with memory of its own', () => {
    const low = (b: FactsBundle) => withNode(b, 'spark-b', (n) => ({ ...n, gpus: n.gpus.map((g) => ({ ...g, memoryFreeMiB: 1_000 })) }))
    expect(only(low(healthy), 'UNIFIED_MEMORY_SHORT')).toEqual([])
    expect(only(setHost(low(stopped(healthy)), 'spark-b', { unifiedMemory: false }), 'UNIFIED_MEMORY_SHORT')).toEqual([])
  })

  it('NV_ERR_NO_MEMORY in the kernel log is GPU_MEMORY_EXHAUSTED, an error; the OOM killer alone a warning', () => {
    const line = '[ 9071.233451] NVRM: nvCheckOkFailedNoLog: Check failed: Out of memory [NV_ERR_NO_MEMORY] (0x00000051) returned from _memdescAllocInternal'
    expect(tags(setHost(healthy, 'spark-a', { kernelLog: [line] }))).toEqual(['error GPU_MEMORY_EXHAUSTED@spark-a'])
    expect(tags(setHost(healthy, 'spark-a', { kernelLog: ['[ 9080.1] Out of memory: Killed process 4242 (python3)'] }))).toEqual([
      'warning GPU_MEMORY_EXHAUSTED@spark-a',
    ])
  })
})

describe('one finding per fault when the host checks and the identity checks both see it', () => {
  it('a fabric address missing is FABRIC_ADDRESS_MISSING alone, a GPU missing NO_GPU_VISIBLE alone; without host facts the identity checks still say it', () => {
    const noAddress = setIface(healthy, 'spark-b', { addresses: [] })
    expect(tags(noAddress).filter((t) => /FABRIC_(ADDRESS|UNREACHABLE)/.test(t))).toEqual(['error FABRIC_ADDRESS_MISSING@spark-b'])
    const noGpu = withNode(healthy, 'spark-b', (n) => ({ ...n, gpus: [] }))
    expect(tags(noGpu).filter((t) => /GPU/.test(t))).toEqual(['error NO_GPU_VISIBLE@spark-b'])
    const old = withNode(healthyFacts, 'spark-b', (n) => ({ ...n, gpus: [] }))
    expect(tags(old).filter((t) => /GPU/.test(t))).toEqual(['error GPU_SHORTFALL@spark-b'])
  })
})
