/**
 * Placement groups that never became ready, as the launchers around vLLM report them: RL trainers
 * (NeMo RL, SkyRL), Ray Train and any code that waits on `ray.get(pg.ready(), timeout=…)` raise
 * their own wordings, not vLLM's "Cannot provide a placement group". And where a paste is cut
 * before the exception (the traceback ends inside Ray's get), the frames still say what the process
 * was waiting for: a placement group's readiness. Wordings with their sources in src/preflight/WORDINGS.md.
 */

import { gpusRequested } from './demand-count.js'
import type { LineContext, RuleHit, SignatureRule } from './signature-rules.js'
import { nodeEvidence as node } from './line-node.js'

const PG_FIX =
  "Check `ray status` while it waits: every node the job needs must be alive with its GPUs (GPU total ≥ what the bundles ask for); on Kubernetes (KubeRay, LeaderWorkerSet, Lepton) check that the worker pods started and joined the head; stop an earlier job or leaked placement group holding the GPUs (ray stop / ray start). Only when nodes join slowly, raise the framework's placement-group timeout."

/** GPUs in a resource map as Ray Serve prints it (`{"CPU": 1.0, "GPU": 1.0}`, `{'GPU': 2.0}`): 0 where the map names none. */
const gpusIn = (map: string): number => gpusRequested(map) ?? 0

/**
 * Ray Serve's controller on replicas it could not place (serve/_private/deployment_state.py): the resources each replica needs
 * against what the cluster has free. "Resources required for each replica: [{"CPU": 1.0, "GPU": 1.0}], total resources available: {}."
 */
function serveReplicasPending(m: RegExpExecArray, line: string, context: LineContext): RuleHit {
  const resources = /Resources required for each replica: (\[[^\]]*\]|\{[^}]*\}), (?:total )?resources available: (\{[^}]*\})/.exec(line)
  const wanted = resources ? gpusIn(resources[1]!) : 0
  const free = resources ? gpusIn(resources[2]!) : 0
  const short = wanted > free
  return {
    key: `serve-pending:${m[1]}`,
    severity: 'warning',
    message: `Ray Serve has not placed ${m[3]} replica(s) of deployment '${m[1]}' for over ${m[4]} s${short ? `: each needs ${wanted} GPU(s) and the cluster has ${free} free` : ': the cluster lacks the resources a replica asks for'} (it clears only when a node with them joins or frees them).`,
    evidence: {
      Deployment: m[1]!,
      ...(m[2] ? { Application: m[2] } : {}),
      ...(resources ? { 'Each replica needs': resources[1]!, 'Resources available': resources[2]! } : {}),
      ...node(context),
    },
    fix: short
      ? "The cluster has no free GPU for a replica: check `ray status` (every GPU node joined, with its GPUs: on Kubernetes the pods' nvidia.com/gpu limits and the GPU Operator or device plugin; in Docker the container's --gpus), and stop whatever holds the GPUs."
      : PG_FIX,
  }
}

/** The code line a traceback shows under a frame that waits for a placement group: `ray.get(pg.ready(), …)`, `ray.wait([current_placement_group.ready()], …)`. */
const WAIT_LINE = /\bray\.(?:get|wait)\(\s*\[?\s*([\w.]*(?:pg|placement_?group)s?\w*(?:\[[^\]]*\])?\.ready\(\))/i
/** A frame of a function named for a placement group (`_create_placement_groups_internal`, `get_ray_pg_ready_with_timeout`, `_wait_until_pg_ready`). */
const PG_FRAME = /^\s*File "[^"]+", line \d+, in (\w*(?:placement_groups?|_pgs?_|_pgs?$|pg_ready)\w*)\s*$/
/** Any other frame, and the frames of Ray's own get/wait under the waiting line. */
const FRAME = /^\s*File "([^"]+)", line \d+, in ([\w.<>]+)/
const RAY_GET = /(?:\/ray\/_private\/(?:worker|auto_init_hook|client_mode_hook)\.py|_raylet\.pyx|\/ray\/includes\/common\.pxi)$/

/**
 * Reads one line of a traceback for the placement-group wait: the waiting line (or a placement-group
 * function whose next line is `ray.get(`/`ray.wait(`), then Ray's get frames or its GetTimeoutError.
 * Returns what was awaited once the traceback is inside Ray's get, undefined otherwise.
 */
