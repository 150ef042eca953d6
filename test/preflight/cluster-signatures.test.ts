/**
 * The cluster, fabric and memory families, each from real public captures (sources in
 * fixtures/README.md) with a trigger and a near miss, and every wording listed in
 * src/preflight/WORDINGS.md for them, including older spellings.
 */
import { describe, expect, it } from 'vitest'
import type { FindingCode } from '../../src/preflight/finding.js'
import { scanLog } from '../../src/preflight/signatures.js'
import { readFixture } from './fixtures/read.js'

const scan = (file: string) => scanLog(readFixture(`logs/${file}`), file)
const tags = (file: string) => scan(file).map((f) => `${f.code}:${f.severity}`)
const one = (text: string) => scanLog(text, 'paste')

describe('RAY_VERSION_MISMATCH', () => {
  it('Ray 2.x: reads both version blocks across lines and names what differs and the node', () => {
    const [f, ...rest] = scan('ray-version-mismatch-logic-rl-30.txt')
    expect(rest).toEqual([])
    expect(f).toMatchObject({ code: 'RAY_VERSION_MISMATCH', severity: 'error' })
    expect(f!.evidence).toMatchObject({
      'Log line': 'ray-version-mismatch-logic-rl-30.txt:2-7',
      'Cluster (head) started with': 'Ray 2.12.0, Python 3.11.11',
      'This process (node 10.123.3.87)': 'Ray 2.42.0, Python 3.9.21',
      Differs: 'Ray 2.12.0 vs 2.42.0; Python 3.11.11 vs 3.9.21',
    })
    expect(f!.fix).toContain('same image')
  })
  it('Ray 0.2 ("Exception:", Ray location and Cloudpickle lines, after a traceback): the differing library is named', () => {
    const [f, ...rest] = scan('ray-version-mismatch-old-ray-1263.txt')
    expect(rest).toEqual([])
    expect(f!.evidence['Differs']).toBe('Cloudpickle 0.5.2 vs 0.2.2')
    expect(f!.message).toContain('172.31.4.51')
  })
  it('near miss: a client setting RAY_IGNORE_VERSION_MISMATCH is not a mismatch', () => {
    expect(tags('ray-version-near-miss-ray-49912.txt')).toEqual([])
  })
})

describe('NCCL_TRANSPORT_ERROR', () => {
  it('older "Got completion with error 12" (nccl#902): the status is explained', () => {
    const [f] = scan('nccl-ib-completion-nccl-902.txt')
    expect(f).toMatchObject({ code: 'NCCL_TRANSPORT_ERROR', severity: 'error' })
    expect(f!.evidence['Completion status']).toContain('IBV_WC_RETRY_EXC_ERR')
    expect(f!.evidence['Vendor error']).toBe('129')
  })
  it('newer "Got completion from peer … with status=" (nccl#1814): peer, GIDs, host; one finding per peer and status', () => {
    const found = scan('nccl-ib-completion-peer-nccl-1814.txt')
    expect(found.map((f) => f.evidence['Completion status']?.split(' ')[0])).toEqual(['12', '5'])
    expect(found[0]!.evidence).toMatchObject({ Peer: '172.36.143.59', 'NCCL host': 'hostname-test', 'Remote GID': '::ffff:29.87.4.221', Direction: 'Recv' })
  })
  it('ibv_modify_qp with errno, device and QP states (nccl#2013)', () => {
    const [f] = scan('nccl-modify-qp-nccl-2013.txt')
    expect(f!.evidence).toMatchObject({
      'Verbs call': 'ibv_modify_qp',
      Error: '110 Connection timed out',
      'RDMA device': 'mlx_x:1',
      'QP state change': 'INIT → RTR',
      'GID index': '3',
    })
    expect(f!.fix).toContain('NCCL_IB_GID_INDEX')
  })
  it('"unhandled system error" behind a Ray worker prefix (vllm#5828), with the node', () => {
    const found = scan('nccl-unhandled-system-vllm-5828.txt')
    expect(found.map((f) => [f.code, f.node])).toEqual([['NCCL_TRANSPORT_ERROR', '10.1.0.7']])
    expect(found[0]!.evidence['NCCL result']).toContain('ncclSystemError')
  })
  it('"Bootstrap : no socket interface found" after torch\'s NCCL error (MambaTree#14)', () => {
    const found = scan('nccl-bootstrap-no-iface-mambatree-14.txt')
    // the same line is also the rendezvous family of an interface the node lacks (issue 36: "Gloo/NCCL interface names that do not exist")
    expect(found.map((f) => f.code)).toEqual(['NCCL_TRANSPORT_ERROR', 'SOCKET_IFNAME_MISSING'])
    expect(found[0]!.evidence['Log line']).toBe('nccl-bootstrap-no-iface-mambatree-14.txt:11')
    expect(found[1]!.evidence['Log line']).toBe('nccl-bootstrap-no-iface-mambatree-14.txt:11')
    expect(found[0]!.fix).toContain('NCCL_SOCKET_IFNAME')
  })
  it('near miss: healthy NCCL INFO lines (bootstrap, plugin not found, NET/IB Using) are nothing', () => {
    expect(tags('nccl-transport-near-miss-nccl-tests-188.txt')).toEqual([])
    expect(tags('nccl-ib-near-miss.txt')).toEqual([])
    expect(tags('healthy-nccl-roce-vllm-6201.txt')).toEqual([])
  })
})

