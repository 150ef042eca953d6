/**
 * vLLM's native multi-node process group as the nodes show it, without Ray: one poll per node, one
 * SSH exec each. Used by the start-up watcher (is the group forming, or has its rendezvous failed?)
 * and by the smoke test (does the serving model still span every node?).
 *
 * What proves a node is in the group: torch's TCPStore (vLLM's `tcp://<master-addr>:<master-port>`
 * rendezvous, src/preflight/NATIVE-MULTINODE.md) keeps each client's connection to the store open for
 * the life of the process group, so on the head (which serves the store, `--network host`) every
 * other node's ranks show as ESTABLISHED connections to the master port from that node's address,
 * read from the kernel's /proc/net/tcp{,6}. Together with the node's own `vllm serve` process
 * (seen from the host with `docker top`, so the image needs no tools) that is "alive and in the
 * group". The lab's stand-in keeps one such connection per node for the same reason.
 */
import { type Argv, shScript } from '../command/shell.js'
import { VLLM_LOG } from '../plan/node-commands.js'
import type { Manifest } from '../manifest/schema.js'

/** Reads /proc/net/tcp{,6}: `@@listen` when the port listens, `@@peer IP` per connection to it, `@@client IP` per connection from here to it. */
export const SOCKETS_PY = [
  'import os, sys',
  'port = int(sys.argv[1])',
  'def owner(inode):',
  '    want = "socket:[%s]" % inode',
  '    for pid in filter(str.isdigit, os.listdir("/proc")):',
  '        try:',
  '            if any(os.readlink("/proc/%s/fd/%s" % (pid, fd)) == want for fd in os.listdir("/proc/%s/fd" % pid)):',
  '                return open("/proc/%s/cmdline" % pid, "rb").read().replace(b"\\0", b" ").decode("utf-8", "replace")',
  '        except OSError:',
  '            continue',
  '    return ""',
  'def ip(h):',
  '    h = h[-8:]',
  '    return ".".join(str(int(h[i:i + 2], 16)) for i in (6, 4, 2, 0))',
  'for f in ("/proc/net/tcp", "/proc/net/tcp6"):',
  '    try:',
  '        rows = open(f).read().splitlines()[1:]',
  '    except OSError:',
  '        continue',
  '    for r in rows:',
  '        c = r.split()',
  '        (la, lp), (ra, rp), st = c[1].split(":"), c[2].split(":"), c[3]',
  '        if st == "0A" and int(lp, 16) == port:',
  '            print("@@listen", "vllm" if "vllm" in owner(c[9]).lower() else "other")',
  '        elif st == "01" and int(lp, 16) == port:',
  '            print("@@peer", ip(ra), "vllm" if "vllm" in owner(c[9]).lower() else "other")',
  '        elif st == "01" and int(rp, 16) == port:',
  '            print("@@client", ip(ra), ip(la))',
].join('\n')

const POLL_SCRIPT = [
  'c=$1; log=$2; off=$3; port=$4; max=$5; py=$6',
  'if docker top "$c" -eo pid,args 2>/dev/null | grep -q "vllm serve"; then echo "@@serving"; fi',
  'if ! running=$(docker inspect -f "{{.State.Running}}" "$c" 2>/dev/null); then echo "@@no-container"',
  'elif [ "$running" != true ]; then echo "@@container-stopped"; fi',
  'python3 -c "$py" "$port" 2>/dev/null | sort -u',
  'echo "@@log"',
  'docker exec "$c" tail -c +"$off" "$log" 2>/dev/null | head -c "$max" || true',
].join('\n')

/** At most this much of a node's log per poll; the rest comes next poll. */
export const GROUP_LOG_BYTES_PER_POLL = 256 * 1024

/** The poll of one node: its vllm serve, its container, its sockets on the master port, its log from byte `offset` (0-based). */
export const nativeGroupPoll = (m: Manifest, offset: number): Argv =>
  shScript(POLL_SCRIPT, m.container.name, VLLM_LOG, String(offset + 1), String(m.vllm.masterPort), String(GROUP_LOG_BYTES_PER_POLL), SOCKETS_PY)

