/**
 * The fabric collective's checks over real outputs: the program itself run here with python3 (its
 * standard-library path, as the lab's image runs it: a healthy ring of three ranks, a rendezvous a
 * rank never joins, a peer whose port refuses), NCCL's init lines as a real H200 printed them
 * (test/fixtures/hardware/h200/), and torch's TCPStore wording (its source text, quoted in
 * src/preflight/signature-rules-native.ts).
 */
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { describe, expect, it } from 'vitest'
import type { Expectation } from '../../../src/manifest/expectation.js'
import { COLLECTIVE_MARK, COLLECTIVE_PY, type CollectiveArgs, type CollectiveLine } from '../../../src/probe/collective-program.js'
import { runChecks } from '../../../src/preflight/checks/index.js'
import type { CollectiveFacts, CollectiveRank, FactsBundle } from '../../../src/preflight/facts.js'
import { rankFacts } from '../../../src/preflight/gather/run-collective.js'
import { expectation, healthyFacts, withNode } from '../fixtures/facts.js'

const NODES = expectation.nodes
const codes = ['FABRIC_COLLECTIVE_FAILED', 'FABRIC_SOCKET_FALLBACK', 'FABRIC_COLLECTIVE_SLOW']
const findings = (b: FactsBundle, e: Expectation = expectation) => runChecks(b, e).filter((f) => codes.includes(f.code))
const tags = (b: FactsBundle, e?: Expectation) => findings(b, e).map((f) => `${f.severity} ${f.code}@${f.node ?? 'cluster'}`)

const bundle = (ranks: CollectiveRank[], extra: Partial<CollectiveFacts> = {}): FactsBundle => ({
  ...healthyFacts,
  collective: { image: 'img', addr: NODES[0]!.fabricIp, port: 40123, bytes: 64 * 2 ** 20, timeoutSeconds: 45, ranks, durationMs: 1, ...extra },
})

/** Free TCP port on 127.0.0.1, from the kernel. */
const freePort = () =>
  new Promise<number>((res) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port
      s.close(() => res(p))
    })
  })

/** One rank of the real program on this machine; its combined output when it exits. */
const runRank = (a: CollectiveArgs) =>
  new Promise<string>((res) => {
    const p = spawn('python3', ['-c', COLLECTIVE_PY, JSON.stringify(a)])
    let out = ''
    p.stdout.on('data', (d) => (out += d))
    p.stderr.on('data', (d) => (out += d))
    p.on('close', () => res(out))
  })

const args = (rank: number, world: number, port: number, timeout = 20): CollectiveArgs => ({
  rank,
  world,
  addr: '127.0.0.1',
  port,
  ip: '127.0.0.1',
  bytes: 1 << 20,
  iters: 2,
  timeout,
})
const node = (i: number) => ({ name: NODES[i]!.name, fabricIp: NODES[i]!.fabricIp })

describe('the program, run here (its standard-library path)', () => {
  it('a healthy ring of two ranks all-reduces and passes every collective check', async () => {
    const port = await freePort()
    const outs = await Promise.all([0, 1].map((r) => runRank(args(r, 2, port))))
    const ranks = outs.map((o, r) => rankFacts(node(r), r, o))
    expect(ranks.map((r) => r.line?.ok)).toEqual([true, true])
    expect(ranks[0]!.line).toMatchObject({ impl: 'stdlib', world: 2, bytes: 1 << 20 })
    expect(tags(bundle(ranks), { ...expectation, fabricLinkSpeedGbps: 200 })).toEqual([])
  }, 60_000)

  it('a rank that never joins: the rendezvous names it, FABRIC_COLLECTIVE_FAILED on its node', async () => {
    const out = await runRank(args(0, 2, await freePort(), 2))
    const ranks = [rankFacts(node(0), 0, out), rankFacts(node(1), 1, '', 'docker run exit 125')]
    const [f] = findings(bundle(ranks))
    expect(f).toMatchObject({ code: 'FABRIC_COLLECTIVE_FAILED', severity: 'error', node: NODES[1]!.name })
    expect(f!.message).toContain(`never heard from ${NODES[1]!.name}`)
    expect(f!.evidence[`${NODES[0]!.name} (rank 0)`]).toContain('missing ranks [1]')
  }, 60_000)

  it('a peer whose port refuses: the rank says which peer, and the finding names that node', async () => {
    const dead = await freePort()
    const out = await runRank({ ...args(1, 2, dead, 2) })
    const ranks = [rankFacts(node(0), 0, '', 'docker run exit 137'), rankFacts(node(1), 1, out)]
    expect(ranks[1]!.line?.peer).toEqual({ rank: 0, addr: `127.0.0.1:${dead}` })
    const [f] = findings(bundle(ranks))
    expect(f).toMatchObject({ code: 'FABRIC_COLLECTIVE_FAILED', node: NODES[0]!.name })
    expect(f!.message).toContain(`${NODES[1]!.name} could not connect to ${NODES[0]!.name}`)
    expect(f!.evidence[`${NODES[1]!.name} last lines`]).toContain('vrd-collective: rank 1: rendezvous')
  }, 60_000)
})

