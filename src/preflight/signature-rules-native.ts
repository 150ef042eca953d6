/**
 * Log signatures of vLLM's native multi-node mode (`vllm serve --nnodes N --node-rank i --master-addr A
 * --master-port P [--headless]`): every node joins torch's TCPStore on A:P, and a rendezvous that never
 * completes is a hang until torch's timeout (600 s by default). Each wording, with the torch and vLLM
 * versions it comes from, is in src/preflight/WORDINGS.md; the code path in NATIVE-MULTINODE.md.
 *
 * - A rank that cannot reach the store: c10d's "client socket has timed out … while trying to connect to
 *   (A, P)" (torch 2.x), or "failed to connect to [A]:P (errno: …)" per attempt and "failed to connect to
 *   any network address of (A, P)" at the end (torch ≤ 2.2).
 * - The store on the head waiting for ranks that never come: "Timed out after T seconds waiting for
 *   clients. k/n clients joined." — a node missing, a repeated rank, or --nnodes larger than the nodes.
 * - A headless node told the default master address (127.0.0.1): --master-addr was not given.
 * - The master address on another network than the fabric NCCL/Gloo were told to use (two lines: the
 *   address, and NCCL's "Bootstrap : Using <iface>:<ip>" for an interface a *_SOCKET_IFNAME names).
 */

import { MASTER_HINT, masterMentions, notAHost, notAHostReason } from './master-address.js'
import { formatIpv4, isDockerDefaultBridge, isLoopbackHost, singleNumberAddress } from '../net/ipv4.js'
import type { LineContext, RuleHit, SignatureRule } from './signature-rules.js'
import { nodeEvidence } from './line-node.js'

const IPV4 = String.raw`\d{1,3}(?:\.\d{1,3}){3}`
/** Docker's default bridge: RAY_BRIDGE_ADDRESS (signature-rules-ray.ts) tells that story for the same line. */
/** `[::ffff:10.0.0.1]` → `10.0.0.1`. */
const plainHost = (host: string): string => host.replace(/^\[|\]$/g, '').replace(/^::ffff:/i, '')

const REACH_FIX = (host: string, port: string) =>
  `Check from this node that the head's rendezvous is reachable over the fabric: nc -zv ${host} ${port}. --master-addr must be the head's fabric IP (the address NCCL_SOCKET_IFNAME/GLOO_SOCKET_IFNAME name on the head), the same --master-port on every node, the head started first and that port open between the nodes; set --distributed-timeout-seconds low while debugging so the hang ends in seconds.`

function unreachable(hostText: string, port: string, final: boolean, extra: Record<string, string>, context: LineContext): RuleHit | null {
  const host = plainHost(hostText)
  // "?UNKNOWN?" is torch naming an address it could not print; the next line names it.
  if (host === '' || host.includes('?')) return null
  if (isDockerDefaultBridge(host)) return null
  // a netmask, a prefix length or a word that is no address: the master-value rule below names it
  if (notAHost(host) !== undefined) return null
  const loop = isLoopbackHost(host)
  return {
    key: `${host}:${port}:${final ? 'final' : 'attempt'}`,
    severity: final ? 'error' : 'warning',
    message: loop
      ? `A rank tried torch's rendezvous at ${host}:${port}, a loopback address: on a multi-node deploy that is --master-addr left at its default (127.0.0.1), so the ranks on other nodes can never meet the head.`
      : final
        ? `A rank gave up reaching torch's rendezvous (TCPStore) at ${host}:${port}, so the process group cannot form and vLLM will not start.`
        : `A rank could not reach torch's rendezvous at ${host}:${port} on this attempt (torch retries until its timeout); if no rank joins, the start hangs for the whole timeout.`,
    evidence: {
      'Master address': host,
      'Master port': port,
      ...nodeEvidence(context),
      ...extra,
    },
    fix: loop
      ? `Give every node --master-addr=<the head's fabric IP> (and the same --master-port); vLLM's default for --master-addr is 127.0.0.1.`
      : REACH_FIX(host, port),
  }
}

/** The NCCL/Gloo interface names a paste named (NCCL_SOCKET_IFNAME=…, GLOO_SOCKET_IFNAME=…), prefix-matched as NCCL does. */
function namedIfaces(memory: Map<string, string>): string[] {
  return (memory.get('ifnames') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '' && !s.startsWith('^'))
    .map((s) => s.replace(/^=/, ''))
}

