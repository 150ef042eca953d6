import { describe, expect, it } from 'vitest'
import { healthyFacts, withContainer, withNode } from '../fixtures/facts.js'
import { codes, only } from './helpers.js'

const setEnv = (name: string, env: Record<string, string | undefined>) =>
  withContainer(healthyFacts, name, (c) => {
    const next = { ...c.env }
    for (const [k, v] of Object.entries(env)) {
      if (v === undefined) delete next[k]
      else next[k] = v
    }
    return { ...c, env: next }
  })

describe('SOCKET_IFNAME_MISSING', () => {
  it('warns when NCCL/GLOO_SOCKET_IFNAME are unset on a multi-homed node', () => {
    const unset = setEnv('spark-b', { NCCL_SOCKET_IFNAME: undefined, GLOO_SOCKET_IFNAME: undefined })
    expect(codes(unset)).toEqual(['SOCKET_IFNAME_MISSING@spark-b'])
    const [f] = only(unset, 'SOCKET_IFNAME_MISSING')
    expect(f?.severity).toBe('warning')
    expect(f?.evidence['Addressed interfaces on spark-b']).toBe('enP7s7 10.1.230.181/24, enp1s0f1np1 192.168.200.13/24')
    expect(f?.fix).toBe('On spark-b start container vllm-ray with -e NCCL_SOCKET_IFNAME=enp1s0f1np1 -e GLOO_SOCKET_IFNAME=enp1s0f1np1 (the fabric interface).')
  })

  it('reports an interface name that does not exist on the node (names differ between machines)', () => {
    const wrong = setEnv('spark-b', { NCCL_SOCKET_IFNAME: 'enp1s0f0np0', GLOO_SOCKET_IFNAME: 'enp1s0f1np1,eth9' })
    const found = only(wrong, 'SOCKET_IFNAME_MISSING')
    expect(found.map((f) => [f.severity, f.message])).toEqual([
      ['error', 'NCCL_SOCKET_IFNAME=enp1s0f0np0 on spark-b names enp1s0f0np0 that does not exist there.'],
      ['error', 'GLOO_SOCKET_IFNAME=enp1s0f1np1,eth9 on spark-b names eth9 that does not exist there.'],
    ])
  })

  it('near miss: an NCCL prefix or exclusion list that matches, and a single-homed node with nothing set', () => {
    expect(codes(setEnv('spark-b', { NCCL_SOCKET_IFNAME: 'enp1' }))).toEqual([])
    expect(codes(setEnv('spark-b', { NCCL_SOCKET_IFNAME: '^lo,docker,enP7' }))).toEqual([])
    const singleHomed = withNode(setEnv('spark-b', { NCCL_SOCKET_IFNAME: undefined, GLOO_SOCKET_IFNAME: undefined }), 'spark-b', (n) => ({
      ...n,
      interfaces: n.interfaces.filter((i) => i.name !== 'enP7s7'),
    }))
    expect(only(singleHomed, 'SOCKET_IFNAME_MISSING')).toEqual([])
  })

  it('near miss: without interface facts nothing is claimed', () => {
    const noIfaces = withNode(setEnv('spark-b', { NCCL_SOCKET_IFNAME: 'nope0' }), 'spark-b', (n) => ({ ...n, interfaces: [] }))
    expect(only(noIfaces, 'SOCKET_IFNAME_MISSING')).toEqual([])
  })
})

