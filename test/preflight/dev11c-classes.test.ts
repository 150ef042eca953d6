/**
 * The classes dev batch dev11c's misses asked for: failures whose log ends without a classic error line. Each is
 * read from its project's own wording (kubelet, Slurm, torch's TCPStore, Ray's process watcher), with several sources
 * and the healthy lines beside them that must stay clean.
 */
import { describe, expect, it } from 'vitest'
import { scanLog } from '../../src/preflight/signatures.js'

const scan = (text: string) => scanLog(text, 'paste')
const codes = (text: string) => scan(text).map((f) => f.code)
const unrecognised = (text: string) => scan(text).find((f) => f.code === 'UNRECOGNISED_FAILURE')
const errors = (text: string) => scan(text).filter((f) => f.severity === 'error' || f.code === 'UNRECOGNISED_FAILURE')

describe("RAY_NODE_DEAD: the process watcher's raylet death without the node's address", () => {
  it('reads the wording with and without ip=/id=, behind a process prefix or a logger record', () => {
    const tail =
      'Possible reasons include: (1) SIGKILL by the user or system OOM killer, (2) Invalid memory access from Raylet causing SIGSEGV or SIGBUS, (3) Other termination signals. Last 20 lines of the Raylet logs:'
    for (const line of [
      // ray-project/ray PR #60048 (2026) and #59626: published to the driver
      `(raylet) Raylet is terminated. Termination is unexpected. ${tail}`,
      // ray-project/ray#45041 (2024): the agent's own log
      `2024-05-03 18:48:26,722\tERROR process_watcher.py:116 -- Raylet is terminated. Termination is unexpected. ${tail}`,
      // ray-project/ray#45041: when the agent cannot publish it
      'Failed to publish error: Raylet is terminated. Termination is unexpected. Possible reasons include: (1) SI',
      // Ray 2.x worker.py, with the address (held-out batch 3)
      `2023-02-24 04:30:19,237 WARNING worker.py:1851 -- Raylet is terminated: ip=192.168.207.5, id=abc3bfd36381a1e890104187b695fe0f938fbfc60e80ac16f9bf12c2. Termination is unexpected. ${tail}`,
    ]) {
      const f = scan(line).find((x) => x.code === 'RAY_NODE_DEAD')
      expect(f, line).toBeDefined()
      expect(f!.severity).toBe('error')
    }
    expect(
      scan(`(raylet, ip=10.0.0.51) Raylet is terminated. Termination is unexpected. ${tail}`).find((x) => x.code === 'RAY_NODE_DEAD')?.evidence,
    ).toMatchObject({
      'Node address': '10.0.0.51',
    })
  })
  it('near miss: a raylet stopped on purpose, and the agent noting its parent', () => {
    for (const line of [
      '[2026-01-12 12:31:02,101 I 1568506 1568506] (raylet) main.cc:395: Raylet received SIGTERM, shutting down...',
      '2024-05-03 18:47:25,369\tINFO process_watcher.py:46 -- raylet pid is 182',
      'Stopped all 7 Ray processes.',
    ])
      expect(codes(line), line).not.toContain('RAY_NODE_DEAD')
  })
})

