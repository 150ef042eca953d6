/**
 * Log signatures of Ray's and vLLM's networking failures, each wording with the versions it comes
 * from in src/preflight/WORDINGS.md: a node marked dead, a node that cannot reach the head's GCS,
 * a driver that cannot reach its raylet, a loopback address used as an identity, and a bind on an
 * address that belongs to another node. Transient lines Ray retries past (the 5-second GCS
 * connect warning, "Retrying to connect to socket") are never errors.
 */

import { isLoopbackHost } from '../net/ipv4.js'
import { nodeEvidence } from './line-node.js'
import type { RuleHit, SignatureRule } from './signature-rules.js'

const IPV4 = String.raw`\d{1,3}(?:\.\d{1,3}){3}`

/** host and port of `10.0.0.1:6379`, `[::1]:6379`, `tcp://10.0.0.1:34762`, `:6379` (empty host). */
function hostPort(text: string): { host: string; port?: string } {
  const t = text.replace(/^[a-z]+:\/\//, '').replace(/[.,;')"]+$/, '')
  const m = /^\[?([^\]]*?)\]?(?::(\d+))?$/.exec(t)
  return { host: m?.[1] ?? t, ...(m?.[2] ? { port: m[2] } : {}) }
}

const GCS_FIX = (addr: string) =>
  `From the node that failed, check the head's GCS is up and reachable at ${addr}: ray status on the head, then nc -zv <head ip> <port> from this node; start the head with --node-ip-address=<its fabric IP> and give every worker --address=<that IP>:<port>, and open the port (and Ray's other ports) between the nodes.`

function gcsHit(kind: string, address: string | undefined, severity: 'error' | 'warning'): RuleHit {
  const hp = address !== undefined ? hostPort(address) : undefined
  if (hp && hp.host === '') {
    return {
      key: `gcs-empty:${address}`,
      severity: 'error',
      message: `A Ray process tried the head's GCS at "${address}", an address without a host: the variable that should name the head was empty.`,
      evidence: { 'GCS address tried': address ?? '' },
      fix: 'Set the head address the script passes to ray start --address (e.g. $MASTER_ADDR, $HEAD_IP, VRD_HEAD_IP) before it runs; print it in the script to see it.',
    }
  }
  return {
    key: `gcs:${address ?? kind}:${severity}`,
    severity,
    message:
      severity === 'error'
        ? `A Ray process could not reach the head's GCS${address ? ` at ${address}` : ''} (${kind}), so this node cannot join the cluster.`
        : `A Ray process has not reached the head's GCS${address ? ` at ${address}` : ''} yet (${kind}); Ray keeps retrying, so this is only a problem if no "Connected" or "Ray runtime started" follows.`,
    evidence: { ...(address ? { 'GCS address tried': address } : {}), ...(hp?.port ? { 'GCS port': hp.port } : {}) },
    fix: GCS_FIX(address ?? '<head ip>:<port>'),
  }
}

