/**
 * Proof that the model spans the cluster the manifest describes, from Ray's own tables on the
 * head: vLLM's placement group is CREATED, has TP x PP GPU bundles, and they sit on live Ray nodes
 * at the manifest's fabric IPs, on every GPU node it needs. Pure: Ray's data in, findings out.
 */
import type { Manifest, ManifestNode } from '../manifest/schema.js'
import type { Finding } from '../preflight/finding.js'
import { smokeFinding } from './smoke-finding.js'

/** `ray.util.placement_group_table()` and `ray.nodes()`, as the Ray query prints them (JSON). */
export interface RayPlacementData {
  readonly pgs: Readonly<Record<string, RayPlacementGroup>>
  readonly nodes: readonly RayNodeEntry[]
}

export interface RayPlacementGroup {
  readonly placement_group_id: string
  readonly name?: string
  readonly state: string
  readonly strategy?: string
  readonly bundles: Readonly<Record<string, Readonly<Record<string, number>>>>
  readonly bundles_to_node_id?: Readonly<Record<string, string | null>>
}

export interface RayNodeEntry {
  readonly NodeID: string
  readonly Alive: boolean
  readonly NodeManagerAddress: string
}

export interface ServingNode {
  readonly ip: string
  /** Manifest node at that fabric IP, if any. */
  readonly node?: string
  readonly bundles: number
  readonly alive: boolean
}

