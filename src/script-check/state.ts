/**
 * One path through a script, as the evaluator carries it: variables (global and per call frame),
 * functions, the branch depth (inside an `if`/`case`: one role's section), the `ray start`s met so
 * far, and the branch decisions taken. Paths that reach the same state by different branches are
 * merged (sameState), so scripts with many independent `if`s do not multiply paths.
 *
 * Each map of a state keeps a running hash of its entries (HashedMap), so comparing paths costs
 * what changed, not the size of the state: a long script's hundreds of variables are not re-read
 * after every statement.
 */

import type { Node } from './bash-ast.js'
import { type Arg, type Assignment, type RayStart, type Span, type Val, WATCHED, type Watched } from './model.js'

export type Var =
  | { readonly kind: 'scalar'; readonly val: Val; readonly exported: boolean; readonly assignment: Assignment }
  | { readonly kind: 'array'; readonly items: readonly Arg[] }

/** FNV-1a of a string, 32 bits. */
function hashText(text: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  return h | 0
}

const nameHashes = new Map<string, number>()
const hashName = (name: string): number => {
  let h = nameHashes.get(name)
  if (h === undefined) {
    h = hashText(name)
    nameHashes.set(name, h)
  }
  return h
}

/**
 * A map that keeps the sum of its entries' hashes as it changes (`hash`): two maps with the same
 * entries have the same hash whatever the order they were set in. `copy` is O(1): the copies share
 * one store until one of them writes (copy on write), so forking a path costs the maps it changes
 * afterwards, not every map it holds (the functions, files and containers of a long script are
 * rarely written after they are made; copying them at each of its thousands of forks made the walk
 * quadratic in the script's length).
 */
export class HashedMap<V> implements ReadonlyMap<string, V> {
  hash = 0
  private store: Map<string, V>
  /** The store is also another copy's: copy it before a write. */
  private shared = false
  constructor(
    private readonly valueHash: (v: V) => number,
    from?: HashedMap<V>,
  ) {
    if (from) {
      this.store = from.store
      this.hash = from.hash
      this.shared = true
      from.shared = true
    } else this.store = new Map()
  }
  private entryHash(k: string, v: V): number {
    return Math.imul(hashName(k) ^ Math.imul(this.valueHash(v), 0x9e3779b1), 0x85ebca6b) | 0
  }
  private own(): Map<string, V> {
    if (this.shared) {
      this.store = new Map(this.store)
      this.shared = false
    }
    return this.store
  }
  get size(): number {
    return this.store.size
  }
  get(k: string): V | undefined {
    return this.store.get(k)
  }
  has(k: string): boolean {
    return this.store.has(k)
  }
  set(k: string, v: V): this {
    const store = this.own()
    const old = store.get(k)
    if (old !== undefined || store.has(k)) this.hash = (this.hash - this.entryHash(k, old as V)) | 0
    this.hash = (this.hash + this.entryHash(k, v)) | 0
    store.set(k, v)
    return this
  }
  delete(k: string): boolean {
    if (!this.store.has(k)) return false
    const store = this.own()
    this.hash = (this.hash - this.entryHash(k, store.get(k) as V)) | 0
    return store.delete(k)
  }
  clear(): void {
    this.hash = 0
    this.store = new Map()
    this.shared = false
  }
  forEach(f: (v: V, k: string, m: ReadonlyMap<string, V>) => void): void {
    for (const [k, v] of this.store) f(v, k, this)
  }
  entries(): MapIterator<[string, V]> {
    return this.store.entries()
  }
  keys(): MapIterator<string> {
    return this.store.keys()
  }
  values(): MapIterator<V> {
    return this.store.values()
  }
  [Symbol.iterator](): MapIterator<[string, V]> {
    return this.store.entries()
  }
  copy(): HashedMap<V> {
    return new HashedMap(this.valueHash, this)
  }
  /** Both hold one store (a fork neither wrote since): the same entries in the same order. */
  sharesStore(other: HashedMap<V>): boolean {
    return this.store === other.store
  }
}

export interface Frame {
  args: Arg[]
  /** More arguments follow that are not known (the script's own, passed on with "$@"). */
  rest: boolean
  /** How many of those unknown arguments `shift` dropped: `$1` after `shift` is the unknown `${2}`. */
  shifted: number
  locals: HashedMap<Var>
  /** The call that opened this frame (undefined: the script's top level). */
  callAt?: Span
}

/**
 * A container the script started (`docker run`/`podman run --name …`), as later `docker exec`s into
 * it find it: the environment its `-e`/`--env-file` gave it (every process exec'd in it inherits
 * that), its network mode, and the host it runs on ('' here, else the ssh destination).
 */
