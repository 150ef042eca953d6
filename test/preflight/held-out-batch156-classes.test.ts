/**
 * Classes found in session 63's sixth round (held-out batches 156–160, scored first at da7f7b3: 33/49 right, 38/49 with the collectors'
 * alsoFair codes, no false alarm on 18 healthy), each tested on sources and renderings other than the capture that showed it, with near misses.
 */
import { describe, expect, it } from 'vitest'
import { bad, codes, one } from './support/paste-scan.js'

// (ai-runway/airunway#229: `kubectl describe pod`'s `Reason: ImagePullBackOff`, read as nothing)
describe("a container's failure state as `kubectl describe pod` prints it", () => {
  it.each(['ImagePullBackOff', 'ErrImagePull', 'CrashLoopBackOff', 'CreateContainerConfigError'])('%s: a failure line', (reason) => {
    const text = `    State:          Waiting\n      Reason:       ${reason}\n    Ready:          False\n    Restart Count:  0`
    expect(bad(text).length, codes(text).join(', ')).toBeGreaterThan(0)
  })

  it('a container being created or initialised is a start under way', () => {
    for (const reason of ['ContainerCreating', 'PodInitializing', 'Completed'])
      expect(bad(`    State:          Waiting\n      Reason:       ${reason}`), reason).toEqual([])
  })
})

// (Project-HAMi/HAMi#1069: the scheduler's "0/4 nodes are available: 4 Insufficient nvidia.com/gpu.memory", read as nothing)
describe("the Kubernetes scheduler finding no node with the pod's GPUs", () => {
  it.each([
    [
      'I0522 10:32:28.450554       1 scheduler.go:352] "Unable to schedule pod; no fit; waiting" pod="privatemodel/qwen2-5-0-5b-5d6b69597d-5bpm5" err="0/4 nodes are available: 4 Insufficient nvidia.com/gpu.memory. preemption: 0/4 nodes are available: 4 No preemption victims found for incoming pod."',
      'nvidia.com/gpu.memory',
    ],
    // the FailedScheduling event as kubectl describe prints it
    [
      '  Warning  FailedScheduling  2m (x3 over 5m)  default-scheduler  0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 Insufficient nvidia.com/gpu. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.',
      'nvidia.com/gpu',
    ],
    ['Warning  FailedScheduling  10s  default-scheduler  0/2 nodes are available: 2 Insufficient amd.com/gpu.', 'amd.com/gpu'],
  ])('%#: GPU_SHORTFALL (a warning: an autoscaler may add the node) with the resource', (text, resource) => {
    const f = one(text, 'GPU_SHORTFALL')
    expect(f.severity).toBe('warning')
    expect(f.evidence['Resource short']).toBe(resource)
  })

  it('a pod short of CPU or memory is not a GPU shortfall', () => {
    expect(codes('0/3 nodes are available: 3 Insufficient cpu.')).not.toContain('GPU_SHORTFALL/warning')
  })
})

// (NVIDIA/nccl#697: NCCL's socket transport taking docker compose bridges, read as nothing)
describe("NCCL's socket transport on container bridges", () => {
  it.each([
    'NCCL INFO NET/Socket : Using\n[0]bond0:192.168.1.161<0>\n[1]br-05ab815fa14e:172.19.0.1<0>\n[2]br-d5d80d7dbbad:172.21.0.1<0>',
    'node1:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.2<0> [1]cni0:10.244.0.1<0> [2]flannel.1:10.244.0.0<0>',
  ])('%#: SOCKET_IFNAME_MISSING (a warning) naming the bridges', (text) => {
    const f = one(text, 'SOCKET_IFNAME_MISSING')
    expect(f.severity).toBe('warning')
    expect(f.fix).toContain('NCCL_SOCKET_IFNAME')
  })

  it('NCCL on the fabric alone is nothing, and a bridge name outside NCCL’s list is nothing', () => {
    expect(codes('node1:1:1 [0] NCCL INFO NET/Socket : Using [0]bond0:192.168.1.161<0> [1]ib0:10.10.0.2<0>')).not.toContain('SOCKET_IFNAME_MISSING/warning')
    expect(codes('[1]br-05ab815fa14e:172.19.0.1<0>')).toEqual([])
  })
})

// (ray-project/ray PR #27716, #29127 and #22326: Ray's older and autoscaler wordings)
describe("Ray's own wordings: the 2.0 memory monitor, the autoscaler's ERR records, a worker retrying the GCS", () => {
  it("Ray 2.0's memory monitor kill is OOM_KILLED with the node and the figures", () => {
    const f = one(
      '(raylet) [2022-08-29 15:18:33,592 E 30307 30344] (raylet) node_manager.cc:2963: System memory low at node with IP 172.17.0.2. Used memory (23.63GB) / total capacity (33.28GB) (0.709971) exceeds threshold 0.7, killing latest task with name leaker',
      'OOM_KILLED',
    )
    expect(f.evidence).toMatchObject({ Node: '172.17.0.2', 'Memory in use': '23.63GB / 33.28GB (0.709971)', 'Kill threshold': '0.7' })
  })

  it("the autoscaler's ERR records are failure lines, its INFO and VINFO ones are not", () => {
    expect(bad('2022-10-06 11:40:16,543\tERR updater.py:158 -- New status:update-failed').length).toBeGreaterThan(0)
    expect(bad('2024-07-09 11:57:41,321 VINFO command_runner.py:371 -- Running `ray stop`')).toEqual([])
  })

  it("a worker's `ray start` failing to reach the GCS is RAY_GCS_UNREACHABLE", () => {
    expect(
      codes(
        '2022-02-05 16:39:15,662 ERROR gcs_utils.py:137 -- Failed to send request to gcs, reconnecting. Error <_InactiveRpcError of RPC that terminated with:',
      ),
    ).toContain('RAY_GCS_UNREACHABLE/error')
  })
})
