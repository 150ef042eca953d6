/**
 * vLLM's native multi-node mode (--nnodes/--master-addr): torch's TCPStore rendezvous that never
 * completes, from real public captures (sources in fixtures/README.md), each with a near miss.
 */
import { describe, expect, it } from 'vitest'
import { createLogWatcher, scanLog } from '../../src/preflight/signatures.js'
import { readFixture } from './fixtures/read.js'

const scan = (file: string) => scanLog(readFixture(`logs/${file}`), file)
const native = (file: string) => scan(file).filter((f) => /^(RENDEZVOUS|MASTER_ADDR)_/.test(f.code))

describe('RENDEZVOUS_UNREACHABLE', () => {
  it('torch 2.x "client socket has timed out after 60s … (A, P)": one error with the master address, port and timeout', () => {
    const found = native('native-rdzv-timeout-vllm-6650.txt')
    expect(found.map((f) => [f.code, f.severity, f.evidence['Master address'], f.evidence['Master port'], f.evidence['Timed out after']])).toEqual([
      ['RENDEZVOUS_UNREACHABLE', 'error', '10.1.16.222', '29400', '60s'],
    ])
    expect(found[0]!.fix).toContain('nc -zv 10.1.16.222 29400')
  })
  it('older torch: the errno-110 attempt is a warning, "any network address of" the error; "?UNKNOWN?" names nothing', () => {
    const found = native('native-rdzv-failed-connect-vllm-2427.txt')
    expect(found.map((f) => [f.severity, f.evidence['Master address'], f.evidence['Socket error'] ?? null])).toEqual([
      ['warning', 'xxx', 'errno 110 (Connection timed out)'],
      ['error', 'x.x.x.x', null],
    ])
  })
  it('the IPv4-mapped form [::ffff:a.b.c.d]:port reads as the plain address', () => {
    const found = native('native-rdzv-errno-vllm-3771.txt')
    expect(found.map((f) => [f.evidence['Master address'], f.evidence['Master port']])).toEqual([['172.16.8.232', '39623']])
  })
  it('near miss: "cannot be initialized to connect" (an address family torch skips) is no finding', () => {
    expect(scan('native-near-miss-ipv6-sglang-2561.txt').map((f) => f.code)).not.toContain('RENDEZVOUS_UNREACHABLE')
  })
  it("near miss: a master on Docker's bridge is RAY_BRIDGE_ADDRESS's story, not a second finding", () => {
    const codes = scan('native-near-miss-bridge-vllm-19670.txt').map((f) => f.code)
    expect(codes).toContain('RAY_BRIDGE_ADDRESS')
    expect(codes).not.toContain('RENDEZVOUS_UNREACHABLE')
  })
  it('a loopback master says --master-addr was left at its default', () => {
    const [f] = scanLog('[E socket.cpp:957] [c10d] The client socket has timed out after 600s while trying to connect to (127.0.0.1, 29501).', 'x')
    expect(f?.code).toBe('RENDEZVOUS_UNREACHABLE')
    expect(f?.fix).toContain('--master-addr')
  })
})

describe('RENDEZVOUS_UNREACHABLE from torch\'s TCPStore client (torch 2.4+: "TCP client failed to connect/validate to host")', () => {
  // Real torch 2.11 under vLLM 0.24.0, a headless rank whose --master-addr has nothing listening
  // (test/real/captures/native-wrong-master/server.log, line 13).
  const captured =
    '[W1205 17:21:05.052846674 TCPStore.cpp:340] [c10d] TCP client failed to connect/validate to host 127.0.0.3:29512 - retrying (try=0, timeout=600000ms, delay=42508ms): Interrupted system call'
  const code = (line: string) => scanLog(`${line}\n`, 'rank1').filter((f) => f.code === 'RENDEZVOUS_UNREACHABLE')

  it('each retry is a warning naming the master address and port (the rank hangs until the timeout)', () => {
    const far = code(captured.replace('127.0.0.3', '10.1.2.3'))
    expect(far).toHaveLength(1)
    expect(far[0]).toMatchObject({ severity: 'warning', evidence: { 'Master address': '10.1.2.3', 'Master port': '29512' } })
    expect(code(captured)[0]?.message).toContain('loopback')
  })

  it('the last try ("- timed out", C10D_ERROR in torch/csrc/distributed/c10d/TCPStore.cpp) is an error', () => {
    const line =
      '[E1205 17:31:05.0 TCPStore.cpp:390] [c10d] TCP client failed to connect/validate to host 10.1.2.3:29512 - timed out (try=3, timeout=600000ms): The client socket has timed out after 600000ms while trying to connect to (10.1.2.3, 29512).'
    expect(code(line).map((f) => f.severity)).toContain('error')
  })
})

