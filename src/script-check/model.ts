/**
 * What evaluating a launch script on paper yields: values that remember which characters of the
 * script wrote them, the arguments and environment of each `ray start`, and where each watched
 * variable was set. Shared by the evaluator (evaluate.ts and its parts) and the rules (rules.ts).
 */

import type { FlagHit, ServeFlag } from '../preflight/native-launch.js'

/** A source range in the script (UTF-16 indices; start -1: not written contiguously in the script) and the line it is on. */
export interface Span {
  readonly start: number
  readonly end: number
  readonly line: number
}

/**
 * A value: its text (unknown parts as `${NAME}` or `$(…)`), and for each character the index in
 * the script it was written at (-1: computed, or outside the script). The map is what lets a patch
 * edit a value wherever it was written: in an assignment, a `docker run -e`, or inside a string
 * that a nested shell runs (`bash -c "…"`).
 */
export interface Val {
  readonly text: string
  readonly known: boolean
  readonly map?: readonly number[]
  /**
   * For each character, the script index just after the construct that put it into the word it was
   * last expanded in: a literal's own next index, the end of `$port` for the characters `$port`
   * expanded to. Text appended there follows the character in what a nested shell runs, without
   * editing the variable's definition.
   */
  readonly after?: readonly number[]
  /**
   * Ranges [from, to) of characters the shell that expanded the value computed (a command
   * substitution's output, a variable that holds one): code as written here, but what a shell the
   * value is handed to (`bash -c`, `ssh`) reads is their output, one opaque word, never their quotes.
   */
  readonly holes?: readonly Hole[]
}

export type Hole = readonly [number, number]

/** What stands for a hole in the text handed to another shell (`__vrd_hole_<n>_`): a plain word in any quoting. */
export const HOLE_TOKEN = '__vrd_hole_'

/**
 * A value the shell computed, one hole: unknown text that holds shell syntax (`$(…)`, `${1#*=}`, `${NAME}`,
 * backquotes, quotes) that a shell it is handed to would otherwise read again, as its own.
 */