describe('RAY_SHM_TOO_SMALL', () => {
  it("the /tmp fallback is a warning with the size and Ray's suggested --shm-size (2025 wording)", () => {
    const [f, ...rest] = scan('ray-shm-fallback-llmaz-238.txt')
    expect(rest).toEqual([])
    expect(f).toMatchObject({ code: 'RAY_SHM_TOO_SMALL', severity: 'warning' })
    expect(f!.evidence['/dev/shm available']).toBe('67108864 bytes (0.06 GiB)')
    expect(f!.fix).toContain('--shm-size=5.04gb')
  })
  it('the 2020 wording ("This may slow down performance!", cut mid-sentence), beside a bridge address (ray#11211)', () => {
    expect(tags('ray-shm-fallback-old-ray-11211.txt')).toEqual(['RAY_BRIDGE_ADDRESS:warning', 'RAY_SHM_TOO_SMALL:warning'])
  })
  it('the object store that does not fit is an error (ray#23034)', () => {
    const [f] = scan('ray-shm-exceeds-ray-23034.txt')
    expect(f).toMatchObject({ code: 'RAY_SHM_TOO_SMALL', severity: 'error' })
    expect(f!.evidence).toMatchObject({ 'Object store size': '63.999983616 GB', '/dev/shm size': '63.999520768 GB' })
  })
  it('near miss: a docker run that sets --shm-size', () => {
    expect(tags('ray-shm-near-miss-vllm-6280.txt')).toEqual([])
  })
})

describe('RAY_NODE_DEAD seen from actors, owners and tasks', () => {
  it('both actor wordings ("died because" / "is dead because its node has died")', () => {
    const found = scan('ray-actor-node-died-rendered.txt')
    expect(found.map((f) => f.code)).toEqual(['RAY_NODE_DEAD', 'RAY_NODE_DEAD'])
    expect(found.map((f) => f.evidence['Node id']?.slice(0, 8))).toEqual(['56b97436', '7f3a0c2b'])
  })
  it("the owner's node crashed (EasyR1#324): owner address and exit detail", () => {
    const [f, ...rest] = scan('ray-owner-died-easyr1-324.txt')
    expect(rest).toEqual([])
    expect(f!.message).toContain('whose node (172.21.160.9) crashed')
    expect(f!.evidence).toMatchObject({ 'Owner address': '172.21.160.9', 'Owner exit type': 'SYSTEM_ERROR' })
  })
  it('Ray 2.5x task wording (ray PR #58638): node address and id', () => {
    const [f] = scan('ray-node-died-task-ray-58638.txt')
    expect(f!.evidence).toMatchObject({ 'Node address': '127.0.0.1', 'Node id': 'e55b8ca03ebf3f7418f51533d8d55abeaab75fa9b29e2e6282b47646' })
  })
  it('near miss: a worker process that died (its node did not) is not a node death, but is not silent either', () => {
    expect(tags('ray-worker-died-near-miss-logic-rl-18.txt')).toEqual(['UNRECOGNISED_FAILURE:error'])
  })
})

