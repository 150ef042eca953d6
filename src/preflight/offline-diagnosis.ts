/**
 * Offline diagnosis: whatever a person has (a facts bundle, pasted `ray.nodes()` or `ray status`,
 * log files, a manifest) in, findings out, errors first. The same checks and signatures as the
 * live preflight; missing inputs simply mean fewer checks run.
 */

import { runChecks } from './checks/index.js'
import type { Expectation } from '../manifest/expectation.js'
import type { FactsBundle } from './facts.js'
import { EVIDENCE, type Finding, type Severity } from './finding.js'
import { stripPrefixLength } from '../net/ipv4.js'
import { combineRayView, withRayView } from './ray-view.js'
import { logTimelineFindings } from './startup-report.js'
import { scanLog } from './signatures.js'

export interface OfflineInputs {
  readonly facts?: FactsBundle
  /** `ray.nodes()` (JSON or repr), `address {resources}` lines, or `ray list nodes` output. */
  readonly rayNodesText?: string
  /** `ray status` output. */
  readonly rayStatusText?: string
  /** ISO time for a bundle assembled from nothing but text (defaults to now). */
  readonly assembledAt?: string
}

export interface DiagnoseInputs extends OfflineInputs {
  readonly logs?: readonly { readonly source: string; readonly text: string }[]
  readonly expected?: Expectation
}

export function assembleOfflineFacts(inputs: OfflineInputs): FactsBundle {
  const base: FactsBundle = inputs.facts ?? {
    schemaVersion: 1,
    gatheredAt: inputs.assembledAt ?? new Date().toISOString(),
    nodes: [],
  }
  return withRayView(base, combineRayView(inputs.facts?.ray, inputs.rayNodesText, inputs.rayStatusText))
}

const RANK: Record<Severity, number> = { error: 0, warning: 1, info: 2 }

/** Drop repeats (the same code, node and message from several logs), noting where else they appeared. */
function dedupe(findings: readonly Finding[]): Finding[] {
  const out = new Map<string, Finding>()
  for (const f of findings) {
    const key = `${f.code}\u0000${f.node ?? ''}\u0000${f.message}`
    const first = out.get(key)
    if (!first) {
      out.set(key, f)
      continue
    }
    const where = f.evidence[EVIDENCE.logLine]
    if (where === undefined) continue
    const also = first.evidence[EVIDENCE.alsoSeenAt]
    out.set(key, { ...first, evidence: { ...first.evidence, [EVIDENCE.alsoSeenAt]: also ? `${also}, ${where}` : where } })
  }
  return [...out.values()]
}

/** Errors first, then warnings, then info; otherwise in the order checks and logs produced them. */
export const sortFindings = (findings: readonly Finding[]): Finding[] =>
  findings
    .map((f, i) => ({ f, i }))
    .sort((a, b) => RANK[a.f.severity] - RANK[b.f.severity] || a.i - b.i)
    .map(({ f }) => f)

/**
 * Log findings name a node by the IP in Ray's `(... pid=N, ip=X)` prefix; when the facts or the
 * manifest know which node holds X, use its name instead.
 */
function nameNodes(findings: readonly Finding[], facts: FactsBundle, expected: Expectation | undefined): Finding[] {
  const nameOf = (ip: string): string | undefined =>
    facts.nodes.find((n) => n.sshHost === ip || n.interfaces.some((i) => i.addresses.some((a) => stripPrefixLength(a) === ip)))?.node ??
    expected?.nodes.find((n) => n.fabricIp === ip || n.sshHost === ip)?.name
  return findings.map((f) => {
    const name = f.node !== null ? nameOf(f.node) : undefined
    return name ? { ...f, node: name } : f
  })
}

export function diagnose(inputs: DiagnoseInputs): Finding[] {
  const facts = assembleOfflineFacts(inputs)
  const fromChecks = runChecks(facts, inputs.expected)
  const fromLogs = (inputs.logs ?? []).flatMap((log) => scanLog(log.text, log.source, facts.ray))
  // Each node's start-up phases and, where several nodes failed, the first failing line leading its cascade.
  const timeline = logTimelineFindings(inputs.logs ?? [], inputs.expected?.nodes)
  return [
    ...timeline.filter((f) => f.code === 'STARTUP_FIRST_FAILURE'),
    ...sortFindings(dedupe([...fromChecks, ...nameNodes(fromLogs, facts, inputs.expected)])),
    ...timeline.filter((f) => f.code === 'STARTUP_TIMELINE'),
  ]
}