export interface Container {
  readonly name: string
  readonly host: string
  readonly env: ReadonlyMap<Watched, Assignment>
  readonly network?: string
  /** The line of its `docker run`. */
  readonly line: number
}

export const containerKey = (host: string, name: string): string => `${host}\u0001${name}`

export interface State {
  /** The host this path's commands run on: '' for the script's own, the ssh destination inside `ssh host …`. */
  host: string
  /** Containers started on this path, by containerKey. */
  containers: HashedMap<Container>
  globals: HashedMap<Var>
  funcs: HashedMap<Node>
  /** frames[0] is the script's top level, whose arguments are unknown. */
  frames: Frame[]
  branch: number
  done: boolean
  returning: boolean
  /** `break` / `continue` met in a loop's body: the rest of this pass is skipped ('' when none). */
  loopExit: '' | 'break' | 'continue'
  starts: RayStart[]
  path: string[]
  /**
   * Inputs this path took to be empty or unset (the else-branch of `[[ -n "${WORKER_IP:-}" ]]`): a fallback the
   * script takes when the user does not give them. Not part of what makes two paths alike.
   */
  assumedEmpty: string[]
  /**
   * What this path has assumed about values it cannot know, from the branches it took: `${3}` is
   * `--head` (then-branch of `[ "$3" == --head ]`), or is none of some literals (else-branches).
   * A later test of the same value is then decided the same way (run_cluster.sh tests its role twice).
   */
  facts: HashedMap<Fact>
  /** Files the script wrote from a here-document (`cat > FILE <<EOF`), by path: what `--env-file FILE` reads. */
  files: HashedMap<Val>
  /**
   * Inside a pipe's left side: the text its statements wrote on their standard output, where each only passed text on (`cat <<EOF`,
   * `echo`, `tee`; in a function called there too), for the right side to read (`runscript "$r" | ssh "$host" 'cat > f && bash f'`).
   */
  out?: Val[]
}

export interface Fact {
  readonly eq?: string
  readonly ne: readonly string[]
}

export const newVars = (): HashedMap<Var> => new HashedMap(hashVar)

const containerText = (c: Container): string => JSON.stringify([c.name, c.host, c.network ?? '', [...c.env].map(([k, a]) => [k, a.val.text, a.span.start])])

export const newContainers = (): HashedMap<Container> => new HashedMap((c: Container) => hashText(containerText(c)))

export const initialState = (): State => ({
  host: '',
  containers: newContainers(),
  globals: newVars(),
  funcs: new HashedMap(() => 0),
  frames: [{ args: [], rest: true, shifted: 0, locals: newVars() }],
  branch: 0,
  done: false,
  returning: false,
  loopExit: '',
  starts: [],
  path: [],
  assumedEmpty: [],
  facts: new HashedMap((f: Fact) => hashText(JSON.stringify(f))),
  files: new HashedMap((v: Val) => hashText(v.text)),
})

export const fork = (s: State): State => ({
  host: s.host,
  containers: s.containers.copy(),
  globals: s.globals.copy(),
  funcs: s.funcs.copy(),
  frames: s.frames.map((f) => ({ ...f, args: [...f.args], locals: f.locals.copy() })),
  branch: s.branch,
  done: s.done,
  returning: s.returning,
  loopExit: s.loopExit,
  starts: [...s.starts],
  path: [...s.path],
  assumedEmpty: [...s.assumedEmpty],
  facts: s.facts.copy(),
  files: s.files.copy(),
  ...(s.out ? { out: [...s.out] } : {}),
})

/** A key per value, computed once per object: paths share the objects they did not change since they forked. */
function memo<T extends object>(f: (x: T) => string): (x: T) => string {
  const keys = new WeakMap<T, string>()
  return (x) => {
    let k = keys.get(x)
    if (k === undefined) {
      k = f(x)
      keys.set(x, k)
    }
    return k
  }
}

const varKey = memo((v: Var): string =>
  JSON.stringify(
    v.kind === 'scalar' ? [v.val.text, v.exported, v.assignment.span.start, v.assignment.span.line] : v.items.map((a) => [a.val.text, a.span.start]),
  ),
)

/**
 * A hash of what varKey writes, from its parts (no key written): equal keys give equal hashes. Computed
 * once per value (paths share the values they did not change).
 */