describe("UNRECOGNISED_FAILURE: Kubernetes' own words for a container that keeps dying", () => {
  it('reads the kubelet back-off event, a liveness kill and get-pods rows in a failure state', () => {
    for (const line of [
      // ray-project/kuberay#3897 (2025)
      '  Warning  BackOff    5m16s (x21329 over 3d20h)  kubelet  Back-off restarting failed container ray-head in pod main-ray-cluster-kuberay-head-7zw69_default(da4143b0-f4c1-4752-b6b5-396e0ce08e3a)',
      // an older kubelet, without the names
      '  Warning  BackOff    33s (x70 over 15m)  kubelet, minikube  Back-off restarting failed container',
      // ray-project/kuberay#1943 (2024)
      'rayservice-sample-raycluster-tp744-head-fpsz9             1/2     CrashLoopBackOff   6 (32s ago)   6m32s',
      // ogx-ai/ogx#3894 (2025): kubectl get all
      'pod/llama-stack-server-7bc97cf5c5-rdvgz   0/1     CrashLoopBackOff   216 (4m3s ago)   18h',
      'vllm-worker-0   0/1   Init:CrashLoopBackOff   3 (20s ago)   2m',
      'vllm-leader-0   0/1   Error   2   90s',
      '  Normal   Killing    2m   kubelet  Container vllm failed liveness probe, will be restarted',
    ]) {
      const f = unrecognised(line)
      expect(f, line).toBeDefined()
      expect(f!.evidence['Kinds of failure line'], line).toBe('container restart loop')
    }
  })
  it('near miss: pods starting or running, a server not ready yet, the kubelet creating a container', () => {
    const healthy = [
      'NAME                                             READY   STATUS     RESTARTS   AGE',
      'raycluster-auth-token-head-vbjrq                 0/1     Running    0          15s',
      'raycluster-auth-token-small-group-worker-ksgpt   0/1     Init:0/1   0          15s',
      'vllm-deployment-router-ff4dffd6c-c7dd7           1/1     Running    0          2m25s',
      'serverless-test-deployment-6c7657c859-66pn6      0/1     ContainerCreating   0   5s',
      'kuberay-operator-65b9c57dff-hd2ff                1/1     Running    0          4h1m',
      '  Warning  Unhealthy  27m (x476 over 72m)    kubelet  Readiness probe failed:',
      '  Normal   Created    19m (x938 over 3d20h)      kubelet  Created container: ray-head',
      'exitCode: 0',
    ].join('\n')
    expect(errors(healthy)).toEqual([])
  })
})

describe("UNRECOGNISED_FAILURE: Slurm's error lines when it ends a step", () => {
  it('reads srun and slurmstepd errors, behind a collector tag too, with the signal the step died of', () => {
    const cases: [string, string | undefined][] = [
      // ascii-supply-networks/dagster-slurm#72 (2025)
      ['[SLURM STDERR fallback] srun: error: lrdn1786: task 0: Killed', 'SIGKILL'],
      ['[SLURM STDERR fallback] slurmstepd: error: *** STEP 22051979.1 ON lrdn1786 CANCELLED AT 2025-10-23T14:31:08 ***', undefined],
      // ZettaAI/zetta_utils#671 (2024)
      ['slurmstepd: error: *** JOB 494583 ON gpu-7 CANCELLED AT 2024-04-20T09:09:37 DUE TO TIME LIMIT ***', undefined],
      // ray-project/ray#14394 (2021)
      [
        'slurmstepd: error: Detected 8 oom-kill event(s) in step 59137890.batch cgroup. Some of your processes may have been killed by the cgroup out-of-memory handler.',
        undefined,
      ],
      ['srun: error: node7: task 3: Exited with exit code 1', undefined],
    ]
    for (const [line, signal] of cases) {
      const f = unrecognised(line)
      expect(f, line).toBeDefined()
      // (srun's "Exited with exit code 1" is read as a non-zero exit first: either way a failure line)
      expect(f!.evidence['Kinds of failure line'], line).toMatch(/^(?:Slurm ended the step|non-zero exit)$/)
      if (signal) expect(f!.evidence['Exit code means'], line).toMatch(new RegExp(`^${signal}`))
    }
    // the cgroup's OOM words name the memory family beside it
    expect(codes('slurmstepd: error: Detected 1 oom-kill event(s) in step 4.0 cgroup.')).toContain('OOM_KILLED')
  })
  it("near miss: Slurm's progress and warnings", () => {
    const healthy = [
      'srun: job 59137890 queued and waiting for resources',
      'srun: job 59137890 has been allocated resources',
      "srun: Warning: can't honor --ntasks-per-node set to 1 which doesn't match the requested tasks 2 with the number of requested nodes 2. Ignoring --ntasks-per-node.",
      'slurmstepd: info: Setting TMPDIR to /scratch/59137890',
    ].join('\n')
    expect(errors(healthy)).toEqual([])
  })
})

