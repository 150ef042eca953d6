/**
 * The smoke test's report: a text table, Markdown for the job summary, Action outputs. Pure. It
 * renders its own findings (the smoke stage comes before src/report/, and the gate must hand the
 * deploy finished text).
 */
import { type Finding, whereLabel } from '../preflight/finding.js'
import type { ClusterProof } from './cluster-proof.js'
import { type InferenceResult, fmt } from './inference.js'

export interface SmokeReport {
  readonly cluster: string
  readonly model: string
  readonly via: string
  readonly readyAfterMs?: number
  readonly inference?: InferenceResult
  readonly proof?: ClusterProof
  readonly findings: readonly Finding[]
}

/** Escape for a Markdown table cell (and HTML-safe). */
const escapeMarkdownCell = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\|/g, '&#124;').replace(/\r?\n/g, '<br>')

function renderFindingsText(findings: readonly Finding[]): string {
  const out: string[] = []
  for (const f of findings) {
    out.push(`${f.severity.toUpperCase()} ${f.code} on ${whereLabel(f.node)}: ${f.message}`, `  fix: ${f.fix}`)
    for (const [k, v] of Object.entries(f.evidence)) out.push(`    ${k}: ${v.replace(/\n/g, '\n      ')}`)
  }
  return `${out.join('\n')}\n`
}

function renderFindingsMarkdown(findings: readonly Finding[]): string {
  const e = escapeMarkdownCell
  return [
    '| Code | Severity | Node | Message | Fix |',
    '| --- | --- | --- | --- | --- |',
    ...findings.map((f) => `| \`${f.code}\` | ${f.severity} | ${e(whereLabel(f.node))} | ${e(f.message)} | ${e(f.fix)} |`),
    '',
  ].join('\n')
}

const passed = (r: SmokeReport) => !r.findings.some((f) => f.severity === 'error')

function rows(r: SmokeReport): [string, string][] {
  const i = r.inference
  const out: [string, string][] = [['model', r.model]]
  if (i?.version) out.push(['vLLM version', i.version])
  out.push(['reached via', r.via])
  if (r.readyAfterMs !== undefined) out.push(['ready after', `${(r.readyAfterMs / 1000).toFixed(1)} s`])
  if (i) {
    out.push(['time to first token', `${fmt(i.stream?.ttftMs)} ms`])
    out.push(['inter-token latency (mean)', `${fmt(i.stream?.itlMs)} ms`])
    out.push([
      `p50 / p95 latency (${i.burst ? `burst of ${i.burst.requests}` : `${i.requests.filter((q) => q.ok).length} requests`})`,
      `${fmt(i.p50Ms)} / ${fmt(i.p95Ms)} ms`,
    ])
    out.push([`output tokens/s (${i.burst ? 'burst' : 'streamed request'})`, fmt(i.tokensPerSecond)])
    if (i.metrics)
      out.push([
        'metrics delta (requests, generated, prompt tokens)',
        `+${i.metrics.seen.requests}, +${i.metrics.seen.generationTokens}, +${i.metrics.seen.promptTokens} (smoke made ${i.metrics.expected.requests}, ${i.metrics.expected.generationTokens}, ${i.metrics.expected.promptTokens})`,
      ])
  }
  if (r.proof?.group) {
    out.push(['process group (native)', `${r.proof.group.store}, ${r.proof.group.formed ? 'every node in it' : 'INCOMPLETE'}`])
    out.push(['serving nodes', r.proof.serving.map((s) => `${s.node ?? '?'} ${s.ip} (${s.bundles} ranks)${s.alive ? '' : ' missing'}`).join(', ')])
  }
  if (r.proof?.placementGroup) {
    const pg = r.proof.placementGroup
    out.push(['placement group', `${pg.id.slice(0, 16)} ${pg.state}, ${pg.bundles} GPU bundles`])
    out.push(['serving nodes', r.proof.serving.map((s) => `${s.node ?? '?'} ${s.ip} (${s.bundles})${s.alive ? '' : ' dead'}`).join(', ')])
  }
  return out
}

export function renderSmokeText(r: SmokeReport): string {
  const table = rows(r)
  const w = table.reduce((m, [k]) => Math.max(m, k.length), 0)
  const requests = (r.inference?.requests ?? []).map(
    (q) => `  ${q.ok ? 'ok  ' : 'FAIL'} ${q.label}: ${q.ms} ms${q.completionTokens !== undefined ? `, ${q.completionTokens} tokens` : ''}`,
  )
  return [
    `smoke test of ${r.cluster}: ${passed(r) ? 'PASSED' : 'FAILED'}`,
    ...table.map(([k, v]) => `  ${k.padEnd(w)}  ${v}`),
    ...(requests.length ? ['requests:', ...requests] : []),
    '',
    r.findings.length ? renderFindingsText(r.findings) : '',
  ].join('\n')
}

/** The figures table alone (model, version, latencies, metrics delta, placement group), Markdown. */
export function renderSmokeFiguresMarkdown(r: SmokeReport): string {
  const e = escapeMarkdownCell
  return ['| Figure | Value |', '| --- | --- |', ...rows(r).map(([k, v]) => `| ${e(k)} | ${e(v)} |`), ''].join('\n')
}

export function renderSmokeMarkdown(r: SmokeReport): string {
  const e = escapeMarkdownCell
  return [
    `### ${passed(r) ? '✅' : '❌'} Smoke test of ${e(r.cluster)}: ${passed(r) ? 'passed' : 'failed'}`,
    '',
    renderSmokeFiguresMarkdown(r),
    ...(r.findings.length ? [renderFindingsMarkdown(r.findings)] : []),
  ].join('\n')
}

const num = (n: number | undefined) => (n === undefined ? '' : String(Math.round(n * 10) / 10))

/** The Action's outputs (action.yml): verdict, model, ttft-ms, itl-ms, tokens-per-second, p95-ms. */
export function smokeOutputs(r: SmokeReport): Record<string, string> {
  const i = r.inference
  return {
    verdict: passed(r) ? 'passed' : 'failed',
    model: r.model,
    'ttft-ms': num(i?.stream?.ttftMs),
    'itl-ms': num(i?.stream?.itlMs),
    'tokens-per-second': num(i?.tokensPerSecond),
    'p95-ms': num(i?.p95Ms),
  }
}

export function smokeJson(r: SmokeReport) {
  return {
    verdict: passed(r) ? 'passed' : 'failed',
    cluster: r.cluster,
    model: r.model,
    via: r.via,
    readyAfterMs: r.readyAfterMs,
    version: r.inference?.version,
    ttftMs: r.inference?.stream?.ttftMs,
    itlMs: r.inference?.stream?.itlMs,
    p50Ms: r.inference?.p50Ms,
    p95Ms: r.inference?.p95Ms,
    tokensPerSecond: r.inference?.tokensPerSecond,
    burst: r.inference?.burst,
    requests: r.inference?.requests ?? [],
    metrics: r.inference?.metrics,
    placementGroup: r.proof?.placementGroup,
    servingNodes: r.proof?.serving ?? [],
    findings: r.findings,
  }
}
