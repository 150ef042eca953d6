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
import type { Transport } from '../transport/transport.js'
import type { ClusterProof } from './cluster-proof.js'
import { smokeFinding } from './finding.js'

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

export async function proveNativeCluster(m: Manifest, transports: ReadonlyMap<string, Transport>): Promise<ClusterProof> {
  const nodes = executorOf(m).serveNodes(m)
  const polls = await Promise.all(
    nodes.map(async (n) => {
      const t = transports.get(n.name)
      const r = t ? await t.run(nativeGroupPoll(m, NO_LOG), { timeoutMs: 60_000 }) : undefined
      return { name: n.name, rank: nodeRank(m, n), fabricIp: n.fabricIp, poll: parseNodePoll(r?.stdout ?? '') }
    }),
  )
  const group = judgeGroup(polls)
  const store = `${nodes[0]!.fabricIp}:${m.vllm.masterPort}`
  const ranksPerNode = (m.vllm.tensorParallelSize * m.vllm.pipelineParallelSize) / nodes.length
  return {
    group: { store, ranksPerNode, formed: group.formed },
    serving: group.members.map((x) => ({ ip: x.fabricIp, node: x.node, bundles: ranksPerNode, alive: x.joined })),
    findings: group.members.filter((x) => !x.joined).map((x) => missing(m, x, store, group.strangers)),
  }
}

/** The progress line of the native proof. */
export const nativeProofLine = (p: ClusterProof): string =>
  `smoke: process group at ${p.group?.store}: ${p.serving.map((s) => `${s.node} ${s.alive ? 'in' : 'MISSING'}`).join(', ')}`