/** A real H200 capture, with the program's line after it as torch's NCCL path prints it. */
const h200 = (name: string, line: Partial<CollectiveLine> | undefined, rank: number) => {
  const text = readFileSync(`test/fixtures/hardware/h200/nccl-one-rank-${name}.txt`, 'utf8')
  const ok = {
    ok: true,
    rank,
    world: 2,
    backend: 'nccl',
    impl: 'torch 2.11.0+cu130',
    bytes: 64 * 2 ** 20,
    iters: 5,
    seconds: 0.004,
    algbwGBps: 16.7,
    busbwGBps: 16.7,
  }
  return rankFacts(
    node(rank),
    rank,
    line === undefined ? text : `${text}\n${COLLECTIVE_MARK}${JSON.stringify({ ...ok, ...line })}\n`,
    line === undefined ? 'docker run exit 2' : undefined,
  )
}
const withRdma = (b: FactsBundle, name: string, devices: string[]) => withNode(b, name, (n) => ({ ...n, host: { ...n.host, rdmaDevices: devices } as never }))

describe("NCCL's transport, from what a real NCCL printed", () => {
  it('NCCL_IB_HCA naming a missing device: NCCL chose Socket; FABRIC_SOCKET_FALLBACK as an error on each node', () => {
    const b = bundle([h200('ib-hca-missing', {}, 0), h200('ib-hca-missing', {}, 1)], { ibHca: 'mlx5_99' })
    expect(tags(b)).toEqual(NODES.map((n) => `error FABRIC_SOCKET_FALLBACK@${n.name}`))
    expect(findings(b)[0]!.evidence).toMatchObject({ 'NCCL network': 'Socket', NCCL_IB_HCA: 'mlx5_99', 'NCCL said': 'NET/IB : No device found.' })
  })

  it('sockets with no NCCL_IB_HCA and no RDMA device is what the node has: nothing; with RDMA devices unused, a warning', () => {
    const b = bundle([h200('default', {}, 0), h200('default', {}, 1)])
    expect(tags(b)).toEqual([])
    expect(tags(withRdma(b, NODES[1]!.name, ['rocep1s0f1']))).toEqual([`warning FABRIC_SOCKET_FALLBACK@${NODES[1]!.name}`])
  })

  it("NCCL_SOCKET_IFNAME matching no interface: NCCL's bootstrap warning in the failed rank's last lines", () => {
    const b = bundle([h200('default', {}, 0), h200('socket-ifname-nomatch', undefined, 1)])
    const [f] = findings(b)
    expect(f).toMatchObject({ code: 'FABRIC_COLLECTIVE_FAILED', node: NODES[1]!.name })
    expect(f!.evidence[`${NODES[1]!.name} NCCL WARN`]).toBe('Bootstrap : no socket interface found')
    expect(f!.evidence[`${NODES[1]!.name} last lines`]).toContain('ncclInvalidUsage')
  })

  it("torch's TCPStore giving up on the rendezvous points at the head", () => {
    const error = 'DistNetworkError: The client socket has timed out after 45s while trying to connect to (192.168.200.12, 40123).'
    const b = bundle([h200('default', { ok: false, stage: 'init', error }, 1), h200('default', {}, 0)].reverse())
    const [f] = findings(b)
    expect(f).toMatchObject({ code: 'FABRIC_COLLECTIVE_FAILED', node: NODES[0]!.name })
    expect(f!.message).toContain('could not reach the rendezvous on 192.168.200.12:40123')
  })

  it('bus bandwidth below a quarter of fabric.linkSpeedGbps: FABRIC_COLLECTIVE_SLOW with the threshold; above it, nothing', () => {
    const at = (bus: number) => bundle([0, 1].map((r) => h200('default', { busbwGBps: bus }, r)))
    const e = { ...expectation, fabricLinkSpeedGbps: 200 }
    expect(tags(at(2.1), e)).toEqual(['warning FABRIC_COLLECTIVE_SLOW@cluster'])
    expect(findings(at(2.1), e)[0]!.evidence['threshold']).toBe('6.25 GB/s (25% of the link)')
    expect(tags(at(20), e)).toEqual([])
    expect(tags(at(2.1))).toEqual([])
  })
})

