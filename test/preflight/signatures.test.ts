import { describe, expect, it } from 'vitest'
import type { RayView } from '../../src/preflight/facts.js'
import type { FindingCode } from '../../src/preflight/finding.js'
import { parseRayNodes } from '../../src/preflight/parse-ray.js'
import { createLogWatcher, scanLog } from '../../src/preflight/signatures.js'
import { readFixture } from './fixtures/read.js'

const scan = (file: string, ray?: RayView) => scanLog(readFixture(`logs/${file}`), file, ray)
const codes = (file: string, ray?: RayView): FindingCode[] => scan(file, ray).map((f) => f.code)

/** Ray's view in the incident: the head registered as 10.1.230.180. */
const seedRay = parseRayNodes(readFixture('ray/seed-ray-nodes.txt'))

describe('PLACEMENT_GROUP_PENDING', () => {
  it("puts the seed's requested node:192.168.200.12 beside Ray's 10.1.230.180 and says no node has it", () => {
    const [f, ...rest] = scan('seed-autoscaler.txt', seedRay)
    expect(rest).toEqual([])
    expect(f).toMatchObject({ code: 'PLACEMENT_GROUP_PENDING', severity: 'error', node: null })
    expect(f?.message).toContain('node:192.168.200.12')
    expect(f?.message).toContain('no alive Ray node has that address')
    expect(f?.evidence).toMatchObject({
      'Log line': 'seed-autoscaler.txt:6',
      'Placement group asks for': 'node:192.168.200.12',
      'Ray node addresses (NodeManagerAddress)': '10.1.230.180 (head)',
      'Ray node with that address': 'none',
    })
    expect(f?.evidence['Line']).toContain('No available node types can fulfill resource request')
    expect(f?.fix).toContain('--node-ip-address=192.168.200.12')
    expect(f?.fix).toContain('(10.1.230.180)')
  })

  it('says Ray has the pinned node when it does (the group then waits for GPUs)', () => {
    const ray = parseRayNodes("192.168.200.12 {'node:__internal_head__': 1.0, 'GPU': 1.0}")
    const [f] = scan('seed-autoscaler.txt', ray)
    expect(f?.message).toContain('which Ray does have')
    expect(f?.evidence['Ray node with that address']).toBe('yes: 192.168.200.12 (head)')
    expect(f?.fix).toContain('ray status')
  })

  it('without Ray nodes, names the pin and asks for the comparison', () => {
    const [f] = scan('seed-autoscaler.txt')
    expect(f?.message).toContain('compare that address')
    expect(f?.evidence['Ray node with that address']).toBeUndefined()
  })

  it("reads vLLM's older wait wording and reports the repeated waits once (aibrix#927)", () => {
    const found = scan('vllm-pg-wait-old.txt')
    // (vLLM's "required GPUs exceeds" warning before the waits: GPU_SHORTFALL, a warning beside the pending group, the GPUs it waits for)
    expect(found.map((f) => `${f.code}/${f.severity}`)).toEqual(['PLACEMENT_GROUP_PENDING/error', 'GPU_SHORTFALL/warning'])
    expect(found[1]?.evidence['GPU bundles asked for']).toBe('2')
    expect(found[0]?.evidence).toMatchObject({
      'Log line': 'vllm-pg-wait-old.txt:3',
      'Waited so far': '10 s',
      'Placement group asks for': 'node:10.163.194.101',
    })
  })

  it("reads vLLM's newer wording behind srun and EngineCore prefixes (vllm#26028, gpustack#4979)", () => {
    expect(scan('vllm-pg-wait-new.txt').map((f) => f.evidence['Placement group asks for'])).toEqual(['node:172.31.130.15'])
    expect(scan('vllm-0.17.1-pg-wait-gpustack-4979.txt').map((f) => f.evidence['Placement group asks for'])).toEqual(['node:192.168.50.18'])
  })

  it('reports the autoscaler line and the cut vLLM line of vllm#14186 as one pin each', () => {
    const found = scan('vllm-14186-autoscaler.txt')
    expect(found.map((f) => [f.code, f.evidence['Placement group asks for'] ?? null])).toEqual([
      ['PLACEMENT_GROUP_PENDING', 'node:111.6.168.225'],
      ['PLACEMENT_GROUP_PENDING', null], // the cut line ends inside the pin: no node: key to read
    ])
    expect(found[1]?.message).toContain('cut inside its node: pin')
  })

  it('reads a request with no node pin as a resource shortage', () => {
    const [f] = scanLog(
      "(autoscaler +32s) Error: No available node types can fulfill resource request defaultdict(<class 'float'>, {'CPU': 8.0, 'GPU': 8.0}). Add suitable node types to this cluster to resolve this issue.",
      'x',
    )
    expect(f?.message).toContain('no node: pin')
    expect(f?.evidence['Request']).toContain("'GPU': 8.0")
  })

  it('near miss: the TP > local GPUs warning and a healthy startup are not findings', () => {
    expect(codes('engine-near-miss.txt')).toEqual([])
  })
})

