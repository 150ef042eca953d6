/**
 * Findings as the job's annotations (kept apart from findings-outcome.ts, whose summary rendering the
 * commands that only annotate do not load: each command's task is its own chunk of the build).
 */
import { EVIDENCE, type Finding, whereLabel } from '../preflight/finding.js'
import type { Annotation } from './outcome.js'

const LEVEL = { error: 'error', warning: 'warning', info: 'notice' } as const

/** `path:line` or `path:line:col`, as the launch-script check writes its `Script line` evidence. */
const SCRIPT_AT = /^(.+):(\d+)(?::(\d+))?$/

/**
 * One annotation per finding, for every command: titled with its code and where it is, and a
 * launch-script finding placed on its file and line (the script's `Script line` evidence), so it
 * annotates the script itself whichever command found it.
 */
export function findingAnnotations(findings: readonly Finding[]): Annotation[] {
  return findings.map((f) => {
    const at = SCRIPT_AT.exec(f.evidence[EVIDENCE.scriptLine] ?? '')
    return {
      level: LEVEL[f.severity],
      title: `${f.code} on ${whereLabel(f.node)}`,
      message: `${f.message} Fix: ${f.fix}`,
      ...(at && { file: at[1]!, line: Number(at[2]), ...(at[3] && { col: Number(at[3]) }) }),
    }
  })
}
