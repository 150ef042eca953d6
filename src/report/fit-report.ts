/**
 * The fit before launch rendered: the footprint per GPU and, per node, the arithmetic and the
 * verdict (text for `plan` and `preflight`, Markdown for the job summary, JSON for `--json`).
 */
import { type FitReport, fitTextLines } from '../preflight/fit/fit.js'
import { formatGiB } from '../preflight/fit/weights-share.js'
import { escapeMarkdownCell } from './findings.js'

const verdictOf = (fits: boolean): string => (fits ? 'fits' : 'DOES NOT FIT')

export const renderFitText = (report: FitReport): string => `${fitTextLines(report).join('\n')}\n`

export function renderFitMarkdown(report: FitReport): string {
  if (!report.computed) return `**Fit before launch:** not computed, missing ${escapeMarkdownCell(report.missing.join('; '))}\n`
  const fp = report.footprint
  const out = [
    '#### Fit before launch',
    '',
    `Per GPU: weights ${formatGiB(fp.weightsBytes)}, KV cache ${formatGiB(fp.kvOneSequenceBytes)} per sequence of ${fp.maxModelLen} tokens (× ${fp.maxNumSeqs} = ${formatGiB(fp.kvAllSequencesBytes)}), reserve ${formatGiB(fp.activationBytes)}.`,
    '',
  ]
  if (report.nodes.length === 0) return `${out.join('\n')}No verdict: nothing says what the nodes have.\n`
  out.push(
    '| node | memory | vLLM claims | KV cache gets | host reserve | sequences at max-model-len | verdict |',
    '| --- | --- | --- | --- | --- | --- | --- |',
  )
  for (const n of report.nodes)
    out.push(
      `| ${n.node} | ${formatGiB(n.memory.totalBytes)} ${n.memory.unified ? 'unified' : 'per GPU'} | ${formatGiB(n.claimBytes)} | ${formatGiB(Math.max(0, n.kvBudgetBytes))} | ${formatGiB(n.hostReserveBytes)} | ${n.sequencesAtMaxLen} | ${verdictOf(n.fits)} |`,
    )
  return `${out.join('\n')}\n`
}

export function fitJson(report: FitReport) {
  if (!report.computed) return { computed: false, missing: report.missing }
  const { cache: _cache, ...footprint } = report.footprint
  return {
    computed: true,
    sources: report.sources,
    footprint,
    nodes: report.nodes.map((n) => ({
      node: n.node,
      fits: n.fits,
      unified: n.memory.unified,
      totalBytes: n.memory.totalBytes,
      claimBytes: n.claimBytes,
      kvBudgetBytes: n.kvBudgetBytes,
      hostReserveBytes: n.hostReserveBytes,
      sequencesAtMaxLen: n.sequencesAtMaxLen,
      arithmetic: n.lines,
    })),
  }
}