describe('SOCKET_IFNAME_WRONG_SUBNET', () => {
  it("reports Gloo bound to the management interface (error) and NCCL's bootstrap there (warning)", () => {
    const mgmt = setEnv('spark-a', { NCCL_SOCKET_IFNAME: 'enP7s7', GLOO_SOCKET_IFNAME: 'enP7s7' })
    const found = only(mgmt, 'SOCKET_IFNAME_WRONG_SUBNET')
    expect(found.map((f) => [f.node, f.severity, f.evidence['Selected interfaces']])).toEqual([
      ['spark-a', 'warning', 'enP7s7 10.1.230.180/24'],
      ['spark-a', 'error', 'enP7s7 10.1.230.180/24'],
    ])
    expect(found[1]?.fix).toContain('GLOO_SOCKET_IFNAME=enp1s0f1np1')
  })

  it('reports an NCCL exclusion list that leaves only the management interface', () => {
    expect(codes(setEnv('spark-a', { NCCL_SOCKET_IFNAME: '^lo,docker,enp1' }))).toEqual(['SOCKET_IFNAME_WRONG_SUBNET@spark-a'])
  })

  it('near miss: NCCL with the fabric among its interfaces', () => {
    expect(codes(setEnv('spark-a', { NCCL_SOCKET_IFNAME: 'enP7s7,enp1s0f1np1' }))).toEqual([])
  })
})

describe('FABRIC_UNREACHABLE', () => {
  it('reports a route to the peer that leaves through the management NIC', () => {
    const viaMgmt = withNode(healthyFacts, 'spark-a', (n) => ({
      ...n,
      peers: [
        { peer: 'spark-b', ip: '192.168.200.13', route: { to: '192.168.200.13', dev: 'enP7s7', src: '10.1.230.180', via: '10.1.230.1' }, reachable: true },
      ],
    }))
    const [f] = only(viaMgmt, 'FABRIC_UNREACHABLE')
    expect(f?.message).toBe('From spark-a, the route to 192.168.200.13 leaves via enP7s7, not the fabric interface enp1s0f1np1.')
    expect(f?.evidence['Route']).toBe('dev enP7s7 src 10.1.230.180 via 10.1.230.1')
    expect(f?.fix).toContain('ip route get 192.168.200.13 should say dev enp1s0f1np1')
  })

  it('reports an unanswered probe and a missing route', () => {
    const down = withNode(healthyFacts, 'spark-b', (n) => ({
      ...n,
      peers: [
        {
          peer: 'spark-a',
          ip: '192.168.200.12',
          route: { to: '192.168.200.12', dev: 'enp1s0f1np1', src: '192.168.200.13' },
          reachable: false,
          detail: 'timeout after 3 s',
        },
      ],
    }))
    expect(only(down, 'FABRIC_UNREACHABLE')[0]?.evidence['Probe']).toBe('unreachable (timeout after 3 s)')
    const noRoute = withNode(healthyFacts, 'spark-b', (n) => ({
      ...n,
      peers: [{ peer: 'spark-a', ip: '192.168.200.12', route: { to: '192.168.200.12', error: 'RTNETLINK answers: Network is unreachable' } }],
    }))
    expect(only(noRoute, 'FABRIC_UNREACHABLE')[0]?.message).toBe('From spark-b, there is no route to 192.168.200.12.')
  })

  it('reports a node without its fabric IP, or with the fabric interface down', () => {
    const noIp = withNode(healthyFacts, 'spark-b', (n) => ({
      ...n,
      interfaces: n.interfaces.map((i) => (i.name === 'enp1s0f1np1' ? { ...i, addresses: [] } : i)),
    }))
    expect(only(noIp, 'FABRIC_UNREACHABLE')[0]?.message).toBe('spark-b has no interface holding its fabric IP 192.168.200.13.')
    const down = withNode(healthyFacts, 'spark-b', (n) => ({ ...n, interfaces: n.interfaces.map((i) => (i.name === 'enp1s0f1np1' ? { ...i, up: false } : i)) }))
    expect(only(down, 'FABRIC_UNREACHABLE')[0]?.message).toBe("spark-b's fabric interface enp1s0f1np1 holding 192.168.200.13 is down.")
  })

  it('near miss: fabric routes, and a peer that was not probed', () => {
    expect(only(healthyFacts, 'FABRIC_UNREACHABLE')).toEqual([])
    const unprobed = withNode(healthyFacts, 'spark-a', (n) => ({ ...n, peers: n.peers.map(({ reachable: _r, ...p }) => p) }))
    expect(only(unprobed, 'FABRIC_UNREACHABLE')).toEqual([])
  })
})