describe('RAY_BRIDGE_ADDRESS', () => {
  it('Ray 0.7 tells workers to join 172.17.0.2 (ray#5371)', () => {
    const [f] = scan('ray-bridge-address-old-ray-5371.txt')
    expect(f).toMatchObject({ code: 'RAY_BRIDGE_ADDRESS', severity: 'warning' })
    expect(f!.evidence['Address on the bridge']).toBe('172.17.0.2')
    expect(f!.fix).toContain('--network host')
  })
  it('"Local node IP: 172.17.0.3" (ray#11211) and a worker prefix ip=172.17.0.6 (dynamo#2706)', () => {
    expect(scan('ray-shm-fallback-old-ray-11211.txt')[0]!.message).toContain('Ray registered this node as 172.17.0.3')
    expect(scan('net-bind-dynamo-2706.txt')[0]!.evidence['Address on the bridge']).toBe('172.17.0.6')
  })
  it('NCCL bootstrapping on docker0 or a 172.17 address', () => {
    expect(one('h:1:1 [0] NCCL INFO NET/Socket : Using [0]docker0:172.17.0.1<0>\n').map((f) => f.code)).toEqual(['NCCL_SOCKET_FALLBACK', 'RAY_BRIDGE_ADDRESS'])
    expect(one('h:1:1 [0] NCCL INFO Bootstrap : Using eth0:172.17.2.7<0>\n')[0]!.message).toContain('eth0')
  })
  it('near miss: 172.16.x and 172.31.x are ordinary host networks, not the bridge', () => {
    expect(tags('ray-bridge-near-miss-nccl-tests-227.txt')).toEqual([])
    expect(one('2025-03-26 14:13:12,438 INFO scripts.py:865 -- Local node IP: 172.31.4.51\n')).toEqual([])
  })
})

describe('RAY_WORKER_REGISTER_FAILED', () => {
  it('the 2025 core_worker.cc wording (smallpond#17): the raylet closed the connection', () => {
    const [f, ...rest] = scan('ray-worker-register-smallpond-17.txt')
    expect(rest).toEqual([])
    expect(f).toMatchObject({ code: 'RAY_WORKER_REGISTER_FAILED', severity: 'error' })
    expect(f!.evidence['Raylet answer']).toBe('Failed to read data from the socket: End of file')
    expect(f!.message).toContain('the raylet closed the connection')
  })
  it('the older wording with the worker id inside the sentence (LUFFY#12)', () => {
    const [f] = scan('ray-worker-register-old-luffy-12.txt')
    expect(f!.evidence).toMatchObject({ 'Raylet answer': 'No such file or directory', 'Worker id': '01000000ffffffffffffffffffffffffffffffffffffffffffffffff' })
  })
  it('near miss: connecting and registering normally', () => {
    expect(one('2025-11-23 22:52:47,385 INFO worker.py:2023 -- Connected to Ray cluster.\n')).toEqual([])
  })
})

