/**
 * The facts bundle: everything the preflight learned about a cluster, as plain JSON.
 * Gathered live (one SSH round trip per node, plus Ray's view from the head) or assembled
 * offline by `diagnose` from files a person pastes. Checks only ever read this.
 */

export interface FactsBundle {
  readonly schemaVersion: 1
  /** ISO time the facts were gathered (or assembled). */
  readonly gatheredAt: string
  readonly cluster?: string
  readonly nodes: readonly NodeFacts[]
  /** Ray's own view of the cluster, taken inside the head's container. */
  readonly ray?: RayView
}

export interface InterfaceFacts {
  readonly name: string
  /** Addresses in CIDR form, e.g. `192.168.200.12/24`. IPv4 and IPv6. */
  readonly addresses: readonly string[]
  readonly up: boolean
}

export interface RouteFacts {
  /** Destination asked about (`default`, or a peer's fabric IP). */
  readonly to: string
  readonly dev?: string
  /** Source address the kernel picks for this route: the identity a process binding "by route" gets. */
  readonly src?: string
  readonly via?: string
  /** Set when the lookup failed (no route). */
  readonly error?: string
}

export interface PeerReachability {
  readonly peer: string
  readonly ip: string
  readonly route: RouteFacts
  /** Result of a bounded TCP/ICMP probe over the fabric; undefined when not probed. */
  readonly reachable?: boolean
  readonly detail?: string
}

export interface NodeFacts {
  /** Node name from the manifest (or from the input file for offline diagnosis). */
  readonly node: string
  readonly sshHost?: string
  /** False when the node could not be reached or the facts script failed; `error` says why. */
  readonly ok: boolean
  readonly error?: string
  readonly hostname?: string
  readonly interfaces: readonly InterfaceFacts[]
  readonly defaultRoute?: RouteFacts
  readonly peers: readonly PeerReachability[]
  readonly gpus: readonly GpuFacts[]
  /** The vLLM/Ray container on this node, when one exists. */
  readonly container?: ContainerFacts
}

export interface GpuFacts {
  readonly index: number
  readonly name: string
  readonly uuid?: string
}

export interface ContainerFacts {
  readonly name: string
  readonly running: boolean
  readonly imageRef?: string
  readonly imageId?: string
  /** The container's environment, limited to the variables that matter for Ray/vLLM networking. */
  readonly env: Readonly<Record<string, string>>
  readonly versions: { readonly python?: string; readonly ray?: string; readonly vllm?: string }
  /**
   * The IP vLLM will use for this node, computed inside the container by vLLM's own rule:
   * `VLLM_HOST_IP` if set, else the source address of the default route (UDP "connect" to 8.8.8.8,
   * which sends nothing).
   */
  readonly vllmIp?: string
  readonly vllmIpSource?: 'VLLM_HOST_IP' | 'default-route' | 'unknown'
  /** Ray's idea of this node's IP as seen from inside the container (`ray.util.get_node_ip_address()`), if Ray is up. */
  readonly rayNodeIp?: string
}

/** The resource Ray gives its head node only (every node also has `node:<its address>`). */
export const RAY_HEAD_RESOURCE = 'node:__internal_head__'

export interface RayNode {
  readonly nodeId: string
  readonly alive: boolean
  /** `NodeManagerAddress`: the node's identity; its resource is `node:<address>`. */
  readonly address: string
  readonly hostname?: string
  readonly isHead: boolean
  readonly resources: Readonly<Record<string, number>>
  /**
   * True when `resources` is known to be incomplete (a pasted line cut off with `...`). Checks then
   * treat a missing resource (say `GPU`) as unknown rather than zero: Ray omits zero resources, so
   * only a complete map proves a node has none.
   */
  readonly resourcesTruncated?: boolean
}

export interface RayView {
  /** Where this view came from: `ray.nodes()` live, a pasted file, or `ray status` text. */
  readonly source: string
  readonly nodes: readonly RayNode[]
  /** Totals from `ray status` when that is all we have (`GPU` → 2). */
  readonly totals?: Readonly<Record<string, number>>
  /** Pending resource demands from `ray status` (each a resource map). */
  readonly pendingDemands?: readonly Readonly<Record<string, number>>[]
  /** Set when Ray could not be queried; checks then skip Ray-based comparisons. */
  readonly error?: string
}
