/**
 * The one error style for stages and tasks: a function that can fail for a reason the user must
 * act on returns `Result<T>`; its Problem says what went wrong (code, message), what was compared
 * (evidence) and what to change (fix). Throwing is kept for bugs.
 */

export interface Problem {
  /** Stable code, SCREAMING_SNAKE (DEPLOY_LOCKED, IMAGE_MISSING, ...). */
  readonly code: string
  readonly message: string
  /** What was compared or seen, by name. */
  readonly evidence: Readonly<Record<string, string>>
  readonly fix: string
}

export type Result<T, P = Problem> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problem: P }

export const ok = <T>(value: T): Result<T, never> => ({ ok: true, value })
export const fail = <P = Problem>(problem: P): Result<never, P> => ({ ok: false, problem })

/** A Problem with no evidence and no fix beyond its message (usage errors, whose fix is the message). */
export const problem = (code: string, message: string, fix = message, evidence: Record<string, string> = {}): Problem => ({ code, message, evidence, fix })