describe('memory: NVRM_NO_MEMORY, OOM_KILLED, GPU_OUT_OF_MEMORY', () => {
  it('the GB10 driver line is a warning that says it is not proof alone (dgx-spark-playbooks#97, cut in two by the reporter)', () => {
    const [f, ...rest] = scan('mem-nvrm-gb10-dgx-spark-playbooks-97.txt')
    expect(rest).toEqual([])
    expect(f).toMatchObject({ code: 'NVRM_NO_MEMORY', severity: 'warning' })
    expect(f!.message).toContain('not proof')
    expect(f!.fix).toContain('gpu-memory-utilization')
  })
  it("the kernel's OOM killer (LMCache#4759): the process and its resident size, once per pid", () => {
    const found = scan('mem-oom-kill-lmcache-4759.txt')
    expect(found.map((f) => `${f.code}:${f.severity}`)).toEqual(['OOM_KILLED:error'])
    expect(one(readFixture('logs/mem-oom-kill-lmcache-4759.txt').split('\n').slice(2).join('\n'))[0]!.evidence).toMatchObject({
      'Killed process': 'lmcache (pid 3742074)',
      'Resident memory (anon-rss)': '1.01 GiB',
    })
  })
  it("Ray's memory monitor (ray#28776): node, use and threshold", () => {
    const found = scan('mem-ray-oom-ray-28776.txt')
    expect(found.every((f) => f.code === 'OOM_KILLED')).toBe(true)
    expect(found.at(-1)!.evidence).toMatchObject({ Node: '172.31.69.247', 'Memory in use': '54.86GB / 57.60GB (0.952354)', 'Kill threshold': '0.95' })
  })
  it('CUDA OOM in the torch <= 2.0, 2.1 ("capacty") and >= 2.2 wordings, one per GPU', () => {
    const lines = readFixture('logs/mem-cuda-oom-wordings.txt')
      .split('\n')
      .filter((l) => l.includes('CUDA out of memory'))
    expect(lines).toHaveLength(3)
    expect(lines.map((l) => one(l)[0]!.evidence['GPU total'])).toEqual(['6.00 GiB', '4.00 GiB', '10.74 GiB'])
  })
  it("vLLM's start-up check on a GB10, both wordings: the largest utilisation that fits, and unified memory", () => {
    const found = scan('mem-vllm-free-memory-gb10.txt').filter((f) => f.code === 'GPU_OUT_OF_MEMORY')
    expect(found.map((f) => f.evidence['Largest value that fits now'])).toEqual(['0.51', '0.7'])
    expect(found.every((f) => f.evidence['Memory model']?.startsWith('unified'))).toBe(true)
    expect(found[1]!.fix).toContain('--gpu-memory-utilization to at most 0.7')
  })
  it('a 119.7 GiB GPU in a torch OOM is read as a GB10', () => {
    const [f] = one(
      'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 119.70 GiB of which 1.02 GiB is free.\n',
    )
    expect(f!.evidence['Memory model']).toContain('unified')
  })
  it('near miss: start-up memory figures and settings are not failures', () => {
    expect(tags('mem-near-miss-gb10-startup.txt')).toEqual([])
  })
})