/**
 * The program itself on a real H200 (test/fixtures/hardware/h200/collective-*.txt, made by
 * capture-collective.sh): one file per run; a two-rank run holds each rank's output after
 * `--- rank N`.
 */
const capture = (name: string): string[] => {
  const text = readFileSync(`test/fixtures/hardware/h200/collective-${name}.txt`, 'utf8')
  const parts = text.split(/^--- rank \d+$/m).slice(1)
  return parts.length > 0 ? parts : [text.split('\n').slice(1).join('\n')]
}
const realRanks = (name: string) => capture(name).map((out, r) => rankFacts(node(r), r, out, /^\[exit 0\]$/m.test(out) ? undefined : 'docker run exit 2'))

describe('the program on a real H200 (torch 2.11, NCCL 2.28.9)', () => {
  it('one NCCL rank: ok, the transport read from its own init lines (Socket: the VM has no RDMA device); no finding, and no bus bandwidth judged with one rank', () => {
    const [r] = realRanks('nccl-world1')
    expect(r!.line).toMatchObject({ ok: true, backend: 'nccl', world: 1, impl: 'torch 2.11.0+cu130' })
    expect(r!.nccl?.network).toBe('Socket')
    expect(tags(bundle([r!]), { ...expectation, fabricLinkSpeedGbps: 200 })).toEqual([])
  })

  it('two Gloo ranks over loopback: both ok, nothing found', () => {
    const ranks = realRanks('gloo-world2-lo')
    expect(ranks.map((r) => r.line?.ok && r.line.backend)).toEqual(['gloo', 'gloo'])
    expect(tags(bundle(ranks), { ...expectation, fabricLinkSpeedGbps: 200 })).toEqual([])
  })

  it("two NCCL ranks on one GPU: NCCL's own refusal ('Duplicate GPU detected') is the evidence of FABRIC_COLLECTIVE_FAILED", () => {
    const ranks = realRanks('nccl-world2-same-gpu')
    const [f] = findings(bundle(ranks))
    expect(f?.code).toBe('FABRIC_COLLECTIVE_FAILED')
    expect(JSON.stringify(f!.evidence)).toContain('Duplicate GPU detected')
  })

  it("GLOO_SOCKET_IFNAME naming no interface: Gloo's 'Unable to find address for: nomatch' on both ranks", () => {
    const [f] = findings(bundle(realRanks('gloo-ifname-nomatch')))
    expect(f?.code).toBe('FABRIC_COLLECTIVE_FAILED')
    expect(JSON.stringify(f!.evidence)).toContain('Unable to find address for: nomatch')
    // The log signatures name it in each failed rank's output: the interface Gloo was told.
    const named = Object.entries(f!.evidence).filter(([k]) => k.endsWith('output names'))
    expect(named.length).toBeGreaterThan(0)
    for (const [, v] of named) expect(v).toContain('SOCKET_IFNAME_MISSING: Gloo was told to use the interface "nomatch"')
  })

  it("a rank that never starts: torch's store gives up ('1/2 clients joined') and the collective is reported hung", () => {
    const [rank0] = realRanks('gloo-rank1-absent')
    const [f] = findings(bundle([rank0!, rankFacts(node(1), 1, '', 'ssh: connect to host: No route to host')]))
    expect(f?.code).toBe('FABRIC_COLLECTIVE_FAILED')
    expect(JSON.stringify(f!.evidence)).toContain('1/2 clients joined')
    expect(f!.message).toContain('hung')
  })
})