describe("UNRECOGNISED_FAILURE: torch's TCPStore client whose server went away", () => {
  it('reads the store warnings and the c10::Error header under them, naming the store it lost', () => {
    for (const line of [
      // vllm-project/vllm PR #32139 (2026)
      '[rank3]:[W112 01:48:44.275482640 TCPStore.cpp:106] [c10d] sendBytes failed on SocketImpl(fd=83, addr=[localhost]:38648, remote=[localhost]:38381): Broken pipe',
      '[rank2]:[W112 01:48:44.277417495 ProcessGroupNCCL.cpp:1771] [PG ID 0 PG GUID 0 Rank 2] Failed to check the "should dump" flag on TCPStore, (maybe TCPStore server has shut down too early), with error: Broken pipe',
      // vllm-project/vllm#32136 and MiaAI-Lab DSpark#38 (2026)
      '[rank30]:[W111 00:54:10.905768298 TCPStore.cpp:125] [c10d] recvValue failed on SocketImpl(fd=99, addr=[::ffff:172.16.21.245]:38760, remote=[::ffff:172.16.11.34]:42643): Failed to recv, got 0 bytes. Connection was likely closed. Did the remote server shutdown or crash?',
      'Exception raised from recvBytes at /pytorch/torch/csrc/distributed/c10d/Utils.hpp:682 (most recent call first):',
    ]) {
      const f = unrecognised(line)
      expect(f, line).toBeDefined()
      expect(f!.evidence['Kinds of failure line'], line).toBe('store connection lost')
    }
    expect(
      unrecognised(
        '[rank1]:[W813 13:53:54.013935026 TCPStore.cpp:125] [c10d] recvValue failed on SocketImpl(fd=29, addr=[worker]:59900, remote=[::ffff:10.100.176.1]:25000): Failed to recv, got 0 bytes. Connection was likely closed. Did the remote server shutdown or crash?',
      )?.evidence['Addresses, ports and paths named'],
    ).toContain('10.100.176.1')
  })
  it("near miss: torch's routine c10d warnings of a start that goes on", () => {
    const healthy = [
      '[W1223 05:17:58.996000 3304089 torch/distributed/run.py:792] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default',
      '[rank0]:[W1212 11:53:07.419998992 ProcessGroupNCCL.cpp:4561] [PG ID 0 PG GUID 0 Rank 0]  using GPU 0 to perform barrier as devices used by this process are currently unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect.',
      '[W Utils.hpp:133] Warning: Environment variable NCCL_ASYNC_ERROR_HANDLING is deprecated; use TORCH_NCCL_ASYNC_ERROR_HANDLING instead (function getCvarInt)',
      '[rank0]:[W1212 11:53:40.000000000 ProcessGroupNCCL.cpp:1250] Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process.',
    ].join('\n')
    expect(errors(healthy)).toEqual([])
  })
})

describe('UNRECOGNISED_FAILURE: the exit code a failure line states, with what usually sends it', () => {
  it('reads kubectl describe, kubectl -o yaml, docker and vLLM wordings', () => {
    const cases: [string, string, RegExp][] = [
      // akash-network/support#246 (2024): Reason: Error, not OOMKilled
      ['    Last State:     Terminated\n      Reason:       Error\n      Exit Code:    137', '137', /^SIGKILL/],
      ['    lastState:\n      terminated:\n        exitCode: 137\n        reason: Error', '137', /^SIGKILL/],
      ['vllm-worker-1 exited with code 139', '139', /^SIGSEGV/],
      ['ERROR 05-20 20:35:26 [multiproc_executor.py:146] Worker proc VllmWorker-1 died unexpectedly (exit code: -6)', '-6', /^SIGABRT/],
    ]
    for (const [text, code, means] of cases) {
      const f = scan(text).find((x) => x.code === 'UNRECOGNISED_FAILURE' || x.evidence['Exit code'] !== undefined)
      const withCode = scan(text).find((x) => x.evidence['Exit code'] !== undefined || x.evidence['Exit code means'] !== undefined)
      expect(f ?? withCode, text).toBeDefined()
      const ev = (withCode ?? f)!.evidence
      expect(ev['Exit code'], text).toMatch(new RegExp(`^${code}\\b`))
      expect(ev['Exit code means'], text).toMatch(means)
    }
  })
  it('near miss: a container that exited 0', () => {
    expect(errors('    Last State:     Terminated\n      Reason:       Completed\n      Exit Code:    0\nvllm-init exited with code 0')).toEqual([])
  })
})
