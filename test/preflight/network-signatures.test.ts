/**
 * The networking families, each from real public captures (sources in fixtures/README.md), with a
 * trigger and a near miss: a Ray node marked dead, a node that cannot reach the head's GCS, a
 * driver that cannot reach its raylet, a loopback identity, a bind on another node's address. And
 * healthy multi-node captures that must give no error finding.
 */
import { readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { scanLog } from '../../src/preflight/signatures.js'
import { readFixture } from './fixtures/read.js'

const scan = (file: string) => scanLog(readFixture(`logs/${file}`), file)
const codes = (file: string) => scan(file).map((f) => `${f.code}:${f.severity}`)

describe('RAY_NODE_DEAD', () => {
  it('Ray 1.x wording ("node id: … and ip: …"): one finding per node, with its address', () => {
    const found = scan('net-node-dead-ray-15128.txt')
    expect(found.map((f) => [f.code, f.evidence['Node address']])).toEqual([
      ['RAY_NODE_DEAD', '10.4.4.107'],
      ['RAY_NODE_DEAD', '10.4.0.101'],
    ])
    expect(found[0]!.message).toContain('10.4.4.107')
  })
  it('Ray 2.x wording ("and address: … and node name: …") and the raylet side ("mistakenly been marked as dead by the GCS")', () => {
    const found = scan('net-node-dead-kuberay-3827.txt')
    expect(found.map((f) => f.code)).toEqual(['RAY_NODE_DEAD', 'RAY_NODE_DEAD'])
    expect(found[0]!.evidence['Node address']).toBe('156.176.0.154')
    expect(found[1]!.evidence['Failed health checks']).toBe('5')
  })
  it('Ray 0.6 wording ("client ID … monitor")', () => {
    expect(codes('net-node-dead-old-ray-3446.txt')).toEqual(['RAY_NODE_DEAD:error'])
  })
  it('near miss: heartbeat timing lines are not a dead node', () => {
    expect(codes('net-node-dead-near-miss-ray-3326.txt')).toEqual([])
  })
})

describe('RAY_GCS_UNREACHABLE', () => {
  it('the 5-second warning alone is a warning (Ray retries); "Failed to get cluster ID" is the error, with the address tried', () => {
    const found = scan('net-gcs-tinyzero-75.txt')
    expect(found.map((f) => [f.code, f.severity, f.evidence['GCS address tried'] ?? null])).toEqual([
      ['RAY_GCS_UNREACHABLE', 'warning', '172.23.15.13:20000'],
      ['RAY_GCS_UNREACHABLE', 'error', null],
    ])
    expect(found[0]!.evidence['GCS port']).toBe('20000')
  })
  it('an empty head address (":6379") says the variable was empty; the loopback node IP is flagged too', () => {
    const found = scan('net-gcs-empty-host-mm-eureka-54.txt')
    const gcs = found.find((f) => f.code === 'RAY_GCS_UNREACHABLE')!
    expect(gcs.severity).toBe('error')
    expect(gcs.message).toContain('without a host')
    expect(found.some((f) => f.code === 'LOOPBACK_IDENTITY' && f.evidence['Ray node IP'] === '127.0.0.1')).toBe(true)
  })
  it('Ray 1.x ("Couldn\'t reconnect to GCS server … address was …") and the raylet\'s 60-second give-up', () => {
    expect(scan('net-gcs-old-ray-15389.txt').map((f) => [f.code, f.severity, f.evidence['GCS address tried']])).toEqual([
      ['RAY_GCS_UNREACHABLE', 'error', '10.42.0.44:43507'],
    ])
    expect(codes('net-gcs-raylet-60s-ray-34334.txt')).toEqual(['RAY_GCS_UNREACHABLE:error'])
  })
  it('near miss: connecting and connected (no failure line) is nothing', () => {
    expect(codes('healthy-ray-connected-rocm-5656.txt')).toEqual([])
  })
})

describe('RAYLET_UNREACHABLE', () => {
  it('the retries end in "Could not connect to socket …/raylet": one error naming the socket', () => {
    const found = scan('net-raylet-ray-5399.txt')
    expect(found.map((f) => f.code)).toEqual(['RAYLET_UNREACHABLE'])
    expect(found[0]!.evidence['Raylet socket']).toMatch(/sockets\/raylet$/)
    expect(found[0]!.evidence['Log line']).toBe('net-raylet-ray-5399.txt:4')
  })
  it('"Lost connection with local raylet"', () => {
    expect(codes('net-raylet-lost-ray-6662.txt')).toEqual(['RAYLET_UNREACHABLE:error'])
  })
  it('near miss: retry lines alone are not a failure', () => {
    expect(codes('net-raylet-near-miss-ray-11201.txt')).toEqual([])
  })
})

describe('LOOPBACK_IDENTITY', () => {
  it('a worker given --address 127.0.0.1 (and the 5-second GCS warning that follows)', () => {
    const found = scan('net-loopback-ray-59110.txt')
    expect(found.map((f) => `${f.code}:${f.severity}`)).toEqual(['LOOPBACK_IDENTITY:warning', 'RAY_GCS_UNREACHABLE:warning'])
    expect(found[0]!.evidence['Setting']).toBe('--address 127.0.0.1')
  })
  it('a GCS address on loopback that fails is an error', () => {
    const [f] = scanLog(
      '[2025-07-23 10:05:49,679 W 51000 51000] gcs_rpc_client.h:151: Failed to connect to GCS at address 127.0.0.1:6379 within 5 seconds.\n',
      'x',
    )
    expect([f!.severity, f!.message]).toEqual(['error', expect.stringContaining('a loopback address')])
  })
  it('near miss: a routable node IP, and the dashboard on localhost', () => {
    expect(codes('net-loopback-near-miss-ray-26293.txt')).toEqual([])
  })
})

describe('BIND_FOREIGN_ADDRESS', () => {
  it("a worker on 172.17.0.6 binding 172.17.0.5 (the head's) is named as another node's address", () => {
    const found = scan('net-bind-dynamo-2706.txt')
    // Ray's prefix shows the worker registered under Docker's default bridge (a warning of its own, RAY_BRIDGE_ADDRESS).
    expect(found.map((x) => `${x.code}:${x.severity}`)).toEqual(['RAY_BRIDGE_ADDRESS:warning', 'BIND_FOREIGN_ADDRESS:error'])
    const f = found[1]
    expect(f).toMatchObject({ code: 'BIND_FOREIGN_ADDRESS', severity: 'error', node: '172.17.0.6' })
    expect(f!.evidence['Address it tried to bind']).toBe('tcp://172.17.0.5:34762')
    expect(f!.message).toContain('an address of another node')
  })
  it('near miss: "Address already in use" is not this family', () => {
    // A port already taken is its own family (the raylet's C++ wording).
    expect(codes('net-bind-port-in-use-ray-5399.txt')).toEqual(['PORT_IN_USE:error'])
  })
})

describe('healthy real captures give zero error findings', () => {
  const dir = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'logs')
  const real = readdirSync(dir).filter((f) => f.startsWith('healthy-'))
  const healthy = [...real, 'nccl-ib-near-miss.txt', 'engine-near-miss.txt', 'rendered-link-local-workers.txt']
  it('at least five of them are real public captures', () => expect(real.length).toBeGreaterThanOrEqual(5))
  for (const file of healthy) {
    it(file, () => {
      expect(scan(file).filter((f) => f.severity === 'error')).toEqual([])
    })
  }
})
