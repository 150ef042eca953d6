/** Smoke findings: the one constructor, so every smoke problem has the same shape. Pure. */
import type { Finding, FindingCode } from '../preflight/finding.js'

export function smokeFinding(
  code: FindingCode,
  message: string,
  evidence: Record<string, string>,
  fix: string,
  node: string | null = null,
  severity: Finding['severity'] = 'error',
): Finding {
  return { code, severity, node, message, evidence, fix }
}
