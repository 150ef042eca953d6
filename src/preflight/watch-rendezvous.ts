/**
 * The start-up watcher's first part in vLLM's native multi-node mode (vllm.executorBackend mp): from
 * `vllm serve` on every node until every node is in the process group (src/preflight/native-group.ts).
 * It stops within seconds, not after torch's 600 s store timeout, when the rendezvous cannot
 * complete:
 * - a node's log shows a known failure (the native signatures, src/preflight/signature-rules-native.ts:
 *   the master unreachable, ranks missing, a loopback or non-fabric master address; or any other
 *   error signature);
 * - a node's `vllm serve` is not running (it exited, or its container is gone or stopped);
 * - the head's store is up, a node's `vllm serve` runs, and it has not joined from its fabric IP
 *   within `joinGraceMs` (default 20 s; a node connects as its workers start, before the model loads).
 * The head is then watched until /health answers (watch-vllm.ts).
 */
import { executorOf, nodeRank } from '../plan/executor-commands.js'
import { VLLM_LOG } from '../plan/node-commands.js'
import { boundedTimeoutSeconds } from '../manifest/ssh-settings.js'
import type { Manifest } from '../manifest/schema.js'
import type { Transport } from '../transport/transport.js'
import type { Finding } from './finding.js'
import { type GroupView, type MemberView, judgeGroup, nativeGroupPoll, parseNodePoll } from './native-group.js'
import { type LogWatcher, createLogWatcher } from './signatures.js'
import { stallFinding, withTimeline } from './startup-report.js'
import { type StartupTimeline, stallSentence } from './startup-timeline.js'
import { withUnexplained } from './watch-vllm.js'

export interface RendezvousResult {
  readonly formed: boolean
  readonly findings: readonly Finding[]
  readonly reason: string
  readonly waitedMs: number
  readonly group?: GroupView
  readonly cancelled?: boolean
}

export interface RendezvousOptions {
  readonly deadlineMs: number
  readonly joinGraceMs?: number
  readonly pollMs?: number
  readonly signal?: AbortSignal
  readonly onProgress?: (message: string) => void
  /** Every node's start-up phases, fed from each node's own log (the head's watch goes on with it). */
  readonly timeline?: StartupTimeline
}

interface Watched {
  readonly name: string
  readonly rank: number
  readonly fabricIp: string
  readonly transport: Transport
  readonly watcher: LogWatcher
  offset: number
  tail: string
}

/** Poll every node once, at the same time; their logs go through each node's signature watcher. */
async function pollAll(m: Manifest, nodes: readonly Watched[], signal?: AbortSignal, timeline?: StartupTimeline): Promise<GroupView> {
  const polls = await Promise.all(
    nodes.map(async (n) => {
      const r = await n.transport.run(nativeGroupPoll(m, n.offset), {
        timeoutMs: boundedTimeoutSeconds(m.ssh, 30) * 1000,
        ...(signal && { signal }),
      })
      const poll = parseNodePoll(r.stdout)
      if (poll.log.length > 0) {
        n.offset += Buffer.byteLength(poll.log)
        n.tail = (n.tail + poll.log).slice(-16 * 1024)
        n.watcher.push(poll.log)
        timeline?.push(n.name, poll.log, Date.now())
      }
      return { name: n.name, rank: n.rank, fabricIp: n.fabricIp, poll }
    }),
  )
  return judgeGroup(polls)
}

const lastLines = (text: string, n = 10): string => text.split('\n').filter(Boolean).slice(-n).join('\n')

function notRunning(m: Manifest, member: MemberView, w: Watched): Finding {
  const why =
    member.container === 'missing'
      ? `there is no container ${m.container.name}`
      : member.container === 'stopped'
        ? `its container ${m.container.name} is stopped`
        : 'its process exited'
  return {
    code: 'RENDEZVOUS_NODE_NOT_RUNNING',
    severity: 'error',
    node: member.node,
    message: `vllm serve (node rank ${member.rank}) is not running on ${member.node}: ${why}; the process group cannot complete without it.`,
    evidence: { node: member.node, 'node rank': String(member.rank), container: member.container, 'log tail': lastLines(w.tail) || '(empty)' },
    fix: `Read the log on ${member.node} (docker exec ${m.container.name} cat ${VLLM_LOG}), fix what stopped it, and deploy again.`,
  }
}

