/**
 * vLLM's native multi-node mode (`vllm serve --nnodes N --node-rank i --master-addr A --master-port P
 * [--headless]`, src/preflight/NATIVE-MULTINODE.md), read from each node's running `vllm serve`
 * (the probe's `vllmProcess`: its argv and environment from /proc). Every node computes its own
 * global ranks from its flags and joins torch's TCPStore at A:P; nothing is negotiated, so a
 * master address off the fabric, a repeated or missing rank, or an `--nnodes` that disagrees is a
 * hang at start-up, never an error. These checks name it while the hang is still seconds old.
 *
 * VLLM_HOST_IP and NCCL/GLOO_SOCKET_IFNAME in the native mode: the socket-ifname checks read the
 * same process environment (context.ts `envOf`); VLLM_HOST_IP against the fabric is here.
 */

import { isSelfAddress, stripPrefixLength, unusableHostAddress } from '../../net/ipv4.js'
import type { VllmProcess } from '../facts.js'
import type { Finding } from '../finding.js'
import { type NativeLaunch, nativeLaunchOf } from '../native-launch.js'
import { type CheckContext, type ClusterNode, interfaceAddresses } from './check-context.js'

interface NativeNode {
  readonly node: ClusterNode
  readonly launch: NativeLaunch
  readonly proc: VllmProcess
}

function nativeNode(node: ClusterNode): NativeNode | undefined {
  const proc = node.facts?.container?.running ? node.facts.container.vllmProcess : undefined
  const launch = proc ? nativeLaunchOf(proc.argv) : undefined
  return proc && launch ? { node, launch, proc } : undefined
}

/** Whether the node's running vllm serve is in the native multi-node mode (then Ray's identity is not its identity). */
export const runsNative = (node: ClusterNode): boolean => nativeNode(node) !== undefined

/** Every node whose container runs `vllm serve` in the native multi-node mode. */
const nativeNodes = (ctx: CheckContext): NativeNode[] => ctx.nodes.flatMap((node) => nativeNode(node) ?? [])

/** The node that hosts the store: the one started as rank 0 without --headless, else the manifest's head. */
function headOf(ctx: CheckContext, nodes: readonly NativeNode[]): ClusterNode | undefined {
  const rank0 = nodes.filter((n) => n.launch.nodeRank === 0 && !n.launch.headless)
  return rank0.length === 1 ? rank0[0]!.node : ctx.head
}

/** The head's fabric IP, from the manifest (without one, the master address is compared with the head's addresses). */
const fabricIpOf = (node: ClusterNode | undefined): string | undefined => node?.expected?.fabricIp

const cmdline = (p: VllmProcess): string => {
  const text = p.argv.join(' ')
  return text.length > 300 ? `${text.slice(0, 300)}…` : text
}

const flagText = (l: NativeLaunch, flag: '--master-addr' | '--master-port' | '--nnodes' | '--node-rank', value: string | number): string =>
  `${value}${l.given.has(flag) ? '' : " (not given: vLLM's default)"}`

/** Which interface of which node holds an address, for evidence (`enP7s7 on spark-a`). */
function holderOf(ctx: CheckContext, ip: string): string | undefined {
  for (const n of ctx.nodes) {
    const i = (n.facts?.interfaces ?? []).find((x) => x.addresses.some((a) => stripPrefixLength(a) === ip))
    if (i) return `${i.name} on ${n.name}`
  }
  return undefined
}

