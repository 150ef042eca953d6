/**
 * The JSON document the facts probe prints (src/probe/node-probe.ts), checked as it arrives: a node
 * runs a program we sent, but what comes back is still a document from outside. Its schema is the
 * node facts' own (node-facts.ts); fields the probe adds that nothing reads are dropped.
 */
import { checkDocument } from '../manifest/external-document.js'
import { fail, type Parsed, problem } from '../result/result.js'
import { type ProbeOutput, ProbeOutputSchema } from './node-facts.js'

export { type ProbeOutput, ProbeOutputSchema }

export type ProbeParse = Parsed<ProbeOutput>

const unreadable = (message: string) => fail(problem('PROBE_OUTPUT_INVALID', message))

/** The probe's last stdout line as its document, checked. */
export function parseProbeOutput(stdout: string): ProbeParse {
  let json: unknown
  try {
    json = JSON.parse(stdout.trim().split('\n').pop() ?? '')
  } catch {
    return unreadable(`the facts probe printed no JSON: ${stdout.slice(-300)}`)
  }
  const checked = checkDocument(ProbeOutputSchema, json)
  return checked.ok ? checked : unreadable(`the facts probe's output does not fit its schema: ${checked.problem.message}`)
}