describe('PLACEMENT_GROUP_TIMEOUT', () => {
  it('reads both timeout wordings, with the pin and the timeout', () => {
    const found = scan('vllm-pg-timeout.txt', seedRay)
    expect(found.map((f) => [f.code, f.evidence['Placement group asks for'], f.evidence['Timeout']])).toEqual([
      ['PLACEMENT_GROUP_TIMEOUT', 'node:192.168.200.12', '1800 s'],
      ['PLACEMENT_GROUP_TIMEOUT', 'node:10.0.0.7', '1800 s'],
    ])
    expect(found[0]?.evidence['GPUs requested']).toBe('2.0')
    expect(found[0]?.message).toContain('gave up after 1800 s')
  })

  it('near miss: the wait line is pending, not a timeout', () => {
    expect(codes('vllm-pg-wait-old.txt')).not.toContain('PLACEMENT_GROUP_TIMEOUT')
  })
})

describe('UNIQUE_IP_ERROR', () => {
  it('reads the node and IP counts (one IP for two nodes; three IPs for two nodes)', () => {
    const found = scan('unique-ip.txt')
    expect(found).toHaveLength(1) // one signature per log
    expect(found[0]?.evidence).toMatchObject({ 'Ray nodes': '2', 'Distinct vLLM IPs': "1: {'192.168.0.110'}" })
    const [more] = scanLog(readFixture('logs/unique-ip.txt').split('\n').slice(4).join('\n'), 'x')
    expect(more?.evidence['Distinct vLLM IPs']).toContain('3:')
    expect(more?.fix).toContain('more IPs than nodes')
  })

  it('near miss: vLLM docs telling you VLLM_HOST_IP must be unique are not the error', () => {
    expect(scanLog('Note that VLLM_HOST_IP is unique for each worker.', 'docs')).toEqual([])
  })
})

describe('GLOO_LOOPBACK', () => {
  it("reads the fallback warning and connectFullMesh failure of vllm#7074, with the node from Ray's prefix", () => {
    const found = scan('gloo-vllm-7074.txt')
    expect(found.map((f) => [f.code, f.severity, f.node])).toEqual([
      ['GLOO_LOOPBACK', 'warning', '10.41.0.8'],
      ['GLOO_LOOPBACK', 'error', '10.41.0.8'],
    ])
    expect(found[1]?.fix).toContain('GLOO_SOCKET_IFNAME')
  })

  it('reads remote=[127.0.0.1] (aws-do-eks#50) and the engine death after it', () => {
    const found = scan('gloo-aws-do-eks-50.txt')
    expect(found.map((f) => f.code)).toEqual(['GLOO_LOOPBACK', 'GLOO_LOOPBACK', 'GLOO_LOOPBACK', 'ENGINE_DEAD'])
    expect(found[1]?.evidence['Peer address']).toBe('127.0.0.1 (loopback)')
  })

  it('reads the bare connectFullMesh failure (vllm#5094)', () => {
    expect(codes('gloo-vllm-5094.txt')).toEqual(['GLOO_LOOPBACK'])
  })

  it('near miss: Gloo connecting its peers over the named interface is not a finding', () => {
    expect(scanLog('[Gloo] Rank 1 is connected to 1 peer ranks. Expected number of connected peer ranks is : 1\n', 'x')).toEqual([])
  })

  it('near miss: single-node Gloo with zero peers raises only the warning, not an error', () => {
    const found = scan('gloo-single-node-near-miss.txt')
    expect(found.map((f) => f.severity)).toEqual(['warning'])
  })
})