export const asHole = (v: Val): Val => (!v.known && v.holes === undefined && /[$`'"]/.test(v.text) ? { ...v, holes: [[0, v.text.length]] } : v)

/** One argument after expansion, with the word it was written as and the call depth it was written at. */
export interface Arg {
  readonly val: Val
  readonly span: Span
  readonly depth: number
  /** Written inside a string another shell runs: an edit there must fit inside that string. */
  readonly nested: boolean
  /**
   * Inside such a string, where text appended after the whole word goes in the script (after its closing
   * quotes: `--port='${RAY_PORT}'`), when the word's last character was written there; else -1.
   */
  readonly endAfter?: number
  /** Stands for the script's own arguments, unknown in number (`"$@"` at the top level). */
  readonly rest?: boolean
}

/** Where a variable the rules care about was set, and what it replaced. */
export interface Assignment {
  readonly name: string
  readonly val: Val
  readonly span: Span
  readonly kind: 'assign' | 'export' | 'local' | 'docker -e' | 'prefix' | 'env file' | 'compose'
  /** Set inside an `if`/`case`/`&&` branch: one role's section. */
  readonly inBranch: boolean
  /** The assignment of the same name this one replaced, if any. */
  readonly previous?: Assignment
  /** The script range whose removal drops this setting (`NAME=v ` before a command, `-e NAME=v`); absent where removing is not a clean edit. */
  readonly removable?: { readonly start: number; readonly end: number }
  /** Written inside a function body: its value words serve every caller, so a per-node fix goes where the caller wrote the value. */
  readonly inFunction?: boolean
  /** The script range of the value as this setting writes it (`$MY_IP` in `VLLM_HOST_IP=$MY_IP`): where a per-node fix goes. */
  readonly valueAt?: { readonly start: number; readonly end: number }
}

export const WATCHED = ['VLLM_HOST_IP', 'NCCL_SOCKET_IFNAME', 'GLOO_SOCKET_IFNAME', 'RAY_OVERRIDE_NODE_IP_ADDRESS'] as const
export type Watched = (typeof WATCHED)[number]

/**
 * One start a rule looks at: a `ray start` (`kind: 'ray-start'`), or a `vllm serve` of vLLM's native
 * multi-node mode (`kind: 'vllm-serve'`: `--nnodes`/`--node-rank`/`--master-addr`/`--headless`,
 * whose flags are in `serve`).
 */
export interface RayStart {
  readonly kind: 'ray-start' | 'vllm-serve'
  /** `vllm serve`'s native flags, where each was last given (src/preflight/native-launch.ts). */
  readonly serve?: Partial<Record<ServeFlag, FlagHit<Arg>>>
  /** The line a user edits to change this start: where its role's arguments end (the call that carries `ray start --head`). */
  readonly line: number
  /** Line of the `ray start` words themselves (inside a function, a docker run or a string). */
  readonly rayLine: number
  readonly head: boolean
  readonly args: readonly Arg[]
  /** `--node-ip-address` value, and the argument that holds it. */
  readonly nodeIp?: { readonly val: Val; readonly arg: Arg }
  /** `--address` value (the head's GCS, host:port). */
  readonly address?: Val
  readonly env: ReadonlyMap<Watched, Assignment>
  /** Where `--node-ip-address=…` can be appended (after the last argument written in the role's section). */
  readonly insertAt?: { readonly offset: number; readonly line: number; readonly nested: boolean }
  /**
   * Where a flag every node gives alike (`--master-addr`, `--nnodes`) can be appended: after the last argument
   * written in the command itself, so it reaches every path through it (an array a role's branch fills, such as
   * `HEADLESS=(--headless)`, does not). Undefined where the command has no such argument.
   */
  readonly commandInsertAt?: { readonly offset: number; readonly line: number; readonly nested: boolean }
  /** Started inside a container (`docker run`): only its `-e` variables reach Ray. */
  readonly inContainer: boolean
  /** Run by `docker exec` in a container the script started earlier: its name and the line of its `docker run`. */
  readonly container?: { readonly name: string; readonly line: number }
  /** Inputs the path to this start took to be empty or unset (State.assumedEmpty). */
  readonly assumedEmpty?: readonly string[]
  /**
   * Flags that may be among words the check could not read: an array the script never gives a value (`vllm serve "${ARGS[@]}"
   * --node-rank 0`, built in a file it sources: `'any'`), or one whose words were lost over its branches (the flags its own assignments
   * write). A rule about such a flag's absence does not apply.
   */
  readonly hiddenFlags?: 'any' | ReadonlySet<string>
  /** The path's branch decisions, e.g. `line 4: then`. */
  readonly path: readonly string[]
}

/** The script range a value was written at, when its characters are one contiguous run of the script. */
export function writtenAt(v: Val): { start: number; end: number } | undefined {
  const m = v.map
  if (!m || m.length === 0 || m.length !== v.text.length) return undefined
  for (let i = 0; i < m.length; i++) if (m[i]! < 0 || (i > 0 && m[i] !== m[i - 1]! + 1)) return undefined
  return { start: m[0]!, end: m[m.length - 1]! + 1 }
}

/** The values one after another; each character keeps where it was written (-1 where a part has no map). */
export const concatVals = (vals: readonly Val[]): Val => {
  if (vals.length === 1 && vals[0]!.map && vals[0]!.map.length === vals[0]!.text.length && vals[0]!.after) return vals[0]!
  let text = ''
  let known = true
  for (const v of vals) {
    text += v.text
    known &&= v.known
  }
  const map = new Array<number>(text.length)
  const after = new Array<number>(text.length)
  const holes: Hole[] = []
  let at = 0
  for (const v of vals) {
    const n = v.text.length
    for (const [from, to] of v.holes ?? []) holes.push([from + at, to + at])
    const m = v.map && v.map.length === n ? v.map : undefined
    // A part's own `after` where it has one (of the right length, else none); else just after where it was written.
    const a = v.after ? (v.after.length === n ? v.after : undefined) : m?.map((i) => (i < 0 ? -1 : i + 1))
    for (let i = 0; i < n; i++) {
      map[at + i] = m ? m[i]! : -1
      after[at + i] = a ? a[i]! : -1
    }
    at += n
  }
  return { text, known, map, after, ...(holes.length > 0 ? { holes } : {}) }
}

/** The holes of a value that fall in [from, to), counted from `from`. */
const sliceHoles = (holes: readonly Hole[] | undefined, from: number, to: number): Hole[] =>
  (holes ?? []).flatMap(([a, b]): Hole[] => (b <= from || a >= to ? [] : [[Math.max(a, from) - from, Math.min(b, to) - from]]))

export const sliceVal = (v: Val, from: number, to?: number): Val => {
  const text = v.text.slice(from, to)
  const start = from < 0 ? Math.max(0, v.text.length + from) : Math.min(from, v.text.length)
  const holes = v.holes ? sliceHoles(v.holes, start, start + text.length) : []
  return {
    text,
    known: v.known,
    ...(v.map ? { map: v.map.slice(from, to) } : {}),
    ...(v.after ? { after: v.after.slice(from, to) } : {}),
    ...(holes.length > 0 ? { holes } : {}),
  }
}

/** The value as expanded at a reference whose construct ends at script index `end`: its characters now follow that reference. */
export const expandedAt = (v: Val, end: number): Val => ({ ...v, after: Array<number>(v.text.length).fill(end) })

export const unmapped = (text: string, known: boolean): Val => ({ text, known })
