/**
 * The first line of every job summary: the verdict and what happened, for every command and every
 * way a run can end (a usage error, a node that cannot be reached, a cancel). Pure.
 */
import { escapeMarkdown } from './escape.js'

export type Verdict = 'passed' | 'warnings' | 'failed' | 'cancelled'

const VERDICT: Record<Verdict, string> = {
  passed: '✅ passed',
  warnings: '⚠️ passed with warnings',
  failed: '❌ failed',
  cancelled: '⏹️ cancelled',
}

/** `### ❌ failed: <headline>`: the headline escaped for Markdown. */
export const verdictLine = (verdict: Verdict, headline: string): string => `### ${VERDICT[verdict]}: ${escapeMarkdown(headline)}`

/** What a summary's first line looks like (tests and the Action hold every summary to it). */
export const VERDICT_LINE = /^### (✅ passed|⚠️ passed with warnings|❌ failed|⏹️ cancelled): \S/u

/** A verdict from an exit code and findings' severities: 0 with warnings is `warnings`. */
export function verdictOf(exitCode: number, warnings = 0): Verdict {
  if (exitCode === 130) return 'cancelled'
  if (exitCode !== 0) return 'failed'
  return warnings > 0 ? 'warnings' : 'passed'
}
