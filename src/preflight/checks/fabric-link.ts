/**
 * The fabric below IP: one MTU on every end, the link speed the manifest expects, the RDMA devices
 * NCCL_IB_HCA names, and the TCP ports Ray and NCCL need between the nodes.
 */
import { stripPrefixLength } from '../../net/ipv4.js'
import type { InterfaceFacts } from '../facts.js'
import type { Finding } from '../finding.js'
import type { CheckContext, ClusterNode } from './check-context.js'

/**
 * A node's fabric interfaces as the facts show them: the manifest's names, whichever holds the
 * node's fabric IP, and (with no manifest, as in `diagnose --facts`) those its routes to peers use.
 */
function fabricLinks(ctx: CheckContext, node: ClusterNode): InterfaceFacts[] {
  const names = new Set(ctx.expected?.fabricInterfaces ?? (node.facts?.peers ?? []).flatMap((p) => (p.route.dev ? [p.route.dev] : [])))
  const ip = node.expected?.fabricIp
  return (node.facts?.interfaces ?? []).filter((i) => names.has(i.name) || (ip !== undefined && i.addresses.some((a) => stripPrefixLength(a) === ip)))
}

const describeLinks = (links: readonly InterfaceFacts[], what: (i: InterfaceFacts) => string): string => links.map((i) => `${i.name} ${what(i)}`).join(', ')

/** FABRIC_MTU_MISMATCH: the fabric interfaces do not share one MTU (NCCL hangs on the first large message), or differ from `fabric.mtu`. */
export function fabricMtuMismatch(ctx: CheckContext): Finding[] {
  const rows = ctx.nodes.flatMap((n) => {
    const links = fabricLinks(ctx, n).filter((i) => i.mtu !== undefined)
    return links.length > 0 ? [{ node: n, links }] : []
  })
  const mtus = new Set(rows.flatMap((r) => r.links.map((i) => i.mtu)))
  const want = ctx.expected?.fabricMtu
  const off = want !== undefined ? rows.filter((r) => r.links.some((i) => i.mtu !== want)) : []
  if (mtus.size < 2 && off.length === 0) return []
  const counts = new Map<number, number>()
  for (const r of rows) for (const i of r.links) counts.set(i.mtu ?? 0, (counts.get(i.mtu ?? 0) ?? 0) + 1)
  // The MTU to set: the manifest's, else the one most links have.
  const target = want ?? [...counts].sort((a, b) => b[1] - a[1] || b[0] - a[0])[0]?.[0] ?? 0
  const wrong = rows.filter((r) => r.links.some((i) => i.mtu !== target))
  return [
    {
      code: 'FABRIC_MTU_MISMATCH',
      severity: 'error',
      node: wrong.length === 1 ? (wrong[0]?.node.name ?? null) : null,
      message:
        mtus.size > 1
          ? `The fabric interfaces do not share one MTU (${[...mtus].join(' vs ')}): NCCL and Gloo hang or drop large messages between the nodes.`
          : `The fabric MTU is ${[...mtus].join('')}, not the ${want} fabric.mtu expects.`,
      evidence: {
        ...Object.fromEntries(rows.map((r) => [`${r.node.name} MTU`, describeLinks(r.links, (i) => String(i.mtu))])),
        ...(want !== undefined && { 'fabric.mtu': String(want) }),
      },
      fix: `Set MTU ${target} on ${wrong.map((r) => `${r.node.name} (${r.links.map((i) => `ip link set ${i.name} mtu ${target}`).join('; ')})`).join(' and ')}, make it persistent (netplan mtu:), and set the same MTU on the switch ports.`,
    },
  ]
}

/** FABRIC_LINK_SPEED: a fabric link negotiated less than `fabric.linkSpeedGbps`, or less than the same link on another node. */
export function fabricLinkSpeed(ctx: CheckContext): Finding[] {
  const rows = ctx.nodes.flatMap((n) => {
    const links = fabricLinks(ctx, n).filter((i) => i.speedMbps !== undefined)
    return links.length > 0 ? [{ node: n, links }] : []
  })
  if (rows.length === 0) return []
  const want = ctx.expected?.fabricLinkSpeedGbps
  const fastest = rows.flatMap((r) => r.links.map((i) => i.speedMbps ?? 0)).reduce((a, b) => Math.max(a, b), 0)
  const floor = want !== undefined ? want * 1000 : fastest
  const slow = rows.filter((r) => r.links.some((i) => (i.speedMbps ?? 0) < floor))
  if (slow.length === 0) return []
  const gbps = (i: InterfaceFacts) => `${(i.speedMbps ?? 0) / 1000} Gb/s`
  return slow.map(
    (r): Finding => ({
      code: 'FABRIC_LINK_SPEED',
      severity: 'warning',
      node: r.node.name,
      message: `${r.node.name}'s fabric link runs at ${r.links.map(gbps).join(', ')}, below the ${floor / 1000} Gb/s ${want !== undefined ? 'fabric.linkSpeedGbps expects' : 'of the fastest fabric link'}: tensor-parallel traffic slows to match.`,
      evidence: {
        ...Object.fromEntries(rows.map((x) => [`${x.node.name} link`, describeLinks(x.links, gbps)])),
        ...(want !== undefined && { 'fabric.linkSpeedGbps': String(want) }),
      },
      fix: `On ${r.node.name} check the cable and transceiver of ${r.links.map((i) => i.name).join(', ')} and the switch port's speed (ethtool ${r.links[0]?.name ?? '<if>'} shows Speed and the advertised modes); reseat or replace a cable that negotiated down.`,
    }),
  )
}