describe('NCCL_SOCKET_FALLBACK', () => {
  it('reads NET/Socket in use when IB could not open (nccl#451), once per log, after the device that would not open', () => {
    const found = scan('nccl-socket-nccl-451.txt')
    expect(found.map((f) => `${f.code}:${f.severity}`)).toEqual(['NCCL_TRANSPORT_ERROR:warning', 'NCCL_SOCKET_FALLBACK:warning'])
    expect(found[0]?.evidence['Verbs call']).toBe('ibv_open_device')
    expect(found[1]?.evidence['Socket interfaces']).toBe('[0]bond0:200.1.93.2')
    expect(found[1]?.fix).toContain('/dev/infiniband')
  })

  it('reads the DGX Spark write-up where NCCL ran on the management NIC', () => {
    expect(scan('nccl-socket-spark.txt')[0]?.evidence['Socket interfaces']).toBe('[0]enP7s7:192.168.0.111')
  })

  it('reads "via NET/Socket" channels once per host (nccl#1232)', () => {
    const found = scan('nccl-socket-channels.txt')
    expect(found.map((f) => f.evidence['NCCL host'])).toEqual(['node0', 'node2'])
  })

  it('near miss: NET/IB, RoCE, GDRDMA and socket settings are not a fallback', () => {
    expect(codes('nccl-ib-near-miss.txt')).toEqual([])
  })
})

describe('RAY_IP_MISMATCH_WARNING', () => {
  it('reads the old global_state_accessor wording (ray#30292)', () => {
    const [f] = scan('ray-ip-mismatch-old.txt')
    expect(f).toMatchObject({ code: 'RAY_IP_MISMATCH_WARNING', severity: 'warning' })
    expect(f?.evidence['IP the process detected']).toBe('172.16.0.31')
  })

  it('reads the new wording once per distinct IP (vllm#6689: five lines, four IPs)', () => {
    expect(scan('ray-ip-mismatch-new.txt').map((f) => f.evidence['IP the process detected'])).toEqual(['10.6.0.55', '10.5.1.64', '10.5.1.43', '10.5.1.70'])
  })

  it("reads Ray's Python-side wording (ray#35022)", () => {
    expect(scan('ray-ip-mismatch-python.txt')[0]?.evidence['IP the process detected']).toBe('10.17.4.16')
  })

  it("sets the IP beside Ray's node addresses when known", () => {
    const [f] = scan('ray-ip-mismatch-old.txt', seedRay)
    expect(f?.message).toContain('Ray has no node with it')
    expect(f?.evidence['Ray node addresses (NodeManagerAddress)']).toBe('10.1.230.180')
  })

  it("near miss: Ray's own 'Local node IP' line is not a mismatch", () => {
    expect(scanLog('2025-03-26 14:13:12,438 INFO scripts.py:865 -- Local node IP: 10.0.239.249', 'x')).toEqual([])
  })
})

describe('DRIVER_NO_GPU', () => {
  it('reads the old and new wordings, and spots a placement group already holding the GPU', () => {
    const found = scan('driver-no-gpu.txt')
    expect(found.map((f) => f.code)).toEqual(['DRIVER_NO_GPU', 'DRIVER_NO_GPU'])
    expect(found[1]?.evidence['Placement group already on the node']).toContain('yes')
    expect(found[1]?.fix).toContain('SIGTERM')
  })

  it('near miss: the driver-GPU check passing says nothing', () => {
    expect(scanLog('INFO ray_utils.py:222] Current node has 1 GPU available.', 'x')).toEqual([])
  })
})

