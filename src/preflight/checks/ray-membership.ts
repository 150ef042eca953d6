/** Is the Ray cluster made of exactly the manifest's nodes, each registered once? */

import type { Finding } from '../finding.js'
import { describeRayNode, describeRayNodes, type CheckContext, type ClusterNode } from './check-context.js'

const containerName = (ctx: CheckContext): string => ctx.expected?.containerName ?? 'the Ray container'

function startRayFix(ctx: CheckContext, node: ClusterNode): string {
  const ip = node.expected?.fabricIp ?? '<fabric IP>'
  if (node.role === 'head') {
    return `On ${node.name} start Ray's head inside ${containerName(ctx)}: ray start --head --node-ip-address=${ip}.`
  }
  const headIp = ctx.head?.expected?.fabricIp ?? '<head fabric IP>'
  return `On ${node.name} start the Ray worker inside ${containerName(ctx)}: ray start --address=${headIp}:<ray port> --node-ip-address=${ip}, and check that ${node.name} reaches ${headIp} over the fabric.`
}

/** RAY_NODE_MISSING: a manifest node is not an alive Ray node. */
export function rayNodeMissing(ctx: CheckContext): Finding[] {
  const { expected, ray } = ctx
  if (!expected || !ray || ray.nodes.length === 0) return []
  if (!ctx.rayAddressesKnown) {
    // ray status lists node ids only: all we can compare is the count.
    if (ctx.aliveRayNodes.length >= expected.nodes.length) return []
    return [
      {
        code: 'RAY_NODE_MISSING',
        severity: 'error',
        node: null,
        message: `Ray reports ${ctx.aliveRayNodes.length} alive node(s) but the manifest lists ${expected.nodes.length}.`,
        evidence: {
          'Alive Ray nodes': describeRayNodes(ctx.aliveRayNodes),
          'Manifest nodes': expected.nodes.map((n) => `${n.name} (${n.fabricIp})`).join(', '),
          'Ray view': ray.source,
        },
        fix: `Start Ray on every node that is missing (ray start --address=<head fabric IP>:<ray port> --node-ip-address=<its fabric IP>), then check \`ray status\` lists ${expected.nodes.length} nodes.`,
      },
    ]
  }
  return ctx.nodes
    .filter((n) => n.expected && ctx.rayNodeOf(n)?.alive !== true)
    .map((n): Finding => {
      const dead = ctx.rayNodeOf(n)
      return {
        code: 'RAY_NODE_MISSING',
        severity: 'error',
        node: n.name,
        message: `${n.name} is not an alive node in Ray${dead ? ' (Ray lists it as dead)' : ''}.`,
        evidence: {
          'Expected node': `${n.name} (${n.role ?? 'node'}, fabric IP ${n.expected?.fabricIp ?? '?'})`,
          'Alive Ray nodes (NodeManagerAddress)': describeRayNodes(ctx.aliveRayNodes),
          ...(dead ? { 'Dead Ray node': describeRayNode(dead) } : {}),
          'Ray view': ray.source,
        },
        fix: startRayFix(ctx, n),
      }
    })
}

/** RAY_UNEXPECTED_NODE: Ray has an alive node the manifest does not list. */
export function rayUnexpectedNode(ctx: CheckContext): Finding[] {
  const { expected, ray } = ctx
  if (!expected || !ray) return []
  const listed = expected.nodes.map((n) => `${n.name} ${n.fabricIp}`).join(', ')
  if (!ctx.rayAddressesKnown) {
    if (ctx.aliveRayNodes.length <= expected.nodes.length) return []
    return [
      {
        code: 'RAY_UNEXPECTED_NODE',
        severity: 'warning',
        node: null,
        message: `Ray reports ${ctx.aliveRayNodes.length} alive nodes but the manifest lists only ${expected.nodes.length}.`,
        evidence: { 'Alive Ray nodes': describeRayNodes(ctx.aliveRayNodes), 'Manifest nodes': listed, 'Ray view': ray.source },
        fix: 'Find the extra node with `ray list nodes` (or ray.nodes()) and stop it (ray stop), or add it to the manifest; vLLM may place workers on it.',
      },
    ]
  }
  return ctx.aliveRayNodes
    .filter((r) => !ctx.clusterNodeOf(r))
    .map(
      (r): Finding => ({
        code: 'RAY_UNEXPECTED_NODE',
        severity: 'warning',
        node: r.address,
        message: `Ray has an alive node at ${r.address} that matches no node in the manifest.`,
        evidence: {
          'Ray node': `${describeRayNode(r)}${r.hostname ? `, hostname ${r.hostname}` : ''}${r.nodeId ? `, id ${r.nodeId.slice(0, 12)}` : ''}`,
          'Manifest nodes (fabric IPs)': listed,
        },
        fix: `Stop Ray on the machine at ${r.address} (ray stop) or add that machine to the manifest; vLLM's placement group may put workers on it.`,
      }),
    )
}

/** DUPLICATE_NODE_IP (Ray side): two alive Ray nodes registered under one address. */
export function duplicateRayAddress(ctx: CheckContext): Finding[] {
  const byAddress = new Map<string, typeof ctx.aliveRayNodes>()
  for (const r of ctx.aliveRayNodes) {
    if (r.address === '') continue
    byAddress.set(r.address, [...(byAddress.get(r.address) ?? []), r])
  }
  return [...byAddress]
    .filter(([, nodes]) => nodes.length > 1)
    .map(
      ([address, nodes]): Finding => ({
        code: 'DUPLICATE_NODE_IP',
        severity: 'error',
        node: address,
        message: `Ray has ${nodes.length} alive nodes registered as ${address}, so node:${address} does not name one machine.`,
        evidence: {
          'Ray address (NodeManagerAddress)': address,
          'Ray node ids': nodes.map((n) => n.nodeId || '(unknown)').join(', '),
        },
        fix: `Run one Ray node per machine: stop the extra raylet (ray stop) and start each node with its own --node-ip-address (its fabric IP).`,
      }),
    )
}
