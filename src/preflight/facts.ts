/**
 * The facts bundle: everything the preflight learned about a cluster, as plain JSON.
 * Gathered live (one SSH round trip per node, plus Ray's view from the head) or assembled
 * offline by `diagnose` from files a person pastes. Checks only ever read this. A bundle read from
 * a file is checked against this schema first (the types are derived from it, as the manifest's are).
 */
import { z } from 'zod'

const strings = () => z.array(z.string()).readonly()
const numberMap = () => z.record(z.string(), z.number()).readonly()

export const InterfaceFactsSchema = z
  .object({
    name: z.string(),
    /** Addresses in CIDR form, e.g. `192.168.200.12/24`. IPv4 and IPv6. */
    addresses: strings(),
    up: z.boolean(),
  })
  .readonly()

export const RouteFactsSchema = z
  .object({
    /** Destination asked about (`default`, or a peer's fabric IP). */
    to: z.string(),
    dev: z.string().optional(),
    /** Source address the kernel picks for this route: the identity a process binding "by route" gets. */
    src: z.string().optional(),
    via: z.string().optional(),
    /** Set when the lookup failed (no route). */
    error: z.string().optional(),
  })
  .readonly()

export const PeerReachabilitySchema = z
  .object({
    peer: z.string(),
    ip: z.string(),
    route: RouteFactsSchema,
    /** Result of a bounded TCP/ICMP probe over the fabric; undefined when not probed. */
    reachable: z.boolean().optional(),
    detail: z.string().optional(),
  })
  .readonly()

export const GpuFactsSchema = z.object({ index: z.number(), name: z.string(), uuid: z.string().optional() }).readonly()

/** Where vLLM's `get_ip()` took the IP from, inside the container. */
export const VLLM_IP_SOURCES = ['VLLM_HOST_IP', 'default-route', 'unknown'] as const

export const ContainerFactsSchema = z
  .object({
    name: z.string(),
    running: z.boolean(),
    imageRef: z.string().optional(),
    imageId: z.string().optional(),
    /** The container's environment, limited to the variables that matter for Ray/vLLM networking. */
    env: z.record(z.string(), z.string()).readonly(),
    versions: z.object({ python: z.string().optional(), ray: z.string().optional(), vllm: z.string().optional() }).readonly(),
    /**
     * The IP vLLM will use for this node, computed inside the container by vLLM's own rule:
     * `VLLM_HOST_IP` if set, else the source address of the default route (UDP "connect" to 8.8.8.8,
     * which sends nothing).
     */
    vllmIp: z.string().optional(),
    vllmIpSource: z.enum(VLLM_IP_SOURCES).optional(),
    /** Ray's idea of this node's IP as seen from inside the container, if Ray is up. */
    rayNodeIp: z.string().optional(),
  })
  .readonly()

export const NodeFactsSchema = z
  .object({
    /** Node name from the manifest (or from the input file for offline diagnosis). */
    node: z.string(),
    sshHost: z.string().optional(),
    /** False when the node could not be reached or the facts script failed; `error` says why. */
    ok: z.boolean(),
    error: z.string().optional(),
    hostname: z.string().optional(),
    interfaces: z.array(InterfaceFactsSchema).readonly(),
    defaultRoute: RouteFactsSchema.optional(),
    peers: z.array(PeerReachabilitySchema).readonly(),
    gpus: z.array(GpuFactsSchema).readonly(),
    /** The vLLM/Ray container on this node, when one exists. */
    container: ContainerFactsSchema.optional(),
  })
  .readonly()

/** The resource Ray gives its head node only (every node also has `node:<its address>`). */
export const RAY_HEAD_RESOURCE = 'node:__internal_head__'

export const RayNodeSchema = z
  .object({
    nodeId: z.string(),
    alive: z.boolean(),
    /** `NodeManagerAddress`: the node's identity; its resource is `node:<address>`. */
    address: z.string(),
    hostname: z.string().optional(),
    isHead: z.boolean(),
    resources: numberMap(),
    /**
     * True when `resources` is known to be incomplete (a pasted line cut off with `...`). Checks then
     * treat a missing resource (say `GPU`) as unknown rather than zero: Ray omits zero resources, so
     * only a complete map proves a node has none.
     */
    resourcesTruncated: z.boolean().optional(),
  })
  .readonly()

export const RayViewSchema = z
  .object({
    /** Where this view came from: `ray.nodes()` live, a pasted file, or `ray status` text. */
    source: z.string(),
    nodes: z.array(RayNodeSchema).readonly(),
    /** Totals from `ray status` (`GPU` → 2). */
    totals: numberMap().optional(),
    /** Pending resource demands from `ray status` (each a resource map). */
    pendingDemands: z.array(numberMap()).readonly().optional(),
    /** Set when Ray could not be queried; checks then skip Ray-based comparisons. */
    error: z.string().optional(),
  })
  .readonly()

export const FactsBundleSchema = z
  .object({
    schemaVersion: z.literal(1, { error: (issue) => `this tool reads facts bundles of schemaVersion 1, got ${JSON.stringify(issue.input) ?? 'nothing'}` }),
    /** ISO time the facts were gathered (or assembled). */
    gatheredAt: z.string(),
    cluster: z.string().optional(),
    nodes: z.array(NodeFactsSchema).readonly(),
    /** Ray's own view of the cluster, taken inside the head's container. */
    ray: RayViewSchema.optional(),
  })
  .readonly()

export type InterfaceFacts = z.output<typeof InterfaceFactsSchema>
export type RouteFacts = z.output<typeof RouteFactsSchema>
export type PeerReachability = z.output<typeof PeerReachabilitySchema>
export type GpuFacts = z.output<typeof GpuFactsSchema>
export type ContainerFacts = z.output<typeof ContainerFactsSchema>
export type NodeFacts = z.output<typeof NodeFactsSchema>
export type RayNode = z.output<typeof RayNodeSchema>
export type RayView = z.output<typeof RayViewSchema>
export type FactsBundle = z.output<typeof FactsBundleSchema>
