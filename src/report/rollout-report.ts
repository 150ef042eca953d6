/** A rollout's report: the headline, what on-failure did, and a table per node (text and Markdown). */
import type { NodeRow, RolloutReport } from '../deploy/rollout.js'
import type { Manifest } from '../manifest/schema.js'
import { EXECUTORS } from '../plan/executor-commands.js'
import { contentsSummary } from '../preflight/checks/image-contents-checks.js'
import { fabricTestLine, fabricTestMarkdown } from './fabric-test-report.js'
import { escapeMarkdownCell, renderFindingsMarkdown, renderFindingsText } from './findings.js'
import { nodeRowsFrom } from './node-rows.js'
import { renderSummary } from './summary.js'
import { type Verdict, verdictLine } from './verdict.js'

const short = (id: string | undefined): string => (id ? id.replace(/^sha256:/, '').slice(0, 12) : '-')

export function rolloutHeadline(cluster: string, r: RolloutReport): string {
  const secs = `${(r.durationMs / 1000).toFixed(1)} s`
  switch (r.result) {
    case 'deployed':
      return `deploy ${cluster}: release ${r.release} deployed and serving (image ${short(r.imageId)}) in ${secs}`
    case 'unchanged':
      return `deploy ${cluster}: unchanged, release ${r.release} already runs this content; nothing restarted, preflight and smoke passed in ${secs}`
    case 'rolled-back':
      return `rollback ${cluster}: release ${r.release} serves again (was ${r.previousRelease ?? '-'}) in ${secs}`
    case 'cancelled':
      return `${r.command} ${cluster}: cancelled at ${r.failure?.stage ?? '?'}; current still names ${r.previousRelease ?? '(none)'}`
    case 'failed': {
      const where = r.failure ? ` at ${r.failure.stage}` : ''
      const then = r.onFailure && r.onFailure.action !== 'none' ? `; on-failure ${r.onFailure.action}: ${r.onFailure.ok ? 'done' : 'FAILED'}` : ''
      // A rollback that found no release to go back to names none ('-' is no release).
      if (r.release === '-' || r.release === '') return `${r.command} ${cluster}: failed${where}${r.failure ? `: ${r.failure.reason}` : ''}${then}`
      return `${r.command} ${cluster}: release ${r.release} failed${where}${then}`
    }
  }
}

/** The identity column: Ray's address under Ray, the node's rank under vLLM's native executor. */
const native = (rows: readonly NodeRow[]): boolean => rows.some((n) => n.nativeRank !== undefined)
const header = (rows: readonly NodeRow[]): string[] => ['NODE', 'ROLE', 'RELEASE', 'IMAGE ID', native(rows) ? 'NATIVE RANK' : 'RAY IDENTITY', 'STATE']
const cells = (n: NodeRow): string[] => [n.node, n.role, n.release, n.imageId, n.nativeRank !== undefined ? `rank ${n.nativeRank}` : n.rayIdentity, n.state]