export interface ClusterProof {
  readonly placementGroup?: { readonly id: string; readonly state: string; readonly bundles: number }
  /** vLLM's native mode (no Ray): the process group's store and the ranks each node holds (src/smoke/native-proof.ts). */
  readonly group?: { readonly store: string; readonly ranksPerNode: number; readonly formed: boolean }
  readonly serving: readonly ServingNode[]
  readonly findings: readonly Finding[]
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Validate the query's output; a problem string when it is not what the query prints. */
export function parseRayPlacement(text: string): RayPlacementData | string {
  const last = text.trim().split('\n').pop() ?? ''
  let j: unknown
  try {
    j = JSON.parse(last)
  } catch {
    return `the Ray query printed no JSON: ${JSON.stringify(text.trim().slice(-300))}`
  }
  if (!isObject(j) || !isObject(j.pgs) || !Array.isArray(j.nodes)) return 'the Ray query printed JSON without "pgs" and "nodes"'
  for (const pg of Object.values(j.pgs))
    if (!isObject(pg) || typeof pg.state !== 'string' || !isObject(pg.bundles)) return 'a placement group entry lacks "state" or "bundles"'
  for (const n of j.nodes)
    if (!isObject(n) || typeof n.NodeID !== 'string' || typeof n.NodeManagerAddress !== 'string') return 'a Ray node entry lacks NodeID or NodeManagerAddress'
  return j as unknown as RayPlacementData
}

const gpuBundles = (pg: RayPlacementGroup) => Object.entries(pg.bundles).filter(([, b]) => (b.GPU ?? 0) > 0)

/** vLLM's group: not removed, GPU bundles; the newest CREATED one when there are several. */
export function findVllmPlacementGroup(data: RayPlacementData, size: number): RayPlacementGroup | undefined {
  const live = Object.values(data.pgs).filter((pg) => pg.state !== 'REMOVED' && gpuBundles(pg).length > 0)
  const rank = (pg: RayPlacementGroup) => (pg.state === 'CREATED' ? 2 : 0) + (gpuBundles(pg).length === size ? 1 : 0)
  return [...live].sort((a, b) => rank(b) - rank(a))[0]
}

const FIX_IDENTITY =
  "Start every node's Ray with --node-ip-address <its fabric IP> and the same VLLM_HOST_IP, then restart vllm serve (see the preflight's findings: vllm-ray-deploy preflight)."

export function proveCluster(m: Manifest, data: RayPlacementData): ClusterProof {
  const size = m.vllm.tensorParallelSize * m.vllm.pipelineParallelSize
  const pg = findVllmPlacementGroup(data, size)
  if (!pg) return { serving: [], findings: noGroupFindings(m, data, size) }
  const bundles = gpuBundles(pg)
  const { serving, unplaced } = placementOf(m, data, bundles, pg.bundles_to_node_id ?? {})
  const where = (s: ServingNode) => `${s.node ?? '?'} ${s.ip}: ${s.bundles} bundle(s)${s.alive ? '' : ' (dead)'}`
  const evidence = {
    'placement group': `${pg.placement_group_id} ${pg.state}`,
    bundles: `${bundles.length} GPU bundles, expected ${size}`,
    'bundles on': serving.map(where).join('; ') || '(none placed)',
    'manifest GPU nodes': gpuNodeList(m),
  }
  const findings = [
    ...groupFindings(pg, bundles.length, size, unplaced, evidence),
    ...serving.flatMap((s) => servingNodeFindings(m, s, evidence)),
    ...idleGpuNodeFindings(m, serving, size, evidence),
  ]
  return { placementGroup: { id: pg.placement_group_id, state: pg.state, bundles: bundles.length }, serving, findings }
}

const gpuNodeList = (m: Manifest): string =>
  m.nodes
    .filter((n) => n.gpus > 0)
    .map((n) => `${n.name} ${n.fabricIp}`)
    .join(', ')

/** No usable group: SMOKE_PLACEMENT_GROUP_MISSING, and the GPU nodes Ray does not have alive (the likeliest reason). */
function noGroupFindings(m: Manifest, data: RayPlacementData, size: number): Finding[] {
  const groups = Object.values(data.pgs)
  const findings: Finding[] = [
    smokeFinding(
      'SMOKE_PLACEMENT_GROUP_MISSING',
      `Ray on the head has no live placement group with GPU bundles, so vLLM is not running on Ray across the cluster (${groups.length} group(s) in Ray's table, none usable).`,
      {
        'placement groups':
          groups.map((g) => `${g.placement_group_id.slice(0, 12)} ${g.state} ${Object.keys(g.bundles).length} bundles`).join('; ') || '(none)',
        expected: `${size} GPU bundles (tensorParallelSize ${m.vllm.tensorParallelSize} x pipelineParallelSize ${m.vllm.pipelineParallelSize})`,
      },
      'Start vLLM with --distributed-executor-backend ray against this Ray cluster (RAY_ADDRESS), or check that smoke.url reaches this deployment and not a single-node server.',
    ),
  ]
  const alive = new Set(data.nodes.filter((n) => n.Alive).map((n) => n.NodeManagerAddress))
  for (const n of m.nodes.filter((x) => x.gpus > 0 && !alive.has(x.fabricIp))) {
    findings.push(
      smokeFinding(
        'SMOKE_SERVING_NODE_MISSING',
        `${n.name} (${n.fabricIp}) is not a live Ray node, so the model cannot be served across the manifest's nodes.`,
        { 'live Ray nodes': [...alive].join(', ') || '(none)', 'manifest GPU nodes': gpuNodeList(m) },
        `Start Ray on ${n.name} again (ray start --address <head fabric IP>:${m.ray.port} --node-ip-address ${n.fabricIp} in its container), then restart vllm serve.`,
        n.name,
      ),
    )
  }
  return findings
}

/** Where the GPU bundles sit: per Ray node (its address, manifest node, count, liveness), and the bundles with no node. */
function placementOf(
  m: Manifest,
  data: RayPlacementData,
  bundles: readonly [string, unknown][],
  placement: Readonly<Record<string, string | null>>,
): { serving: ServingNode[]; unplaced: string[] } {
  const byIp = new Map(m.nodes.map((n) => [n.fabricIp, n]))
  const rayById = new Map(data.nodes.map((n) => [n.NodeID, n]))
  const counts = new Map<string, number>()
  const unplaced: string[] = []
  for (const [idx] of bundles) {
    const nodeId = placement[idx]
    if (!nodeId) unplaced.push(idx)
    else counts.set(nodeId, (counts.get(nodeId) ?? 0) + 1)
  }
  const serving = [...counts].map(([id, n]): ServingNode => {
    const ray = rayById.get(id)
    const ip = ray?.NodeManagerAddress ?? `(Ray node ${id.slice(0, 12)}, not in ray.nodes())`
    const node = byIp.get(ip)?.name
    return { ip, ...(node && { node }), bundles: n, alive: ray?.Alive ?? false }
  })
  return { serving, unplaced }
}

/** The group as a whole: CREATED, with TP x PP GPU bundles. */
function groupFindings(pg: RayPlacementGroup, bundles: number, size: number, unplaced: readonly string[], evidence: Record<string, string>): Finding[] {
  const findings: Finding[] = []
  if (pg.state !== 'CREATED') {
    findings.push(
      smokeFinding(
        'SMOKE_PLACEMENT_GROUP_NOT_CREATED',
        `vLLM's placement group is ${pg.state}, not CREATED${unplaced.length ? `: bundle(s) ${unplaced.join(', ')} have no node` : ''}; the model is not fully placed on the cluster.`,
        evidence,
        pg.state === 'RESCHEDULING' ? 'A node holding a bundle left Ray: bring its Ray back (ray start on that node), then restart vllm serve.' : FIX_IDENTITY,
      ),
    )
  }
  if (bundles !== size) {
    findings.push(
      smokeFinding(
        'SMOKE_BUNDLE_COUNT',
        `vLLM's placement group has ${bundles} GPU bundles, but tensorParallelSize x pipelineParallelSize is ${size}.`,
        evidence,
        'The server runs with other parallel sizes than the manifest: redeploy, or set vllm.tensorParallelSize/pipelineParallelSize to what is running.',
      ),
    )
  }
  return findings
}

/** One Ray node holding bundles: alive, at a manifest node's fabric IP, no more bundles than that node's GPUs. */
function servingNodeFindings(m: Manifest, s: ServingNode, evidence: Record<string, string>): Finding[] {
  const findings: Finding[] = []
  const manifestNode = s.node ? new Map(m.nodes.map((n) => [n.fabricIp, n])).get(s.ip) : undefined
  if (!s.alive) {
    findings.push(
      smokeFinding(
        'SMOKE_BUNDLE_NODE_DEAD',
        `${s.bundles} bundle(s) of vLLM's placement group sit on Ray node ${s.ip}${s.node ? ` (${s.node})` : ''}, which Ray reports dead.`,
        evidence,
        `Bring Ray back on ${s.node ?? s.ip} (its container and ray start), then restart vllm serve on the head.`,
        s.node ?? null,
      ),
    )
  }
  if (!manifestNode) {
    findings.push(
      smokeFinding(
        'SMOKE_BUNDLE_OFF_FABRIC',
        `A bundle of vLLM's placement group sits on Ray node ${s.ip}, which is no manifest node's fabric IP: Ray registered that node under another address.`,
        evidence,
        FIX_IDENTITY,
      ),
    )
  } else if (s.bundles > manifestNode.gpus) {
    findings.push(
      smokeFinding(
        'SMOKE_BUNDLES_OVERPACKED',
        `${s.bundles} bundles sit on ${manifestNode.name}, which has ${manifestNode.gpus} GPU(s) in the manifest.`,
        evidence,
        `Ray reports more GPUs on ${manifestNode.name} than the manifest: fix ray start --num-gpus there or nodes[].gpus.`,
        manifestNode.name,
      ),
    )
  }
  return findings
}

/** Every GPU node must serve when the model needs all the GPUs (the seed cluster: TP 2 over two 1-GPU nodes). */
function idleGpuNodeFindings(m: Manifest, serving: readonly ServingNode[], size: number, evidence: Record<string, string>): Finding[] {
  const gpuNodes = m.nodes.filter((n) => n.gpus > 0)
  const totalGpus = gpuNodes.reduce((a, n) => a + n.gpus, 0)
  if (size < totalGpus) return []
  const servingNames = new Set(serving.filter((s) => s.alive).map((s) => s.node))
  return gpuNodes
    .filter((g: ManifestNode) => !servingNames.has(g.name))
    .map((n) =>
      smokeFinding(
        'SMOKE_SERVING_NODE_MISSING',
        `${n.name} (${n.fabricIp}) holds no live bundle of vLLM's placement group: the model is served from ${servingNames.size} of the manifest's ${gpuNodes.length} GPU nodes.`,
        evidence,
        `Make ${n.name}'s Ray join the head at its fabric IP (ray start --address <head fabric IP>:${m.ray.port} --node-ip-address ${n.fabricIp}) and restart vllm serve.`,
        n.name,
      ),
    )
}

/**
 * Runs inside the head's container: Ray's placement-group table and node list as one JSON line.
 * Read from the GCS the way Ray's CLI tools do (`internal_api.get_state_from_address`, the same
 * tables `ray.util.placement_group_table()` and `ray.nodes()` return), without `ray.init`, which
 * would start and register a whole driver: 0.5 s instead of 1.25 s on the lab, same JSON.
 */
export const RAY_PLACEMENT_PY = [
  'import json',
  'from ray._private.internal_api import get_state_from_address',
  'state = get_state_from_address("auto")',
  'nodes = [{k: n.get(k) for k in ("NodeID", "Alive", "NodeManagerAddress")} for n in state.node_table()]',
  'print(json.dumps({"pgs": state.placement_group_table(), "nodes": nodes}))',
].join('\n')
