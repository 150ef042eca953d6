/**
 * Why a stage stopped, when the cause is the node and not the release: the runner asks here after
 * every stop (not a cancel, not a lost lock).
 * - A node whose connection went away during the stage (node-events.ts): NODE_UNREACHABLE.
 * - A write that failed on a node during the stage ("No space left on device", dash's "printf: I/O
 *   error"): the node's free space under the release state, measured now, as DISK_SPACE_LOW when
 *   it is (nearly) full, else the measured figure beside the stage's own problem.
 */
import { clusterStateDir, freeSpaceUnder } from '../../plan/release-commands.js'
import { DATA_DIR_MIN_FREE_BYTES, formatBytes } from '../../preflight/checks/host.js'
import { problem } from '../../result/result.js'
import type { Finding } from '../../preflight/finding.js'
import type { ListedStage, RolloutContext } from './stage.js'
import type { Stopped } from './derive-report.js'

export async function causeOfStop(ctx: RolloutContext, ran: Stopped, stage: ListedStage, mark: number): Promise<Stopped> {
  const lost = stoppedByLostNode(ctx, ran, stage, mark)
  if (lost !== ran) return lost
  return stoppedByFailedWrite(ctx, ran, stage, mark)
}

/**
 * A stage that stopped after a node's connection went away stopped because of it: whatever the
 * stage concluded about that node from the missing answer (an image "missing", a step "failed") is
 * not a fact about the node, so those findings give way to one NODE_UNREACHABLE per lost node, and
 * the stop names the lost node and the stage.
 */
function stoppedByLostNode(ctx: RolloutContext, ran: Stopped, stage: ListedStage, mark: number): Stopped {
  const lost = ctx.io.nodeEvents.lostSince(mark)
  if (lost.length === 0) return ran
  const names = new Set(lost.map((l) => l.node))
  const kept = (ran.findings ?? []).filter((f) => !f.node || !names.has(f.node))
  const at = ran.at ?? stage.name
  const where = ctx.source === 'existing' ? `the rollback to ${ctx.release}` : `the deploy of ${ctx.release}`
  const back = `Bring ${[...names].join(' and ')} back (is it powered, is sshd up, is the management link up?)`
  const fix = stage.final
    ? `${back}: ${ctx.release} passed its gates and runs, but current did not move on every node. Then deploy ${ctx.release} again to make it current everywhere, or roll back to ${ctx.previousRelease ?? 'the release before it'}.`
    : `${back}, then ${ctx.command === 'rollback' ? 'run the rollback again' : 'run the deploy again'}; \`rollback\` with no release restarts the release current names when it is not running everywhere.`
  const unreachable = lost.map(
    (l): Finding => ({
      code: 'NODE_UNREACHABLE',
      severity: 'error',
      node: l.node,
      message: `the connection to ${l.node} went away during ${at} (${l.message}); ${where} stopped there.`,
      evidence: { Stage: at, Transport: l.message },
      fix,
    }),
  )
  const problemText = `${lost.map((l) => l.node).join(', ')} could not be reached during ${at}: ${lost.map((l) => `${l.node}: ${l.message}`).join('; ')}`
  return { ...ran, findings: [...kept, ...unreachable], problem: problem('NODE_UNREACHABLE', problemText, fix) }
}

/** The first absolute path a failed write's line names (`write /var/lib/docker/tmp/x: no space…`, `cannot create /x/y: …`). */
function pathNamedIn(line: string): string | undefined {
  const m = /(?:^|[\s'"(])(\/(?:[\w.@+-]+\/?)+)/.exec(line)
  return m?.[1]?.replace(/[:,]$/, '')
}

/** Below this, a failed write is taken to be the disk's fault (what a release writes is a few KiB). */
const FULL_BELOW_BYTES = DATA_DIR_MIN_FREE_BYTES['release state'] ?? 64 * 1024 * 1024

async function stoppedByFailedWrite(ctx: RolloutContext, ran: Stopped, stage: ListedStage, mark: number): Promise<Stopped> {
  const failed = ctx.io.nodeEvents.writeFailuresSince(mark)
  if (failed.length === 0) return ran
  const dir = clusterStateDir(ctx.m)
  const at = ran.at ?? stage.name
  const measured = await Promise.all(
    failed.map(async (w) => {
      // Where the write went when the command named it (docker's `write /var/lib/docker/…: no space
      // left on device`), else the release state.
      const r = await ctx.o.transports.get(w.node)?.run(freeSpaceUnder(pathNamedIn(w.message) ?? dir), { timeoutMs: 30_000 })
      const [free, total, path] = (r?.code === 0 ? r.stdout.trim() : '').split(' ')
      return { ...w, free: Number(free), total: Number(total), path: path ?? dir }
    }),
  )
  const full = measured.filter((m) => Number.isFinite(m.free) && m.free < FULL_BELOW_BYTES)
  const fix = (n: string, path: string) =>
    `Free space on the filesystem holding ${path} on ${n} (df -h ${path} shows it; old releases are under ${dir}/releases, docker's images under its data root), then deploy again.`
  const lowFindings = full.map(
    (m): Finding => ({
      code: 'DISK_SPACE_LOW',
      severity: 'error',
      node: m.node,
      message: `a write on ${m.node} failed during ${at} (${m.message}): ${m.node} has ${formatBytes(m.free)} free under ${m.path}.`,
      evidence: { Stage: at, Command: m.message, Directory: m.path, Free: `${formatBytes(m.free)} (${m.free} bytes)`, 'Filesystem size': formatBytes(m.total) },
      fix: fix(m.node, m.path),
    }),
  )
  const words = measured.map((m) =>
    Number.isFinite(m.free) ? `${m.node} has ${formatBytes(m.free)} free under ${m.path}` : `${m.node}'s free space could not be read`,
  )
  if (full.length === 0)
    return {
      ...ran,
      problem: {
        ...ran.problem,
        message: `${ran.problem.message} (a write failed: ${failed.map((f) => `${f.node}: ${f.message}`).join('; ')}; ${words.join('; ')})`,
      },
    }
  return {
    ...ran,
    findings: [...(ran.findings ?? []), ...lowFindings],
    problem: problem(
      'DISK_SPACE_LOW',
      `${full.map((m) => m.node).join(', ')}: a write failed during ${at} and the disk is full (${words.join('; ')}); the command said: ${full.map((m) => m.message).join('; ')}`,
      fix(full[0]!.node, full[0]!.path),
    ),
  }
}
