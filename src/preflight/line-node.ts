/**
 * The node a log line was printed on, as rule evidence: the innermost `ip=` of Ray's process prefix
 * (LineContext.prefixIp), nothing where the line carried none. One definition for every rule file.
 */

import type { LineContext } from './signature-rules.js'

export const nodeEvidence = (context: LineContext): Record<string, string> => (context.prefixIp !== undefined ? { 'Node (log prefix)': context.prefixIp } : {})
