/**
 * The facts bundle: everything the preflight learned about a cluster, as plain JSON.
 * Gathered live (one SSH round trip per node, plus Ray's view from the head) or assembled
 * offline by `diagnose` from files a person pastes. Checks only ever read this. A bundle read from
 * a file is checked against this schema first (the types are derived from it, as the manifest's are).
 */
import { z } from 'zod'
import { MAX_CLUSTER_NODES, MAX_RAY_NODES } from '../manifest/manifest-constants.js'
import { CollectiveLineSchema } from '../probe/collective-program.js'
import { NodeFactsSchema } from '../probe/node-facts.js'

export {
  CdiSpecFactsSchema,
  type CdiSpecFacts,
  ContainerFactsSchema,
  type ContainerFacts,
  GpuFactsSchema,
  type GpuFacts,
  HostFactsSchema,
  type HostFacts,
  InterfaceFactsSchema,
  type InterfaceFacts,
  NodeFactsSchema,
  type NodeFacts,
  PeerReachabilitySchema,
  type PeerReachability,
  PortProbeSchema,
  type PortProbe,
  RouteFactsSchema,
  type RouteFacts,
  VLLM_IP_SOURCES,
  VllmProcessSchema,
  type VllmProcess,
} from '../probe/node-facts.js'

const numberMap = () => z.record(z.string(), z.number()).readonly()

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
    nodes: z
      .array(RayNodeSchema)
      .max(MAX_RAY_NODES, { error: `at most ${MAX_RAY_NODES} Ray nodes` })
      .readonly(),
    /** Totals from `ray status` (`GPU` → 2). */
    totals: numberMap().optional(),
    /** Pending resource demands from `ray status` (each a resource map). */
    pendingDemands: z
      .array(numberMap())
      .max(MAX_RAY_NODES, { error: `at most ${MAX_RAY_NODES} pending demands` })
      .readonly()
      .optional(),
    /** Set when Ray could not be queried; checks then skip Ray-based comparisons. */
    error: z.string().optional(),
  })
  .readonly()

/** What NCCL said at init on one rank (src/preflight/nccl-init.ts). */
export const NcclInitSchema = z
  .object({
    version: z.string().optional(),
    network: z.string().optional(),
    ibHca: z.string().optional(),
    socketIfname: z.string().optional(),
    ibNoDevice: z.boolean(),
    socketInterfaces: z.string().optional(),
    warnings: z.array(z.string()).readonly(),
  })
  .readonly()

/** One rank of the fabric collective: a node's throw-away container of the release's image. */
export const CollectiveRankSchema = z
  .object({
    node: z.string(),
    rank: z.number().int().min(0),
    fabricIp: z.string(),
    /** The program's own line, when it printed one. */
    line: CollectiveLineSchema.optional(),
    /** Why there is no line: the command's outcome (exit status, timeout). */
    error: z.string().optional(),
    /** The last lines of its output, for evidence. */
    tail: z.string(),
    nccl: NcclInitSchema.optional(),
  })
  .readonly()

/** The fabric collective (src/preflight/gather/run-collective.ts): every node's rank, run at once. */
export const CollectiveFactsSchema = z
  .object({
    image: z.string(),
    addr: z.string(),
    port: z.number().int(),
    bytes: z.number().int(),
    timeoutSeconds: z.number(),
    /** NCCL_IB_HCA as the containers were given it (the manifest's container.env). */
    ibHca: z.string().optional(),
    ranks: z
      .array(CollectiveRankSchema)
      .max(MAX_CLUSTER_NODES, { error: `at most ${MAX_CLUSTER_NODES} ranks, one per node` })
      .readonly(),
    durationMs: z.number(),
  })
  .readonly()

export const FactsBundleSchema = z
  .object({
    schemaVersion: z.literal(1, { error: (issue) => `this tool reads facts bundles of schemaVersion 1, got ${JSON.stringify(issue.input) ?? 'nothing'}` }),
    /** ISO time the facts were gathered (or assembled). */
    gatheredAt: z.string(),
    cluster: z.string().optional(),
    nodes: z
      .array(NodeFactsSchema)
      .max(MAX_CLUSTER_NODES, { error: `at most ${MAX_CLUSTER_NODES} nodes, as in a manifest` })
      .readonly(),
    /** Ray's own view of the cluster, taken inside the head's container. */
    ray: RayViewSchema.optional(),
    /** The fabric collective, when it ran (a deploy's fabric-test stage, the preflight). */
    collective: CollectiveFactsSchema.optional(),
  })
  .readonly()

export type RayNode = z.output<typeof RayNodeSchema>
export type RayView = z.output<typeof RayViewSchema>
export type FactsBundle = z.output<typeof FactsBundleSchema>
export type CollectiveFacts = z.output<typeof CollectiveFactsSchema>
export type CollectiveRank = z.output<typeof CollectiveRankSchema>
