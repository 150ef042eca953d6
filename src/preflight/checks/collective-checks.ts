/**
 * The fabric collective's findings (facts from src/preflight/gather/run-collective.ts):
 *
 * - FABRIC_COLLECTIVE_FAILED: a rank did not finish its all-reduce (an error, or a hang its watchdog
 *   ended). The node named is the one the failure points at: the peer a rank could not connect to,
 *   the ranks the rendezvous missed, else the failing rank's own node.
 * - FABRIC_SOCKET_FALLBACK: NCCL chose its socket transport (`Using network Socket`) on a node whose
 *   containers are told NCCL_IB_HCA (an error: the RDMA path asked for is not used, silently), or
 *   which has RDMA devices (a warning: they sit unused).
 * - FABRIC_COLLECTIVE_SLOW: NCCL's bus bandwidth below a quarter of `fabric.linkSpeedGbps`.
 */
import type { CollectiveFacts, CollectiveRank } from '../facts.js'
import type { Finding } from '../finding.js'
import type { CheckContext } from './check-context.js'
import { collectivePath, mib } from '../../probe/collective-program.js'
import { scanLog } from '../signatures.js'

/**
 * What the log signatures name in a failed rank's output (a port in use, a Gloo interface missing,
 * an NCCL transport error…), or the failure lines they cannot name: one line per finding.
 */
function namedInTail(r: CollectiveRank): string {
  return scanLog([r.line?.error, r.error, r.tail].filter((t) => t).join('\n'), `${r.node} rank ${r.rank}`)
    .filter((f) => f.severity === 'error' || f.code === 'UNRECOGNISED_FAILURE')
    .map((f) => `${f.code}: ${f.message}`)
    .join('\n')
}

/**
 * A healthy RDMA link carries 80–95% of its line rate as NCCL bus bandwidth on large all-reduces
 * (nccl-tests' busbw), and still more than half at the 64 MiB this test moves. Below a quarter is
 * not a tuning matter: sockets over the fabric, a link negotiated down, or traffic on another network.
 */
export const SLOW_FRACTION = 0.25

const where = (r: CollectiveRank) => `${r.node} (rank ${r.rank})`
const status = (r: CollectiveRank): string =>
  r.line?.ok
    ? `ok: ${collectivePath(r.line)}, ${typeof r.line.bytes === 'number' ? `${mib(r.line.bytes)}, ` : ''}${((r.line.seconds ?? 0) * 1000).toFixed(1)} ms per all-reduce`
    : r.line
      ? `failed in ${r.line.stage ?? '?'}: ${r.line.error ?? ''}`
      : `failed: ${r.error ?? 'no result'}`

const failed = (r: CollectiveRank): boolean => !r.line?.ok

