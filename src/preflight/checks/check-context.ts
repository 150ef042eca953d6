/**
 * What every check needs, worked out once from the facts and the (optional) expectation:
 * the cluster's nodes by name, Ray's alive nodes, which Ray node is which cluster node, the head,
 * and the vLLM executor and IP rules applied to each node's container.
 */

import type { Expectation, ExpectedNode } from '../../manifest/expectation.js'
import type { FactsBundle, NodeFacts, RayNode, RayView } from '../facts.js'
import { stripPrefixLength } from '../../net/ipv4.js'
import { type PinVerdict, vllmPinsDriverNode } from '../vllm-pin.js'

export interface ClusterNode {
  readonly name: string
  readonly role?: 'head' | 'worker'
  readonly expected?: ExpectedNode
  /** Facts for this node, only when they were gathered successfully (`ok`). */
  readonly facts?: NodeFacts
}

export interface VllmIp {
  readonly ip: string
  /** Where vLLM's `get_ip()` takes it from, for evidence. */
  readonly source: string
  readonly fromEnv: boolean
}

/** What a caller knows besides the facts (the deploy: the image's size). */
export interface CheckOptions {
  /** Bytes the image needs on each node (DISK_SPACE_LOW), when the deploy knows it. */
  readonly imageBytes?: number
}

export interface CheckContext {
  readonly facts: FactsBundle
  readonly expected?: Expectation
  readonly options: CheckOptions
  readonly nodes: readonly ClusterNode[]
  /** Ray's view when it is usable (present, no error). */
  readonly ray?: RayView
  readonly aliveRayNodes: readonly RayNode[]
  /** True when every alive Ray node carries its address (false for `ray status` views). */
  readonly rayAddressesKnown: boolean
  /** The node that runs Ray's head and `vllm serve` (the driver). */
  readonly head?: ClusterNode
  /** The executor verdict for the driver's container (head), which decides pinning for the cluster. */
  readonly executor: PinVerdict
  rayNodeOf(node: ClusterNode): RayNode | undefined
  clusterNodeOf(ray: RayNode): ClusterNode | undefined
  /** The IP a node's vLLM will report by vLLM's own rule, when the facts tell. */
  vllmIpOf(node: ClusterNode): VllmIp | undefined
  /**
   * The environment vLLM runs with on a node: its running `vllm serve` process's (what a launch
   * script exported reaches it), else the container's configured env; undefined without a container.
   */
  envOf(node: ClusterNode): Readonly<Record<string, string>> | undefined
}

/** The running process's env when the probe could read it, else the container's. */
export function envOfNode(node: ClusterNode): Readonly<Record<string, string>> | undefined {
  const c = node.facts?.container
  if (!c) return undefined
  return c.vllmProcess?.env ?? c.env
}

/** IPv4/IPv6 addresses (no prefix length) on a node's interfaces. */
export const interfaceAddresses = (facts: NodeFacts | undefined): string[] => (facts?.interfaces ?? []).flatMap((i) => i.addresses.map(stripPrefixLength))

type Rule = (ray: RayNode, node: ClusterNode) => boolean

/** Ways to tell which cluster node a Ray node is, strongest first. */
const MATCH_RULES: readonly Rule[] = [
  (r, n) => r.address !== '' && n.facts?.container?.rayNodeIp === r.address,
  (r, n) => r.address !== '' && interfaceAddresses(n.facts).includes(r.address),
  (r, n) => r.address !== '' && n.expected?.fabricIp === r.address,
  (r, n) => r.address !== '' && (n.expected?.sshHost === r.address || n.facts?.sshHost === r.address),
  (r, n) => r.hostname !== undefined && (n.facts?.hostname === r.hostname || n.expected?.sshHost === r.hostname || n.name === r.hostname),
]

function matchRayNodes(rayNodes: readonly RayNode[], nodes: readonly ClusterNode[]): Map<RayNode, ClusterNode> {
  const matches = new Map<RayNode, ClusterNode>()
  for (const r of rayNodes) {
    for (const rule of MATCH_RULES) {
      const candidates = nodes.filter((n) => rule(r, n))
      if (candidates.length === 1 && candidates[0]) matches.set(r, candidates[0])
      if (candidates.length > 0) break
    }
  }
  // Ray's head is the manifest's head when nothing else claimed either of them.
  const rayHead = rayNodes.find((r) => r.alive && r.isHead && !matches.has(r))
  const heads = nodes.filter((n) => n.role === 'head')
  const head = heads[0]
  if (rayHead && heads.length === 1 && head && ![...matches].some(([r, n]) => n === head && r.alive)) {
    matches.set(rayHead, head)
  }
  return matches
}