const sameSlash24 = (a: string, b: string): boolean => a.split('.').slice(0, 3).join('.') === b.split('.').slice(0, 3).join('.')

const SOCKET_IFNAME_SET = /\b(NCCL|GLOO)_SOCKET_IFNAME[=:]\s*['"]?([^\s'",;]+(?:,[^\s'",;]+)*)/g
/** The master address with its IP, in the forms masterVersusFabric reads, the first that matches taken. */
const MASTER_FORMS_WITH_IP: readonly RegExp[] = [
  new RegExp(String.raw`distributed_init_method=tcp://(${IPV4}):(\d+)`),
  new RegExp(String.raw`head node address (${IPV4}):(\d+) for torch\.distributed`),
  new RegExp(String.raw`--master[-_]addr[= ]['"]?(${IPV4})`),
  new RegExp(String.raw`master_addr=['"](${IPV4})['"]`),
]
/** NCCL's bootstrap line: the interface and the address it bound. */
const NCCL_BOUND = new RegExp(String.raw`(?:Bootstrap|NET/Socket) : Using (?:\[\d+\])?([\w.-]+):(${IPV4})<`)

/** Records what a line says, then judges the pair once both halves are known. */
function masterVersusFabric(line: string, context: LineContext): RuleHit | null {
  const memory = context.memory
  if (memory === undefined) return null
  for (const m of line.matchAll(SOCKET_IFNAME_SET)) {
    // each name once: a long paste repeats its settings
    const names = new Set((memory.get('ifnames') ?? '').split(',').filter((n) => n !== ''))
    for (const n of (m[2] ?? '').split(',')) names.add(n)
    memory.set('ifnames', [...names].join(','))
    memory.set(`ifname-var:${m[2]}`, `${m[1]}_SOCKET_IFNAME`)
  }
  const master = MASTER_FORMS_WITH_IP.reduce<RegExpExecArray | null>((found, re) => found ?? re.exec(line), null)
  if (master?.[1] && !memory.has('master')) {
    memory.set('master', master[1])
    if (master[2]) memory.set('master-port', master[2])
  }
  const bound = NCCL_BOUND.exec(line)
  if (bound?.[1] && bound[2] && !memory.has('fabric')) memory.set('fabric', `${bound[1]}=${bound[2]}`)

  const addr = memory.get('master')
  const fabric = memory.get('fabric')
  if (addr === undefined || fabric === undefined || memory.has('judged')) return null
  const [iface = '', fabricIp = ''] = fabric.split('=')
  const named = namedIfaces(memory)
  if (!named.some((n) => iface.startsWith(n))) return null
  memory.set('judged', 'yes')
  if (addr === fabricIp || sameSlash24(addr, fabricIp) || isLoopbackHost(addr)) return null
  const port = memory.get('master-port')
  return {
    key: `${addr}:${iface}`,
    severity: 'error',
    message: `The rendezvous master address ${addr} is not on the fabric: NCCL bound ${iface} (${fabricIp}), the interface the *_SOCKET_IFNAME settings name, so torch's store, and vLLM's message queue that the other nodes connect back to, run over another network.`,
    evidence: {
      'Master address (--master-addr)': port ? `${addr}:${port}` : addr,
      'Fabric interface (NCCL bound)': `${iface} ${fabricIp}`,
      'Interface names set': named.join(', '),
    },
    fix: `Start every node with --master-addr=<the head's address on ${iface}> (the head's ${iface} IP, in ${fabricIp.split('.').slice(0, 3).join('.')}.x here), not its management address; keep NCCL_SOCKET_IFNAME/GLOO_SOCKET_IFNAME=${iface} on every node.`,
  }
}

/**
 * A master address that no other node can reach, in a line that shows the run spans nodes: loopback is
 * MASTER_ADDR_LOOPBACK, nothing at all is MASTER_ADDR_NOT_FABRIC (a netmask or 0.0.0.0 is read by the
 * address rule in signature-rules-startup.ts).
 */