const varHashes = new WeakMap<Var, number>()
function hashVar(v: Var): number {
  let h = varHashes.get(v)
  if (h === undefined) {
    const mix = (x: number) => {
      h = Math.imul((h ?? 0x811c9dc5) ^ x, 0x01000193) | 0
    }
    if (v.kind === 'scalar') {
      mix(hashText(v.val.text))
      mix(v.exported ? 1 : 2)
      mix(v.assignment.span.start)
      mix(v.assignment.span.line)
    } else {
      mix(3 + v.items.length)
      for (const a of v.items) {
        mix(hashText(a.val.text))
        mix(a.span.start)
      }
    }
    varHashes.set(v, h!)
  }
  return h!
}

const startKey = memo((r: RayStart): string =>
  JSON.stringify([r.line, r.rayLine, r.args.map((a) => a.val.text), [...r.env].map(([k, v]) => [k, v.val.text, v.span.start])]),
)

/** Two maps hold the same entries in the same order, values alike by `same` (checked by identity first: forks share them). */
function sameEntries<V>(a: ReadonlyMap<string, V>, b: ReadonlyMap<string, V>, same: (x: V, y: V) => boolean): boolean {
  if (a === b || (a instanceof HashedMap && b instanceof HashedMap && a.sharesStore(b))) return true
  if (a.size !== b.size) return false
  const other = b.entries()
  for (const [k, v] of a) {
    const [k2, v2] = other.next().value as [string, V]
    if (k !== k2 || (v !== v2 && !same(v, v2))) return false
  }
  return true
}

const sameVar = (x: Var, y: Var): boolean => varKey(x) === varKey(y)
const sameFact = (x: Fact, y: Fact): boolean => JSON.stringify(x) === JSON.stringify(y)
const sameFile = (x: Val, y: Val): boolean => x.text === y.text
const sameContainer = (x: Container, y: Container): boolean => containerText(x) === containerText(y)
const sameList = <T>(a: readonly T[], b: readonly T[], same: (x: T, y: T) => boolean): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i] || same(x, b[i]!))

/**
 * What makes two paths different for the rest of the script (the branch decisions taken do not):
 * the variables of every scope, the functions known, where the path is, the starts met, its
 * assumptions, the files written, the host and the containers, each compared in order. It walks
 * both states side by side and stops at the first difference, sharing what forks share, instead of
 * writing each state out as one key (which cost the size of the whole state per comparison).
 */
export function sameState(a: State, b: State): boolean {
  return (
    a.branch === b.branch &&
    a.done === b.done &&
    a.returning === b.returning &&
    a.loopExit === b.loopExit &&
    a.host === b.host &&
    sameEntries(a.globals, b.globals, sameVar) &&
    sameEntries(a.funcs, b.funcs, () => true) &&
    sameList(
      a.frames,
      b.frames,
      (f, g) =>
        f.rest === g.rest &&
        f.shifted === g.shifted &&
        sameList(f.args, g.args, (x, y) => x.val.text === y.val.text) &&
        sameEntries(f.locals, g.locals, sameVar),
    ) &&
    sameList(a.starts, b.starts, (x, y) => startKey(x) === startKey(y)) &&
    sameEntries(a.facts, b.facts, sameFact) &&
    sameEntries(a.files, b.files, sameFile) &&
    sameEntries(a.containers, b.containers, sameContainer) &&
    sameList(a.out ?? [], b.out ?? [], (x, y) => x.text === y.text)
  )
}

export function startKeyOf(r: RayStart): string {
  return startKey(r)
}

/** A hash of what sameState compares, from the maps' running hashes: equal states hash alike. */
function stateHash(s: State): number {
  let h = hashText(JSON.stringify([s.branch, s.done, s.returning, s.loopExit, s.frames.length, s.starts.length]))
  const mix = (x: number) => {
    h = Math.imul(h ^ x, 0x01000193) | 0
  }
  mix(s.globals.hash)
  mix(s.funcs.hash)
  mix(s.facts.hash)
  mix(s.files.hash)
  mix(s.containers.hash)
  mix(hashName(s.host))
  for (const f of s.frames) {
    mix(f.locals.hash)
    mix(f.shifted)
    for (const a of f.args) mix(hashName(a.val.text))
  }
  for (const r of s.starts) mix(hashName(startKey(r)))
  return h
}

/** Each distinct state once (the first path's decisions kept). States are compared in full only where their hashes meet. */
export function mergePaths(states: readonly State[]): State[] {
  if (states.length < 2) return [...states]
  const buckets = new Map<number, State[]>()
  return states.filter((s) => {
    const h = stateHash(s)
    const same = buckets.get(h)
    if (!same) {
      buckets.set(h, [s])
      return true
    }
    if (same.some((o) => sameState(o, s))) return false
    same.push(s)
    return true
  })
}

