import type { FactsBundle } from '../preflight/facts.js'
import { type Finding, hasErrors } from '../preflight/finding.js'
import type { Manifest } from '../manifest/schema.js'
import { findingsJson, renderFindingsText } from '../report/findings.js'
import { nodeRowsFrom } from '../report/node-rows.js'
import { renderSummary } from '../report/summary.js'
import { findingAnnotations } from './finding-annotations.js'
import type { OutputFile, TaskOutcome } from './outcome.js'

/**
 * Findings → outcome: exit 1 on any error finding, one annotation per finding. With the manifest,
 * the job summary carries the node table and the cluster diagram (report/summary.ts).
 */
export function findingsOutcome(
  title: string,
  findings: readonly Finding[],
  facts?: FactsBundle,
  extraText = '',
  manifest?: Manifest,
  /** The checks that ran (the summary names them when they found nothing). */
  checks: readonly string[] = [],
): TaskOutcome {
  const errors = findings.filter((f) => f.severity === 'error').length
  const warnings = findings.filter((f) => f.severity === 'warning').length
  const failed = hasErrors(findings)
  const headline = failed
    ? `${title}: ${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}`
    : findings.length === 0
      ? `${title}: no findings`
      : `${title}: passed with ${warnings} warning${warnings === 1 ? '' : 's'}`
  const annotations = findingAnnotations(findings)
  const files: OutputFile[] = facts ? [{ output: 'facts-file', fileName: 'vllm-ray-deploy-facts.json', content: JSON.stringify(facts, null, 2) + '\n' }] : []
  const json = findingsJson(findings)
  return {
    exitCode: failed ? 1 : 0,
    headline,
    text: extraText + renderFindingsText(findings),
    json: { ...json, ...(facts && { facts }) },
    summary: renderSummary({
      verdict: failed ? 'failed' : warnings > 0 ? 'warnings' : 'passed',
      headline,
      ...(manifest && { fabricSubnet: manifest.fabric.subnet }),
      nodes: manifest ? nodeRowsFrom(manifest, facts, findings) : [],
      findings,
      checks,
    }),
    annotations,
    outputs: {
      result: failed ? 'failed' : 'passed',
      findings: JSON.stringify(json.findings),
      'error-count': String(errors),
      'warning-count': String(warnings),
    },
    files,
  }
}