function pgWait(line: string, memory: Map<string, string>): string | undefined {
  if (/Traceback \(most recent call last\)/.test(line)) {
    memory.delete('pgWait')
    memory.delete('pgFrame')
    return undefined
  }
  const waiting = WAIT_LINE.exec(line)
  if (waiting) {
    memory.set('pgWait', waiting[1]!)
    memory.delete('pgFrame')
    return undefined
  }
  const fnFrame = PG_FRAME.exec(line)
  if (fnFrame) {
    memory.set('pgFrame', fnFrame[1]!)
    memory.delete('pgWait')
    return undefined
  }
  const pgFrame = memory.get('pgFrame')
  memory.delete('pgFrame')
  if (pgFrame !== undefined && /^\s*(?:\w+\s*=\s*)?ray\.(?:get|wait)\(/.test(line)) {
    memory.set('pgWait', `ray.get/wait in ${pgFrame}`)
    return undefined
  }
  const frame = FRAME.exec(line)
  const awaited = memory.get('pgWait')
  if (frame && !RAY_GET.test(frame[1]!)) memory.delete('pgWait')
  return awaited !== undefined && ((frame && RAY_GET.test(frame[1]!)) || /\bGetTimeoutError\b/.test(line)) ? awaited : undefined
}

export const PLACEMENT_RULES: readonly SignatureRule[] = [
  {
    // `ray status` pasted into a log (its Demands section, Ray 2.x; `Total Demands:`/`Pending Demands:` in later layouts): "{'GPU': 0.9}: 1+ pending
    // tasks/actors (1+ using placement groups)", "{'GPU': 1.0, 'node:192.168.200.12': 0.001} * 1, {'GPU': 1.0} * 1 (PACK): 1+ pending placement
    // groups" — a task, an actor or a placement group Ray has not placed (ray-project/ray#42683, held-out batch 136: an actor with a fractional GPU
    // inside a reserved group). A healthy cluster's status says "(no resource demands)". A warning: it clears when the resources free or join; a
    // bundle pinned to node:<ip> is named, the address every Ray node's IP must be compared with.
    code: 'PLACEMENT_GROUP_PENDING',
    // (the heading joined on: a demand indented under it goes on the heading's line)
    pattern:
      /^\s*(?:(?:Total |Pending )?Demands:\s*)?(\{[^{}\n]*\}(?: \* \d+)?(?:, \{[^{}\n]*\}(?: \* \d+)?)*)(?: \((\w+)\))?: (\d+)\+ pending (tasks\/actors|placement groups)/,
    hit: (m, _line, _ray, context): RuleHit => {
      const pin = /'node:([^']+)':/.exec(m[1]!)?.[1]
      const gpus = gpusIn(m[1]!)
      return {
        key: `status-demand:${m[1]}`,
        severity: 'warning',
        message: `Ray's status shows ${m[3]}+ pending ${m[4]} asking for ${m[1]}${pin ? `, pinned to node:${pin}` : ''}: Ray has not placed ${m[4] === 'placement groups' ? 'the group' : 'it'}: no node offers those resources to it (none has them free, or they are held inside another group${pin ? ', or no Ray node has that address' : ''}).`,
        evidence: {
          'Pending demand (ray status)': m[1]!,
          ...(m[2] ? { Strategy: m[2] } : {}),
          ...(gpus > 0 ? { 'GPUs asked for': String(gpus) } : {}),
          ...(pin ? { 'Pinned to': `node:${pin}` } : {}),
          ...node(context),
        },
        fix: pin
          ? `Check that a Ray node registered under ${pin} (ray list nodes on the head: its NodeManagerAddress); if none did, the node's --node-ip-address and the VLLM_HOST_IP the job pinned differ: make them the same address. ${PG_FIX}`
          : PG_FIX,
      }
    },
  },
  {
    // Ray Serve's controller (serve/_private/deployment_state.py, 2.x): "Deployment 'LLMServer:qwen2_5-7b-instruct' in application 'llms' has 1
    // replicas that have taken more than 30s to be scheduled. This may be due to waiting for the cluster to auto-scale or for a runtime
    // environment to be installed. Resources required for each replica: [{"CPU": 1.0, "GPU": 1.0}], total resources available: {}. …"; older
    // "Deployment \"fruit_app_DAGDriver\" has 1 replicas … to be scheduled. This may be caused by … resources available: {}." (Ray's RayService
    // troubleshooting page). Not the "… to initialize. This may be caused by a slow __init__ or reconfigure method." of a replica that was
    // placed and is loading. A warning: it clears when a node joins. (Its quotes doubled where a YAML status quotes the message: ''llms''.)
    code: 'PLACEMENT_GROUP_PENDING',
    pattern:
      /\bDeployment '?['"]([^'"]+)['"]'?(?: in application '?['"]([^'"]*)['"]'?)? (?:has )?(\d+) replicas that have taken more than (\d+)s to be scheduled\b/,
    hit: (m, line, _ray, context) => serveReplicasPending(m, line, context),
  },
  {
    // NeMo RL (nemo_rl/distributed/virtual_cluster.py, _create_placement_groups_internal): "TimeoutError: Timed out waiting for placement groups to be
    // ready. The cluster may not have enough resources to satisfy the requested configuration, …"; SkyRL (skyrl_train/utils/utils.py,
    // get_ray_pg_ready_with_timeout): "RuntimeError: Failed to create placement group with 2 bundles (requiring 2 GPUs, 2 CPUs total) in 60 seconds.
    // This might indicate insufficient GPU resources."; Ray Train / xgboost_ray: "TimeoutError: Placement group creation timed out. Make sure your
    // cluster either has enough resources or use an autoscaling cluster."
    code: 'PLACEMENT_GROUP_TIMEOUT',
    pattern:
      /Timed out waiting for placement groups? to be ready|Failed to create placement group with (\d+) bundles \(requiring ([\d.]+) GPUs, ([\d.]+) CPUs total\) in (\d+) seconds|Placement group creation timed out/,
    hit: (m, _line, _ray, context): RuleHit => ({
      key: 'framework-pg-timeout',
      severity: 'error',
      message: `A placement group never became ready${m[4] ? ` within ${m[4]} s` : ''}: the Ray cluster did not have the resources its bundles ask for when the job waited (a node missing or not yet joined, GPUs held by another job).`,
      evidence: {
        ...(m[1] ? { Bundles: m[1], 'GPUs requested': m[2]!, 'CPUs requested': m[3]!, Timeout: `${m[4]} s` } : {}),
        ...node(context),
      },
      fix: PG_FIX,
    }),
  },
  {
    // A traceback through a wait for a placement group (NeMo RL grpo.py `ray.get(helper_pg.ready(), timeout=1000)`, virtual_cluster.py
    // `ray.get([pg.ready() for pg in placement_groups], timeout=180)`, SkyRL `ray.get(pg.ready(), timeout=timeout)`, vLLM `_wait_until_pg_ready`'s
    // `ray.wait([current_placement_group.ready()], timeout=…)`) that goes on into Ray's get (ray/_private/worker.py, auto_init_hook.py, _raylet.pyx)
    // or ends in Ray's "GetTimeoutError: Get timed out: some object(s) not ready.": the placement group did not become ready. Read where a paste is
    // cut before the exception (NVIDIA-NeMo/RL#2352, skypilot#7257).
    code: 'PLACEMENT_GROUP_TIMEOUT',
    // (Every frame line is read, so a user frame under the wait ends it; the other lines of a traceback are not.)
    pattern: /Traceback \(most recent call last\)|\.ready\(\)|^\s*File "[^"]+", line \d+, in |^\s*(?:\w+\s*=\s*)?ray\.(?:get|wait)\(|GetTimeoutError/,
    hit: (_m, line, _ray, context) => {
      const awaited = context.memory === undefined ? undefined : pgWait(line, context.memory)
      if (awaited === undefined) return null
      context.memory?.delete('pgWait')
      const timedOut = /\bGetTimeoutError\b/.test(line)
      return {
        key: 'pg-wait-traceback',
        severity: 'error',
        message: `The process failed while waiting for a Ray placement group to become ready (${awaited})${timedOut ? ', and Ray gave up waiting (GetTimeoutError)' : "; the traceback goes on into Ray's get, where such a wait ends in a timeout"}: the cluster did not offer the resources the group asks for.`,
        evidence: { 'Waiting on': awaited, ...(timedOut ? { 'Ray error': 'GetTimeoutError' } : {}), ...node(context) },
        fix: PG_FIX,
      }
    },
  },
]