function notJoined(m: Manifest, group: GroupView, member: MemberView, waitedS: number, w: Watched): Finding {
  const head = group.members.find((x) => x.rank === 0)!
  const store = `${head.fabricIp}:${m.vllm.masterPort}`
  return {
    code: 'RENDEZVOUS_INCOMPLETE',
    severity: 'error',
    node: member.node,
    message: `${member.node} (node rank ${member.rank}) runs vllm serve but has not joined the process group at ${store} from its fabric IP ${member.fabricIp} after ${waitedS} s; torch would wait 600 s and then fail.`,
    evidence: {
      store,
      'joined from (seen on the head)':
        group.members
          .filter((x) => x.joined && x.rank > 0)
          .map((x) => `${x.node} ${x.fabricIp}`)
          .join(', ') || '(none)',
      [`${member.node} connected to a master port`]: member.elsewhere.join(', ') || '(no connection)',
      'not a node': group.strangers.join(', ') || '(none)',
      [`${member.node} log tail`]: lastLines(w.tail, 5) || '(empty)',
    },
    fix: `Check that ${member.node} reaches ${store} over the fabric (nc -zv ${head.fabricIp} ${m.vllm.masterPort} on ${member.node}), that nothing rewrites --master-addr or VLLM_HOST_IP there, and that no other node claims node rank ${member.rank}.`,
  }
}

export async function watchRendezvous(transports: ReadonlyMap<string, Transport>, m: Manifest, opts: RendezvousOptions): Promise<RendezvousResult> {
  const started = Date.now()
  const nodes: Watched[] = executorOf(m)
    .serveNodes(m)
    .map((n) => ({
      name: n.name,
      rank: nodeRank(m, n),
      fabricIp: n.fabricIp,
      transport: transports.get(n.name)!,
      watcher: createLogWatcher({ source: `${n.name}:${VLLM_LOG}` }),
      offset: 0,
      tail: '',
    }))
  let storeUpAt: number | undefined
  let lastProgress = started
  const done = (formed: boolean, findings: readonly Finding[], reason: string, group?: GroupView): RendezvousResult => ({
    formed,
    // A group that did not form leads with the first failing line of all nodes, and closes with the timeline.
    findings: formed || !opts.timeline ? findings : withTimeline(findings, opts.timeline, Date.now(), ''),
    reason,
    waitedMs: Date.now() - started,
    ...(group && { group }),
  })
  for (;;) {
    if (opts.signal?.aborted) return { ...done(false, [], 'cancelled while waiting for the process group'), cancelled: true }
    const group = await pollAll(m, nodes, opts.signal, opts.timeline)
    if (opts.signal?.aborted) return { ...done(false, [], 'cancelled while waiting for the process group'), cancelled: true }
    const errors = nodes.flatMap((n) => n.watcher.findings.filter((f) => f.severity === 'error').map((f) => ({ ...f, node: f.node ?? n.name })))
    if (errors.length > 0) return done(false, errors, `${errors[0]!.code} on ${errors[0]!.node} after ${secondsSince(started)} s`, group)
    if (group.formed)
      return done(
        true,
        nodes.flatMap((n) => n.watcher.findings),
        `all ${nodes.length} nodes joined the process group`,
        group,
      )
    const gone = group.members.find((x) => !x.serving)
    if (gone) {
      const w = nodes.find((n) => n.name === gone.node)!
      w.watcher.end()
      const found = [...withUnexplained(w.watcher).filter((f) => f.severity === 'error'), notRunning(m, gone, w)]
      return done(false, found, `vllm serve is not running on ${gone.node}`, group)
    }
    const stalls = opts.timeline?.stalls(Date.now()) ?? []
    if (stalls.length > 0)
      return done(
        false,
        stalls.map((x) => stallFinding(m, x)),
        stallSentence(stalls[0]!),
        group,
      )
    if (group.storeUp) storeUpAt ??= Date.now()
    const late = storeUpAt !== undefined && Date.now() - storeUpAt > (opts.joinGraceMs ?? 20_000) ? group.members.find((x) => !x.joined) : undefined
    if (late)
      return done(false, [notJoined(m, group, late, secondsSince(storeUpAt!), nodes.find((n) => n.name === late.node)!)], `${late.node} did not join`, group)
    if (Date.now() - started > opts.deadlineMs) return done(false, [], `the process group did not form in ${Math.round(opts.deadlineMs / 1000)} s`, group)
    if (opts.onProgress && Date.now() - lastProgress >= 5000) {
      lastProgress = Date.now()
      const joined = group.members.filter((x) => x.joined).map((x) => x.node)
      opts.onProgress(`process group: ${group.storeUp ? 'store up' : 'store not up yet'}; joined: ${joined.join(', ') || 'none'} (${secondsSince(started)} s)`)
    }
    await pause(opts.pollMs ?? 1000, opts.signal)
  }
}

const secondsSince = (t: number): number => Math.round((Date.now() - t) / 1000)

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms)
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer)
        resolve()
      },
      { once: true },
    )
  })
}
