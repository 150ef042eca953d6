/**
 * Log signatures of NCCL transport failures between nodes: an InfiniBand/RoCE work completion with
 * an error status, a verbs call that fails while NCCL sets up a queue pair or registers memory,
 * NCCL's "unhandled system error" and "remote process exited or there was a network error" results,
 * and a bootstrap that finds no socket interface. Wordings by NCCL version in
 * src/preflight/WORDINGS.md; the healthy lines (`NET/IB : Using …`, `Bootstrap : Using …`) are
 * never findings here.
 */

import type { RuleHit, SignatureRule } from './signature-rules.js'

/** The host in NCCL's line prefix `host:pid:tid [dev] …` (also after a `[timestamp]`), when there is one. */
const ncclHost = (line: string): string | undefined => /^\s*['"`]?(?:\[[^\]]*\]\s*)?([\w.-]+?):\w+(?::\d+)? \[\d+\] /.exec(line)?.[1]
const ncclVersion = (line: string): string | undefined => /NCCL version ([\d.]+\S*)/i.exec(line)?.[1]

/** ibv_wc_status values NCCL prints as `error N` / `status=N` (rdma-core verbs.h), with what each means between two nodes. */
const WC_STATUS: Readonly<Record<string, string>> = {
  '4': 'IBV_WC_LOC_PROT_ERR: local protection error (memory registration, GPUDirect RDMA / peer memory)',
  '5': 'IBV_WC_WR_FLUSH_ERR: flushed after an earlier error on the same queue pair',
  '10': 'IBV_WC_REM_ACCESS_ERR: the remote side refused the access',
  '12': 'IBV_WC_RETRY_EXC_ERR: transport retry counter exceeded, the peer NIC never acknowledged (no route, wrong GID index, MTU or PFC/ECN trouble on RoCE, link down)',
  '13': 'IBV_WC_RNR_RETRY_EXC_ERR: receiver not ready, retries exceeded',
}

const FABRIC_FIX =
  'Check the RDMA path between the two nodes outside NCCL: ibv_devinfo / ibdev2netdev (port Active, same link layer), the same MTU on both ends, ping over the fabric IPs, and ib_write_bw between the nodes; on RoCE set NCCL_IB_GID_INDEX to the RoCE v2 GID both ends share (show_gids) and make sure NCCL_IB_HCA names the Up device. If RDMA cannot work, NCCL_IB_DISABLE=1 falls back to sockets (slow) on NCCL_SOCKET_IFNAME.'

function transportHit(
  key: string,
  line: string,
  message: string,
  evidence: Record<string, string>,
  fix = FABRIC_FIX,
  severity: 'error' | 'warning' = 'error',
): RuleHit {
  const host = ncclHost(line)
  const version = ncclVersion(line)
  return {
    key,
    severity,
    message,
    evidence: { ...(host ? { 'NCCL host': host } : {}), ...evidence, ...(version ? { 'NCCL version': version } : {}) },
    fix,
  }
}

/** aws-ofi-nccl's failures while it starts (its init and its protocols'), after which NCCL may still use its own transports. */
const OFI_START_FAILURE =
  /^(?:Couldn't open a fabric provider|Couldn't create fabric|OFI fi_getinfo\(\) call failed|Initializing plugin failed|Caught exception in plugin init|Failed to initialize \w+ protocol|Unable to find a protocol that worked|[\w-]*ofi[\w-]* initialization failed|EFA provider requires at least libfabric version)/

/** The memory key under which a CUDA failure NCCL or torch reported is kept (what the shared-memory segment rule reads). */
export const NCCL_CUDA_FAILURE = 'ncclCudaFailure'
/** The memory key set once NCCL's CUDA failure in its intra-host transport was reported: the segment it then could not make is the same event. */
export const NCCL_INTRA_HOST_REPORTED = 'ncclIntraHostReported'

/** NCCL's sources that connect the GPUs of one host (peer access, shared memory, host registration). */
const INTRA_HOST_TRANSPORT = /\b(?:transport|p2p|shm|shmutils)\.cc:\d+ NCCL WARN /

/** CUDA errors NCCL's CUDACHECK prints that other rules read: its buffers not fitting (GPU_OUT_OF_MEMORY), 802 (the fabric manager). */
const READ_ELSEWHERE = /^(?:out of memory|system not yet initialized)$/

export const NCCL_RULES: readonly SignatureRule[] = [
  {
    // NCCL (CUDACHECK, include/checks.h): "host:pid:tid [0] transport.cc:154 NCCL WARN Cuda failure 'invalid argument'" (2.19+: "Cuda failure 1
    // 'invalid argument'"). Where NCCL connects the GPUs of one host (transport.cc, transport/p2p.cc, transport/shm.cc, misc/shmutils.cc) it is
    // peer access or host-memory registration the platform refuses: two RTX 3090s under WSL2 (vllm-project/vllm#4411, after channels "via
    // SHM/direct/direct"), a VM without P2P, IOMMU/ACS on the PCIe path. Every such line is remembered for the shared-memory segment rule.
    code: 'NCCL_TRANSPORT_ERROR',
    pattern: /NCCL WARN Cuda failure (?:\d+ )?'([^']+)'/,
    hit: (m, line, _ray, context) => {
      context.memory?.set(NCCL_CUDA_FAILURE, `Cuda failure '${m[1]}'`)
      if (READ_ELSEWHERE.test(m[1]!) || !INTRA_HOST_TRANSPORT.test(line)) return null
      context.memory?.set(NCCL_INTRA_HOST_REPORTED, '1')
      return transportHit(
        `intra-host-cuda:${m[1]}`,
        line,
        `A CUDA call failed ('${m[1]}') while NCCL connected the GPUs of one host (its peer-to-peer or shared-memory transport): the platform refuses peer access or host-memory registration between them (WSL2 with several GPUs, a VM without P2P, IOMMU/ACS on the PCIe path).`,
        { 'CUDA error': m[1]!, 'NCCL source': /\b([\w/]+\.cc:\d+) NCCL WARN/.exec(line)?.[1] ?? '' },
        "Set NCCL_P2P_DISABLE=1 in every rank's environment (and NCCL_SHM_DISABLE=1 if it persists) so NCCL connects the GPUs another way; under WSL2 run several GPUs on Linux directly; on bare metal check nvidia-smi topo -m and the PCIe ACS / IOMMU settings NCCL's troubleshooting guide names.",
      )
    },
  },
  {
    // torch (ProcessGroupNCCL): "… unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version …" and "ncclUnhandledCudaError: Call to CUDA
    // function failed.": remembered, so a shared-memory segment NCCL then reports (with no errno) reads as a CUDA refusal, not a full /dev/shm.
    code: 'NCCL_TRANSPORT_ERROR',
    pattern: /\bncclUnhandledCudaError\b|\bunhandled cuda error\b/,
    hit: (_m, _line, _ray, context) => {
      if (context.memory?.get(NCCL_CUDA_FAILURE) === undefined) context.memory?.set(NCCL_CUDA_FAILURE, 'ncclUnhandledCudaError (a CUDA call NCCL made failed)')
      return null
    },
  },
  {
    // NCCL 2.x net_ib.cu/.cc: "NET/IB : Got completion with error 12, opcode 1, len 0, vendor err 129" (2018: "len0");
    // NCCL 2.19+: "NET/IB : Got completion from peer 10.0.0.2<44206> with error 12, opcode 129, len 0, vendor err 129 (Recv) localGid … remoteGids …";
    // IB plugins: "… with status=12 opcode=129 len=65536 vendor err 129 (Recv)", "NET/IBP:Got completion …".
    code: 'NCCL_TRANSPORT_ERROR',
    pattern:
      /NET\/IB\w*\s*:\s*Got completion (?:from peer (\S+?) )?with (?:error|status)\s*=?\s*(\d+),?\s*opcode\s*=?\s*(\d+),?\s*len\s*=?\s*(\d+),?\s*vendor err (\d+)(?: \((Send|Recv)\))?(?:\s*localGid\s*(\S+?)\s*remoteGids?\s*(\S+))?/i,
    hit: (m, line) => {
      const peer = m[1]?.replace(/<\d+>$/, '')
      const status = m[2] ?? '?'
      return transportHit(
        `completion:${peer ?? ncclHost(line) ?? ''}:${status}`,
        line,
        `NCCL's RDMA transport failed${peer ? ` talking to ${peer}` : ''}: a work completion came back with error ${status}${WC_STATUS[status] ? ` (${WC_STATUS[status]!.split(':')[0]})` : ''}, so the collective across nodes aborts.`,
        {
          'Completion status': WC_STATUS[status] ? `${status} = ${WC_STATUS[status]}` : status,
          'Vendor error': m[5] ?? '',
          ...(peer ? { Peer: peer } : {}),
          ...(m[6] ? { Direction: m[6] } : {}),
          ...(m[7] ? { 'Local GID': m[7] } : {}),
          ...(m[8] ? { 'Remote GID': m[8] } : {}),
        },
        status === '4'
          ? 'A local protection error is memory registration: check GPUDirect RDMA (nvidia-peermem / dma-buf) is loaded on this node, the container has --ulimit memlock=-1 and IPC_LOCK, or set NCCL_NET_GDR_LEVEL=LOC to stop GPUDirect and retry.'
          : FABRIC_FIX,
      )
    },
  },
  {
    // NCCL ibvwrap.c/.cc: "Call to ibv_modify_qp failed with error Connection timed out" (older), "… failed with 110 Connection timed out,
    //   on dev mlx5_0:1, curr state INIT, next state RTR, local GID index 3, local GID …, remote GID …" (2.2x); also ibv_reg_mr, ibv_create_qp;
    //   people quote it without "Call to" and with the reason in brackets: "ibv_modify_qp failed with 110 (Connection timed out)".
    code: 'NCCL_TRANSPORT_ERROR',
    pattern:
      /(?:Call to |\b)(ibv_\w+)`? failed(?: with(?: error)?\s*(?:(\d+)\s*)?\(?([A-Za-z][\w ]*?[a-z])\)?)?(?=[,.)`]|\s*$)(?:.*?on dev ([\w.-]+):(\d+))?(?:.*?curr state (\w+), next state (\w+))?(?:.*?local GID index (\d+))?/i,
    hit: (m, line) => {
      const call = m[1] ?? 'ibv_*'
      const why = m[3]?.trim()
      const regMr = /reg_mr/i.test(call)
      // Opening or listing the devices fails before any peer is involved: NCCL then falls back to sockets (NCCL_SOCKET_FALLBACK says so).
      const beforePeers = /open_device|get_device_list|query_device|query_port/i.test(call)
      return transportHit(
        beforePeers ? 'open-device' : `verbs:${call}:${why ?? ''}:${m[4] ?? ''}`,
        line,
        `NCCL could not ${/modify_qp/i.test(call) ? 'connect an RDMA queue pair to the peer' : regMr ? 'register memory with the RDMA device' : beforePeers ? `open the RDMA device (${call}), so it uses TCP sockets instead` : `set up RDMA (${call})`}${why ? `: ${why}` : ''}${m[6] && m[7] ? ` (moving ${m[6]} → ${m[7]})` : ''}${m[4] ? ` on ${m[4]}:${m[5]}` : ''}.`,
        {
          'Verbs call': call,
          ...(why ? { Error: `${m[2] ? `${m[2]} ` : ''}${why}` } : {}),
          ...(m[4] ? { 'RDMA device': `${m[4]}:${m[5]}` } : {}),
          ...(m[6] && m[7] ? { 'QP state change': `${m[6]} → ${m[7]}` } : {}),
          ...(m[8] ? { 'GID index': m[8] } : {}),
        },
        regMr
          ? 'Memory registration fails on the memlock limit: run the containers with --ulimit memlock=-1 and --cap-add IPC_LOCK (or --privileged), and check nvidia-peermem / dma-buf for GPUDirect.'
          : /No such device/i.test(why ?? '')
            ? 'NCCL opened an RDMA device the container cannot use: pass the devices in (--device /dev/infiniband, or --privileged) and set NCCL_IB_HCA to a device ibv_devinfo shows as PORT_ACTIVE on every node.'
            : beforePeers
              ? 'Give the containers the RDMA devices (--device /dev/infiniband with --cap-add IPC_LOCK --ulimit memlock=-1, or --privileged), check ibv_devinfo inside the container, and set NCCL_IB_HCA to the device that is Up.'
              : `A queue pair that cannot reach RTR/RTS means the peer's address is unreachable over RDMA: on RoCE the GID index must select a RoCE v2 GID both nodes share (NCCL_IB_GID_INDEX, show_gids), the fabric IPs must route between the nodes, and on rail-connected systems NCCL_CROSS_NIC=0. ${FABRIC_FIX}`,
        beforePeers ? 'warning' : 'error',
      )
    },
  },
  {
    // NCCL net_ib: "NET/IB : Unable to open device mlx5_bond_0" (after "Call to ibv_open_device failed"; NCCL goes on with sockets).
    code: 'NCCL_TRANSPORT_ERROR',
    pattern: /NET\/IB\s*:\s*Unable to open device (\S+)/i,
    hit: (m, line) =>
      transportHit(
        'open-device',
        line,
        `NCCL could not open the RDMA device ${m[1]}, so it uses TCP sockets instead.`,
        { 'RDMA device': m[1] ?? '' },
        'Give the containers the RDMA devices (--device /dev/infiniband with --cap-add IPC_LOCK --ulimit memlock=-1, or --privileged), check ibv_devinfo inside the container, and set NCCL_IB_HCA to the device that is Up.',
        'warning',
      ),
  },
  {
    // NCCL result 2 (ncclGetErrorString): "NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)", "NCCL Error 2: unhandled system error",
    // torch: "NCCL error in: …/ProcessGroupNCCL.cpp:1201, unhandled system error, NCCL version 2.4.8"; the enum name "ncclSystemError".
    code: 'NCCL_TRANSPORT_ERROR',
    pattern: /\bNCCL\b.*?unhandled system error|\bncclSystemError\b/i,
    hit: (_m, line) =>
      transportHit(
        'system-error',
        line,
        'NCCL failed with "unhandled system error": a system call under NCCL (a socket, an RDMA verb, /dev/shm) failed, most often the network between nodes or a resource the container lacks.',
        { 'NCCL result': 'ncclSystemError (2)' },
        `Run again with NCCL_DEBUG=INFO (and NCCL_DEBUG_SUBSYS=INIT,NET): the WARN line just before names the call that failed. Usual causes across nodes: NCCL_SOCKET_IFNAME naming an interface that is missing or differs per node, RDMA devices or memlock missing in the container (--device /dev/infiniband, --ulimit memlock=-1, --cap-add IPC_LOCK), or a /dev/shm too small (--shm-size / --ipc=host). ${FABRIC_FIX}`,
      ),
  },
  {
    // NCCL result 6: "NCCL error: remote process exited or there was a network error" (also "ncclRemoteError: socketProgress: Connection closed by remote peer").
    code: 'NCCL_TRANSPORT_ERROR',
    pattern: /remote process exited or there was a network error|\bncclRemoteError\b(?::\s*(.*))?/i,
    hit: (m, line) =>
      transportHit(
        'remote-error',
        line,
        'NCCL lost a peer: "remote process exited or there was a network error" — another rank died first, or the connection between the nodes broke.',
        { 'NCCL result': 'ncclRemoteError (6)', ...(m[1] ? { Detail: m[1].trim() } : {}) },
        `Look at the other nodes' logs at the same time: if a rank died first (OOM kill, crash), fix that; otherwise the fabric dropped: ${FABRIC_FIX}`,
      ),
  },
  {
    // NCCL proxy.cc (2.12+; RCCL proxy.cpp): "Proxy Call to rank 7 failed (Connect)" (also Init, SharedInit, Setup, Start…); torch prints it under
    // "ncclInternalError: Internal check failed." and "Last error:".
    code: 'NCCL_TRANSPORT_ERROR',
    pattern: /Proxy Call to rank (\d+) failed \((\w+)\)/,
    hit: (m, line) =>
      transportHit(
        `proxy:${m[1]}:${m[2]}`,
        line,
        `NCCL's proxy could not complete its ${m[2]} call for rank ${m[1]}: the connection NCCL sets up between this rank and its peer failed, so the communicator is never built.`,
        { 'Peer rank': m[1] ?? '', 'Proxy call': m[2] ?? '' },
        `Run with NCCL_DEBUG=INFO: the WARN lines before this one name the socket or verbs call that failed. Between nodes it is most often NCCL_SOCKET_IFNAME naming an interface that does not route to the peer (or differing per node), a firewall on NCCL's ephemeral ports, or the peer rank dying first. ${FABRIC_FIX}`,
      ),
  },
  {
    // NCCL socket.cc: "socketPollConnect: Connect to 10.0.0.2<44206> returned 113(No route to host) errno 11(Resource temporarily unavailable)" (2.1x),
    // "socketPollConnect: connect to 10.82.101.249<54709> returned Connection refused, exceeded error retry count after 35 attempts" (2.2x),
    // "ncclOsSocketPollConnect: connect to …" (2.28+), "socketStartConnect: Connect to … failed : …"; older socket.h: "Connect to 10.0.0.2<44206> failed :
    // Connection refused". NCCL writes a peer as ip<port>; without a function name, only that form is read. Its INFO retries ("…, retrying (n/34)") are not failures.
    code: 'NCCL_TRANSPORT_ERROR',
    pattern:
      /(?:\b(?:ncclOs)?[Ss]ocket(?:Poll|Start)Connect:\s*[Cc]onnect to \[?([\da-fA-F.:]+?)\]?(?:<(?:(\d+)|[^>\s]*)>)?|\b[Cc]onnect to \[?([\da-fA-F.:]+?)\]?<(\d+)>)\s*(?:returned|failed)\s*:?\s*(?:-?\d+\s*\(?)?([A-Za-z][A-Za-z ]*[a-z])/,
    hit: (m, line) => {
      // NCCL INFO "… returned Connection refused, retrying (24/34) after sleep for 2400 msec": a retry while the peer starts, healthy until the count runs out.
      if (/\bretrying\b/i.test(line)) return null
      const peer = m[1] ?? m[3] ?? ''
      const port = m[2] ?? m[4]
      const why = m[5]?.trim() ?? ''
      const loopback = /^(?:127\.|::1$|::ffff:127\.)/.test(peer)
      return transportHit(
        `socket-connect:${peer}:${why}`,
        line,
        `NCCL could not open a TCP connection to a peer rank at ${peer}${port ? `:${port}` : ''}: ${why}.`,
        { 'Peer address': `${peer}${port ? `:${port}` : ''}`, Error: why },
        loopback
          ? "The peer address is loopback: NCCL picked the lo interface (NCCL_SOCKET_IFNAME=lo, or the hostname resolves to 127.0.x.x), so ranks on other nodes are asked to connect to themselves. Set NCCL_SOCKET_IFNAME (and GLOO_SOCKET_IFNAME) to the interface that carries the nodes' fabric addresses, in every node's container."
          : /refused/i.test(why)
            ? `Nothing listened at ${peer}${port ? `:${port}` : ''}: the peer rank died or restarted before the connection (read that node's log first), or a firewall rejects NCCL's ephemeral ports between the nodes. Check both, then the interface NCCL bootstraps on (NCCL_SOCKET_IFNAME, the same on every node).`
            : `${peer} is not reachable from this node over the interface NCCL chose (${why}): set NCCL_SOCKET_IFNAME to the interface whose addresses route between the nodes (ip route get ${peer} on this node shows which), the same on every node, and open NCCL's ports in any firewall between them.`,
      )
    },
  },
  {
    // aws-ofi-nccl (src/nccl_ofi_net.cpp, _rdma.cpp, _sendrecv.cpp, _ofiutils.cpp, 1.6–1.21), printed as "NCCL WARN NET/OFI …" and repeated by
    // torch after "Last error:". The plugin's start fails ("Couldn't open a fabric provider. RC: -61, ERROR: No data available", "OFI
    // fi_getinfo() call failed: …", "Failed to initialize sendrecv protocol", "Unable to find a protocol that worked.  Failing initialization.",
    // "aws-ofi-nccl initialization failed", "EFA provider requires at least libfabric version 1.22.0."): NCCL then tries its own IB and socket
    // transports unless NCCL_NET forces the plugin, so a warning. Anything the plugin fails at later fails the connection it was making
    // ("Couldn't open a fabric access domain. RC: -38, …", "Creating new endpoint for domain 0x… failed: Invalid argument", "Unable to insert
    // remote address into address vector for device 1. RC: 0": a peer the fabric does not let through).
    code: 'NCCL_TRANSPORT_ERROR',
    pattern: /(?<!\bINFO\s{0,3})NET\/OFI\s+([^\n]*?\b(?:[Uu]nable|[Ff]ail\w*|Couldn't|[Cc]ould not|[Ee]rror|requires at least|not supported)\b[^\n]*)$/,
    hit: (m, line) => {
      const text = (m[1] ?? '').trim()
      const atStart = OFI_START_FAILURE.test(text)
      const call = text.split(/[.:](?:\s|$)/)[0]!.trim()
      const rc = /\bRC: (-?\d+)/.exec(text)?.[1]
      const why = (/\bERROR: ([^.]+)/.exec(text)?.[1] ?? /(?:failed|call failed): ([^.]+)/.exec(text)?.[1])?.trim()
      return transportHit(
        atStart ? 'net-plugin' : `net-plugin-run:${call}`,
        line,
        atStart
          ? `NCCL's network plugin (aws-ofi-nccl over libfabric) did not start: ${call}${why ? ` (${why})` : ''}. NCCL goes on with its own InfiniBand or socket transport, or stops if NCCL_NET names the plugin.`
          : `NCCL's network plugin (aws-ofi-nccl over libfabric) failed while connecting the ranks: ${call}${why ? ` (${why})` : ''}.`,
        { 'Plugin call': call, ...(rc ? { 'libfabric return code': rc } : {}), ...(why ? { Error: why } : {}) },
        atStart
          ? "aws-ofi-nccl needs the EFA (or other libfabric) devices inside the container and a libfabric its version supports: run with the EFA devices (--device /dev/infiniband/uverbs*, or the EFA device plugin on Kubernetes), check fi_info -p efa on the node and in the container, and keep the plugin, libfabric and NCCL versions the image was built with. Where the nodes have no EFA, take the plugin off the image's LD_LIBRARY_PATH or set NCCL_NET=Socket (or IB) so NCCL does not try it."
          : "The fabric between the nodes does not carry the plugin's traffic: on AWS the EFA security group must allow all traffic to and from itself, inbound and outbound (the default outbound rule does not cover EFA), and every node must be in the same placement group and subnet; check fi_info -p efa on each node and run the nccl-tests all_reduce between two nodes with FI_LOG_LEVEL=warn to see the provider's own error.",
        atStart ? 'warning' : 'error',
      )
    },
  },
  {
    // aws-ofi-nccl src/platform-aws.cpp (log_cq_error, 1.7+): on FI_EHOSTUNREACH, which EFA returns only for packets a security group dropped,
    // "Request 0x… (send) completed with error: err: 113, …" is followed by a starred banner: "* This error indicates that the security group
    // on either this instance or the peer instance" / "* is not setup correctly. …efa-start-nccl.html#nccl-start-base-setup".
    code: 'FABRIC_PORT_BLOCKED',
    pattern: /This error indicates that the security group on either this instance or the peer instance/,
    hit: (_m, line) => ({
      key: 'efa-security-group',
      severity: 'error',
      message:
        "EFA dropped the traffic between the nodes: aws-ofi-nccl says the security group of this instance or its peer does not let EFA's packets through, so NCCL's connections between nodes fail.",
      evidence: {
        ...(ncclHost(line) ? { 'NCCL host': ncclHost(line)! } : {}),
        'aws-ofi-nccl': 'the security group on either this instance or the peer instance is not set up correctly',
      },
      fix: "Give the nodes' EFA security group a rule that allows all traffic from itself inbound and one that allows all traffic to itself outbound (the default outbound rule to 0.0.0.0/0 does not cover EFA), on every node's network interfaces; then run the nccl-tests all_reduce across two nodes before vLLM.",
    }),
  },
  {
    // NCCL net.cc (2.12–2.29): "Error: network AWS Libfabric not found." when NCCL_NET names a network no loaded transport provides;
    // NCCL 2.19+ plugin/net.cc: "Failed to initialize any NET plugin". Both end in ncclInvalidUsage ("invalid usage"): no fallback.
    code: 'NCCL_TRANSPORT_ERROR',
    pattern: /\bFailed to initialize any NET plugin\b|\bError: network (.+?) not found\b/,
    hit: (m, line) =>
      transportHit(
        'no-net',
        line,
        `NCCL found no network transport it may use${m[1] ? `: NCCL_NET asks for "${m[1]}", which no loaded plugin provides` : ' (NCCL_NET, or the plugin NCCL_NET_PLUGIN names, did not load or start)'}, so the communicator between nodes is never built.`,
        { 'NCCL result': 'ncclInvalidUsage (5)', ...(m[1] ? { 'NCCL_NET asks for': m[1] } : {}) },
        "NCCL_NET forces one network, so NCCL may not fall back: either give the plugin what it needs (its library on LD_LIBRARY_PATH inside the container, built for this NCCL version, and the fabric devices passed in: --device /dev/infiniband or the EFA devices) or unset NCCL_NET / set NCCL_NET=Socket (or IB) on every node. NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET shows why the plugin did not load (a 'NET/Plugin' line).",
      ),
  },
  {
    // NCCL bootstrap.cc: "Bootstrap : no socket interface found" (2.x); net_socket.cc: "NET/Socket : no interface found";
    // proposed 2.27+: "Bootstrap : no NCCL_SOCKET_IFNAME interface found".
    code: 'NCCL_TRANSPORT_ERROR',
    pattern: /(?:Bootstrap|NET\/Socket)\s*:\s*no (?:usable |NCCL_SOCKET_IFNAME )?(?:socket )?interface found/i,
    hit: (_m, line) =>
      transportHit(
        'no-interface',
        line,
        'NCCL found no network interface to bootstrap on: NCCL_SOCKET_IFNAME names an interface this node or container does not have, or only loopback/docker interfaces are left.',
        {},
        "Set NCCL_SOCKET_IFNAME (and GLOO_SOCKET_IFNAME) in every node's container to the fabric interface as that node names it (ip -br addr; names can differ between nodes, e.g. enp1s0f0np0 vs enP2p1s0f0np0), and run the containers with --network host so the interface is visible.",
      ),
  },
]