const LAUNCHES = /\b(?:ray|vllm|docker|podman|nvidia-docker|apptainer|singularity|ssh|srun|mpirun|torchrun|python3?|bash|sh|exec|env|export|source)\b|^\s*\.\s/
/** A start's command written out: `ray start`, `ray --logging-level info start`, `vllm serve`, vLLM's server module, Ray's CLI module. */
const START_TEXT = /\bray(?:\s+--log[\w-]*(?:=|\s+)\S+)*\s+start\b|\bvllm\s+serve\b|\bvllm\.entrypoints\.|\bray\.scripts\.scripts\b/
const REFERENCE = /\$\{?([A-Za-z_]\w*)/g
const ASSIGNED = /(?:^|[\s;&|(])(?:printf\s+-v\s+([A-Za-z_]\w*)|([A-Za-z_]\w*)(?:\[[^\]]*\])?\+?=)/g

/**
 * The variables a start can depend on, read from the text (an over-approximation): the watched
 * ones, every variable a line that starts something (`ray`, `vllm`, `docker`, `ssh`, a shell,
 * `export`, …) reads, and, again and again, every variable an assignment to one of those reads.
 * Paths that differ only in other variables (an option's value, a loop counter, a message) lead
 * to the same starts and may be joined.
 */
export function startInputs(text: string): ReadonlySet<string> {
  const lines = text.replace(/\\\n/g, ' ').split('\n')
  const relevant = new Set<string>(WATCHED)
  const feeds = new Map<string, Set<string>>()
  // Variables that hold a start's command (`FRAMEWORK_CMD="ray start --address=…"`), and those built from one: a path that holds another
  // command than the next runs another start (CSCS's launcher, held-out15).
  const carriers = new Set<string>()
  for (const line of lines) {
    const refs = [...line.matchAll(REFERENCE)].map((m) => m[1]!)
    const launches = LAUNCHES.test(line)
    if (launches) for (const r of refs) relevant.add(r)
    for (const m of line.matchAll(ASSIGNED)) {
      const name = m[1] ?? m[2]!
      const into = feeds.get(name) ?? new Set<string>()
      for (const r of refs) if (r !== name) into.add(r)
      feeds.set(name, into)
      if (START_TEXT.test(line)) carriers.add(name)
    }
    // `read … NAME <<< "$X"`: NAME is read from X.
    const read = /\bread\b.*?\b([A-Za-z_]\w*)\s*<<</.exec(line)
    if (read) feeds.set(read[1]!, new Set([...(feeds.get(read[1]!) ?? []), ...refs]))
  }
  let grew = carriers.size > 0
  while (grew) {
    grew = false
    for (const [name, from] of feeds)
      if (!carriers.has(name) && [...from].some((r) => carriers.has(r))) {
        carriers.add(name)
        grew = true
      }
  }
  for (const c of carriers) relevant.add(c)
  const todo = [...relevant]
  while (todo.length > 0) {
    for (const r of feeds.get(todo.pop()!) ?? [])
      if (!relevant.has(r)) {
        relevant.add(r)
        todo.push(r)
      }
  }
  return relevant
}

/**
 * What keeps two paths apart even when there are too many: where they are (call depth, branch depth,
 * stopped or returning), the functions known, the starts met, and the variables a start can depend
 * on (startInputs) in every scope. Paths alike in all of that can be joined (joinPaths).
 */
function coarseKey(s: State, inputs: ReadonlySet<string>): string {
  const watched = (m: ReadonlyMap<string, Var>) => {
    let out = ''
    for (const name of inputs) {
      const v = m.get(name)
      if (v) out += `${name}\u0000${varKey(v)}\u0001`
    }
    return out
  }
  return JSON.stringify([
    s.frames.length,
    s.branch,
    s.done,
    s.returning,
    s.loopExit,
    [...s.funcs.keys()],
    s.starts.map(startKey),
    watched(s.globals),
    s.frames.map((f) => watched(f.locals)),
    s.host,
    [...s.containers.values()].map(containerText),
  ])
}

const unknownVar = (name: string, like: Var | undefined, exported: boolean): Var => {
  // An array the paths fill differently (`ARGS=()` on one, `ARGS=(--cpuset-cpus "$C")` on another) expands to words
  // unknown in number, as `"$@"` does: never one word (a docker run would take it for the image).
  if (like?.kind === 'array') {
    const text = `\${${name}[@]}`
    return {
      kind: 'array',
      items: [
        { val: { text, known: false, map: Array<number>(text.length).fill(-1) }, span: { start: -1, end: -1, line: 0 }, depth: 0, nested: false, rest: true },
      ],
    }
  }
  const val: Val = { text: `\${${name}}`, known: false, map: Array<number>(name.length + 3).fill(-1) }
  const span = like?.kind === 'scalar' ? like.assignment.span : { start: -1, end: -1, line: 0 }
  return { kind: 'scalar', val, exported, assignment: { name, val, span, kind: 'assign', inBranch: true } }
}

/**
 * Variables every path agrees on stay; one they disagree on (or some lack) is unknown from here on. The
 * first path's variables are copied (their store shared) and only those the paths disagree on are set:
 * a value the paths share since they forked is the same object, and maps not written since are one store.
 */
/** Two words of an array alike: the same text, known alike, and neither one standing for words unknown in number. */
const sameWord = (a: Arg | undefined, b: Arg): boolean => a !== undefined && !a.rest && !b.rest && a.val.known === b.val.known && a.val.text === b.val.text

function joinVars(maps: readonly HashedMap<Var>[]): HashedMap<Var> {
  const first = maps[0]!
  const others = maps.slice(1).filter((m) => !m.sharesStore(first))
  const out = first.copy()
  if (others.length === 0) return out
  const all = [first, ...others]
  const agree = (name: string): boolean => {
    const v = first.get(name)
    return (
      v !== undefined &&
      others.every((m) => {
        const w = m.get(name)
        return w === v || (w !== undefined && varKey(w) === varKey(v))
      })
    )
  }
  const unknown = (name: string): Var => {
    const vs = all.map((m) => m.get(name))
    // An array every path built from the same first words (`vllm_args=(serve "$model" --nnodes 8 …)`, then options appended on some
    // paths): those words stay, the rest is unknown in number (an eight-Spark launcher's serve, held-out21).
    const arrays = vs.flatMap((v) => (v?.kind === 'array' ? [v.items] : []))
    if (arrays.length === vs.length) {
      const head = arrays[0]!
      let n = 0
      while (n < head.length && arrays.every((items) => sameWord(items[n], head[n]!))) n++
      if (n > 0) {
        const rest = unknownVar(name, vs[0], false)
        return { kind: 'array', items: [...head.slice(0, n), ...(rest.kind === 'array' ? rest.items : [])] }
      }
    }
    return unknownVar(
      name,
      vs.find((v) => v?.kind === 'array') ?? vs.find((v) => v !== undefined),
      vs.some((v) => v?.kind === 'scalar' && v.exported),
    )
  }
  // In the order a Map of every path's names in turn holds them (the first path's, then those only later paths set).
  const names = new Set(first.keys())
  const changed: string[] = []
  for (const name of names) if (!agree(name)) changed.push(name)
  for (const m of others)
    for (const name of m.keys())
      if (!names.has(name)) {
        names.add(name)
        changed.push(name)
      }
  for (const name of changed) out.set(name, unknown(name))
  return out
}

/**
 * Paths alike in what their starts can depend on (coarseKey) joined into one: a variable they set differently
 * becomes unknown (a symbolic `${NAME}`, as an input would be), the files and assumptions they
 * share stay, and every start met on any of them is kept. This bounds the paths a long script
 * carries (an option loop, helpers called per node) without dropping any of them.
 */
export function joinPaths(states: readonly State[], inputs: ReadonlySet<string>): State[] {
  const groups = new Map<string, State[]>()
  for (const s of states) {
    const k = coarseKey(s, inputs)
    const g = groups.get(k)
    if (g) g.push(s)
    else groups.set(k, [s])
  }
  return [...groups.values()].map((g) => (g.length === 1 ? g[0]! : join(g)))
}

function join(g: readonly State[]): State {
  const base = fork(g[0]!)
  base.globals = joinVars(g.map((s) => s.globals))
  base.frames = base.frames.map((f, i) => ({ ...f, locals: joinVars(g.map((s) => s.frames[i]!.locals)) }))
  for (const [k, v] of base.files) if (!g.every((s) => s.files.get(k)?.text === v.text)) base.files.delete(k)
  for (const [k, v] of base.facts) if (!g.every((s) => JSON.stringify(s.facts.get(k)) === JSON.stringify(v))) base.facts.delete(k)
  const seen = new Set(base.starts.map(startKey))
  for (const s of g.slice(1))
    for (const r of s.starts) {
      const k = startKey(r)
      if (!seen.has(k)) {
        seen.add(k)
        base.starts.push(r)
      }
    }
  return base
}