/** Every wording in WORDINGS.md for these families, as the projects print it (older spellings included). */
const WORDINGS: readonly [string, FindingCode][] = [
  [
    'Exception: Version mismatch: The cluster was started with:\n    Ray: 0.8.2\n    Python: 3.6.5\nThis process on node 10.0.0.2 was started with:\n    Ray: 0.8.2\n    Python: 3.6.8',
    'RAY_VERSION_MISMATCH',
  ],
  [
    'RuntimeError: Version mismatch: The cluster was started with:\n    Ray: 2.9.3\n    Python: 3.10.13\nThis process on node 10.0.0.2 was started with:\n    Ray: 2.9.3\n    Python: 3.10.12',
    'RAY_VERSION_MISMATCH',
  ],
  ['NCCL WARN NET/IB : Got completion with error 12, opcode 1, len 0, vendor err 129', 'NCCL_TRANSPORT_ERROR'],
  ['transport/net_ib.cu:781 WARN NET/IB : Got completion with error 12, opcode 1, len0, vendor err 129', 'NCCL_TRANSPORT_ERROR'],
  ['h:1:2 [0] NCCL WARN NET/IB : Got completion from peer 10.0.0.2<44206> with error 12, opcode 129, len 0, vendor err 129 (Recv)', 'NCCL_TRANSPORT_ERROR'],
  [
    'h:1:2 [4] ib_plugin.c:1615 NCCL WARN NET/IB : Got completion from peer 10.0.0.2<44206> with status=12 opcode=129 len=65536 vendor err 129 (Recv)',
    'NCCL_TRANSPORT_ERROR',
  ],
  ['misc/ibvwrap.cc:187 NCCL WARN Call to ibv_modify_qp failed with error Connection timed out', 'NCCL_TRANSPORT_ERROR'],
  [
    'ibvwrap.c:262 NCCL WARN Call to ibv_modify_qp failed with 110 Connection timed out, on dev mlx5_0:1, curr state RTR, next state RTS',
    'NCCL_TRANSPORT_ERROR',
  ],
  ['NCCL WARN Call to ibv_reg_mr failed with error Cannot allocate memory', 'NCCL_TRANSPORT_ERROR'],
  ['RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)', 'NCCL_TRANSPORT_ERROR'],
  ['RuntimeError: NCCL Error 2: unhandled system error', 'NCCL_TRANSPORT_ERROR'],
  ['RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:410, unhandled system error, NCCL version 2.4.8', 'NCCL_TRANSPORT_ERROR'],
  ['RuntimeError: NCCL error: remote process exited or there was a network error, NCCL version 2.21.5', 'NCCL_TRANSPORT_ERROR'],
  ['ncclRemoteError: socketProgress: Connection closed by remote peer', 'NCCL_TRANSPORT_ERROR'],
  ['Bootstrap : no socket interface found', 'NCCL_TRANSPORT_ERROR'],
  ['NCCL WARN NET/Socket : no interface found', 'NCCL_TRANSPORT_ERROR'],
  ['NCCL WARN Bootstrap : no NCCL_SOCKET_IFNAME interface found', 'NCCL_TRANSPORT_ERROR'],
  [
    "WARNING: The object store is using /tmp instead of /dev/shm because /dev/shm has only 67108864 bytes available. This will harm performance! You may be able to free up space by deleting files in /dev/shm. If you are inside a Docker container, you can increase /dev/shm size by passing '--shm-size=5.04gb' to 'docker run'",
    'RAY_SHM_TOO_SMALL',
  ],
  [
    'WARNING: The object store is using /tmp instead of /dev/shm because /dev/shm has only 67108864 bytes available. This may slow down performance!',
    'RAY_SHM_TOO_SMALL',
  ],
  ['ValueError: The configured object store size (12.5 GB) exceeds /dev/shm size (0.06 GB). This will harm performance.', 'RAY_SHM_TOO_SMALL'],
  [
    '[2026-03-25 05:44:29,435 W 39 39] (raylet) store_runner.cc:83: System memory request exceeds memory available in /dev/shm. The request is for 10200547328 bytes, and the amount available is 9663676416 bytes.',
    'RAY_SHM_TOO_SMALL',
  ],
  [
    'F0101 00:00:00.000000 1 store.cc:1] System memory request exceeds memory available in /dev/shm. The request is for 2000000000 bytes, and the amount available is 67108864 bytes.',
    'RAY_SHM_TOO_SMALL',
  ],
  ["2026-01-24 03:01:33,220 INFO node.py:362 -- Failed to get node info b'RPC error: Deadline Exceeded'", 'RAY_GCS_UNREACHABLE'],
  ['F0528 04:41:19.140461   831 redis_context.cc:239] Could not establish connection to redis 10.0.0.4:58890 (context.err = 1)', 'RAY_GCS_UNREACHABLE'],
  [
    'Exception: The current node timed out during startup. This could happen because some of the raylet failed to startup or the GCS has become overloaded.',
    'RAYLET_UNREACHABLE',
  ],
  [
    'global_state_accessor.cc:357: This node has an IP address of 172.18.0.6, while we can not found the matched Raylet address. This maybe come from when you connect the Ray cluster with a different IP address or connect a container.',
    'RAY_IP_MISMATCH_WARNING',
  ],
  ['global_state_accessor.cc:356: This node has an IP address of 10.0.0.6, while we cannot find the matched Raylet address.', 'RAY_IP_MISMATCH_WARNING'],
  ['[2022-04-12 13:46:39,948 C 74 74] (raylet) node_manager.cc:170: This node has beem marked as dead.', 'RAY_NODE_DEAD'],
  [
    '2023-02-24 04:30:19,237 WARNING worker.py:1851 -- Raylet is terminated: ip=192.168.207.5, id=abc3bfd36381. Termination is unexpected. Possible reasons include: (1) SIGKILL by the user or system OOM killer',
    'RAY_NODE_DEAD',
  ],
  ['[E socket.cpp:922] [c10d] The client socket has timed out after 1800s while trying to connect to (172.17.0.2, 44737).', 'RAY_BRIDGE_ADDRESS'],
  ['The actor died because its node has died.', 'RAY_NODE_DEAD'],
  ['The actor is dead because its node has died. Node Id: 56b97436e67393f15565e024278867700c2bd0ec6ca9e0dac7261fd1', 'RAY_NODE_DEAD'],
  [
    "The actor is dead because its owner has died. Owner Id: 01000000ffff Owner Ip address: 10.0.0.2 Owner worker exit type: SYSTEM_ERROR Worker exit detail: Owner's node has crashed.",
    'RAY_NODE_DEAD',
  ],
  ['Task failed because the node it was running on is dead or unavailable. Node IP: 10.0.0.2, node ID: e55b8ca03ebf.', 'RAY_NODE_DEAD'],
  ['Local node IP: 172.17.0.3', 'RAY_BRIDGE_ADDRESS'],
  ['    ray start --redis-address 172.17.0.2:6379 .', 'RAY_BRIDGE_ADDRESS'],
  ['+ ray start --address=172.17.0.2:6379 --block', 'RAY_BRIDGE_ADDRESS'],
  ['INFO worker.py:1458 -- Connecting to existing Ray cluster at address: 172.17.0.2:6379...', 'RAY_BRIDGE_ADDRESS'],
  ['h:1:1 [0] NCCL INFO Bootstrap : Using eth0:172.17.2.7<0>', 'RAY_BRIDGE_ADDRESS'],
  [
    '[2025-03-03 13:03:38,823 E 53766 2515875] core_worker.cc:499: Failed to register worker to Raylet: IOError: [RayletClient] Unable to register worker with raylet. Failed to read data from the socket: End of file worker_id=01000000ffff',
    'RAY_WORKER_REGISTER_FAILED',
  ],
  [
    '[2025-11-23 22:52:54,526 E 51567 51567] core_worker_process.cc:223: Failed to register worker to Raylet: IOError: Failed to read data from the socket: End of file worker_id=01000000ffff',
    'RAY_WORKER_REGISTER_FAILED',
  ],
  [
    'core_worker.cc:234: Failed to register worker 01000000ffffffff to Raylet. IOError: [RayletClient] Unable to register worker with raylet. No such file or directory',
    'RAY_WORKER_REGISTER_FAILED',
  ],
  [
    'NVRM: nvCheckOkFailedNoLog: Check failed: Out of memory [NV_ERR_NO_MEMORY] (0x00000051) returned from _memdescAllocInternal(pMemDesc) @ mem_desc.c:1359',
    'NVRM_NO_MEMORY',
  ],
  ['NVRM: _iovaspaceCreateMappingDataFromMemDesc: failed to allocate 0x176028 bytes for IOVA mapping metadata', 'NVRM_NO_MEMORY'],
  ['Out of memory: Killed process 3742074 (python3) total-vm:81306880kB, anon-rss:1058560kB, file-rss:21412kB, shmem-rss:428kB', 'OOM_KILLED'],
  ['Out of memory: Kill process 1234 (python) score 900 or sacrifice child', 'OOM_KILLED'],
  ['Memory cgroup out of memory: Killed process 4321 (ray::IDLE) total-vm:1000kB, anon-rss:900kB', 'OOM_KILLED'],
  ['oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),task=vllm,pid=777,uid=0', 'OOM_KILLED'],
  ['[12345.678] python3 invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0', 'OOM_KILLED'],
  ['ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory.', 'OOM_KILLED'],
  [
    '(raylet) node_manager.cc:3040: 1 Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node (ID: 2c82, IP: 172.31.183.172) over the last time period.',
    'OOM_KILLED',
  ],
  [
    'RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 1.96 GiB total capacity; 1.24 GiB already allocated; 2.88 MiB free; 1.25 GiB reserved in total by PyTorch)',
    'GPU_OUT_OF_MEMORY',
  ],
  [
    'torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 14.00 MiB. GPU 0 has a total capacty of 4.00 GiB of which 0 bytes is free.',
    'GPU_OUT_OF_MEMORY',
  ],
  [
    'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 29.76 GiB. GPU 0 has a total capacity of 10.74 GiB of which 3.69 GiB is free.',
    'GPU_OUT_OF_MEMORY',
  ],
  ['RuntimeError: CUDA error: out of memory', 'GPU_OUT_OF_MEMORY'],
  [
    'ValueError: Free memory on device cuda:0 (12.18/23.56 GiB) on startup is less than desired GPU memory utilization (0.92, 21.67 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.',
    'GPU_OUT_OF_MEMORY',
  ],
  ['ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.', 'GPU_OUT_OF_MEMORY'],
]