function clusterNodes(facts: FactsBundle, expected: Expectation | undefined): ClusterNode[] {
  const okFacts = (name: string): NodeFacts | undefined => facts.nodes.find((f) => f.node === name && f.ok)
  const fromManifest: ClusterNode[] = (expected?.nodes ?? []).map((e) => {
    const f = okFacts(e.name)
    return { name: e.name, role: e.role, expected: e, ...(f ? { facts: f } : {}) }
  })
  const extra: ClusterNode[] = facts.nodes
    .filter((f) => !fromManifest.some((n) => n.name === f.node))
    .map((f) => ({ name: f.node, ...(f.ok ? { facts: f } : {}) }))
  return [...fromManifest, ...extra]
}

function vllmIp(node: ClusterNode): VllmIp | undefined {
  const c = node.facts?.container
  if (!c) return undefined
  if (c.vllmIp) {
    const source =
      c.vllmIpSource === 'VLLM_HOST_IP'
        ? 'from VLLM_HOST_IP'
        : c.vllmIpSource === 'default-route'
          ? 'from the default route; VLLM_HOST_IP unset'
          : 'as computed in the container'
    return { ip: c.vllmIp, source, fromEnv: c.vllmIpSource === 'VLLM_HOST_IP' }
  }
  const env = envOfNode(node)?.['VLLM_HOST_IP']?.trim()
  if (env) return { ip: env, source: 'from VLLM_HOST_IP', fromEnv: true }
  // The container shares the host's network (--network host), so the host's default route is what
  // vLLM's UDP "connect" to 8.8.8.8 would pick.
  const src = node.facts?.defaultRoute?.src
  if (src) return { ip: src, source: 'from the default route; VLLM_HOST_IP unset', fromEnv: false }
  return undefined
}

export function buildContext(facts: FactsBundle, expected?: Expectation, options: CheckOptions = {}): CheckContext {
  const nodes = clusterNodes(facts, expected)
  const ray = facts.ray && !facts.ray.error ? facts.ray : undefined
  const aliveRayNodes = (ray?.nodes ?? []).filter((n) => n.alive)
  const matches = matchRayNodes(ray?.nodes ?? [], nodes)
  const rayNodeOf = (node: ClusterNode): RayNode | undefined => {
    const mine = [...matches].filter(([, n]) => n === node).map(([r]) => r)
    return mine.find((r) => r.alive) ?? mine[0]
  }
  const clusterNodeOf = (r: RayNode): ClusterNode | undefined => matches.get(r)
  const head =
    nodes.find((n) => n.role === 'head') ??
    (() => {
      const rayHead = aliveRayNodes.find((r) => r.isHead)
      return rayHead ? matches.get(rayHead) : undefined
    })()
  const container = head?.facts?.container
  const executor = vllmPinsDriverNode(container?.versions.vllm, (head && envOfNode(head)) ?? {})
  return {
    facts,
    ...(expected ? { expected } : {}),
    options,
    nodes,
    ...(ray ? { ray } : {}),
    aliveRayNodes,
    rayAddressesKnown: aliveRayNodes.length > 0 && aliveRayNodes.every((n) => n.address !== ''),
    ...(head ? { head } : {}),
    executor,
    rayNodeOf,
    clusterNodeOf,
    vllmIpOf: vllmIp,
    envOf: envOfNode,
  }
}

/** `10.1.230.180 (head)`, or `node_1a2b3c4d` when Ray did not give an address. */
export function describeRayNode(r: RayNode): string {
  const name = r.address !== '' ? r.address : r.nodeId !== '' ? `node_${r.nodeId.slice(0, 8)}` : '(unnamed node)'
  return `${name}${r.isHead ? ' (head)' : ''}${r.alive ? '' : ' (dead)'}`
}

export const describeRayNodes = (nodes: readonly RayNode[]): string => (nodes.length === 0 ? '(none)' : nodes.map(describeRayNode).join(', '))

/** Ray's GPU resource on a node: a number, 0 when the map is complete and lacks it, undefined when unknown. */
export function rayGpus(r: RayNode): number | undefined {
  const gpu = r.resources['GPU']
  if (gpu !== undefined) return gpu
  return r.resourcesTruncated ? undefined : 0
}
