/**
 * Findings for people and machines: a compact text table for terminals and logs, Markdown for a
 * GitHub job summary, and a stable JSON shape for tools.
 */

import { type Finding, whereLabel } from '../preflight/finding.js'
import { escapeMarkdown } from './escape.js'

const clusterLabel = (node: string | null): string => node ?? 'cluster'

/** Pad to a width, for the text table. */
const pad = (s: string, width: number): string => s + ' '.repeat(Math.max(0, width - s.length))

/** Indented `label: value` lines, labels aligned; multi-line values keep their indent. */
function evidenceLines(evidence: Readonly<Record<string, string>>, indent: string): string[] {
  const entries = Object.entries(evidence)
  const width = entries.reduce((w, [k]) => Math.max(w, k.length + 1), 0)
  return entries.map(([k, v]) => `${indent}${pad(`${k}:`, width)} ${v.replace(/\n/g, `\n${indent}${' '.repeat(width + 1)}`)}`)
}

export function renderFindingsText(findings: readonly Finding[]): string {
  if (findings.length === 0) return 'No findings.\n'
  const header = ['CODE', 'SEVERITY', 'NODE', 'MESSAGE'] as const
  const rows = findings.map((f) => [f.code, f.severity, clusterLabel(f.node), f.message] as const)
  // A fold, never a spread into Math.max: a list of 300k findings is too many arguments for one call.
  const widths = [0, 1, 2].map((i) => rows.reduce((w, r) => Math.max(w, r[i]?.length ?? 0), header[i]?.length ?? 0))
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => (i < 3 ? pad(c, widths[i] ?? 0) : c))
      .join('  ')
      .trimEnd()
  const out = [line(header), ...rows.map(line), '']
  for (const f of findings) {
    out.push(`${f.code} (${f.node ?? 'cluster'}):`)
    out.push(`  fix: ${f.fix}`)
    for (const l of evidenceLines(f.evidence, '    ')) out.push(l)
    if (f.patch)
      out.push(
        '  patch (git apply / patch -p1):',
        ...f.patch
          .trimEnd()
          .split('\n')
          .map((l) => `    ${l}`),
      )
  }
  return `${out.join('\n')}\n`
}

/** Escape a value for a Markdown table cell (and HTML-safe): see report/escape.ts. */
export const escapeMarkdownCell = escapeMarkdown

const SEVERITY_MARK: Record<Finding['severity'], string> = { error: '❌ error', warning: '⚠️ warning', info: 'ℹ️ info' }

/** `checks`: what ran and found nothing, named in the empty case; none given, no check is claimed. */
export function renderFindingsMarkdown(findings: readonly Finding[], checks: readonly string[] = []): string {
  if (findings.length === 0) return checks.length > 0 ? `**${escapeMarkdown(checks.join(', '))}:** no findings.\n` : 'No findings.\n'
  const e = escapeMarkdownCell
  const out = [
    '| Code | Severity | Node | Message |',
    '| --- | --- | --- | --- |',
    ...findings.map((f) => `| \`${f.code}\` | ${SEVERITY_MARK[f.severity]} | ${e(clusterLabel(f.node))} | ${e(f.message)} |`),
    '',
  ]
  for (const f of findings) {
    out.push(`#### \`${f.code}\` on ${e(whereLabel(f.node))}`, '', `**Fix:** ${e(f.fix)}`, '')
    const evidence = Object.entries(f.evidence)
    if (evidence.length > 0) {
      out.push('| Evidence | Value |', '| --- | --- |', ...evidence.map(([k, v]) => `| ${e(k)} | ${e(v)} |`), '')
    }
    if (f.patch) out.push('<details><summary>Patch</summary>', '', '```diff', f.patch.trimEnd().replace(/```/g, "'''"), '```', '', '</details>', '')
  }
  return `${out.join('\n')}`
}

export interface FindingsJson {
  readonly findings: readonly {
    readonly code: Finding['code']
    readonly severity: Finding['severity']
    readonly node: string | null
    readonly message: string
    readonly evidence: Readonly<Record<string, string>>
    readonly fix: string
    readonly patch?: string
  }[]
}

/** `{"findings":[{"code","severity","node","message","evidence","fix"}]}`, keys in that order. */
export const findingsJson = (findings: readonly Finding[]): FindingsJson => ({
  findings: findings.map((f) => ({
    code: f.code,
    severity: f.severity,
    node: f.node,
    message: f.message,
    evidence: { ...f.evidence },
    fix: f.fix,
    ...(f.patch !== undefined && { patch: f.patch }),
  })),
})
