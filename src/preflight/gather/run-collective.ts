/**
 * Runs the fabric collective (src/plan/collective-commands.ts): a free port on the head's fabric
 * IP, then every node's rank at once over its transport; each rank's output read into facts (its
 * result line, NCCL's init lines, the last lines). Evaluating them is the checks' job
 * (src/preflight/checks/collective-checks.ts).
 */
import type { Manifest } from '../../manifest/schema.js'
import { COLLECTIVE_BYTES, COLLECTIVE_ITERS, COLLECTIVE_START_SLACK_SECONDS, collectiveRank, freePort } from '../../plan/collective-commands.js'
import { headOf } from '../../plan/node-commands.js'
import { COLLECTIVE_MARK, collectivePath, collectiveWholeSeconds, mib, readCollectiveLine } from '../../probe/collective-program.js'
import { type Transport, outcome, succeeded } from '../../transport/transport.js'
import type { CollectiveFacts, CollectiveRank } from '../facts.js'
import { parseNcclInit } from '../nccl-init.js'

export interface CollectiveOptions {
  /** The image to run (the release's image ID once the image stage has it). */
  readonly image: string
  readonly onProgress?: (message: string) => void
  readonly bytes?: number
  readonly timeoutSeconds?: number
  readonly signal?: AbortSignal
}

/** The last lines of a rank's output, without its result line: what it said before it stopped. */
export function outputTail(output: string, lines = 8): string {
  return output
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l !== '' && !l.startsWith(COLLECTIVE_MARK))
    .slice(-lines)
    .join('\n')
    .slice(-1500)
}

/** A rank's facts from its combined output and the command's outcome (pure). */
export function rankFacts(node: { name: string; fabricIp: string }, rank: number, output: string, failure?: string): CollectiveRank {
  const read = readCollectiveLine(output)
  const nccl = /NCCL (INFO|WARN)/.test(output) ? parseNcclInit(output) : undefined
  return {
    node: node.name,
    rank,
    fabricIp: node.fabricIp,
    ...(read.line && { line: read.line }),
    ...(!read.line && { error: failure ? `${failure} (${read.error})` : (read.error ?? 'no result') }),
    tail: outputTail(output),
    ...(nccl && { nccl }),
  }
}

/**
 * What the collective did, in one line, from the ranks' own results only: the bytes each rank says it
 * all-reduced and the path that ran (the stdlib ring moves at most STDLIB_MAX_BYTES of what was
 * asked, src/probe/collective-program.ts), never the size the plan asked for.
 */
export function collectiveOutcomeLine(c: CollectiveFacts): string {
  const ok = c.ranks.filter((r) => r.line?.ok)
  const failed = c.ranks.length - ok.length
  const paths = [...new Set(ok.map((r) => collectivePath(r.line!)))]
  const sizes = [...new Set(ok.flatMap((r) => (typeof r.line?.bytes === 'number' ? [mib(r.line.bytes)] : [])))]
  const moved =
    ok.length > 0 ? `all-reduce of ${sizes.join(' / ') || 'an unreported size'} over ${paths.join(' / ')} on ${ok.length} of ${c.ranks.length} nodes` : ''
  if (failed === 0) return `fabric-test: ${moved}`
  const bad = `${failed} of ${c.ranks.length} ranks failed (${c.ranks
    .filter((r) => !r.line?.ok)
    .map((r) => r.node)
    .join(', ')})`
  return `fabric-test: ${ok.length > 0 ? `${moved}; ${bad}` : `no all-reduce completed: ${bad}`}`
}

/** The SSH deadline of one rank: its two phases, its container's start, and the transport's slack. */
export const collectiveDeadlineMs = (timeoutSeconds: number): number => (collectiveWholeSeconds(timeoutSeconds) + COLLECTIVE_START_SLACK_SECONDS + 15) * 1000

export async function runCollective(m: Manifest, transports: ReadonlyMap<string, Transport>, opts: CollectiveOptions): Promise<CollectiveFacts> {
  const started = Date.now()
  const head = headOf(m)
  const timeout = opts.timeoutSeconds ?? m.preflight.collectiveTimeoutSeconds
  const bytes = opts.bytes ?? COLLECTIVE_BYTES
  const ibHca = m.container.env['NCCL_IB_HCA']
  const base = { image: opts.image, addr: head.fabricIp, bytes, timeoutSeconds: timeout, ...(ibHca !== undefined && { ibHca }) }
  const say = (s: string) => opts.onProgress?.(s)
  const headT = transports.get(head.name)
  const picked = headT ? await headT.run(freePort(head.fabricIp), { timeoutMs: 20_000 }) : undefined
  const port = picked && succeeded(picked) ? Number(picked.stdout.trim()) : Number.NaN
  if (!Number.isInteger(port) || port <= 0) {
    const why = !picked ? 'no connection to the head' : `no free port on ${head.fabricIp}: ${outcome(picked)} ${picked.stderr.trim().slice(-200)}`
    const ranks = m.nodes.map((n, rank) => ({ node: n.name, rank, fabricIp: n.fabricIp, error: why, tail: '' }))
    return { ...base, port: 0, ranks, durationMs: Date.now() - started }
  }
  // Lines as the executor's steps print them: `[node] …` when a rank starts, `[node] ok in …` / `[node] FAILED: …` when it ends.
  // The size is not said here: what a rank moves depends on the path its image allows (its result line says).
  say(`fabric-test: an all-reduce on ${m.nodes.length} nodes at once, rendezvous ${head.fabricIp}:${port}`)
  const ranks = await Promise.all(
    m.nodes.map(async (node, rank): Promise<CollectiveRank> => {
      const t = transports.get(node.name)
      if (!t) return { node: node.name, rank, fabricIp: node.fabricIp, error: 'no connection to this node', tail: '' }
      const cmd = collectiveRank(m, node, opts.image, {
        rank,
        world: m.nodes.length,
        addr: head.fabricIp,
        port,
        ip: node.fabricIp,
        bytes,
        iters: COLLECTIVE_ITERS,
        timeout,
      })
      say(`[${node.name}] fabric-test: rank ${rank} of ${m.nodes.length} in a throw-away container of the release image`)
      const t0 = Date.now()
      const r = await t.run(cmd, {
        timeoutMs: collectiveDeadlineMs(timeout),
        ...(opts.signal && { signal: opts.signal }),
      })
      const facts = rankFacts(node, rank, `${r.stdout}\n${r.stderr}`, succeeded(r) ? undefined : `docker run ${outcome(r)}`)
      const l = facts.line
      say(
        `[${node.name}] fabric-test: ${
          l?.ok
            ? `ok in ${((Date.now() - t0) / 1000).toFixed(1)} s: rank ${rank}, ${collectivePath(l)}, ${typeof l.bytes === 'number' ? `${mib(l.bytes)} all-reduced, ` : ''}${((l.seconds ?? 0) * 1000).toFixed(0)} ms per all-reduce${l.busbwGBps ? `, bus ${l.busbwGBps.toFixed(2)} GB/s` : ''}${facts.nccl?.network ? `, NCCL network ${facts.nccl.network}` : ''}`
            : `FAILED: rank ${rank}: ${l?.error ?? facts.error}`
        }`,
      )
      return facts
    }),
  )
  const facts = { ...base, port, ranks, durationMs: Date.now() - started }
  say(collectiveOutcomeLine(facts))
  return facts
}
