/**
 * The one rule for a secret value a node receives as a line of docker's --env-file: set, not empty,
 * one line without NUL, and no larger than one environment string may be. The deploy applies it
 * before its first node command (src/deploy/run-inputs.ts); the step that writes the file applies it
 * again (src/execute/step-inputs.ts). Pure.
 */

/** The most bytes one value may have: Linux's limit on one argument or environment string (MAX_ARG_STRLEN). */
export const MAX_SECRET_BYTES = 128 * 1024

/** Why `value` cannot be carried as secret `name` (one env-file line), or undefined when it can. */
export function secretValueProblem(value: string | undefined): string | undefined {
  if (value === undefined) return 'is not set for this run'
  if (value === '') return 'is empty'
  const at = value.search(/[\r\n\0]/)
  if (at >= 0) {
    const what = value[at] === '\0' ? 'a NUL byte' : value[at] === '\r' ? 'a carriage return' : 'a line break'
    const where = at === value.length - 1 || /^[\r\n]+$/.test(value.slice(at)) ? 'at its end' : `at character ${at + 1} of ${value.length}`
    return `has ${what} ${where}, which docker --env-file cannot carry (it would end the line and cut the secret)`
  }
  if (Buffer.byteLength(value) > MAX_SECRET_BYTES) return `is ${Buffer.byteLength(value)} bytes, more than the ${MAX_SECRET_BYTES} one value may have`
  return undefined
}
