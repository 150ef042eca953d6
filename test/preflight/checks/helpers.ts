import { runChecks } from '../../../src/preflight/checks/index.js'
import type { Expectation } from '../../../src/manifest/expectation.js'
import type { FactsBundle } from '../../../src/preflight/facts.js'
import type { Finding, FindingCode } from '../../../src/preflight/finding.js'
import { expectation } from '../fixtures/facts.js'

/** Checks against the spark-pair manifest; pass `null` for "no manifest". */
export const check = (facts: FactsBundle, expected: Expectation | null = expectation): Finding[] => runChecks(facts, expected ?? undefined)

/** `CODE@node` per finding, in order. */
export const codes = (facts: FactsBundle, expected: Expectation | null = expectation): string[] =>
  check(facts, expected).map((f) => `${f.code}${f.node ? `@${f.node}` : ''}`)

export const only = (facts: FactsBundle, code: FindingCode, expected: Expectation | null = expectation): Finding[] =>
  check(facts, expected).filter((f) => f.code === code)
