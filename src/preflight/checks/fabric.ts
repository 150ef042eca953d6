/** Each node holds its fabric IP and reaches every peer's fabric IP through the fabric interface. */

import type { PeerReachability, RouteFacts } from '../facts.js'
import type { Finding } from '../finding.js'
import { ipInCidr, stripPrefixLength } from '../../net/ipv4.js'
import type { CheckContext, ClusterNode } from './check-context.js'

const describeRoute = (r: RouteFacts): string =>
  r.error ? `no route (${r.error})` : [r.dev && `dev ${r.dev}`, r.src && `src ${r.src}`, r.via && `via ${r.via}`].filter(Boolean).join(' ') || '(empty)'

/** The fabric interfaces on this node: the manifest's names, plus whichever holds the node's fabric IP. */
function fabricInterfaces(ctx: CheckContext, node: ClusterNode): string[] {
  const names = new Set(ctx.expected?.fabricInterfaces ?? [])
  const fabricIp = node.expected?.fabricIp
  for (const i of node.facts?.interfaces ?? []) {
    if (i.addresses.some((a) => stripPrefixLength(a) === fabricIp)) names.add(i.name)
  }
  return [...names]
}

function peerProblem(ctx: CheckContext, node: ClusterNode, peer: PeerReachability): string | undefined {
  if (peer.route.error) return `there is no route to ${peer.ip}`
  if (peer.reachable === false) return `${peer.ip} does not answer over the fabric`
  const fabric = fabricInterfaces(ctx, node)
  if (peer.route.dev && fabric.length > 0 && !fabric.includes(peer.route.dev)) {
    return `the route to ${peer.ip} leaves via ${peer.route.dev}, not the fabric interface ${fabric.join('/')}`
  }
  const subnet = ctx.expected?.fabricSubnet
  if (peer.route.src && subnet && ipInCidr(peer.route.src, subnet) === false) {
    return `the route to ${peer.ip} uses source address ${peer.route.src}, outside the fabric subnet ${subnet}`
  }
  return undefined
}

/** FABRIC_UNREACHABLE: a node lacks its fabric IP, or cannot reach a peer's fabric IP over the fabric. */
export function fabricUnreachable(ctx: CheckContext): Finding[] {
  const findings: Finding[] = []
  const subnet = ctx.expected?.fabricSubnet
  for (const node of ctx.nodes) {
    const facts = node.facts
    if (!facts) continue
    const fabric = fabricInterfaces(ctx, node)
    const iface = fabric[0] ?? '<fabric interface>'
    const fabricIp = node.expected?.fabricIp
    const holder = facts.interfaces.find((i) => i.addresses.some((a) => stripPrefixLength(a) === fabricIp))
    // With link flags in the facts, the host check (FABRIC_ADDRESS_MISSING / FABRIC_LINK_DOWN) already judged this.
    const judgedByHostCheck = (ctx.expected?.fabricInterfaces.length ?? 0) > 0 && facts.interfaces.some((i) => i.flags)
    if (fabricIp && facts.interfaces.length > 0 && !holder?.up && !judgedByHostCheck) {
      findings.push({
        code: 'FABRIC_UNREACHABLE',
        severity: 'error',
        node: node.name,
        message: holder
          ? `${node.name}'s fabric interface ${holder.name} holding ${fabricIp} is down.`
          : `${node.name} has no interface holding its fabric IP ${fabricIp}.`,
        evidence: {
          'Expected fabric IP': fabricIp,
          [`Interfaces on ${node.name}`]: facts.interfaces.map((i) => `${i.name}${i.up ? '' : ' (down)'} ${i.addresses.join(' ')}`).join(', '),
        },
        fix: `On ${node.name} bring up ${holder?.name ?? iface} with ${fabricIp}${subnet ? `/${subnet.split('/')[1] ?? ''}` : ''} (netplan or ip addr add) and check the fabric cable/port (ibdev2netdev shows it Up).`,
      })
    }
    for (const peer of facts.peers) {
      const problem = peerProblem(ctx, node, peer)
      if (!problem) continue
      findings.push({
        code: 'FABRIC_UNREACHABLE',
        severity: 'error',
        node: node.name,
        message: `From ${node.name}, ${problem}.`,
        evidence: {
          From: node.name,
          To: `${peer.peer} fabric IP ${peer.ip}`,
          Route: describeRoute(peer.route),
          'Fabric interface(s)': fabric.length > 0 ? fabric.join(', ') : '(unknown)',
          Probe: peer.reachable === undefined ? 'not probed' : `${peer.reachable ? 'reachable' : 'unreachable'}${peer.detail ? ` (${peer.detail})` : ''}`,
        },
        fix:
          peer.route.error || (peer.route.dev && fabric.length > 0 && !fabric.includes(peer.route.dev))
            ? `On ${node.name} put ${iface} in ${subnet ?? 'the fabric subnet'} and bring it up so the kernel routes ${peer.ip} through it (ip route get ${peer.ip} should say dev ${iface}).`
            : `Check the fabric link between ${node.name} and ${peer.peer}: ping -I ${iface} ${peer.ip}, cabling, MTU on both ends, and firewall rules on the fabric interface.`,
      })
    }
  }
  return findings
}
