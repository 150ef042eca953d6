/**
 * Documents from outside other than the manifest (a facts bundle given to `diagnose --facts`, the
 * probe's JSON from a node) are checked by a zod schema the same way, and a document that does not
 * fit is answered with the field that is wrong, never cast and never an exception.
 */
import type { z } from 'zod'
import { pathLabel } from './manifest-error.js'

export type Checked<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problems: readonly string[] }

const MAX_PROBLEMS = 5

/** `nodes[0].interfaces: expected array, got undefined`, for the first few issues. */
export function checkDocument<S extends z.ZodType>(schema: S, value: unknown): Checked<z.output<S>> {
  const r = schema.safeParse(value)
  if (r.success) return { ok: true, value: r.data }
  return { ok: false, problems: r.error.issues.slice(0, MAX_PROBLEMS).map((i) => `${pathLabel(i.path.filter((k) => typeof k !== 'symbol'))}: ${i.message}`) }
}
