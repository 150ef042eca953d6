/**
 * What the verified teardown said on each node (src/plan/teardown-commands.ts), read as a document
 * from outside: what it killed and removed, for the progress lines; what it left, as
 * PREVIOUS_RELEASE_NOT_GONE with each process's PID and command.
 */
import type { Finding } from '../preflight/finding.js'
import { type Result, fail, problem } from '../result/result.js'

export interface TeardownReport {
  readonly release: string
  readonly containers: readonly string[]
  readonly killed: readonly { readonly pid: number; readonly command: string }[]
  /** Left at the deadline: the release's own (it would not die, or came back), or another process on the GPU. */
  readonly left: readonly { readonly pid: number; readonly command: string; readonly ours: boolean; readonly gpuMiB?: string }[]
  readonly memAvailableBytes?: number
  readonly waitedSeconds: number
}

const isPid = (x: unknown): x is number => typeof x === 'number' && Number.isInteger(x) && x > 0

/** The teardown's JSON line (the last line of its stdout). */
export function parseTeardown(stdout: string, node: string): Result<TeardownReport> {
  const line = stdout.trim().split('\n').pop() ?? ''
  const bad = (why: string) =>
    fail(
      problem(
        'TEARDOWN_UNREADABLE',
        `the teardown check on ${node} printed ${why}: ${line.slice(0, 200) || '(nothing)'}`,
        'Run it by hand (vllm-ray-deploy plan shows it).',
      ),
    )
  let doc: unknown
  try {
    doc = JSON.parse(line)
  } catch {
    return bad('no JSON')
  }
  const d = doc as Partial<TeardownReport> | null
  if (!d || typeof d !== 'object' || typeof d.release !== 'string' || !Array.isArray(d.killed) || !Array.isArray(d.left) || !Array.isArray(d.containers))
    return bad('a document of another shape')
  const procs = [...d.killed, ...d.left]
  if (!procs.every((p) => p && isPid(p.pid) && typeof p.command === 'string')) return bad('a process without a PID or command')
  return {
    ok: true,
    value: {
      release: d.release,
      containers: d.containers.filter((c): c is string => typeof c === 'string'),
      killed: d.killed,
      left: d.left.map((l) => ({ pid: l.pid, command: l.command, ours: l.ours === true, ...(typeof l.gpuMiB === 'string' && { gpuMiB: l.gpuMiB }) })),
      ...(typeof d.memAvailableBytes === 'number' && { memAvailableBytes: d.memAvailableBytes }),
      waitedSeconds: typeof d.waitedSeconds === 'number' ? d.waitedSeconds : 0,
    },
  }
}

/** One line per node: what the teardown removed and killed, and the memory the node has now. */
export function teardownLine(node: string, t: TeardownReport): string {
  const parts = [
    t.release ? `release ${t.release}` : 'no current release',
    ...(t.containers.length > 0 ? [`removed ${t.containers.length} more container(s) labelled with it`] : []),
    ...(t.killed.length > 0 ? [`killed ${t.killed.length} leftover process(es): ${t.killed.map((k) => `${k.pid} ${k.command.slice(0, 80)}`).join('; ')}`] : []),
    t.left.length === 0 ? 'nothing of it left, no process on the GPU' : `${t.left.length} process(es) left`,
    ...(t.memAvailableBytes !== undefined ? [`MemAvailable ${(t.memAvailableBytes / 2 ** 30).toFixed(1)} GiB`] : []),
  ]
  return `teardown on ${node}: ${parts.join('; ')}`
}

/** What was left on a node, as one finding with each process. */
export function teardownFinding(node: string, t: TeardownReport, timeoutSeconds: number): Finding {
  const ours = t.left.filter((l) => l.ours)
  const others = t.left.filter((l) => !l.ours)
  const what = [
    ...(ours.length > 0 ? [`${ours.length} process(es) of release ${t.release} would not stay dead`] : []),
    ...(others.length > 0 ? [`${others.length} other process(es) hold the GPU`] : []),
  ].join(' and ')
  return {
    code: 'PREVIOUS_RELEASE_NOT_GONE',
    severity: 'error',
    node,
    message: `On ${node}, after ${t.waitedSeconds} s (deploy.teardownTimeoutSeconds: ${timeoutSeconds}), ${what}: the new release was not launched, so it does not start beside them and push the node over.`,
    evidence: Object.fromEntries(
      t.left.map((l) => [
        `pid ${l.pid}`,
        `${l.command}${l.gpuMiB ? ` (GPU ${l.gpuMiB} MiB)` : ''}${l.ours ? ` (release ${t.release}: VRD_RELEASE in its environment)` : ' (not this release: left alone)'}`,
      ]),
    ),
    fix:
      ours.length > 0
        ? `Find what restarts it on ${node} (its parent: ps -o ppid= -p <pid>; a systemd unit, a supervisor loop in the launch script) and stop that, then deploy again.`
        : `See what the process is (ps -fp <pid> on ${node}); stop it if it should not run, or give the model a node whose GPU is free; then deploy again.`,
  }
}