export const NETWORK_RULES: readonly SignatureRule[] = [
  {
    // Ray 0.6-0.8: "The node with client ID <id> has been marked dead because the monitor has missed too many heartbeats from it."
    // Ray 1.x-2.x: "The node with node id: <id> and ip: <ip> has been marked dead because the detector has missed too many heartbeats ..."
    // Ray 2.x:     "The node with node id: <id> and address: <ip> and node name: <name> has been marked dead because the detector ..."
    // A write-up that cut the id and address out ("The node ... has been marked dead because the detector has missed too many heartbeats
    // from it.", abdshomad/gpu-cluster-with-ray-and-vllm's validation report, 2025): the same message without the node named.
    code: 'RAY_NODE_DEAD',
    pattern:
      /The node (?:with (?:client ID|node id:?) ([0-9a-f]+)(?: and (?:ip|address): (\S+?))?(?: and node name: (\S+?))?|(?:\.\.\.|…)) has been marked dead because the (?:monitor|detector) has missed too many heartbeats/,
    hit: (m) => {
      const ip = m[2]
      return {
        key: m[1] ?? '?',
        severity: 'error',
        message: `Ray marked ${ip ? `the node ${ip}` : m[1] ? `the node ${m[1].slice(0, 12)}` : 'a node'} dead: the head stopped getting its heartbeats (its raylet died, or the network between it and the head dropped).`,
        evidence: { 'Node id': m[1] ?? '(not in the log)', ...(ip ? { 'Node address': ip } : {}), ...(m[3] && m[3] !== ip ? { 'Node name': m[3] } : {}) },
        fix: `On ${ip ?? 'that node'}, read /tmp/ray/session_latest/logs/raylet.out and dmesg (OOM kill, crash), and check the head reaches it on Ray's ports over the fabric; then ray stop; ray start --address=<head>:<port> --node-ip-address=<its fabric IP> there.`,
      }
    },
  },
  {
    // The raylet stopped by a signal it was sent (src/ray/raylet/main.cc, Ray 2.x): "main.cc:483: received SIGTERM. Existing local drain request = None",
    // then "Raylet graceful shutdown triggered, reason = EXPECTED_TERMINATION, reason message = received SIGTERM" and the node unregistering: this node
    // leaves the cluster. Something on the node sent it (skypilot-org/skypilot#4695: the job step that ran `ray start` was cleaned up as it ended;
    // `ray stop`, the container or pod stopping). A warning: a shutdown the operator asked for prints the same.
    code: 'RAY_NODE_DEAD',
    pattern: /\breceived SIGTERM\. Existing local drain request\b|Raylet graceful shutdown triggered, reason = \w+, reason message = received (SIG\w+)/,
    hit: (_m, _line, _ray, context) => ({
      key: 'raylet-sigterm',
      severity: 'warning',
      message: "This node's raylet was sent SIGTERM and shut down, so the node left the Ray cluster and every actor on it (vLLM's workers) went with it.",
      evidence: { 'Raylet stopped by': 'SIGTERM', ...nodeEvidence(context) },
      fix: "If nobody ran ray stop there: find what sent it — a job step or session that started `ray start` and was cleaned up when it ended (start Ray with --block in its own long-lived step, or let it daemonize before the step exits), a container or pod that stopped (its restart policy, kubectl describe pod), a systemd unit's stop.",
    }),
  },
  {
    // Raylet side: "Exiting because this node manager has mistakenly been marked dead by the monitor" (Ray <= 1.x),
    //              "[Timeout] Exiting because this node manager has mistakenly been marked as dead by the GCS: GCS failed to check the health of this node for 5 times." (Ray 2.x)
    // Ray 1.x node_manager.cc:170 (FATAL): "This node has beem marked as dead." (sic)
    code: 'RAY_NODE_DEAD',
    pattern:
      /Exiting because this node manager has mistakenly been marked (?:as )?dead by the (?:monitor|GCS)(?:: GCS failed to check the health of this node for (\d+) times)?|This node has be\w+ marked (?:as )?dead/i,
    hit: (m) => ({
      key: 'raylet-marked-dead',
      severity: 'error',
      message: `A raylet exited because the head marked its node dead${m[1] ? ` (GCS health checks failed ${m[1]} times)` : ''}: the head could not reach it in time.`,
      evidence: { ...(m[1] ? { 'Failed health checks': m[1] } : {}) },
      fix: "Check the network between this node and the head (the head must reach this node's --node-ip-address on Ray's ports) and the node's load; restart Ray on the node once it is reachable.",
    }),
  },
  {
    // Ray 2.x worker.py (the driver sees a node's raylet die): "Raylet is terminated: ip=192.168.207.5, id=<hex>. Termination is unexpected.
    //   Possible reasons include: (1) SIGKILL by the user or system OOM killer, (2) Invalid memory access from Raylet causing SIGSEGV or SIGBUS, …"
    // The dashboard agent's process watcher (Ray 2.10+, dashboard/agent process_watcher.py, published to the driver as "(raylet) …") says it
    // without the address: "Raylet is terminated. Termination is unexpected. Possible reasons include: … Last 20 lines of the Raylet logs:"
    // then only the raylet's last lines (ray-project/ray#45041 2024, PR #60048 2026, #59626); "Failed to publish error: Raylet is terminated. …".
    code: 'RAY_NODE_DEAD',
    pattern: /Raylet is terminated(?:: ip=([^,\s]+), id=(\w+)\.?|\.) Termination is unexpected/i,
    hit: (m, _line, _ray, context) => {
      const ip = m[1] ?? context.prefixIp
      const where = ip ?? 'the node this log came from'
      return {
        key: `raylet-terminated:${m[2] ?? ip ?? 'local'}`,
        severity: 'error',
        message: `The raylet on ${where} died unexpectedly (SIGKILL by the OOM killer, a crash, or a signal), so that node left the Ray cluster${m[1] ? '' : '; the lines after this one are only its log tail, the cause is in the kernel log or raylet.out'}.`,
        evidence: { ...(ip ? { 'Node address': ip } : {}), ...(m[2] ? { 'Node id': m[2] } : {}) },
        fix: `On ${where}, read dmesg for an OOM kill (on a GB10 the GPU's allocations count against host memory) and /tmp/ray/session_latest/logs/raylet.out (and raylet.err) for a crash; then restart Ray there (ray start --address=<head>:<port> --node-ip-address=${ip ?? '<its fabric IP>'}).`,
      }
    },
  },
  {
    // Ray 2.x gcs_rpc_client.h: "Failed to connect to GCS at address 172.23.15.13:20000 within 5 seconds." (W or E; Ray retries)
    code: 'RAY_GCS_UNREACHABLE',
    pattern: /Failed to connect to GCS at address[= ](\S*?) within (\d+) seconds/,
    hit: (m) => {
      const addr = m[1] ?? ''
      if (addr !== '' && isLoopbackHost(hostPort(addr).host)) return loopbackGcs(addr)
      return gcsHit(`no answer within ${m[2]} s`, addr, Number(m[2]) >= 60 ? 'error' : 'warning')
    },
  },
  {
    // Ray 2.x gcs_client.cc: "Failed to get cluster ID from GCS server: TimedOut: Timed out while waiting for GCS to become available."
    // Python: "ray.exceptions.RpcError: Timed out while waiting for GCS to become available."
    // Ray 1.x service_based_gcs_client.cc: "Couldn't reconnect to GCS server. The last attempted GCS server address was 10.42.0.44:43507"
    // raylet: "Failed to connect to GCS within 60 seconds. GCS may have been killed."
    // Ray 2.x node.py (ray start on a worker): "Failed to get node info b'RPC error: Deadline Exceeded'" (the GCS query timed out)
    // Ray <= 0.8 (the GCS was Redis), redis_context.cc: "Could not establish connection to redis 172.17.0.4:58890 (context.err = 1)"
    // Ray 1.x gcs_utils.py, a worker's `ray start` retrying the head: "ERROR gcs_utils.py:137 -- Failed to send request to gcs, reconnecting. Error
    // <_InactiveRpcError … status = StatusCode.UNAVAILABLE … failed to connect to all addresses" (ray-project/ray#22326, held-out batch 158): an error,
    // as Ray logs it (a GCS of another TLS setting or address answers nothing it can use: ray-project/ray#22466).
    code: 'RAY_GCS_UNREACHABLE',
    pattern:
      /Failed to get cluster ID from GCS server|RpcError: Timed out while waiting for GCS to become available|Couldn't reconnect to GCS server\. The last attempted GCS server address was (\S+)|Failed to connect to GCS within (\d+) seconds|Failed to get node info b?'?RPC error: Deadline Exceeded|Could not establish connection to redis (\S+)|Failed to send request to gcs, reconnecting/i,
    hit: (m) => {
      const addr = (m[1] ?? m[3])?.replace(/[.,]$/, '')
      if (addr && isLoopbackHost(hostPort(addr).host)) return loopbackGcs(addr)
      // node.py logs the node-info timeout inside its retry loop (INFO): a warning; "The current node timed out during startup" is the error.
      const retried = /node info/i.test(m[0])
      return gcsHit(
        m[1]
          ? 'reconnect failed'
          : m[3]
            ? 'the Redis-based GCS did not answer'
            : m[2]
              ? `gave up after ${m[2]} s`
              : /reconnecting/i.test(m[0])
                ? 'requests to it failed, reconnecting'
                : retried
                  ? 'the node info request timed out'
                  : 'timed out waiting for the GCS',
        addr,
        retried ? 'warning' : 'error',
      )
    },
  },
  {
    // Ray 0.7-0.8 raylet_client.cc: "Could not connect to socket /tmp/ray/session_.../sockets/raylet" (fatal, after the retries)
    // Ray 0.8-1.x: "Lost connection with local raylet. Error: IOError: 14: failed to connect to all addresses"
    // Ray 1.x-2.x services.py: "Timed out after 60 seconds while waiting for node to startup. Did not find socket name ... in the list of object store socket names."
    // Ray 2.x node.py: "Exception: The current node timed out during startup. This could happen because some of the raylet failed to startup or the GCS has become overloaded."
    code: 'RAYLET_UNREACHABLE',
    pattern:
      /Could not connect to socket (\S*raylet\S*)|Lost connection with local raylet|Timed out after (\d+) seconds while waiting for node to startup|The current node timed out during startup/i,
    hit: (m) => ({
      key: m[0].slice(0, 24),
      severity: 'error',
      message: `A driver or worker could not reach its local raylet${m[1] ? ` (socket ${m[1]})` : ''}, so it never joined Ray on this machine.`,
      evidence: { ...(m[1] ? { 'Raylet socket': m[1] } : {}), ...(m[2] ? { Waited: `${m[2]} s` } : {}) },
      fix: "Run ray.init()/vllm serve in the same container (same /tmp/ray) as that node's raylet, with ray.init(address='auto') or RAY_ADDRESS=<head>:<port>; check the raylet is alive there (ray status, /tmp/ray/session_latest/logs/raylet.out).",
    }),
  },
  {
    // ray start: "Local node IP: 127.0.0.1" (the node's identity in Ray is loopback)
    code: 'LOOPBACK_IDENTITY',
    pattern: /Local node IP: (127\.\d+\.\d+\.\d+)/,
    hit: (m) => ({
      key: `local:${m[1]}`,
      severity: 'warning',
      message: `Ray registered this node as ${m[1]}, a loopback address: fine on one machine, but no other node can reach it.`,
      evidence: { 'Ray node IP': m[1] ?? '' },
      fix: "Start Ray with --node-ip-address=<the node's fabric IP> (and --address=<head fabric IP>:<port> on workers), never 127.0.0.1.",
    }),
  },
  {
    // A shell trace or an env dump: "+ ray start --address=127.0.0.1:6379", "VLLM_HOST_IP=127.0.0.1"
    code: 'LOOPBACK_IDENTITY',
    pattern: /(?:(--node-ip-address[= ]|VLLM_HOST_IP=)|ray start .*?(--address[= ]))(127\.\d+\.\d+\.\d+|localhost)\b/,
    hit: (m) => {
      const flag = m[1] ?? m[2] ?? ''
      return {
        key: `set:${flag}${m[3]}`,
        severity: 'warning',
        message: `${flag.replace(/[= ]$/, '')} is ${m[3]}, a loopback address: on a multi-node cluster a node must be known by an address the others reach.`,
        evidence: { Setting: `${flag}${m[3]}` },
        fix: "Use the node's own fabric IP for --node-ip-address and VLLM_HOST_IP, and the head's fabric IP in --address.",
      }
    },
  },
  {
    // zmq: "zmq.error.ZMQError: Cannot assign requested address (addr='tcp://172.17.0.5:34762')"
    // torch c10d: "The server socket has failed to bind to 10.0.0.5:29500 (errno: 99 - Cannot assign requested address)."
    // generic: "bind: Cannot assign requested address", "OSError: [Errno 99] Cannot assign requested address"
    code: 'BIND_FOREIGN_ADDRESS',
    pattern: new RegExp(
      String.raw`Cannot assign requested address \(addr='([^']+)'\)|failed to bind to \[?(${IPV4}|[0-9a-f:]+)\]?:(\d+)[^\n]*?Cannot assign requested address|\[Errno 99\] Cannot assign requested address|bind(?:\(\))?: Cannot assign requested address`,
    ),
    hit: (m, _line, _ray, context): RuleHit => {
      const addr = m[1] ?? (m[2] ? `${m[2]}:${m[3]}` : undefined)
      const host = addr ? hostPort(addr).host : undefined
      const own = context.prefixIp
      const foreign = host !== undefined && own !== undefined && host !== own
      return {
        key: `bind:${addr ?? 'unknown'}`,
        severity: 'error',
        message: foreign
          ? `A process on ${own} tried to bind ${addr}, an address of another node: a value computed on one node (usually the head) was reused on this one.`
          : `A process tried to bind ${addr ?? 'an address'} that is not on this machine ("Cannot assign requested address").`,
        evidence: { ...(addr ? { 'Address it tried to bind': addr } : {}), ...(own ? { 'Node it ran on (Ray prefix)': own } : {}) },
        fix: foreign
          ? `Do not pass one node's address to every node: set the per-node value (VLLM_HOST_IP, VLLM_NIXL_SIDE_CHANNEL_HOST, MASTER_ADDR for binds...) on each node to that node's own fabric IP, or leave it unset so each node computes its own.`
          : "Bind an address the machine has (ip -4 addr): set VLLM_HOST_IP / --node-ip-address to this node's own fabric IP.",
      }
    },
  },
]

function loopbackGcs(addr: string): RuleHit {
  return {
    key: `gcs-loop:${addr}`,
    severity: 'error',
    message: `A Ray process tried the head's GCS at ${addr}, a loopback address: on a worker that is the worker itself, not the head.`,
    evidence: { 'GCS address tried': addr },
    fix: "Give workers the head's fabric address: ray start --address=<head fabric IP>:<port> (VRD_HEAD_IP under launch.mode: script).",
  }
}
