/**
 * The log reader as the class tests use it: a text read as a pasted log (a last newline added where it has none), the findings that
 * fail a start (an error, or UNRECOGNISED_FAILURE at any severity).
 */
import { expect } from 'vitest'
import type { Finding } from '../../../src/preflight/finding.js'
import { scanLog } from '../../../src/preflight/signatures.js'

export const scan = (text: string): Finding[] => scanLog(text.endsWith('\n') ? text : `${text}\n`, 'paste')

export const bad = (text: string): Finding[] => scan(text).filter((x) => x.severity === 'error' || x.code === 'UNRECOGNISED_FAILURE')

/** Each finding as `CODE/severity`, in the order the reader gives them. */
export const codes = (text: string): string[] => scan(text).map((x) => `${x.code}/${x.severity}`)

/** The one finding of `code` the text gives (the test fails on none or several). */
export const one = (text: string, code: string): Finding => {
  const found = scan(text).filter((x) => x.code === code)
  expect(found, `${code} in ${codes(text).join(', ')}`).toHaveLength(1)
  return found[0]!
}