/** The weights stage in one line: what moved over which link, what was skipped, how long. */
export function weightsLine(w: NonNullable<RolloutReport['weights']>): string {
  const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`
  const perNode = w.nodes
    .map((n) => `${n.node} ${mb(n.bytesMoved)} in ${n.filesSent} files${n.filesDownloaded > 0 ? `, ${n.filesDownloaded} downloaded from the hub` : ''}`)
    .join(', ')
  if (w.restore) return `weights of release ${w.restore.release} at ${w.path} (${w.files} files; source ${w.source}): ${w.restore.action}: ${w.restore.detail}`
  return `weights ${w.identity ? `${w.identity.slice(0, 19)}… ` : ''}at ${w.path} (${w.files} files, ${mb(w.totalBytes)}; source ${w.source}, ${w.distribution}): ${mb(w.bytesMoved.runner)} from this machine, ${mb(w.bytesMoved.fabric)} over the fabric, ${w.filesDownloaded > 0 ? `${w.filesDownloaded} files downloaded from the hub, ` : ''}${w.filesSkipped} files skipped (already verified), ${(w.durationMs / 1000).toFixed(1)} s; ${perNode}`
}

export function renderNodeTable(rows: readonly NodeRow[]): string {
  const head = header(rows)
  const all = [head, ...rows.map(cells)]
  const widths = head.map((_, i) => all.reduce((w, r) => Math.max(w, r[i]!.length), 0))
  return all.map((r) => r.map((c, i) => (i < r.length - 1 ? c.padEnd(widths[i]!) : c)).join('  ')).join('\n') + '\n'
}

function lines(cluster: string, r: RolloutReport): string[] {
  const out = [
    rolloutHeadline(cluster, r),
    `release: ${r.release}  previous: ${r.previousRelease ?? '-'}  image: ${r.imageId ?? '-'}  changed: ${r.changed}  rolled back: ${r.rolledBack}`,
  ]
  if (r.image)
    out.push(
      `image: ${Object.entries(r.image.actions)
        .map(([n, a]) => `${n} ${a}`)
        .join(', ')}; ${r.image.bytesSent} bytes sent from this machine`,
    )
  if (r.imageContents) out.push(`image contents: ${contentsSummary(r.imageContents)}`)
  if (r.weights) out.push(weightsLine(r.weights))
  if (r.failure) out.push(`stopped at ${r.failure.stage}: ${r.failure.reason}`)
  if (r.onFailure) out.push(`on-failure ${r.onFailure.action}: ${r.onFailure.detail}`)
  return out
}

export function renderRolloutText(cluster: string, r: RolloutReport): string {
  return [
    ...lines(cluster, r),
    ...(r.fabricTest ? [fabricTestLine(r.fabricTest)] : []),
    '',
    renderNodeTable(r.nodes),
    ...(r.smoke ? [r.smoke.text] : []),
    r.findings.length > 0 ? renderFindingsText(r.findings) : '',
  ].join('\n')
}

/** The identity check and what it reads, as the release's executor names them (Ray's, or vLLM's native mode). */
const identity = (r: RolloutReport) => EXECUTORS[r.executor ?? 'ray']

/** The checks whose findings a report carries: only those that ran (their facts or figures are there). */
function checksRan(r: RolloutReport): string[] {
  const fabric = r.fabricTest && 'ranks' in r.fabricTest
  return [...(fabric ? ['fabric test'] : []), ...(r.facts ? [identity(r).identityCheck] : []), ...(r.smoke ? ['smoke test'] : [])]
}

const verdictOfRollout = (r: RolloutReport, ok: boolean): Verdict =>
  r.result === 'cancelled' ? 'cancelled' : !ok ? 'failed' : r.findings.some((f) => f.severity === 'warning') ? 'warnings' : 'passed'

/**
 * The rollout's job summary. With the manifest: the operator's summary (report/summary.ts), its
 * node table and diagram from the preflight gate's facts with each node's release and final state,
 * then the smoke gate's figures; without: the rollout's own table.
 *
 * After on-failure rolled back, what runs now (the rolled-back release, with what its own gates
 * saw) and what the failed release showed are two tables: the failed release's identities never
 * sit beside the release that replaced it.
 */
export function renderRolloutMarkdown(cluster: string, r: RolloutReport, manifest?: Manifest): string {
  const e = escapeMarkdownCell
  const ok = r.result === 'deployed' || r.result === 'unchanged' || r.result === 'rolled-back'
  const verdict = verdictOfRollout(r, ok)
  const [headline, ...rest] = lines(cluster, r)
  const fabric = r.fabricTest ? [fabricTestMarkdown(r.fabricTest)] : []
  if (manifest) {
    const byNode = new Map(r.nodes.map((n) => [n.node, n]))
    const pick = (f: (n: NodeRow) => string) =>
      Object.fromEntries(
        manifest.nodes.flatMap((m) => {
          const v = byNode.get(m.name)
          return v && f(v) !== '-' && f(v) !== '' ? [[m.name, f(v)]] : []
        }),
      )
    const now = { releases: pick((n) => n.release), images: pick((n) => n.imageId), states: pick((n) => n.state) }
    const back = r.afterRollback
    if (!back) {
      const nodes = nodeRowsFrom(manifest, r.facts, r.findings, now)
      const notes = [...rest, ...(r.facts ? [`${identity(r).identities} as the preflight gate saw them (${r.facts.gatheredAt}).`] : [])]
      return [
        renderSummary({ verdict, headline: headline!, notes, fabricSubnet: manifest.fabric.subnet, nodes, findings: r.findings, checks: checksRan(r) }),
        ...fabric,
        ...(r.smoke ? [r.smoke.summary] : []),
      ].join('\n')
    }
    // Rolled back: the table is what runs now; the failed release's view follows under its own heading.
    const failedFindings = r.findings.filter((f) => !back.findings.includes(f))
    const notes = [
      ...rest,
      back.facts
        ? `Now running: release ${back.release}; ${identity(r).identities} as its preflight gate saw them (${back.facts.gatheredAt}).`
        : `Now running: release ${back.release}; its identities were not read after the rollback.`,
    ]
    const nowNodes = nodeRowsFrom(manifest, back.facts, back.findings, now)
    const failedNodes = nodeRowsFrom(manifest, r.facts, failedFindings, {
      releases: Object.fromEntries(manifest.nodes.map((n) => [n.name, r.release])),
    })
    const failedSummary = renderSummary({
      verdict: 'failed',
      headline: `release ${r.release} as its gates saw it, before the rollback`,
      ...(r.facts && { notes: [`${identity(r).identities} as the failed release's preflight gate saw them (${r.facts.gatheredAt}).`] }),
      fabricSubnet: manifest.fabric.subnet,
      nodes: failedNodes,
      findings: failedFindings,
      checks: checksRan(r),
    })
      .split('\n')
      .map((l) => (l.startsWith('### ') ? `#### What the failed release ${e(r.release)} showed` : l.replace(/^#### /, '##### ')))
      .join('\n')
    return [
      renderSummary({
        verdict,
        headline: headline!,
        notes,
        fabricSubnet: manifest.fabric.subnet,
        nodes: nowNodes,
        findings: back.findings,
        checks: back.facts ? [`${identity(r).identityCheck} of the rolled-back release`] : [],
      }),
      failedSummary,
      // The fabric test ran for the failed release, before anything changed.
      ...fabric.map((f) => f.replace(/^#### /, '##### ')),
      ...(r.smoke ? [r.smoke.summary] : []),
    ].join('\n')
  }
  return [
    verdictLine(verdict, headline!),
    '',
    ...rest.map((l) => `- ${e(l)}`),
    '',
    `| ${header(r.nodes).join(' | ')} |`,
    `| ${header(r.nodes)
      .map(() => '---')
      .join(' | ')} |`,
    ...r.nodes.map((n) => `| ${cells(n).map(e).join(' | ')} |`),
    '',
    ...fabric,
    ...(r.smoke ? [r.smoke.summary] : []),
    renderFindingsMarkdown(r.findings, checksRan(r)),
  ].join('\n')
}