export interface NodePoll {
  /** `vllm serve` runs in the node's container. */
  readonly serving: boolean
  readonly container: 'running' | 'stopped' | 'missing'
  /**
   * vLLM's store listens on the master port here: the listening socket belongs to a process whose
   * command line names vLLM (`vllm serve`, or its workers' `VLLM::Worker` titles), read through
   * /proc/<pid>/fd, so another program on that port (sshd, an old server) is not taken for the store.
   */
  readonly listening: boolean
  /** Something that is not vLLM listens on the master port here. */
  readonly foreignListener: boolean
  /** Remote addresses of connections to this node's master port held by vLLM's processes (on the head: the members). */
  readonly peers: readonly string[]
  /** Connections from here to a master port: the address connected to and the local address used. */
  readonly clients: readonly { readonly to: string; readonly from: string }[]
  /** New log text since the offset polled. */
  readonly log: string
}

/** Reads one poll's output (a failed SSH exec reads as nothing seen: not serving, no sockets). */
export function parseNodePoll(stdout: string): NodePoll {
  const at = stdout.indexOf('@@log\n')
  const head = (at < 0 ? stdout : stdout.slice(0, at)).split('\n')
  const words = head.map((l) => l.trim().split(/\s+/))
  return {
    serving: head.includes('@@serving'),
    container: head.includes('@@no-container') ? 'missing' : head.includes('@@container-stopped') ? 'stopped' : 'running',
    listening: head.includes('@@listen vllm'),
    foreignListener: head.includes('@@listen other'),
    peers: words.filter((w) => w[0] === '@@peer' && w[1] && w[2] !== 'other').map((w) => w[1]!),
    clients: words.filter((w) => w[0] === '@@client' && w[1] && w[2]).map((w) => ({ to: w[1]!, from: w[2]! })),
    log: at < 0 ? '' : stdout.slice(at + '@@log\n'.length),
  }
}

export interface MemberView {
  readonly node: string
  readonly rank: number
  readonly fabricIp: string
  readonly serving: boolean
  readonly container: NodePoll['container']
  /** In the group: the head by serving the store; any other node by a connection the head sees from its fabric IP. */
  readonly joined: boolean
  /** Where this node is connected to a master port, when not in the group through its fabric IP (e.g. a management address). */
  readonly elsewhere: readonly string[]
}

export interface GroupView {
  /** The head's store listens on the master port. */
  readonly storeUp: boolean
  /** Every node serves and every non-head node is connected to the head's store from its fabric IP. */
  readonly formed: boolean
  readonly members: readonly MemberView[]
  /** Addresses connected to the head's store that are no node's fabric IP. */
  readonly strangers: readonly string[]
}

/** The group from every node's poll, nodes in rank order (the head first). */
export function judgeGroup(nodes: readonly { name: string; rank: number; fabricIp: string; poll: NodePoll }[]): GroupView {
  const head = nodes.find((n) => n.rank === 0)
  const peers = new Set(head?.poll.peers ?? [])
  const fabric = new Set(nodes.map((n) => n.fabricIp))
  const members = nodes.map(
    (n): MemberView => ({
      node: n.name,
      rank: n.rank,
      fabricIp: n.fabricIp,
      serving: n.poll.serving,
      container: n.poll.container,
      // The head's store: listening, or (a store that stopped accepting once every rank joined, as the
      // lab's stand-in does) still holding its members' connections.
      joined: n.poll.serving && (n.rank === 0 ? n.poll.listening || n.poll.peers.length > 0 : peers.has(n.fabricIp)),
      elsewhere: n.rank === 0 ? [] : n.poll.clients.filter((c) => c.from !== n.fabricIp || !peers.has(c.from)).map((c) => `${c.from} -> ${c.to}`),
    }),
  )
  return {
    storeUp: (head?.poll.listening || (head?.poll.peers.length ?? 0) > 0) ?? false,
    formed: members.every((x) => x.joined),
    members,
    strangers: [...peers].filter((ip) => !fabric.has(ip)),
  }
}
