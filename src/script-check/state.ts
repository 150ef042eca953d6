/**
 * One path through a script, as the evaluator carries it: variables (global and per call frame),
 * functions, the branch depth (inside an `if`/`case`: one role's section), the `ray start`s met so
 * far, and the branch decisions taken. Paths that reach the same state by different branches are
 * merged (stateKey), so scripts with many independent `if`s do not multiply paths.
 */

import type { Node } from './bash-ast.js'
import type { Arg, Assignment, RayStart, Span, Val } from './model.js'

export type Var =
  | { readonly kind: 'scalar'; readonly val: Val; readonly exported: boolean; readonly assignment: Assignment }
  | { readonly kind: 'array'; readonly items: readonly Arg[] }

export interface Frame {
  args: Arg[]
  /** More arguments follow that are not known (the script's own, passed on with "$@"). */
  rest: boolean
  /** How many of those unknown arguments `shift` dropped: `$1` after `shift` is the unknown `${2}`. */
  shifted: number
  locals: Map<string, Var>
  /** The call that opened this frame (undefined: the script's top level). */
  callAt?: Span
}

export interface State {
  globals: Map<string, Var>
  funcs: Map<string, Node>
  /** frames[0] is the script's top level, whose arguments are unknown. */
  frames: Frame[]
  branch: number
  done: boolean
  returning: boolean
  starts: RayStart[]
  path: string[]
  /**
   * What this path has assumed about values it cannot know, from the branches it took: `${3}` is
   * `--head` (then-branch of `[ "$3" == --head ]`), or is none of some literals (else-branches).
   * A later test of the same value is then decided the same way (run_cluster.sh tests its role twice).
   */
  facts: Map<string, { readonly eq?: string; readonly ne: readonly string[] }>
  /** Files the script wrote from a here-document (`cat > FILE <<EOF`), by path: what `--env-file FILE` reads. */
  files: Map<string, Val>
}

export const initialState = (): State => ({
  globals: new Map(),
  funcs: new Map(),
  frames: [{ args: [], rest: true, shifted: 0, locals: new Map() }],
  branch: 0,
  done: false,
  returning: false,
  starts: [],
  path: [],
  facts: new Map(),
  files: new Map(),
})

export const fork = (s: State): State => ({
  globals: new Map(s.globals),
  funcs: new Map(s.funcs),
  frames: s.frames.map((f) => ({ ...f, args: [...f.args], locals: new Map(f.locals) })),
  branch: s.branch,
  done: s.done,
  returning: s.returning,
  starts: [...s.starts],
  path: [...s.path],
  facts: new Map(s.facts),
  files: new Map(s.files),
})

const varKey = (v: Var): unknown =>
  v.kind === 'scalar' ? [v.val.text, v.exported, v.assignment.span.start, v.assignment.span.line] : v.items.map((a) => [a.val.text, a.span.start])

const startKey = (r: RayStart): unknown => [r.line, r.rayLine, r.args.map((a) => a.val.text), [...r.env].map(([k, v]) => [k, v.val.text, v.span.start])]

/** What makes two paths different for the rest of the script (the branch decisions taken do not). */
export function stateKey(s: State): string {
  const vars = (m: Map<string, Var>) => [...m].map(([k, v]) => [k, varKey(v)])
  return JSON.stringify([
    vars(s.globals),
    [...s.funcs.keys()],
    s.frames.map((f) => [f.args.map((a) => a.val.text), f.rest, f.shifted, vars(f.locals)]),
    s.branch,
    s.done,
    s.returning,
    s.starts.map(startKey),
    [...s.facts],
    [...s.files].map(([k, v]) => [k, v.text]),
  ])
}

export function startKeyOf(r: RayStart): string {
  return JSON.stringify(startKey(r))
}

/** Each distinct state once (the first path's decisions kept). */
export function mergePaths(states: readonly State[]): State[] {
  const seen = new Set<string>()
  return states.filter((s) => {
    const k = stateKey(s)
    if (seen.has(k)) return false
    seen.add(k)
    return true
  })
}
