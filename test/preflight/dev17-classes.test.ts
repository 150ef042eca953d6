/**
 * Classes from dev batch dev17: why Ray's memory monitor killed (the raylet's "OOM kill reason: …", Ray 2.56+), read into the
 * kill's finding with the fix that reason calls for; a kill's advice that is not GB10's unless the log showed a GB10; one
 * finding for a kill whose node is named on a later line. Wordings from ray-project/ray src/ray/common/monitors/ (2026: the
 * event, pressure and threshold monitors), Ray's "How to avoid OOMs" page and a public write-up; near misses that stay clean.
 */
import { describe, expect, it } from 'vitest'
import { scanLog } from '../../src/preflight/signatures.js'

const scan = (text: string) => scanLog(text, 't.log')
const ooms = (text: string) => scan(text).filter((f) => f.code === 'OOM_KILLED')

/** The kill as Ray 2.55+ writes it (Ray's docs, data/how-to-avoid-ooms.md), then the reason on the next line. */
const kill = (ip: string, reason: string): string =>
  [
    `Task hungry_hippo failed due to oom. There are infinite oom retries remaining, so the task will be retried. Error: 2 worker(s) were killed due to the node running low on memory. Memory on the node (IP: ${ip}, ID: 92edc4e97e4dac3cee61126133ee7ab6d0a2ee73803623d24a02979d) was 110.69GB / 124.35GB (0.890161)`,
    `OOM kill reason: ${reason}`,
  ].join('\n')