describe('ENGINE_DEAD', () => {
  it('reads EngineDeadError, "EngineCore failed to start" and "Engine core initialization failed"', () => {
    // An engine's death names no cause: the ActorHandleNotFoundError above it, which no rule knows, is UNRECOGNISED_FAILURE beside it.
    expect(codes('engine-dead.txt')).toEqual(['ENGINE_DEAD', 'ENGINE_DEAD', 'ENGINE_DEAD', 'UNRECOGNISED_FAILURE'])
  })

  it('a death whose cause a rule names earns no UNRECOGNISED_FAILURE; one whose cause no rule knows does (SkyRL#1343, vLLM PR #36875 shapes)', () => {
    const known = [
      'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.11 GiB of which 1.06 GiB is free.',
      'RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}',
    ].join('\n')
    expect(scanLog(known, 'paste').map((f) => f.code)).not.toContain('UNRECOGNISED_FAILURE')
    const unknown = [
      'AssertionError: The env var, __RAY_WORKER_PROCESS_SETUP_HOOK_ENV_VAR, is not permitted because it is reserved for the internal use.',
      'RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}',
    ].join('\n')
    const found = scanLog(unknown, 'paste')
    expect(found.map((f) => f.code)).toEqual(['ENGINE_DEAD', 'UNRECOGNISED_FAILURE'])
    expect(found[1]!.evidence['Exception type']).toBe('AssertionError')
  })

  it('near miss: EngineCore as a process name is not a death', () => {
    expect(codes('engine-near-miss.txt')).toEqual([])
  })
})

describe('createLogWatcher', () => {
  const line =
    "(EngineCore_DP0 pid=70) INFO 03-23 16:19:12 [ray_utils.py:267] Waiting for creating a placement group of specs for 10 seconds. specs=[{'node:192.168.200.12': 0.001, 'GPU': 1.0}, {'GPU': 1.0}]. Check `ray status` and `ray list nodes` ...\n"

  it('finds a signature split across chunks, as soon as its line completes', () => {
    const seen: string[] = []
    const w = createLogWatcher({ source: 'spark-a:vllm', ray: seedRay, onFinding: (f) => seen.push(f.code) })
    expect(w.push('INFO starting\n(EngineCore_DP0 pid=70) INFO 03-23 16:19:12 [ray_utils.py:267] Waiting for creating a pla')).toEqual([])
    expect(seen).toEqual([])
    const found = w.push(line.slice(line.indexOf('cement group')))
    expect(found.map((f) => f.code)).toEqual(['PLACEMENT_GROUP_PENDING'])
    expect(found[0]?.evidence['Log line']).toBe('spark-a:vllm:2')
    expect(seen).toEqual(['PLACEMENT_GROUP_PENDING'])
    expect(w.lines).toBe(2)
  })

  it('reports each signature once per distinct evidence across pushes', () => {
    const w = createLogWatcher({ source: 's' })
    w.push(line)
    expect(w.push(line.replace('10 seconds', '30 seconds'))).toEqual([])
    expect(w.push(line.replace('192.168.200.12', '192.168.200.99'))).toHaveLength(1)
    expect(w.findings).toHaveLength(2)
  })

  it('judges the last line without a newline at end()', () => {
    const w = createLogWatcher({ source: 's' })
    expect(w.push(line.trimEnd())).toEqual([])
    expect(w.end().map((f) => f.code)).toEqual(['PLACEMENT_GROUP_PENDING'])
    expect(w.end()).toEqual([])
  })

  it('handles CRLF and ANSI colour codes', () => {
    const found = scanLog('\x1b[36m(RayWorkerWrapper pid=1, ip=10.0.0.2)\x1b[0m RuntimeError: Gloo connectFullMesh failed\r\n', 's')
    expect(found[0]).toMatchObject({ code: 'GLOO_LOOPBACK', node: '10.0.0.2' })
    expect(found[0]?.evidence['Line']).not.toContain('\x1b')
  })

  it('does not hold an endless line in memory, and still counts it', () => {
    const w = createLogWatcher({ source: 's' })
    w.push('x'.repeat(200 * 1024))
    expect(w.lines).toBe(3)
  })

  it('shortens a very long matched line around the match', () => {
    const long = `${'a'.repeat(2000)} EngineCore failed to start. ${'b'.repeat(2000)}`
    const [f] = scanLog(long, 's')
    expect(f?.evidence['Line']?.length).toBeLessThan(320)
    expect(f?.evidence['Line']).toContain('EngineCore failed to start')
  })
})
