/**
 * What each vLLM executor (`vllm.executorBackend`) needs on the nodes, in one place: what a node's
 * container runs, which nodes run `vllm serve` and with which flags, and how the plan names them.
 * Data only (argv); src/plan/node-commands.ts builds the commands around it.
 *
 * - `ray`: the container runs `ray start --block` (head, or a worker joining the head's fabric IP);
 *   `vllm serve --distributed-executor-backend ray` runs on the head only.
 * - `mp`, vLLM's native multi-node mode (src/preflight/NATIVE-MULTINODE.md): no Ray. The container
 *   only holds the node (`sleep infinity`); `vllm serve` runs on every node, the head with
 *   `--nnodes N --node-rank 0 --master-addr <head fabric IP> --master-port P`, every other node with
 *   `--headless --node-rank i`. Ranks are handed out here, unique and complete by construction:
 *   the head 0, the workers 1..N-1 in manifest order.
 */
import type { Manifest, ManifestNode } from '../manifest/schema.js'

export type ExecutorName = Manifest['vllm']['executorBackend']

export interface ExecutorCommands {
  /** `--entrypoint` of the node's container and what follows the image. */
  readonly container: (m: Manifest, node: ManifestNode) => { readonly entrypoint: string; readonly args: readonly string[] }
  /** The nodes that run `vllm serve`, head first. */
  readonly serveNodes: (m: Manifest) => readonly ManifestNode[]
  /** Flags of `vllm serve` on `node` beyond the ones every executor shares. */
  readonly serveFlags: (m: Manifest, node: ManifestNode) => readonly string[]
  /** What starting the node's container does, in the plan's words. */
  readonly startWords: (m: Manifest, node: ManifestNode) => string
  /** The container starts Ray (its phases, step actions and the cluster wait are Ray's; src/plan/plan.ts `launchLabels`). */
  readonly startsRay: boolean
  /** The identity check the preflight gate runs under this executor, as reports name it. */
  readonly identityCheck: string
  /** What that check reads, as reports say it (`Ray and vLLM identities`). */
  readonly identities: string
}

const headNode = (m: Manifest): ManifestNode => {
  const head = m.nodes.find((n) => n.role === 'head')
  // bug: validation guarantees exactly one head before any plan is made
  if (!head) throw new Error('manifest has no head node (validation should have caught this)')
  return head
}

/** The nodes in native-mode rank order: the head (rank 0), then the workers in manifest order. */
export const nodesByRank = (m: Manifest): readonly ManifestNode[] => [headNode(m), ...m.nodes.filter((n) => n.role !== 'head')]

/** `--node-rank` of `node` in the native mode. */
export function nodeRank(m: Manifest, node: ManifestNode): number {
  const rank = nodesByRank(m).findIndex((n) => n.name === node.name)
  // bug: callers pass nodes of this manifest
  if (rank < 0) throw new Error(`node ${node.name} is not in the manifest`)
  return rank
}

function rayStartArgs(m: Manifest, node: ManifestNode): string[] {
  const common = [
    `--node-ip-address=${node.fabricIp}`,
    `--num-gpus=${node.gpus}`,
    '--disable-usage-stats',
    ...(m.ray.objectStoreMemoryBytes ? [`--object-store-memory=${m.ray.objectStoreMemoryBytes}`] : []),
    ...m.ray.extraArgs,
  ]
  if (node.role === 'head') {
    return [
      'start',
      '--block',
      '--head',
      `--port=${m.ray.port}`,
      `--include-dashboard=${m.ray.dashboard}`,
      ...(m.ray.dashboard ? [`--dashboard-host=${node.fabricIp}`, `--dashboard-port=${m.ray.dashboardPort}`] : []),
      ...common,
    ]
  }
  return ['start', '--block', `--address=${headNode(m).fabricIp}:${m.ray.port}`, ...common]
}

export const EXECUTORS: Readonly<Record<ExecutorName, ExecutorCommands>> = {
  ray: {
    container: (m, node) => ({ entrypoint: 'ray', args: rayStartArgs(m, node) }),
    serveNodes: (m) => [headNode(m)],
    serveFlags: () => [],
    startWords: (_m, node) => `ray start on ${node.fabricIp}`,
    startsRay: true,
    identityCheck: 'Ray identity preflight',
    identities: 'Ray and vLLM identities',
  },
  mp: {
    container: () => ({ entrypoint: 'sleep', args: ['infinity'] }),
    serveNodes: nodesByRank,
    serveFlags: (m, node) => {
      const rank = nodeRank(m, node)
      return [
        '--nnodes',
        String(m.nodes.length),
        '--node-rank',
        String(rank),
        '--master-addr',
        headNode(m).fabricIp,
        '--master-port',
        String(m.vllm.masterPort),
        ...(rank > 0 ? ['--headless'] : []),
      ]
    },
    startWords: (m, node) => `the container for vllm serve --node-rank ${nodeRank(m, node)}, no Ray`,
    startsRay: false,
    identityCheck: 'native-mode identity preflight',
    identities: "vLLM's native-mode identities (ranks, master address, fabric variables)",
  },
}

export const executorOf = (m: Manifest): ExecutorCommands => EXECUTORS[m.vllm.executorBackend]
