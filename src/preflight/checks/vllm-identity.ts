/**
 * Does vLLM name each node the way Ray does? vLLM's `get_ip()` (VLLM_HOST_IP, else the
 * default-route address) is what the classic executor pins bundle 0 to and what each worker
 * reports; Ray knows nodes only by `NodeManagerAddress`.
 */

import type { Finding, Severity } from '../finding.js'
import { describeRayNodes, type CheckContext, type ClusterNode, type VllmIp } from './check-context.js'
import { runsNative } from './native-identity.js'

const inContainer = (ctx: CheckContext, node: ClusterNode): string =>
  `container ${node.facts?.container?.name ?? ctx.expected?.containerName ?? '(the vLLM container)'}`

/** error for the classic executor, warning when unknown or for RayExecutorV2. */
const executorSeverity = (ctx: CheckContext): Severity => (ctx.executor.pins === true ? 'error' : 'warning')

/** The Ray identity of a node: its alive Ray node's address, else what Ray said inside its container. */
function rayIdentity(ctx: CheckContext, node: ClusterNode): string | undefined {
  const r = ctx.rayNodeOf(node)
  if (r?.alive && r.address !== '') return r.address
  return node.facts?.container?.rayNodeIp
}

function pinFix(ctx: CheckContext, head: ClusterNode, vllm: VllmIp, rayId: string | undefined): string {
  const fabricIp = head.expected?.fabricIp
  const where = inContainer(ctx, head)
  const registered = rayId ?? '(none found)'
  if (ctx.executor.pins === false) {
    return `Nothing is needed for ${ctx.executor.executor}; to stay safe with the classic executor, set VLLM_HOST_IP=${registered} on ${head.name} (${where}).`
  }
  if (fabricIp !== undefined && vllm.ip === fabricIp) {
    return `On ${head.name} start Ray with --node-ip-address=${fabricIp} (the fabric IP), or set VLLM_HOST_IP to the IP Ray registered (${registered}); both must name the same address.`
  }
  if (rayId !== undefined && (fabricIp === undefined || rayId === fabricIp)) {
    return vllm.fromEnv
      ? `On ${head.name} set VLLM_HOST_IP=${rayId} (the IP Ray registered) in ${where}, replacing ${vllm.ip}; both must name the same address.`
      : `On ${head.name} set VLLM_HOST_IP=${rayId} (the IP Ray registered) in ${where}; unset, vLLM falls back to the default-route address ${vllm.ip}.`
  }
  const target = fabricIp ?? '<fabric IP>'
  return `On ${head.name} start Ray with --node-ip-address=${target} and set VLLM_HOST_IP=${target} in ${where}; now Ray registered ${registered} and vLLM pins ${vllm.ip}, and both must name the same address.`
}

/** VLLM_PIN_NOT_IN_RAY: the driver's vLLM IP is no alive Ray node's address (the seed incident). */
export function vllmPinNotInRay(ctx: CheckContext): Finding[] {
  const head = ctx.head
  if (!head || !ctx.ray || !ctx.rayAddressesKnown) return []
  const vllm = ctx.vllmIpOf(head)
  if (!vllm) return []
  if (ctx.aliveRayNodes.some((r) => r.address === vllm.ip)) return []
  const rayHead = ctx.rayNodeOf(head) ?? ctx.aliveRayNodes.find((r) => r.isHead)
  const rayId = rayHead?.alive ? rayHead.address : undefined
  const { pins, executor, reason } = ctx.executor
  const version = head.facts?.container?.versions.vllm
  const message =
    pins === true
      ? `vLLM on ${head.name} pins placement-group bundle 0 to node:${vllm.ip}, but no alive Ray node has that address, so the placement group can never be placed.`
      : pins === undefined
        ? `vLLM on ${head.name} would pin bundle 0 to node:${vllm.ip}, which no alive Ray node has; whether it pins depends on the executor, which could not be determined.`
        : `vLLM's IP on ${head.name} (${vllm.ip}) is not a Ray node address, which ${executor} tolerates because it adds no node: pin.`
  return [
    {
      code: 'VLLM_PIN_NOT_IN_RAY',
      severity: pins === true ? 'error' : pins === undefined ? 'warning' : 'info',
      node: head.name,
      message,
      evidence: {
        'Ray head identity (NodeManagerAddress)': rayId ?? '(no alive Ray head found)',
        [pins === false ? 'vLLM IP (get_ip())' : 'vLLM pins bundle 0 to']: `node:${vllm.ip} (${vllm.source})`,
        'Alive Ray nodes': describeRayNodes(ctx.aliveRayNodes),
        'vLLM executor': reason,
        ...(version ? { 'vLLM version': version } : {}),
      },
      fix: pinFix(ctx, head, vllm, rayId),
    },
  ]
}