describe('Ray 2.x node start-up timeouts', () => {
  it('"Failed to get node info … Deadline Exceeded" is a warning (node.py retries it); "The current node timed out during startup" is the error', () => {
    const found = one(
      "2026-01-24 03:01:33,220 INFO node.py:362 -- Failed to get node info b'RPC error: Deadline Exceeded'\nException: The current node timed out during startup.\n",
    )
    expect(found.map((f) => `${f.code}:${f.severity}`)).toEqual(['RAY_GCS_UNREACHABLE:warning', 'RAYLET_UNREACHABLE:error'])
  })
})

describe('a logger record re-wrapped by hand onto indented lines reads as one (open-instruct PR #1067 layout)', () => {
  it('joins the indented lower-case continuation of a WARNING record', () => {
    const text = [
      '2025-10-09 20:16:32,652    WARNING services.py:2159 -- WARNING: The object store is using /tmp instead',
      '  of /dev/shm because /dev/shm has only 67108864 bytes available. This will harm performance! You may',
      "  increase /dev/shm size by passing '--shm-size=10.24gb' to 'docker run'.",
    ].join('\n')
    const [f] = one(text)
    expect(f).toMatchObject({ code: 'RAY_SHM_TOO_SMALL' })
    expect(f!.evidence['Log line']).toBe('paste:1-3')
  })
  it("near miss: a traceback's indented code lines stay their own lines", () => {
    const text = 'Traceback (most recent call last):\n  File "x.py", line 1, in wrapper\n    return func(*args)\nKeyError: 1\n'
    expect(one(text)[0]!.evidence['Failure lines']).toBe('1: Traceback (most recent call last):\n4: KeyError: 1')
  })
})

describe('every wording of these families (WORDINGS.md), as printed and as pasted in lower case', () => {
  for (const [text, code] of WORDINGS) {
    it(`${code}: ${text.slice(0, 90)}`, () => {
      expect(one(`${text}\n`).map((f) => f.code)).toContain(code)
      // Case: a paste through a tool that lower-cased it still reads (the patterns ignore case).
      expect(one(`${text.toLowerCase()}\n`).map((f) => f.code)).toContain(code)
    })
  }
})
