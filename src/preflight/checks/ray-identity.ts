/** Does each Ray node carry its fabric IP as its identity (`NodeManagerAddress`)? */

import type { Finding } from '../finding.js'
import { ipInCidr, stripPrefixLength } from '../../net/ipv4.js'
import type { CheckContext, ClusterNode } from './check-context.js'

/** `eno1 (default route)` for the interface that holds `ip` on a node, when the facts say. */
function interfaceHolding(node: ClusterNode | undefined, ip: string): string | undefined {
  const facts = node?.facts
  const iface = facts?.interfaces.find((i) => i.addresses.some((a) => stripPrefixLength(a) === ip))
  if (!iface) return undefined
  return `${iface.name}${facts?.defaultRoute?.dev === iface.name ? ' (default route)' : ''}`
}

/** RAY_IDENTITY_NOT_FABRIC: a Ray node registered under an address other than its fabric IP. */
export function rayIdentityNotFabric(ctx: CheckContext): Finding[] {
  const subnet = ctx.expected?.fabricSubnet
  if (!subnet) return []
  const headFabricIp = ctx.head?.expected?.fabricIp ?? '<head fabric IP>'
  const findings: Finding[] = []
  for (const r of ctx.aliveRayNodes) {
    if (r.address === '') continue
    const inFabric = ipInCidr(r.address, subnet)
    if (inFabric === undefined) continue
    const node = ctx.clusterNodeOf(r)
    const fabricIp = node?.expected?.fabricIp
    if (inFabric && (fabricIp === undefined || fabricIp === r.address)) continue
    const name = node?.name ?? `the machine at ${r.address}`
    const isHead = r.isHead || node?.role === 'head'
    const holder = interfaceHolding(node, r.address)
    const wanted = fabricIp ?? '<its fabric IP>'
    findings.push({
      code: 'RAY_IDENTITY_NOT_FABRIC',
      severity: inFabric ? 'warning' : 'error',
      node: node?.name ?? r.address,
      message: inFabric
        ? `${isHead ? "Ray's head" : 'Ray node'} ${name} registered as ${r.address}, not its manifest fabric IP ${wanted}.`
        : `${isHead ? "Ray's head" : 'Ray node'} ${name} registered as ${r.address}, which is outside the fabric subnet ${subnet}.`,
      evidence: {
        'Ray identity (NodeManagerAddress)': r.address,
        'Fabric subnet': subnet,
        ...(fabricIp ? { 'Expected fabric IP': fabricIp } : {}),
        ...(holder ? { [`Interface holding ${r.address}`]: holder } : {}),
      },
      fix: isHead
        ? `On ${name} start Ray's head with --node-ip-address=${wanted} (ray start --head --node-ip-address=${wanted} ...); without it Ray registers the default-route address.`
        : `On ${name} start Ray with --node-ip-address=${wanted} and join through the head's fabric IP (ray start --address=${headFabricIp}:<ray port> --node-ip-address=${wanted}).`,
    })
  }
  return findings
}
