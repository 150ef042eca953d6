/**
 * Documents from outside other than the manifest (a facts bundle given to `diagnose --facts`, the
 * probe's JSON from a node) are checked by a zod schema the same way, and a document that does not
 * fit is answered with the field that is wrong, never cast and never an exception.
 */
import type { z } from 'zod'
import { fail, ok, type Parsed, problem } from '../result/result.js'
import { pathLabel } from './manifest-error.js'

const MAX_PROBLEMS = 5

/** The document, or a DOCUMENT_INVALID Problem whose message lists the first few issues (`nodes[0].interfaces: expected array, got undefined; ...`). */
export function checkDocument<S extends z.ZodType>(schema: S, value: unknown): Parsed<z.output<S>> {
  const r = schema.safeParse(value)
  if (r.success) return ok(r.data)
  const issues = r.error.issues.slice(0, MAX_PROBLEMS).map((i) => `${pathLabel(i.path.filter((k) => typeof k !== 'symbol'))}: ${i.message}`)
  return fail(problem('DOCUMENT_INVALID', issues.join('; ')))
}