/** NCCL_IB_HCA's device names (`mlx5_0:1,=mlx5_1`): none for an exclusion list (`^...`), which cannot name a missing device. */
export function ibHcaNames(value: string): { names: string[]; exact: boolean } {
  const v = value.trim()
  if (v === '' || v.startsWith('^')) return { names: [], exact: false }
  const exact = v.startsWith('=')
  return {
    names: (exact ? v.slice(1) : v)
      .split(',')
      .map((s) => s.split(':')[0]?.trim() ?? '')
      .filter(Boolean),
    exact,
  }
}

/** Where NCCL_IB_HCA comes from on a node: the manifest's container.env (the next container) and the running container's env. */
function ibHcaSources(ctx: CheckContext, node: ClusterNode): { value: string; from: string }[] {
  const out: { value: string; from: string }[] = []
  const manifest = ctx.expected?.containerEnv
  if (manifest?.['NCCL_IB_HCA'] !== undefined && manifest['NCCL_IB_DISABLE'] !== '1')
    out.push({ value: manifest['NCCL_IB_HCA'], from: 'container.env in the manifest' })
  const c = node.facts?.container
  const env = ctx.envOf(node) ?? {}
  const running = env['NCCL_IB_HCA']
  if (c && running !== undefined && env['NCCL_IB_DISABLE'] !== '1' && !out.some((o) => o.value === running))
    out.push({ value: running, from: `the container ${c.name}` })
  return out
}

/** NCCL_IB_HCA_MISSING: NCCL_IB_HCA names an RDMA device a node does not have; NCCL then falls back to sockets without an error. */
export function ncclIbHcaMissing(ctx: CheckContext): Finding[] {
  return ctx.nodes.flatMap((node): Finding[] => {
    const devices = node.facts?.host?.rdmaDevices
    if (!devices) return []
    return ibHcaSources(ctx, node).flatMap(({ value, from }): Finding[] => {
      const { names, exact } = ibHcaNames(value)
      // NCCL matches a name as a prefix (mlx5 matches mlx5_0) unless the list starts with `=`.
      const missing = names.filter((n) => !devices.some((d) => (exact ? d === n : d.startsWith(n))))
      if (missing.length === 0) return []
      return [
        {
          code: 'NCCL_IB_HCA_MISSING',
          severity: 'error',
          node: node.name,
          message: `NCCL_IB_HCA names ${missing.join(', ')}, which ${node.name} does not have: NCCL falls back to TCP sockets (NET/Socket) without an error, at a fraction of the fabric's speed.`,
          evidence: {
            NCCL_IB_HCA: value,
            [`RDMA devices on ${node.name} (/sys/class/infiniband)`]: devices.join(', ') || '(none)',
            From: from,
          },
          fix:
            devices.length > 0
              ? `Set NCCL_IB_HCA in container.env to devices ${node.name} has (${devices.join(',')}; ibdev2netdev maps them to the fabric interfaces).`
              : `${node.name} has no RDMA device: load the driver (modprobe mlx5_ib; check ibv_devices), pass /dev/infiniband into the container (container.devices), or drop NCCL_IB_HCA to use sockets knowingly.`,
        },
      ]
    })
  })
}

/** FABRIC_PORT_BLOCKED: a TCP connect over the fabric to a port Ray or NCCL needs got no answer (a firewall drops it). */
export function fabricPortBlocked(ctx: CheckContext): Finding[] {
  return ctx.nodes.flatMap((node): Finding[] => {
    // Silence from a peer that does not answer at all is FABRIC_UNREACHABLE's (or FABRIC_LINK_DOWN's); here the peer answers ping.
    const answers = (peer: string) => node.facts?.peers.find((p) => p.peer === peer)?.reachable !== false
    const blocked = (node.facts?.ports ?? []).filter((p) => p.state === 'timeout' && answers(p.peer))
    if (blocked.length === 0) return []
    const peers = [...new Set(blocked.map((p) => p.peer))]
    return [
      {
        code: 'FABRIC_PORT_BLOCKED',
        severity: 'error',
        node: node.name,
        message: `From ${node.name}, new TCP connections to ${blocked.map((p) => `${p.peer} ${p.ip}:${p.port} (${p.purpose})`).join(', ')} get no answer: a firewall drops them, and Ray or NCCL fail or hang when they connect.`,
        evidence: Object.fromEntries(
          blocked.map((p) => [`${node.name} → ${p.peer} ${p.ip}:${p.port}`, `${p.purpose}: ${p.state}${p.detail ? ` (${p.detail})` : ''}`]),
        ),
        fix: `Allow TCP from ${node.name}'s fabric IP to ${peers.join(', ')} on the fabric interface (e.g. iptables -I INPUT -i <fabric if> -s ${node.expected?.fabricIp ?? '<fabric IP>'} -j ACCEPT on ${peers.join(', ')}, or ufw allow in on <fabric if>): Ray's GCS port, the ports ray.extraArgs pins, and the ephemeral range NCCL uses.`,
      },
    ]
  })
}