function badMaster(addr: string, port: string | undefined, where: string, wantLoopback: boolean): RuleHit | null {
  const host = plainHost(addr.replace(/^['"]|['"]$/g, ''))
  const shown = port ? `${host}:${port}` : host
  if (wantLoopback) {
    if (!isLoopbackHost(host)) return null
    return {
      // the key of the headless rule's finding for the same address: one finding when both lines name it
      key: shown,
      severity: 'error',
      message: `The rendezvous master is ${shown}, this node's own loopback, on a run that spans nodes (${where}): the ranks on the other nodes can never reach it, and each node waits for a head that is not there.`,
      evidence: { 'Master address': shown, 'Multi-node because': where },
      fix: "Give every node --master-addr=<the head's fabric IP> (MASTER_ADDR for torchrun/launch; vLLM's default for --master-addr is 127.0.0.1) and the same --master-port; a script that falls back to localhost when it cannot resolve the head should fail instead.",
    }
  }
  if (host !== '') return null
  return {
    key: 'empty',
    severity: 'error',
    message: `The rendezvous master address is empty (${where}): no rank can connect to it, so the process group never forms.`,
    evidence: { 'Master address': '(empty)', 'Multi-node because': where },
    fix: "Set --master-addr (MASTER_ADDR) to the head's fabric IP itself: the script or launcher that reads it (hostname -I, getent, a hostfile) got nothing; print it before the launch and stop when it is empty.",
  }
}

/** What a launch line or vLLM's args say about the run (kept across lines: commands are wrapped and continued with \\). */
function noteLaunch(line: string, memory: Map<string, string>): void {
  // torchrun/vLLM --nnodes, DeepSpeed --num_nodes, Accelerate/detectron2 --num_machines, LLaMA-Factory's NNODES=, vLLM's args dump
  // (one dash is enough: a paste cut between the two dashes of "--nnodes" leaves "-nnodes" at a line's start)
  const nnodes = /(?:^|\s)--?(?:nnodes|num[-_]nodes|num[-_]machines)[= ]['"]?(\d+)|'nnodes': (\d+)|(?:^|\s)NNODES=['"]?(\d+)/.exec(line)
  if (nnodes) memory.set('launch-nnodes', nnodes[1] ?? nnodes[2] ?? nnodes[3]!)
  const given = masterMentions(line).find((m) => m.via === 'launch')
  if (given) {
    memory.set('launch-master', given.host)
    if (given.port) memory.set('launch-master-port', given.port)
    else memory.delete('launch-master-port')
  }
}

/**
 * The master address of a run that spans nodes, where a rank on another node or a launcher names it:
 * vLLM's rank line with rank ≠ local rank, or a launch command / vLLM's args with --nnodes above 1 (on
 * this line or an earlier one). vLLM's head (rank 0) may keep 127.0.0.1: torch's store listens on every
 * address there; it is the other nodes that must name the head.
 */
function masterOfMultiNode(line: string, context: LineContext): { addr: string; port?: string; where: string } | undefined {
  const rankLine = /world_size=(\d+) rank=(\d+) local_rank=(\d+) distributed_init_method=tcp:\/\/(\[[^\]]*\]|[^\s:]*):(\d+)/.exec(line)
  if (rankLine && rankLine[2] !== rankLine[3])
    return {
      addr: rankLine[4]!,
      port: rankLine[5],
      where: `rank ${rankLine[2]} is local rank ${rankLine[3]} of world size ${rankLine[1]}: a rank on another node`,
    }
  // DeepSpeed's runner when the first host's IP could not be read: "Using IP address of  for node <host>" and "--master_addr= --master_port=29500"
  if (/Using IP address of {2}for node|--master[-_]addr=(?=\s|\\|$)/.test(line)) return { addr: '', where: 'the launcher found no IP for the first host' }
  const memory = context.memory
  if (memory === undefined) return undefined
  noteLaunch(line, memory)
  const nnodes = Number(memory.get('launch-nnodes') ?? '1')
  const addr = memory.get('launch-master')
  if (nnodes <= 1 || addr === undefined) return undefined
  const port = memory.get('launch-master-port')
  return { addr, ...(port ? { port } : {}), where: `--nnodes ${nnodes}` }
}

/**
 * A master value that can be no host on any run: a netmask, the wildcard, an address with its prefix length, a
 * word that is no address (a path a login shell printed, pdsh's first output word), or nothing where a client
 * dialled it or a node joins a Ray head. Read from every form master-address.ts knows, launch side and client side.
 */
function masterNotAHost(line: string, context: LineContext): RuleHit | null {
  const memory = context.memory
  if (memory !== undefined) noteLaunch(line, memory)
  const nnodes = Number(memory?.get('launch-nnodes') ?? '1')
  for (const m of masterMentions(line)) {
    const kind = notAHost(m.host)
    if (kind === undefined) continue
    // an empty MASTER_ADDR= or flag on a one-node run may be unused, and 0.0.0.0 reaches the local host there; a client that
    // dialled it, or a node joining a head, is judged whatever the run's size
    if ((kind === 'empty' || kind === 'wildcard') && m.via === 'launch' && m.form !== 'ray start --address' && nnodes <= 1) continue
    const shown = m.host === '' ? `(empty)${m.port ? `:${m.port}` : ''}` : m.value
    // torch names a one-number host twice, as given ("6841231") and as dialled ("0.104.99.143"): one finding
    const number = kind === 'this-network' && /^\d+$/.test(m.host) ? singleNumberAddress(m.host) : undefined
    return {
      key: kind === 'empty' ? 'empty' : `${kind}:${number === undefined ? m.host : formatIpv4(number)}`,
      severity: 'error',
      message: `The address the nodes must meet at (${m.form}) is ${notAHostReason(kind, m.value)}: no rank or node can reach a rendezvous there, so the group never forms.`,
      evidence: {
        'Master address': shown,
        'Named by': m.form,
        ...(nnodes > 1 ? { 'Multi-node because': `--nnodes ${nnodes}` } : {}),
        ...nodeEvidence(context),
      },
      fix:
        m.form === 'ray start --address'
          ? "Give ray start --address=<the head's fabric IP>:<its --port> on every worker; print the variable the script builds it from and stop when it is empty or not an address."
          : kind === 'this-network'
            ? "Name the head by its fabric IP, not by a number: check hostname on the head (a name made only of digits resolves to 0.x.x.x) and what the script puts in MASTER_ADDR/--master-addr; torchrun's c10d rendezvous publishes the head's host name as the master unless --local-addr=<the head's fabric IP> is given (or give the head a host name with a letter that every node resolves)."
            : "Give every node --master-addr=<the head's fabric IP> (the address on the head's fabric interface: ip -4 -br addr, or ip -o -4 addr show <iface> | awk '{print $4}' | cut -d/ -f1), not a netmask, a prefix length or another field of the command's output; print it before the launch and stop when it is empty or not an address.",
    }
  }
  return null
}

export const NATIVE_RULES: readonly SignatureRule[] = [
  {
    // A master value that can be no host ("--master-addr 255.255.255.0", "MASTER_ADDR=0.0.0.0", "--master_addr=/root/cuda11.8.bashrc"
    // (huggingface/accelerate#2249), "failed to connect to [::ffff:255.255.0.0]:29500" (hiyouga/LlamaFactory#3715), "ray start --address=:6379"
    // and "Failed to connect to GCS at address :6379" (ModalMinds/MM-EUREKA#54), "MASTER_ADDR=10.0.0.5/24"): a subnet mask or prefix copied from
    // `ip addr`/ifconfig, a bind-any address, the wrong word of a command's output, or nothing, where the head's fabric IP belongs.
    code: 'MASTER_ADDR_NOT_FABRIC',
    pattern: MASTER_HINT,
    hit: (_m, line, _ray, context) => masterNotAHost(line, context),
  },
  {
    // torch 2.x c10d: "[E socket.cpp:957] [c10d] The client socket has timed out after 60s while trying to connect to (10.1.16.222, 29400)."
    //   also "… after 600000ms …", "… after 1800s …"; the same text follows "torch.distributed.DistNetworkError: ".
    code: 'RENDEZVOUS_UNREACHABLE',
    pattern: /The client socket has timed out after (\d+(?:ms|s)) while trying to connect to \(([^,()]+), (\d+)\)/,
    hit: (m, _line, _ray, context) => unreachable((m[2] ?? '').trim(), m[3] ?? '', true, { 'Timed out after': m[1] ?? '' }, context),
  },
  {
    // torch c10d (socket.cpp, SocketConnectOp::tryConnect), each attempt a C10D_WARNING: "[W1207 10:00:00 socket.cpp:…] [c10d] The server socket on
    // [::ffff:10.4.6.125]:63617 has timed out, will retry." — the connect itself timed out, over and over. Where the address is meant to be this
    // host's own (a single engine's rendezvous on VLLM_HOST_IP or the address vLLM detected), it is one the host no longer has or cannot reach:
    // a VPN's tunnel address (vllm-project/vllm-metal#625), an address gone stale after a sleep, a RoCE IP of a two-node setup leaking into a
    // one-node container (a DGX Spark compose project's troubleshooting page, in English and Korean).
    code: 'RENDEZVOUS_UNREACHABLE',
    pattern: /The server socket on (\[[^\]]*\]|[^\s[\]:]+):(\d+) has timed out, will retry/,
    hit: (m, _line, _ray, context) => {
      const hit = unreachable(m[1] ?? '', m[2] ?? '', false, { 'Torch says': 'the connect timed out, will retry' }, context)
      if (!hit) return null
      const host = hit.evidence['Master address']
      return {
        ...hit,
        fix: `${hit.fix} If ${host} is meant to be this host's own address (a single node's rendezvous), check it is still on one of its interfaces (ip -br addr): a VPN's tunnel address or a fabric IP another setup's VLLM_HOST_IP names leaves torch retrying for the whole timeout; set VLLM_HOST_IP (or --master-addr) to an address this host has.`,
      }
    },
  },
  {
    // torch 2.2+ c10d (socket.cpp, SocketImpl::waitForInput), a store client connected but never answered:
    // "[W623 15:37:01.82 socket.cpp:485] [c10d] waitForInput: socket SocketImpl(fd=100, addr=[node-1]:43590, remote=[node-0.company.net]:20000)
    //  timed out after 1800000ms" (sgl-project/sglang#7478: the ranks of the other node never completed the rendezvous at that store).
    code: 'RENDEZVOUS_UNREACHABLE',
    pattern: /\[c10d\] waitForInput: socket SocketImpl\([^)]*?\bremote=(\[[^\]]*\]|[^\s,()[\]]+):(\d+)\) timed out after (\d+(?:ms|s))/,
    hit: (m, _line, _ray, context) => unreachable(m[1] ?? '', m[2] ?? '', true, { 'Waited for the store': m[3] ?? '' }, context),
  },
  {
    // torch ≤ 2.2 c10d: "[E socket.cpp:719] [c10d] The client socket has failed to connect to any network address of (x.x.x.x, 48247)."
    code: 'RENDEZVOUS_UNREACHABLE',
    pattern: /The client socket has failed to connect to any network address of \(([^,()]+), (\d+)\)/,
    hit: (m, _line, _ray, context) => unreachable((m[1] ?? '').trim(), m[2] ?? '', true, {}, context),
  },
  {
    // torch c10d, per attempt: "[W socket.cpp:663] [c10d] The client socket has failed to connect to [::ffff:172.16.8.232]:39623 (errno: 110 - Connection timed out)."
    //   "… to 10.0.0.1:29501 (errno: 111 - Connection refused)." Not "cannot be initialized to connect to" (an IPv6 attempt torch skips past).
    code: 'RENDEZVOUS_UNREACHABLE',
    pattern: /The client socket has failed to connect to (\[[^\]]*\]|[^\s[\]:]+):(\d+) \(errno: (\d+) - ([^)]*)\)/,
    hit: (m, _line, _ray, context) => unreachable(m[1] ?? '', m[2] ?? '', false, { 'Socket error': `errno ${m[3]} (${m[4]})` }, context),
  },
  {
    // torch 2.4+ TCPStore client (torch/csrc/distributed/c10d/TCPStore.cpp), each retry a C10D_WARNING, the last a C10D_ERROR:
    // "[W1205 17:21:05.05 TCPStore.cpp:340] [c10d] TCP client failed to connect/validate to host 127.0.0.3:29512 - retrying
    //  (try=0, timeout=600000ms, delay=42508ms): Interrupted system call" (real torch 2.11 under vLLM 0.24.0, test/real/captures),
    // "… - timed out (try=3, timeout=600000ms): <why>".
    code: 'RENDEZVOUS_UNREACHABLE',
    pattern: /TCP client failed to connect\/validate to host (\[[^\]]*\]|[^\s[\]:]+):(\d+) - (retrying|timed out)\b(?: \((try=\d+)[^)]*\))?(?::\s*(.*))?/,
    hit: (m, _line, _ray, context) =>
      unreachable(
        m[1] ?? '',
        m[2] ?? '',
        m[3] === 'timed out',
        { ...(m[4] ? { Attempt: m[4] } : {}), ...(m[5] ? { 'Torch says': m[5].slice(0, 200) } : {}) },
        context,
      ),
  },
  {
    // torch TCPStore server (the head, rank 0): "torch.distributed.DistStoreError: Timed out after 601 seconds waiting for clients. 1/8 clients joined."
    code: 'RENDEZVOUS_RANKS_MISSING',
    pattern: /Timed out after (\d+) seconds waiting for clients\. (\d+)\/(\d+) clients joined/,
    hit: (m, _line, _ray, context) => {
      const joined = Number(m[2])
      const world = Number(m[3])
      return {
        key: `${joined}/${world}`,
        severity: 'error',
        message: `torch's rendezvous store on the head waited ${m[1]} s and only ${joined} of ${world} ranks joined, so ${world - joined} rank(s) never connected: a node not started or not reaching the master address, a --node-rank repeated or skipped, or --nnodes/TP×PP larger than the nodes started.`,
        evidence: {
          'Ranks joined': String(joined),
          'World size the store waited for': String(world),
          Waited: `${m[1]} s`,
          ...nodeEvidence(context),
        },
        fix: 'On every node, compare the vllm serve arguments: the same --nnodes (the number of nodes started), --node-rank 0 on the head and 1…N-1 once each on the others, the same --master-addr/--master-port, and TP×PP = nodes × GPUs per node; then read the missing nodes\' logs for their own "failed to connect" line.',
      }
    },
  },
  {
    // vLLM serve.py (run_headless): "Launching vLLM (v0.11.1) headless multiproc executor, with head node address 127.0.0.1:29501 for torch.distributed process group."
    code: 'MASTER_ADDR_LOOPBACK',
    pattern: /headless multiproc executor, with head node address (\S+?):(\d+) for torch\.distributed/,
    hit: (m) => {
      const host = m[1] ?? ''
      if (!isLoopbackHost(host)) return null
      return {
        key: `${host}:${m[2]}`,
        severity: 'error',
        message: `A headless vLLM node was told the head is at ${host}:${m[2]}, its own loopback: --master-addr was not given (vLLM's default is 127.0.0.1), so it waits for a head that is not there.`,
        evidence: { 'Head node address the node uses': `${host}:${m[2]}` },
        fix: "Start this node with --master-addr=<the head's fabric IP> (and the head's --master-port); every node must name the head the same way.",
      }
    },
  },
  {
    // Two lines of one log: the master address ("distributed_init_method=tcp://A:P", "head node address A:P", "--master-addr A")
    // and NCCL's "Bootstrap : Using <iface>:<ip><0>" for an interface NCCL_SOCKET_IFNAME/GLOO_SOCKET_IFNAME names.
    code: 'MASTER_ADDR_NOT_FABRIC',
    pattern: /_SOCKET_IFNAME|distributed_init_method=tcp:|head node address|master[-_]addr|(?:Bootstrap|NET\/Socket) : Using/,
    hit: (_m, line, _ray, context) => masterVersusFabric(line, context),
  },
  {
    // The master address of a run that spans nodes, where a rank on another node or a launcher prints it: vLLM's rank line (parallel_state.py:
    // "world_size=2 rank=1 local_rank=0 distributed_init_method=tcp://127.0.0.1:29514 backend=nccl": rank ≠ local rank is a rank on another node),
    // a launch command ("--nnodes=2 … --master_addr=localhost", pytorch/pytorch#76367) or vLLM's non-default args ('nnodes': 2, 'master_addr': '…'):
    // a loopback master there is a node talking to itself.
    code: 'MASTER_ADDR_LOOPBACK',
    pattern: new RegExp(String.raw`${MASTER_HINT.source}|nnodes|num[-_](?:nodes|machines)|Using IP address of`, 'i'),
    hit: (_m, line, _ray, context) => {
      const at = masterOfMultiNode(line, context)
      return at ? badMaster(at.addr, at.port, at.where, true) : null
    },
  },
  {
    // The same lines with no master address at all (DeepSpeed's runner: "Using IP address of  for node …" then "--master_addr= --master_port=29500",
    // deepspeedai/DeepSpeed#2612).
    code: 'MASTER_ADDR_NOT_FABRIC',
    pattern: /master[-_]addr=|Using IP address of/,
    hit: (_m, line, _ray, context) => {
      const at = masterOfMultiNode(line, context)
      return at ? badMaster(at.addr, at.port, at.where, false) : null
    },
  },
]