/** MASTER_ADDR_LOOPBACK / MASTER_ADDR_NOT_FABRIC / MASTER_PORT_MISMATCH: where each node looks for the store. */
export function nativeMasterAddress(ctx: CheckContext): Finding[] {
  const nodes = nativeNodes(ctx)
  if (nodes.length === 0) return []
  const head = headOf(ctx, nodes)
  const fabricIp = fabricIpOf(head)
  const headAddresses = interfaceAddresses(head?.facts)
  const out: Finding[] = []
  for (const { node, launch, proc } of nodes) {
    const addr = launch.masterAddr
    const evidence = {
      [`--master-addr on ${node.name}`]: flagText(launch, '--master-addr', addr),
      ...(fabricIp ? { [`Fabric IP of the head (${head?.name})`]: fabricIp } : {}),
      ...(holderOf(ctx, addr) ? { [`${addr} is held by`]: holderOf(ctx, addr)! } : {}),
      [`vllm serve on ${node.name}`]: cmdline(proc),
    }
    const target = fabricIp ?? '<head fabric IP>'
    if (isSelfAddress(addr)) {
      out.push({
        code: 'MASTER_ADDR_LOOPBACK',
        severity: 'error',
        node: node.name,
        message:
          node === head
            ? `The head ${node.name} runs vllm serve with --master-addr ${addr}: its store answers locally, but the head advertises ${addr} for its message queue, which no other node can reach.`
            : `${node.name} looks for the head's store at ${addr}:${launch.masterPort}, which is ${node.name} itself: it waits until torch's timeout (600 s by default).`,
        evidence,
        fix: `On ${node.name} start vllm serve with --master-addr ${target} (the head's fabric IP), on every node the same.`,
      })
      continue
    }
    const unusable = unusableHostAddress(addr)
    const wrong =
      unusable !== undefined || (fabricIp !== undefined ? addr !== fabricIp : head !== undefined && headAddresses.length > 0 && !headAddresses.includes(addr))
    if (wrong) {
      out.push({
        code: 'MASTER_ADDR_NOT_FABRIC',
        severity: 'error',
        node: node.name,
        message: unusable
          ? `${node.name} runs vllm serve with --master-addr ${addr}, ${unusable}, not a host: no node answers there, so the rendezvous waits until torch's timeout.`
          : fabricIp !== undefined
            ? `${node.name} runs vllm serve with --master-addr ${addr}, not the head's fabric IP ${fabricIp}: torch's store rendezvous and vLLM's message queue go ${holderOf(ctx, addr) ? `over ${holderOf(ctx, addr)}` : 'to an address off the fabric'} while NCCL and Gloo are told to use the fabric.`
            : `${node.name} runs vllm serve with --master-addr ${addr}, which is no address of the head ${head?.name}.`,
        evidence,
        fix: `On ${node.name} start vllm serve with --master-addr ${target} (the head's fabric IP); every node must give the same value.`,
      })
    }
  }
  const ports = new Set(nodes.map((n) => n.launch.masterPort))
  if (ports.size > 1) {
    const headPort = nodes.find((n) => n.node === head)?.launch.masterPort
    const evidence: Record<string, string> = {}
    for (const n of nodes) evidence[`--master-port on ${n.node.name}`] = flagText(n.launch, '--master-port', n.launch.masterPort)
    const off = nodes.filter((n) => headPort !== undefined && n.launch.masterPort !== headPort).map((n) => n.node.name)
    out.push({
      code: 'MASTER_PORT_MISMATCH',
      severity: 'error',
      node: null,
      message: `The nodes look for torch's store on different ports (${[...ports].join(', ')}): the store listens on the head's port only, so the others wait until torch's timeout.`,
      evidence,
      fix:
        headPort !== undefined
          ? `Start vllm serve on ${off.join(', ')} with --master-port ${headPort} (the head's ${head?.name}); every node must give the same port.`
          : 'Give every node the same --master-port.',
    })
  }
  return out
}

/**
 * RENDEZVOUS_UNREACHABLE: a node's connect to the store its flags name gets no answer (a firewall, or
 * an address on a network the node cannot reach): the rendezvous hangs until torch's timeout. A
 * refusal is not reported here: with the head's vllm serve running it means a port that differs
 * (MASTER_PORT_MISMATCH), a head that has not reached its store yet (start-up, transient), or a
 * node missing (NATIVE_NNODES_MISMATCH / NATIVE_RANK_GAP).
 */
