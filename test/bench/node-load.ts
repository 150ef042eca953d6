/**
 * Row 3's view of the nodes' side of a deploy (issue 40):
 * - each lab node's CPU time, read from its container's cgroup (the node container's cgroup holds
 *   its nested dockerd and every container it runs, since the nodes run with `--cgroupns=private`);
 * - a CPU quota on every node container (`docker update --cpus`), the same for 1 and for 4 nodes,
 *   which models separate machines of equal size: 4 nodes of 0.4 cores fit this machine's 2 cores,
 *   so no node waits for another's CPU;
 * - the commands the tool sends each node per stage, and how many of them it sends one after the
 *   other (a command started while no other command of that node was in flight), through the
 *   deploy task's `connect` seam: the serial round trips of a stage.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import type { Manifest, ManifestNode } from '../../src/manifest/schema.js'
import type { Result } from '../../src/result/result.js'
import { SshTransport } from '../../src/transport/ssh.js'
import { type SshCredentials, sshTargetFor } from '../../src/transport/targets.js'
import type { RunOptions, RunResult, Transport } from '../../src/transport/transport.js'
import type { Cmd } from '../../src/command/shell.js'
import { dockerBinary } from '../support/lab.js'

const docker = (...args: string[]): string => {
  const r = spawnSync(dockerBinary(), args, { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`docker ${args.join(' ')}: ${r.stderr.trim()}`)
  return r.stdout.trim()
}

/** The file holding a container's CPU time: cgroup v1 (cpuacct.usage, ns) or v2 (cpu.stat usage_usec). */
function cpuFile(id: string): { path: string; v2: boolean } {
  const candidates = [
    { path: `/sys/fs/cgroup/cpuacct/docker/${id}/cpuacct.usage`, v2: false },
    { path: `/sys/fs/cgroup/cpu,cpuacct/docker/${id}/cpuacct.usage`, v2: false },
    { path: `/sys/fs/cgroup/system.slice/docker-${id}.scope/cpu.stat`, v2: true },
    { path: `/sys/fs/cgroup/docker/${id}/cpu.stat`, v2: true },
  ]
  const found = candidates.find((c) => existsSync(c.path))
  if (!found) throw new Error(`no cgroup CPU counter for container ${id.slice(0, 12)} (tried ${candidates.map((c) => c.path).join(', ')})`)
  return found
}

/** Each node container's CPU time so far, ms, by node name. */
export function nodeCpuReader(nodes: readonly { readonly name: string; readonly container: string }[]): () => Map<string, number> {
  const files = nodes.map((n) => ({ name: n.name, ...cpuFile(docker('inspect', '--format', '{{.Id}}', n.container)) }))
  return () =>
    new Map(
      files.map((f) => {
        const text = readFileSync(f.path, 'utf8')
        const ms = f.v2 ? Number(/^usage_usec (\d+)/m.exec(text)?.[1] ?? 0) / 1000 : Number(text.trim()) / 1e6
        return [f.name, ms]
      }),
    )
}

/** Every node container at `cpus` cores (a CFS quota; nested cgroups are bounded by it), or back to the whole machine. */
export function setNodeCpus(containers: readonly string[], cpus: number | undefined): void {
  // `--cpus 0` leaves the quota in place on docker 20.10: the machine's core count is no limit at all.
  for (const c of containers) docker('update', '--cpus', String(cpus ?? availableParallelism()), c)
}

/** Commands per stage and node: all of them, and those sent one after the other. */
export interface RoundTrips {
  /** stage → node → commands sent. */
  readonly sent: Map<string, Map<string, number>>
  /** stage → node → commands started while none of that node's was in flight (the serial chain). */
  readonly serial: Map<string, Map<string, number>>
}

const bump = (m: Map<string, Map<string, number>>, stage: string, node: string): void => {
  const per = m.get(stage) ?? new Map<string, number>()
  per.set(node, (per.get(node) ?? 0) + 1)
  m.set(stage, per)
}

/** A counting wrapper around one node's transport: every run is charged to the stage `stageOf` names when it starts. */
class CountingTransport implements Transport {
  private inFlight = 0
  readonly forwardTcp?: Transport['forwardTcp']
  constructor(
    private readonly inner: Transport,
    private readonly node: string,
    private readonly stageOf: () => string,
    private readonly trips: RoundTrips,
  ) {
    if (inner.forwardTcp) this.forwardTcp = (host, port) => inner.forwardTcp!(host, port)
  }
  get label(): string {
    return this.inner.label
  }
  async run(cmd: Cmd, opts: RunOptions): Promise<RunResult> {
    const stage = this.stageOf()
    bump(this.trips.sent, stage, this.node)
    if (this.inFlight === 0) bump(this.trips.serial, stage, this.node)
    this.inFlight++
    try {
      return await this.inner.run(cmd, opts)
    } finally {
      this.inFlight--
    }
  }
  close(): Promise<void> {
    return this.inner.close()
  }
}

/** The deploy task's `connect`, over SSH as the task itself connects, counting every command per stage. */
export function countingConnect(
  credentials: SshCredentials,
  stageOf: () => string,
): { connect: (m: Manifest, node: ManifestNode) => Promise<Result<Transport>>; trips: RoundTrips } {
  const trips: RoundTrips = { sent: new Map(), serial: new Map() }
  const connect = async (m: Manifest, node: ManifestNode): Promise<Result<Transport>> => {
    const r = await SshTransport.connect(sshTargetFor(m, node, credentials))
    return r.ok ? { ok: true, value: new CountingTransport(r.value, node.name, stageOf, trips) } : r
  }
  return { connect, trips }
}

/** `stage a/b`: the most commands any node got, and the most of them any node got one after the other. */
export function tripsText(trips: RoundTrips): string {
  const most = (m: Map<string, number> | undefined) => Math.max(0, ...(m?.values() ?? []))
  return [...trips.sent.keys()].map((s) => `${s} ${most(trips.sent.get(s))}/${most(trips.serial.get(s))}`).join(', ')
}
