/**
 * The one error idiom of src: a function that can fail for a reason a user's input or a node's
 * answer causes returns `Result<T>`; its Problem says what went wrong (code, message), what was
 * compared (evidence) and what to change (fix). The front doors (src/action, src/cli) turn Problems
 * into messages and exit codes. Throwing is kept for bugs (impossible states), each marked `// bug:`
 * (test/architecture/errors.test.ts holds src to that).
 *
 * A Finding (src/preflight/finding.ts) is a Problem about a cluster: it adds a severity and a node.
 */

export interface Problem<C extends string = string> {
  /** Stable code, SCREAMING_SNAKE (DEPLOY_LOCKED, IMAGE_MISSING, ...). */
  readonly code: C
  readonly message: string
  /** What was compared or seen, by name. */
  readonly evidence: Readonly<Record<string, string>>
  readonly fix: string
}

export type Result<T, P = Problem> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problem: P }

/**
 * What a parser of outside text (an address, an image reference, a node's or a server's answer)
 * returns: the value, or a Problem whose message says why the text is not one. A caller that knows
 * more (the manifest key, the node) puts the message into its own Problem.
 */
export type Parsed<T> = Result<T, Problem>

export const ok = <T>(value: T): Result<T, never> => ({ ok: true, value })
export const fail = <P = Problem>(problem: P): Result<never, P> => ({ ok: false, problem })

/** A Problem with no evidence and no fix beyond its message (usage errors, whose fix is the message). */
export const problem = (code: string, message: string, fix = message, evidence: Record<string, string> = {}): Problem => ({ code, message, evidence, fix })