export function nativeMasterUnreachable(ctx: CheckContext): Finding[] {
  const nodes = nativeNodes(ctx)
  const head = headOf(ctx, nodes)
  const fabricIp = fabricIpOf(head)
  return nodes.flatMap(({ node, proc }): Finding[] => {
    const m = proc.master
    // A loopback master is MASTER_ADDR_LOOPBACK's finding: the connect only proves the node talks to itself.
    if (!m || (m.state !== 'timeout' && m.state !== 'error') || isSelfAddress(m.ip)) return []
    return [
      {
        code: 'RENDEZVOUS_UNREACHABLE',
        severity: 'error',
        node: node.name,
        message: `${node.name} cannot reach torch's store at ${m.ip}:${m.port} (${m.detail ?? m.state}): its ranks never join, and vLLM hangs until torch's timeout.`,
        evidence: {
          [`TCP connect from ${node.name}`]: `${m.ip}:${m.port}: ${m.state}${m.detail ? ` (${m.detail})` : ''}`,
          ...(fabricIp ? { [`Fabric IP of the head (${head?.name})`]: fabricIp } : {}),
          ...(holderOf(ctx, m.ip) ? { [`${m.ip} is held by`]: holderOf(ctx, m.ip)! } : {}),
        },
        fix:
          fabricIp !== undefined && m.ip !== fabricIp
            ? `Start vllm serve on every node with --master-addr ${fabricIp} (the head's fabric IP).`
            : `Open TCP port ${m.port} on ${head?.name ?? 'the head'} to the fabric (a firewall drops it; e.g. \`iptables -I INPUT -p tcp --dport ${m.port} -s <fabric subnet> -j ACCEPT\`).`,
      },
    ]
  })
}

/** NATIVE_RANK_DUPLICATE / NATIVE_RANK_GAP: the nodes' --node-rank values are 0 … nnodes-1, each once. */
export function nativeRanks(ctx: CheckContext): Finding[] {
  const nodes = nativeNodes(ctx)
  if (nodes.length === 0) return []
  const head = headOf(ctx, nodes)
  const nnodes = nodes.find((n) => n.node === head)?.launch.nnodes ?? nodes.reduce((most, n) => Math.max(most, n.launch.nnodes), 0)
  const evidence: Record<string, string> = {}
  for (const n of nodes)
    evidence[`--node-rank on ${n.node.name}`] = `${flagText(n.launch, '--node-rank', n.launch.nodeRank)}${n.launch.headless ? ' --headless' : ''}`
  // The assignment that works: the head 0, the others 1 … in the manifest's order.
  const order = [...nodes].sort((a, b) => (a.node === head ? -1 : b.node === head ? 1 : ctx.nodes.indexOf(a.node) - ctx.nodes.indexOf(b.node)))
  const assignment = order.map((n, i) => `${n.node.name}: --node-rank ${i}${i > 0 ? ' --headless' : ''}`).join('; ')
  const out: Finding[] = []
  const byRank = new Map<number, NativeNode[]>()
  for (const n of nodes) byRank.set(n.launch.nodeRank, [...(byRank.get(n.launch.nodeRank) ?? []), n])
  for (const [rank, group] of byRank) {
    if (group.length < 2) continue
    out.push({
      code: 'NATIVE_RANK_DUPLICATE',
      severity: 'error',
      node: null,
      message: `${group.map((g) => g.node.name).join(' and ')} all run as node rank ${rank}: they claim the same global ranks, so one rank slot stays empty and the store waits for it until torch's timeout.`,
      evidence: { ...evidence, '--nnodes (head)': String(nnodes) },
      fix: `Give every node its own --node-rank: ${assignment}.`,
    })
  }
  const missing = Array.from({ length: nnodes }, (_, i) => i).filter((i) => !byRank.has(i))
  const beyond = [...byRank.keys()].filter((r) => r >= nnodes)
  if (missing.length > 0 || beyond.length > 0) {
    out.push({
      code: 'NATIVE_RANK_GAP',
      severity: 'error',
      node: null,
      message: `The running nodes' ranks are ${[...byRank.keys()].sort((a, b) => a - b).join(', ')} of ${nnodes} (--nnodes)${missing.length > 0 ? `: rank ${missing.join(', ')} has no node, so the head's store waits for its clients until torch's timeout` : ''}${beyond.length > 0 ? `${missing.length > 0 ? '; ' : ': '}rank ${beyond.join(', ')} is not below --nnodes` : ''}.`,
      evidence: { ...evidence, '--nnodes (head)': String(nnodes), 'Nodes running vllm serve': nodes.map((n) => n.node.name).join(', ') },
      fix: `Number the nodes 0 … ${nnodes - 1} once each: ${assignment}.`,
    })
  }
  return out
}