/** The nodes a failure points at, and why. */
function blame(c: CollectiveFacts): { nodes: string[]; why: string } {
  const byRank = new Map(c.ranks.map((r) => [r.rank, r]))
  const peers = c.ranks.flatMap((r) => (failed(r) && r.line?.peer ? [{ from: r, to: byRank.get(r.line.peer.rank), addr: r.line.peer.addr }] : []))
  const reached = peers.filter((p) => p.to)
  if (reached.length > 0) {
    const nodes = [...new Set(reached.map((p) => p.to!.node))]
    return { nodes, why: reached.map((p) => `${p.from.node} could not connect to ${p.to!.node} at ${p.addr}`).join('; ') }
  }
  const missing = c.ranks.flatMap((r) => {
    const m = /missing ranks \[([\d, ]+)\]/.exec(r.line?.error ?? '')
    return m
      ? (m[1] ?? '')
          .split(',')
          .map((x) => byRank.get(Number(x.trim())))
          .filter((x): x is CollectiveRank => x !== undefined)
      : []
  })
  if (missing.length > 0) {
    const nodes = [...new Set(missing.map((r) => r.node))]
    return { nodes, why: `the rendezvous on ${c.addr}:${c.port} never heard from ${nodes.join(', ')}` }
  }
  // torch's TCPStore: a rank that cannot reach the rendezvous points at the head.
  const store = c.ranks.filter((r) => failed(r) && /trying to connect to \(|failed to connect to/.test(`${r.line?.error ?? ''}\n${r.tail}`))
  if (store.length > 0)
    return { nodes: [c.ranks[0]?.node ?? ''], why: `${store.map((r) => r.node).join(', ')} could not reach the rendezvous on ${c.addr}:${c.port}` }
  const bad = c.ranks.filter(failed)
  return { nodes: [...new Set(bad.map((r) => r.node))], why: bad.map((r) => `${r.node}: ${status(r)}`).join('; ') }
}

export function fabricCollectiveFailed(ctx: CheckContext): Finding[] {
  const c = ctx.facts.collective
  if (!c) return []
  if (!c.ranks.some(failed)) return []
  const { nodes, why } = blame(c)
  // A rank's own error line counts too: torch's store says "Timed out after 9 seconds waiting for clients" (a real H200 run).
  const hung = c.ranks.some((r) => r.line?.hang || /timed out|timeout/i.test(`${r.error ?? ''} ${r.line?.error ?? ''}`))
  return [
    {
      code: 'FABRIC_COLLECTIVE_FAILED',
      severity: 'error',
      node: nodes.length === 1 ? (nodes[0] ?? null) : null,
      // No size: a failed rank moved nothing it could report, and the size asked is not what the stdlib path moves.
      message: `An all-reduce over the fabric ${hung ? 'hung' : 'failed'} (${why}): vLLM's tensor-parallel workers need the same connections and would ${hung ? 'hang at their first collective' : 'fail to start'}.`,
      evidence: {
        rendezvous: `${c.addr}:${c.port}`,
        ...Object.fromEntries(c.ranks.map((r) => [where(r), status(r)])),
        ...Object.fromEntries(c.ranks.filter((r) => failed(r) && r.tail).map((r) => [`${r.node} last lines`, r.tail])),
        ...Object.fromEntries(
          c.ranks
            .filter(failed)
            .map((r) => [`${r.node} output names`, namedInTail(r)] as const)
            .filter(([, named]) => named !== ''),
        ),
        ...Object.fromEntries(c.ranks.filter((r) => failed(r) && r.nccl?.warnings.length).map((r) => [`${r.node} NCCL WARN`, r.nccl!.warnings.join('\n')])),
      },
      fix: `Open TCP between the nodes' fabric IPs (${c.ranks.map((r) => r.fabricIp).join(', ')}): the rendezvous port on the head and the ephemeral range Gloo and NCCL listen on (cat /proc/sys/net/ipv4/ip_local_port_range; iptables -S and nft list ruleset on ${nodes.join(', ') || 'each node'}); give every fabric interface the same MTU; then run vllm-ray-deploy preflight again. preflight.collective: false skips this test.`,
    },
  ]
}

export function fabricSocketFallback(ctx: CheckContext): Finding[] {
  const c = ctx.facts.collective
  if (!c) return []
  return c.ranks.flatMap((r): Finding[] => {
    if (r.nccl?.network !== 'Socket') return []
    const rdma = ctx.nodes.find((n) => n.name === r.node)?.facts?.host?.rdmaDevices ?? []
    const hca = c.ibHca ?? r.nccl.ibHca
    if (hca === undefined && rdma.length === 0) return []
    return [
      {
        code: 'FABRIC_SOCKET_FALLBACK',
        severity: hca !== undefined ? 'error' : 'warning',
        node: r.node,
        message: `NCCL on ${r.node} chose its socket transport (Using network Socket)${hca !== undefined ? ` although NCCL_IB_HCA=${hca} asks for RDMA` : ''}${rdma.length > 0 ? ` while the node has RDMA devices (${rdma.join(', ')})` : ''}: tensor-parallel traffic runs over TCP at a fraction of the link's speed, without an error.`,
        evidence: {
          'NCCL network': r.nccl.network,
          ...(hca !== undefined && { NCCL_IB_HCA: hca }),
          'RDMA devices (/sys/class/infiniband)': rdma.join(', ') || '(none)',
          ...(r.nccl.ibNoDevice && { 'NCCL said': 'NET/IB : No device found.' }),
          ...(r.nccl.socketInterfaces && { 'NET/Socket': r.nccl.socketInterfaces }),
        },
        fix:
          rdma.length === 0
            ? `${r.node} has no RDMA device: load its RDMA driver (mlx5_ib) and check ibv_devices, or remove NCCL_IB_HCA from container.env to accept sockets.`
            : `Make NCCL_IB_HCA name devices ${r.node} has (${rdma.join(', ')}), pass /dev/infiniband into the container (container.devices) with --ulimit memlock=-1 (container.extraArgs), and check ibv_devinfo shows the port ACTIVE.`,
      },
    ]
  })
}

export function fabricCollectiveSlow(ctx: CheckContext): Finding[] {
  const c = ctx.facts.collective
  const gbps = ctx.expected?.fabricLinkSpeedGbps
  if (!c || gbps === undefined) return []
  // Only NCCL measures the link: Gloo and the stdlib ring add on the CPU and measure it as much.
  const ranks = c.ranks.filter((r) => r.line?.ok && r.line.backend === 'nccl' && r.line.world > 1 && typeof r.line.busbwGBps === 'number')
  const floor = (gbps / 8) * SLOW_FRACTION
  const slow = ranks.filter((r) => (r.line?.busbwGBps ?? 0) < floor)
  if (slow.length === 0) return []
  const bw = (r: CollectiveRank) => `${(r.line?.busbwGBps ?? 0).toFixed(2)} GB/s bus bandwidth`
  return [
    {
      code: 'FABRIC_COLLECTIVE_SLOW',
      severity: 'warning',
      node: slow.length === 1 ? (slow[0]?.node ?? null) : null,
      message: `NCCL's all-reduce ran at ${slow.map(bw).join(', ')}, below a quarter of the ${gbps} Gb/s (${gbps / 8} GB/s) fabric.linkSpeedGbps names: a healthy RDMA link gives most of its line rate; this is sockets, a link negotiated down, or traffic on another network.`,
      evidence: {
        ...Object.fromEntries(ranks.map((r) => [where(r), `${bw(r)}${r.nccl?.network ? `, NCCL network ${r.nccl.network}` : ''}`])),
        'fabric.linkSpeedGbps': String(gbps),
        threshold: `${floor.toFixed(2)} GB/s (${SLOW_FRACTION * 100}% of the link)`,
      },
      fix: 'Read the NCCL network line and FABRIC_LINK_SPEED / FABRIC_SOCKET_FALLBACK findings; run nccl-tests (all_reduce_perf -b 64M -e 1G) across the nodes to compare.',
    },
  ]
}
