/**
 * The log reader as the class tests use it: a text read as a pasted log (a last newline added where it has none), the findings that
 * fail a start (an error, or UNRECOGNISED_FAILURE at any severity).
 */
import type { Finding } from '../../../src/preflight/finding.js'
import { scanLog } from '../../../src/preflight/signatures.js'

export const scan = (text: string): Finding[] => scanLog(text.endsWith('\n') ? text : `${text}\n`, 'paste')

export const bad = (text: string): Finding[] => scan(text).filter((x) => x.severity === 'error' || x.code === 'UNRECOGNISED_FAILURE')
