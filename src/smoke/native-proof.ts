/**
 * The smoke test's proof that the model spans the cluster in vLLM's native mode (no Ray, so no
 * placement group to read): every node's `vllm serve` is alive and in the process group, read from
 * the nodes themselves (src/preflight/native-group.ts): the head's rendezvous store on the master
 * port holds an open connection from every other node's fabric IP (torch keeps each rank's store
 * connection for the life of the group, and vLLM keeps the group while it serves), and each node's
 * container runs its `vllm serve`. A node whose workers died closes its connection; one that joined
 * over another network shows up from that address.
 */
import { option } from '../command/option-words.js'
import type { Manifest } from '../manifest/schema.js'
import { executorOf, nodeRank } from '../plan/executor-commands.js'
import type { Finding } from '../preflight/finding.js'
import { type MemberView, judgeGroup, nativeGroupPoll, parseNodePoll } from '../preflight/native-group.js'
import { type RunResult, type Transport, outcome } from '../transport/transport.js'
import type { ClusterProof } from './cluster-proof.js'
import { smokeFinding } from './smoke-finding.js'

/** Past any log: the proof reads sockets and processes, not the log. */
const NO_LOG = 2 ** 40

function missing(m: Manifest, x: MemberView, store: string, strangers: readonly string[]): Finding {
  const why = !x.serving
    ? x.container === 'running'
      ? 'its vllm serve is not running'
      : `its container ${m.container.name} is ${x.container}`
    : x.rank === 0
      ? `nothing listens on the master port ${m.vllm.masterPort}`
      : `the head's store has no connection from ${x.fabricIp}`
  return smokeFinding(
    'SMOKE_NATIVE_NODE_MISSING',
    `${x.node} (node rank ${x.rank}) is not in vLLM's process group: ${why}; the model's ranks there are gone, so the server cannot generate.`,
    {
      store,
      [`${x.node} vllm serve`]: x.serving ? 'running' : 'not running',
      [`${x.node} connected`]: x.elsewhere.join(', ') || (x.joined ? x.fabricIp : '(no connection)'),
      'connected from outside the fabric': strangers.join(', ') || '(none)',
    },
    `Restart the release on every node (vllm-ray-deploy deploy ${option('force')}): a native-mode group cannot take a node back; then read ${x.node}'s log (docker exec ${m.container.name} cat /tmp/vllm-ray-deploy-serve.log).`,
    x.node,
  )
}

/**
 * Why the proof could not look at a node: no connection to it, or its poll did not finish (a poll
 * that ran prints `@@log` whatever it finds). Undefined: the node was looked at.
 */
function unseen(r: RunResult | undefined, why: string | undefined): string | undefined {
  if (!r) return why ?? 'no SSH connection to it'
  if (r.code === 0 && r.stdout.includes('@@log')) return undefined
  return `its poll did not finish (${outcome(r)}${r.stderr.trim() ? `: ${r.stderr.trim().split('\n').pop()!.slice(0, 200)}` : ''})`
}

/** A node the proof could not see: the check is incomplete; nothing is said about the node, and no restart is proposed. */
function incomplete(node: string, why: string, store: string): Finding {
  return smokeFinding(
    'SMOKE_CHECK_INCOMPLETE',
    `The smoke test could not see whether ${node} is in vLLM's process group: ${why}. This is a failure of the check, not a verdict on the release.`,
    { store, [`${node}`]: why },
    `Make ${node} reachable over SSH from where the smoke runs (key, host key pin, network; vllm-ray-deploy preflight says more), then run the smoke test again. Nothing on the cluster needs to change for this.`,
    node,
  )
}

export interface NativeProofOptions {
  /** Why a node has no transport (its connection error), for the finding. */
  readonly unreachable?: ReadonlyMap<string, string>
  readonly signal?: AbortSignal
}

export async function proveNativeCluster(m: Manifest, transports: ReadonlyMap<string, Transport>, o: NativeProofOptions = {}): Promise<ClusterProof> {
  const nodes = executorOf(m).serveNodes(m)
  const polls = await Promise.all(
    nodes.map(async (n) => {
      const t = transports.get(n.name)
      const r = t ? await t.run(nativeGroupPoll(m, NO_LOG), { timeoutMs: 60_000, ...(o.signal && { signal: o.signal }) }) : undefined
      return { name: n.name, rank: nodeRank(m, n), fabricIp: n.fabricIp, poll: parseNodePoll(r?.stdout ?? ''), unseen: unseen(r, o.unreachable?.get(n.name)) }
    }),
  )
  const group = judgeGroup(polls)
  const store = `${nodes[0]!.fabricIp}:${m.vllm.masterPort}`
  const ranksPerNode = (m.vllm.tensorParallelSize * m.vllm.pipelineParallelSize) / nodes.length
  // A worker is judged from its own poll and the head's (the head holds the store's connections): without either, it is unseen.
  const headUnseen = polls.find((p) => p.rank === 0)?.unseen
  const whyUnseen = (p: (typeof polls)[number]): string | undefined =>
    p.unseen ?? (p.rank !== 0 && headUnseen ? `the head's store could not be read (${headUnseen})` : undefined)
  const findings = group.members
    .filter((x) => !x.joined)
    .map((x) => {
      const why = whyUnseen(polls.find((p) => p.name === x.node)!)
      return why ? incomplete(x.node, why, store) : missing(m, x, store, group.strangers)
    })
  return {
    group: { store, ranksPerNode, formed: group.formed },
    serving: group.members.map((x) => ({ ip: x.fabricIp, node: x.node, bundles: ranksPerNode, alive: x.joined })),
    findings,
  }
}

/** The progress line of the native proof. */
export const nativeProofLine = (p: ClusterProof): string =>
  `smoke: process group at ${p.group?.store}: ${p.serving.map((s) => `${s.node} ${s.alive ? 'in' : 'MISSING'}`).join(', ')}`