/** VLLM_HOST_IP_OVERRIDE: a container's VLLM_HOST_IP differs from that node's Ray identity. */
export function vllmHostIpOverride(ctx: CheckContext): Finding[] {
  const rayAddresses = new Set(ctx.aliveRayNodes.map((r) => r.address))
  const findings: Finding[] = []
  for (const node of ctx.nodes) {
    const vllm = ctx.vllmIpOf(node)
    // In the native mode the node's identity is its fabric IP, not a Ray node's (native-identity.ts).
    if (!vllm?.fromEnv || runsNative(node)) continue
    const rayId = rayIdentity(ctx, node)
    if (rayId === undefined || rayId === vllm.ip) continue
    // On the driver, an address Ray does not know is VLLM_PIN_NOT_IN_RAY's finding, not a second one.
    const pinReported = node === ctx.head && ctx.rayAddressesKnown && !rayAddresses.has(vllm.ip) && ctx.executor.pins !== false
    if (pinReported) continue
    const fabricIp = node.expected?.fabricIp
    const defaultSrc = node.facts?.defaultRoute?.src
    const better =
      fabricIp !== undefined && rayId !== fabricIp
        ? `; better, start Ray there with --node-ip-address=${fabricIp} and set VLLM_HOST_IP=${fabricIp}`
        : defaultSrc === rayId
          ? ` (or drop the override: the default route already gives ${rayId})`
          : ''
    findings.push({
      code: 'VLLM_HOST_IP_OVERRIDE',
      severity: executorSeverity(ctx),
      node: node.name,
      message: `${node.name}'s container sets VLLM_HOST_IP=${vllm.ip}, but Ray registered ${node.name} as ${rayId}.`,
      evidence: {
        [`VLLM_HOST_IP in ${inContainer(ctx, node)}`]: vllm.ip,
        [`Ray identity of ${node.name} (NodeManagerAddress)`]: rayId,
        ...(fabricIp ? { 'Expected fabric IP': fabricIp } : {}),
        'vLLM executor': ctx.executor.reason,
      },
      fix: `On ${node.name} set VLLM_HOST_IP=${rayId} in ${inContainer(ctx, node)} so vLLM and Ray name the same address${better}.`,
    })
  }
  return findings
}

/** DUPLICATE_NODE_IP (vLLM side): two nodes would report the same vLLM IP. */
export function duplicateVllmIp(ctx: CheckContext): Finding[] {
  const byIp = new Map<string, { node: ClusterNode; vllm: VllmIp }[]>()
  for (const node of ctx.nodes) {
    const vllm = ctx.vllmIpOf(node)
    if (vllm) byIp.set(vllm.ip, [...(byIp.get(vllm.ip) ?? []), { node, vllm }])
  }
  const findings: Finding[] = []
  for (const [ip, group] of byIp) {
    if (group.length < 2) continue
    const names = group.map((g) => g.node.name)
    const evidence: Record<string, string> = {}
    for (const g of group) evidence[`${g.node.name} vLLM IP`] = `${g.vllm.ip} (${g.vllm.source})`
    const wanted = ctx.nodes.map((n) => `${n.name}: ${rayIdentity(ctx, n) ?? n.expected?.fabricIp ?? '<its own IP>'}`)
    findings.push({
      code: 'DUPLICATE_NODE_IP',
      severity: executorSeverity(ctx),
      node: null,
      message: `vLLM on ${names.join(' and ')} would all report ${ip}, so vLLM stops with "Every node should have a unique IP address".`,
      evidence,
      fix: `Set VLLM_HOST_IP per node to that node's own Ray identity (${wanted.join(', ')}); never share one value across nodes.`,
    })
  }
  return findings
}