describe('RENDEZVOUS_RANKS_MISSING', () => {
  it('the head\'s store: "601 seconds … 1/8 clients joined" names joined, world and wait', () => {
    const found = native('native-ranks-missing-vllm-24036.txt')
    expect(found.map((f) => [f.code, f.evidence['Ranks joined'], f.evidence['World size the store waited for'], f.evidence.Waited])).toEqual([
      ['RENDEZVOUS_RANKS_MISSING', '1', '8', '601 s'],
    ])
    expect(found[0]!.fix).toContain('--node-rank')
  })
  it('near miss: the healthy "Timed out" of a GCS retry is not this family', () => {
    expect(native('net-gcs-tinyzero-75.txt')).toEqual([])
  })
})

describe('MASTER_ADDR_LOOPBACK', () => {
  it('a headless node with head node address 127.0.0.1 is an error; the fabric address is none', () => {
    expect(native('native-master-loopback-rendered.txt').map((f) => f.code)).toEqual(['MASTER_ADDR_LOOPBACK'])
    expect(native('native-master-fabric-near-miss-seed.txt').map((f) => f.code)).toEqual([])
  })
})

describe('MASTER_ADDR_NOT_FABRIC', () => {
  it('master on the management network while NCCL/Gloo name the fabric, across lines: both addresses in evidence', () => {
    const found = native('native-master-not-fabric-seed.txt')
    expect(found.map((f) => [f.code, f.evidence['Master address (--master-addr)'], f.evidence['Fabric interface (NCCL bound)']])).toEqual([
      ['MASTER_ADDR_NOT_FABRIC', '10.1.230.180:29501', 'enp1s0f1np1 192.168.200.13'],
    ])
  })
  it('the same lines in another order, fed in chunks to a live watcher, give the same finding', () => {
    const lines = readFixture('logs/native-master-not-fabric-seed.txt')
      .split('\n')
      .filter((l) => l && !l.startsWith('#'))
    const w = createLogWatcher({ source: 'live' })
    for (const l of [...lines].reverse()) w.push(`${l}\n`)
    w.end()
    expect(w.findings.filter((f) => f.code === 'MASTER_ADDR_NOT_FABRIC')).toHaveLength(1)
  })
  it('no interface named: no judgement (the bound interface may be right)', () => {
    const text = readFixture('logs/native-master-not-fabric-seed.txt')
      .split('\n')
      .filter((l) => !l.includes('_SOCKET_IFNAME'))
      .join('\n')
    expect(scanLog(text, 'x').map((f) => f.code)).not.toContain('MASTER_ADDR_NOT_FABRIC')
  })
  it("one watcher's memory does not leak into another", () => {
    const first = createLogWatcher({ source: 'a' })
    first.push('NCCL_SOCKET_IFNAME=enp1s0f1np1\nINFO x distributed_init_method=tcp://10.1.230.180:29501 backend=nccl\n')
    const second = createLogWatcher({ source: 'b' })
    second.push('spark-b:412:412 [0] NCCL INFO Bootstrap : Using enp1s0f1np1:192.168.200.13<0>\n')
    expect([...first.findings, ...second.findings].map((f) => f.code)).not.toContain('MASTER_ADDR_NOT_FABRIC')
  })
})