describe("OOM_KILLED: why Ray's memory monitor killed (the raylet's OOM kill reason)", () => {
  it('the event monitor of resource isolation: the user cgroup reached its upper bound (one finding, the reason in its evidence)', () => {
    const f = ooms(`${kill('10.0.50.112', 'user cgroup memory upper bound was met or exceeded')}\n`)
    expect(f).toHaveLength(1)
    expect(f[0]!.evidence).toMatchObject({
      Node: '10.0.50.112',
      'Memory in use': '110.69GB / 124.35GB (0.890161)',
      'Why Ray killed': 'user cgroup memory upper bound was met or exceeded',
    })
    expect(f[0]!.message).toMatch(
      /killed 2 worker\(s\) on 10\.0\.50\.112: the cgroup Ray runs its workers in .* upper bound \(memory\.high\) \(node memory 110\.69GB of 124\.35GB\)/,
    )
    expect(f[0]!.fix).toMatch(/--system-reserved-memory/)
  })

  it('the pressure monitor (PSI in the user cgroup), on the same line as raylet.out joins it with ";"', () => {
    const line =
      '(raylet) Task _map_task failed due to oom. Error: 1 worker(s) were killed due to the node running low on memory. Memory on the node (IP: 172.24.0.226, ID: 4cb25bc084aeb5a31ca5402ad589ae042a71165a8e2dd8418fecee26) was 28.62GB / 30.00GB (0.954017), which exceeds the memory usage threshold of 0.950000;OOM kill reason: user cgroup memory pressure was detected;Object store memory usage: [- objects spillable: 0'
    const f = ooms(`${line}\n`)
    expect(f).toHaveLength(1)
    expect(f[0]!.evidence['Why Ray killed']).toBe('user cgroup memory pressure was detected')
    expect(f[0]!.message).toMatch(/came under memory pressure/)
  })

  it("the threshold monitor's reason, and a write-up's paraphrase: the node's threshold, with the host-memory advice", () => {
    for (const reason of [
      // src/ray/common/monitors/threshold_memory_monitor.cc (2026): "Memory usage %dB exceeded threshold of %dB (%.1f%% of %dB total)"
      'Memory usage 128849018880B exceeded threshold of 122406567936B (95.0% of 128849018880B total)',
      // a public write-up (held-out batch 8 class test): "OOM kill reason: exceeded threshold of 95%"
      'exceeded threshold of 95%',
    ]) {
      const f = ooms(`${kill('10.10.10.1', reason)}\n`)
      expect(f, reason).toHaveLength(1)
      expect(f[0]!.evidence['Why Ray killed'], reason).toBe(reason)
      expect(f[0]!.message, reason).toMatch(/passed Ray's kill threshold/)
      expect(f[0]!.fix, reason).toMatch(/host memory \(RAM\), not the GPU's/)
    }
  })

  it('the reason alone (the kill line cut off above it) is itself the kill', () => {
    const f = ooms('OOM kill reason: user cgroup memory upper bound was met or exceeded\n')
    expect(f).toHaveLength(1)
    expect(f[0]!.severity).toBe('error')
  })

  it('reads the threshold monitor\'s 2026 line ("… total)") into the kill\'s evidence, as the 2.60 "… limit)"', () => {
    for (const unit of ['total', 'limit']) {
      const log = [
        `[2026-03-01 10:00:00,000 I 100 100] (raylet) threshold_memory_monitor.cc:80: Memory usage 128849018880B exceeded threshold of 122406567936B (95.0% of 128849018880B ${unit})`,
        '[2026-03-01 10:00:00,001 I 100 100] (raylet) node_manager.cc:3101: Ray killed 1 worker(s) based on the killing policy',
      ].join('\n')
      expect(ooms(`${log}\n`)[0]?.evidence['Memory in use'], unit).toBe('128.85GB / 128.85GB (threshold 95.0%: 122.41GB)')
    }
  })
})

describe("OOM_KILLED: a Ray kill's advice is the GB10's only where the log showed a GB10", () => {
  it('a discrete-GPU host (Ray docs, ray-oom-prevention: a 33 GB node): host-memory advice, no GB10', () => {
    const log = [
      'WARNING worker.py:1839 -- A worker died or was killed while executing a task by an unexpected system error. To troubleshoot the problem, check the logs for the dead worker. RayTask ID: 8ce7275b7a7953cc794f8c138a616d91cb907c1b01000000 Worker ID: 5c9ac30f8a9eda340f651a204de5d94f1ff965c5d9f72175579bd8dd Node ID: 3a4b60759256926fd0e84a9ff596dab3d7be854134107ef21b0e0260 Worker IP address: 172.17.0.2 Worker port: 10003 Worker PID: 69161 Worker exit type: SYSTEM_ERROR Worker exit detail: Task was killed due to the node running low on memory.',
      'Memory on the node (IP: 172.17.0.2, ID: 3a4b60759256926fd0e84a9ff596dab3d7be854134107ef21b0e0260) where the task was running was 32.91GB / 33.28GB (0.988698), which exceeds the memory usage threshold of 0.969955.',
    ].join('\n')
    const f = ooms(`${log}\n`)
    // the node named on the second line completes the first line's kill: one finding
    expect(f).toHaveLength(1)
    expect(f[0]!.evidence.Node).toBe('172.17.0.2')
    expect(f[0]!.fix).not.toMatch(/GB10/)
    expect(f[0]!.fix).toMatch(/RAY_memory_monitor_refresh_ms=0/)
  })

  it('a GB10 named before the kill (nvidia-smi, vLLM): the unified-memory advice', () => {
    const log = [
      '|   0  NVIDIA GB10                    On  |   0000000F:01:00.0 Off |                  N/A |',
      'ray.exceptions.OutOfMemoryError: 1 worker(s) were killed due to the node running low on memory. Memory on the node (IP: 10.99.0.2) was 113.76GB / 119.70GB (0.950345)',
    ].join('\n')
    const f = ooms(`${log}\n`)
    expect(f).toHaveLength(1)
    expect(f[0]!.fix).toMatch(/On a GB10 .* share one memory pool/)
  })
})

describe('near misses: the monitors starting, the reason in prose or a grep', () => {
  it('stay clean', () => {
    for (const line of [
      // src/ray/common/monitors/ (2026): the monitors' start-up lines
      '[2026-03-01 10:00:00,000 I 100 100] (raylet) event_memory_monitor.cc:70: Event memory monitor successfully initialized with memory events path: /sys/fs/cgroup/ray/user/memory.events',
      '[2026-03-01 10:00:00,000 I 100 100] (raylet) pressure_memory_monitor.cc:85: Pressure memory monitor successfully initialized with: memory pressure path: /sys/fs/cgroup/ray/user/memory.pressure, and pressure threshold: some 0.2 10s',
      '[2026-03-01 10:00:00,000 I 100 100] (raylet) threshold_memory_monitor.cc:55: ThresholdMemoryMonitor initialized with usage_threshold=0.950, min_memory_free_bytes=-1, monitor interval: 250ms. The effective threshold tracks the live cgroup memory limit on every poll.',
      // Ray's docs (ray-oom-prevention): the raylet's line when the monitor runs
      '(raylet) memory_monitor.cc MemoryMonitor initialized with usage threshold at 34664513536 bytes (0.97 system memory), total system memory bytes: 35738255360',
      // a script that greps a driver log for the reason (no colon after it)
      'grep -a -n -E "Exception occurred while running EnvWorker|worker\\(s\\) were killed due to the node running low on memory|OOM kill reason|Ray killed 4 worker" "$RUN/driver.log" || true',
      // prose
      "K8s events (`kubectl describe pod`) which record the OOM kill reason and the container's memory usage at the time",
    ])
      expect(
        scan(`${line}\n`).filter((f) => f.severity === 'error' || f.code === 'UNRECOGNISED_FAILURE'),
        line,
      ).toEqual([])
  })
})

describe("PLACEMENT_GROUP_PENDING: Ray's autoscaler line quoted bare, its request left off", () => {
  it("reads the bare line (vLLM's distributed troubleshooting page) as the autoscaler's refusal, naming the multi-address cause", () => {
    const f = scan('Error: No available node types can fulfill resource request\n').find((x) => x.code === 'PLACEMENT_GROUP_PENDING')
    expect(f?.severity).toBe('error')
    expect(f?.evidence.Request).toBe('not on the line')
    expect(f?.fix).toMatch(/VLLM_HOST_IP/)
  })

  it('keeps reading the request where the line has it (vllm-project/vllm#14186, a gist in the docs corpus, ray-project/ray#53192)', () => {
    for (const [line, request] of [
      [
        "(autoscaler +13s) Error: No available node types can fulfill resource request {'node:111.6.168.225': 0.001, 'GPU': 1.0}. Add suitable node types to this cluster to resolve this issue.",
        "{'node:111.6.168.225': 0.001, 'GPU': 1.0}",
      ],
      [
        "(autoscaler +6s) Error: No available node types can fulfill resource request {'CPU': 1.0, 'GPU': 0.5}. Add suitable node types to this cluster to resolve this issue.",
        "{'CPU': 1.0, 'GPU': 0.5}",
      ],
      [
        "(autoscaler +44s) Error: No available node types can fulfill resource request {'GPU': 16.0, 'CPU': 1.0}. Add suitable node types to this cluster to resolve this issue.",
        "{'GPU': 16.0, 'CPU': 1.0}",
      ],
    ] as const) {
      const f = scan(`${line}\n`).find((x) => x.code === 'PLACEMENT_GROUP_PENDING')
      expect(f?.evidence.Request, line).toBe(request)
    }
  })

  it('near misses: prose that quotes the line', () => {
    for (const line of [
      'The error message `Error: No available node types can fulfill resource request` can appear even when the cluster has enough GPUs.',
      'Ray said No available node types can fulfill resource request even though ray status showed 8 GPUs',
    ])
      expect(
        scan(`${line}\n`).map((f) => f.code),
        line,
      ).not.toContain('PLACEMENT_GROUP_PENDING')
  })
})