/** NATIVE_NNODES_MISMATCH: a node's --nnodes is not the number of nodes started (or the manifest's). */
export function nativeNnodes(ctx: CheckContext): Finding[] {
  const nodes = nativeNodes(ctx)
  if (nodes.length === 0) return []
  const started = nodes.length
  const planned = ctx.expected?.nodes.length
  const want = planned ?? started
  const off = nodes.filter((n) => n.launch.nnodes !== want || n.launch.nnodes !== started)
  if (off.length === 0) return []
  const evidence: Record<string, string> = {}
  for (const n of nodes) evidence[`--nnodes on ${n.node.name}`] = flagText(n.launch, '--nnodes', n.launch.nnodes)
  evidence['Nodes running vllm serve'] = `${started} (${nodes.map((n) => n.node.name).join(', ')})`
  if (planned !== undefined) evidence['Nodes in the manifest'] = String(planned)
  const notStarted = ctx.nodes.filter((n) => !nodes.some((x) => x.node === n)).map((n) => n.name)
  return [
    {
      code: 'NATIVE_NNODES_MISMATCH',
      severity: 'error',
      node: off.length === 1 ? off[0]!.node.name : null,
      message:
        started !== want
          ? `${started} node(s) run vllm serve in the native mode but the cluster has ${want}${notStarted.length > 0 ? ` (not running there: ${notStarted.join(', ')})` : ''}; the store waits for the missing ranks until torch's timeout.`
          : `--nnodes on ${off.map((n) => `${n.node.name} (${n.launch.nnodes})`).join(', ')} is not the ${started} nodes started: each node computes the world size from its own --nnodes, so they wait for different groups.`,
      evidence,
      fix:
        started !== want
          ? `Start vllm serve on ${notStarted.join(', ') || 'every node'} too, with --nnodes ${want} everywhere (or drop the nodes from the manifest).`
          : `Start vllm serve on ${off.map((n) => n.node.name).join(', ')} with --nnodes ${started}; every node must give the same value.`,
    },
  ]
}

/** VLLM_HOST_IP_OVERRIDE (native): a node's vLLM is told an address that is not its fabric IP. */
export function nativeHostIp(ctx: CheckContext): Finding[] {
  return nativeNodes(ctx).flatMap(({ node }): Finding[] => {
    const vllm = ctx.vllmIpOf(node)
    const fabricIp = node.expected?.fabricIp
    if (!vllm?.fromEnv || fabricIp === undefined || vllm.ip === fabricIp) return []
    return [
      {
        code: 'VLLM_HOST_IP_OVERRIDE',
        severity: 'error',
        node: node.name,
        message: `vllm serve on ${node.name} runs with VLLM_HOST_IP=${vllm.ip}, not its fabric IP ${fabricIp}: in the native mode its message-queue and KV-transfer addresses are that address, so peers connect ${holderOf(ctx, vllm.ip) ? `over ${holderOf(ctx, vllm.ip)}` : 'to the wrong place'}.`,
        evidence: {
          [`VLLM_HOST_IP of vllm serve on ${node.name}`]: `${vllm.ip} (${vllm.source})`,
          [`Fabric IP of ${node.name}`]: fabricIp,
          ...(holderOf(ctx, vllm.ip) ? { [`${vllm.ip} is held by`]: holderOf(ctx, vllm.ip)! } : {}),
        },
        fix: `On ${node.name} set VLLM_HOST_IP=${fabricIp} (its fabric IP) for vllm serve, or unset it where the default route is the fabric.`,
      },
    ]
  })
}
