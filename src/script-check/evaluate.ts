/**
 * A launch script run on paper: every path through it (each `if`/`case`/`&&` whose condition is
 * not known forks; paths that end in the same state merge), with variables, `export`, `local`,
 * arrays, functions and their positional arguments followed, up to each `ray start` (directly, as
 * a container's command, or in a string another shell runs). The script's own arguments are
 * unknown, so argument-parsing loops and `usage; exit` branches fork rather than end the walk:
 * every role's section is reached. Each `ray start` is recorded (model.ts RayStart) with where its
 * values were written, so the rules can point at the line and patches can edit the right characters.
 *
 * Words: expand.ts; conditions: conditions.ts; commands: commands.ts; positions inside nested
 * strings: source-map.ts.
 */

import { fail, problem } from '../result/result.js'
import { bool, child, children, nodeType, num, OP, parseBash, str, type Node, type ParseError, type ParsedScript } from './bash-ast.js'
import { Commands, type Interp, type Prefix } from './simple-commands.js'
import { Conditions, globMatch, record, SUBSTITUTIONS_MAY_BE_EMPTY } from './conditions.js'
import { Expander, hasPlaceholder, NODE_ENVIRONMENT, type Scope } from './expand.js'
import { type Arg, type Assignment, concatVals, HOLE_TOKEN, type Hole, type RayStart, type Span, sliceVal, type Val, writtenAt } from './model.js'
import { posix } from 'node:path'
import { type ComposeService, composeServices, interpolate } from './compose.js'
import { Positions, ScriptLines, type SourcedFile } from './source-map.js'
import { type ReadSourced, type RunClusterCall, type SourceNote, sourcedPath } from './sourced.js'
import { fork, type HashedMap, initialState, joinPaths, mergePaths, newVars, startInputs, startKeyOf, type State, type Var } from './state.js'

export type { Arg, Assignment, RayStart, Val, Watched } from './model.js'
export { WATCHED } from './model.js'
import { WATCHED } from './model.js'
export { globMatch } from './conditions.js'

export interface Evaluation {
  readonly starts: readonly RayStart[]
  readonly error?: ParseError
  /** Paths were cut at this many. */
  readonly truncated: boolean
  /** The script's lines and those of every file it sources, in one index space (spans, edits and lines are in it). */
  readonly lines: ScriptLines
  /** `source`s not followed, with why. */
  readonly notes: readonly SourceNote[]
  /** Where a command whose name is an option word (`--name …`) starts, in the index space (broken-continuation.ts reads them). */
  readonly optionCommands: readonly number[]
  /** A template's angle-bracket placeholders the script was read with as inputs (bash refuses the text with them). */
  readonly placeholders?: readonly { readonly at: number; readonly text: string }[]
}

/** What every evaluator of one script shares: parses, the files it sources and how to read them. */
interface Shared {
  /** Strings nested shells run, parsed once per text (a helper called per node and per path runs the same string). */
  readonly parses: Map<string, ParsedScript | undefined>
  readonly lines: ScriptLines
  readonly read?: ReadSourced
  /** Sourced files by path: parsed (with where they start), or why they were not. */
  readonly sourced: Map<string, { parsed: ParsedScript; text: string; offset: number } | { why: string }>
  readonly notes: SourceNote[]
  /** Where a command named by an option word (`--name`, `-v`) starts, in the index space: a line a lost `\\` cut off its command. */
  readonly optionCommands: Set<number>
  /** Other files commands read (compose files, env files), by path: where they sit in the index space, or null when not readable. */
  readonly readFiles: Map<string, SourcedFile | null>
}

const COMPOSE_DEFAULTS = ['compose.yaml', 'compose.yml', 'docker-compose.yaml', 'docker-compose.yml']

/** The evaluator a function was defined in: its body's positions are that text's. */
const owners = new WeakMap<Node, Evaluator>()

const MAX_PATHS = 64
/**
 * Beyond this many live paths, those alike in what the rules read are joined (state.ts joinPaths). Two, not eight: every
 * live path runs each function a call site reaches on its own, so paths kept apart by variables no start reads multiplied
 * the work (eugr's 1,294-line launch-cluster.sh: 80,177 statements run at eight, 42,169 at two; 1.0 s → 0.6 s a check).
 * Every real script's whole result (findings, lines, patches) is the same at both, and at one it is not (a join before
 * every fork loses a sourced file's second note).
 */
const JOIN_AT = 2
const JOIN_HARD = 16
const WATCHED_SET: ReadonlySet<string> = new Set(WATCHED)
const MAX_DEPTH = 12
const MAX_NESTING = 4
/** A `for` loop over more words than this runs its body once, as over unknown words. */
const MAX_ITEMS = 32

class Evaluator implements Scope, Interp {
  readonly ex: Expander
  private readonly conds: Conditions
  private readonly cmds: Commands
  truncated = false
  private inputs?: { readonly of: number; readonly names: ReadonlySet<string> }

  /**
   * The variables a start can depend on (state.ts startInputs), read once per text: a nested string's
   * own, else the script's with every file it sourced so far (a helper defined in one reads them).
   */
  private startInputs(): ReadonlySet<string> {
    const text = this.pos.nested ? this.text : this.shared.lines.text
    if (this.inputs?.of !== text.length) this.inputs = { of: text.length, names: startInputs(text) }
    return this.inputs.names
  }

  constructor(
    readonly script: ParsedScript,
    readonly text: string,
    readonly pos: Positions,
    private readonly env: ReadonlyMap<string, Var> | undefined,
    private readonly nesting: number,
    private readonly shared: Shared,
    /** The file this text is (the script, or a file it sources): what BASH_SOURCE names in it. */
    private readonly file: string,
    /** Files being sourced around this one, outermost first (a file that sources itself again is a cycle). */
    private readonly chain: readonly string[] = [],
    /** In a string another shell runs: the values its caller computed, by their tokens in the text. */
    readonly holes?: ReadonlyMap<string, Val>,
    /** In another shell: the names its caller assigned without exporting them, unset here (`bash <<EOF … \$ip_addr …`). */
    readonly unexported?: ReadonlySet<string>,
  ) {
    this.ex = new Expander(this)
    this.conds = new Conditions(this.ex)
    this.cmds = new Commands(this)
  }

  get envKnown(): boolean {
    return this.env !== undefined
  }

  lookup(s: State, name: string): Var | undefined {
    for (let i = s.frames.length - 1; i >= 0; i--) {
      const v = s.frames[i]!.locals.get(name)
      if (v) return v
    }
    return s.globals.get(name) ?? this.env?.get(name)
  }

  private setVar(s: State, name: string, given: Var, local: boolean): void {
    const v = placeholderAsInput(name, given)
    if (local && s.frames.length > 1) {
      s.frames[s.frames.length - 1]!.locals.set(name, v)
      return
    }
    for (let i = s.frames.length - 1; i >= 1; i--) {
      if (s.frames[i]!.locals.has(name)) {
        s.frames[i]!.locals.set(name, v)
        return
      }
    }
    s.globals.set(name, v)
  }

  /** `piped`: what the statements read on their standard input from a pipe's left side (`cat <<EOF | tee FILE`). */
  run(stmts: Node[], states: State[], piped?: Val): State[] {
    let cur = states
    for (const [i, stmt] of stmts.entries()) {
      // The first command that reads the input takes it all (`cat > f && bash f`): the statements after the first get none.
      const input = i === 0 ? piped : undefined
      const next = cur.flatMap((s) => (s.done || s.returning || s.loopExit !== '' ? [s] : this.stmt(stmt, s, input)))
      // Paths are compared where a statement forked them (two paths that converged without a fork meet at the next one):
      // comparing every path after every statement made the walk quadratic in the script's length.
      cur = next.length > cur.length ? mergePaths(next) : next
      let live = cur.filter((s) => !s.done)
      if (live.length > JOIN_AT) {
        live = joinPaths(live, this.startInputs())
        // Still too many: alike in the watched variables is enough (an option loop that sets many inputs).
        if (live.length > JOIN_HARD) live = joinPaths(live, WATCHED_SET)
        cur = [...cur.filter((s) => s.done), ...live]
      }
      if (live.length > MAX_PATHS) {
        this.truncated = true
        cur = [...cur.filter((s) => s.done), ...live.slice(0, MAX_PATHS)]
      }
    }
    return cur
  }

  private inBranch(s: State, fn: (s: State) => State[]): State[] {
    s.branch++
    return fn(s).map((x) => {
      x.branch--
      return x
    })
  }

  /** Both ways of an undecided condition (each path remembering what it assumed); one way when it is known. */
  private branch(s: State, truth: boolean | undefined, label: [string, string], yes: (s: State) => State[], no: (s: State) => State[], cond?: Node[]): State[] {
    if (truth === true) return this.inBranch(s, yes)
    if (truth === false) return no(s)
    const other = fork(s)
    s.path.push(label[0])
    other.path.push(label[1])
    if (cond) {
      this.conds.assume(s, cond, true)
      this.conds.assume(other, cond, false)
    }
    return [...this.inBranch(s, yes), ...no(other)]
  }

  private stmt(stmt: Node, s: State, piped?: Val): State[] {
    const cmd = child(stmt, 'Cmd')
    if (!cmd) return [s]
    switch (nodeType(cmd)) {
      case 'CallExpr': {
        const stdin = this.ex.hereDocOf(s, stmt) ?? piped
        if (stdin) this.writesFile(stmt, cmd, s, stdin)
        if (s.out) {
          const written = this.ex.output(s, stmt, piped)
          if (written) s.out.push(written)
        }
        return this.call(cmd, s, stdin)
      }
      case 'DeclClause':
        return this.decl(cmd, s)
      case 'IfClause':
        return this.ifClause(cmd, s)
      case 'CaseClause':
        return this.caseClause(cmd, s)
      case 'BinaryCmd':
        return this.binary(cmd, s, piped)
      case 'Block':
      case 'Subshell':
        return this.run(children(cmd, 'Stmts'), [s], piped)
      case 'FuncDecl':
        s.funcs.set(str(child(cmd, 'Name')!, 'Value'), child(cmd, 'Body')!)
        owners.set(child(cmd, 'Body')!, this)
        return [s]
      case 'WhileClause':
      case 'ForClause':
        return this.loop(cmd, s)
      default:
        return [s]
    }
  }

  /** Loops being run around the statement now (`break` and `continue` count only inside one). */
  private loopDepth = 0

  inLoop(): boolean {
    return this.loopDepth > 0
  }

  /**
   * `for NAME in WORDS`: the body once per word, NAME set to it, when the words are known (a list, or an
   * array of known items; at most MAX_ITEMS). Otherwise (`for x; do`, `"$@"` at the top level, a while
   * loop) one pass with the variable as it stands: argument loops fork on `case "$1"` and every option's
   * path goes on. `continue` ends a pass, `break` the loop.
   */
  private loop(cmd: Node, s: State): State[] {
    // A while/until loop's condition runs before its body, and a start there is a start (`until ray start …; do sleep 5;
    // done`, the retry of a worker that waits for its head).
    const cond = nodeType(cmd) === 'WhileClause' ? children(cmd, 'Cond') : []
    const body = [...cond, ...children(cmd, 'Do')]
    const iter = child(cmd, 'Loop')
    const items = iter && nodeType(iter) === 'WordIter' ? children(iter, 'Items') : []
    const words = items.length > 0 ? this.ex.argsOf(s, items) : []
    this.loopDepth++
    try {
      if (words.length === 0 || words.length > MAX_ITEMS || words.some((a) => a.rest)) {
        const before = s.globals.copy()
        return optionsOfOtherPasses(this.pass(body, [s]).states, before)
      }
      const name = str(child(iter!, 'Name')!, 'Value')
      let live = [s]
      const out: State[] = []
      for (const w of words) {
        for (const st of live) {
          const prev = this.lookup(st, name)
          const assignment: Assignment = { name, val: w.val, span: w.span, kind: 'assign', inBranch: st.branch > 0 }
          this.setVar(st, name, { kind: 'scalar', val: w.val, exported: prev?.kind === 'scalar' && prev.exported, assignment }, false)
        }
        const after = this.pass(body, live)
        out.push(...after.ended)
        live = after.states.filter((x) => !after.ended.includes(x))
        if (live.length === 0) break
      }
      return [...out, ...live]
    } finally {
      this.loopDepth--
    }
  }

  /** One pass of a loop's body; the paths that left it by `break` (or stopped) are `ended`. */
  private pass(body: Node[], states: State[]): { states: State[]; ended: State[] } {
    const after = this.run(body, states)
    const ended: State[] = []
    for (const x of after) {
      if (x.loopExit === 'break' || x.done || x.returning) ended.push(x)
      x.loopExit = ''
    }
    return { states: after, ended }
  }

  private binary(cmd: Node, s: State, piped?: Val): State[] {
    const op = num(cmd, 'Op')
    const x = child(cmd, 'X')!
    const y = child(cmd, 'Y')!
    if (op === OP.Pipe) {
      // The right side reads what the left writes, where the left only passes text on (a here-document through `cat`, a function
      // that prints a script): the left runs with its output kept (State.out), each path's given to the right.
      const outer = s.out
      s.out = []
      return this.run([x], [s], piped).flatMap((st) => {
        const written = st.out ?? []
        if (outer) st.out = [...outer]
        else delete st.out
        return this.run([y], [st], written.length > 0 ? concatVals(written) : undefined)
      })
    }
    if (op !== OP.AndStmt && op !== OP.OrStmt) return this.run([x, y], [s])
    const c = this.conds.of(s, [x])
    const line = this.ex.span(cmd).line
    const sym = op === OP.AndStmt ? '&&' : '||'
    return this.run([x], [s], piped).flatMap((st) => {
      if (st.done || st.returning || st.loopExit !== '') return [st]
      const runY = op === OP.AndStmt ? c : c === undefined ? undefined : !c
      const cond = op === OP.AndStmt ? [x] : undefined
      return this.branch(
        st,
        runY,
        [`line ${line}: ${sym} taken`, `line ${line}: ${sym} not taken`],
        (b) => this.run([y], [b]),
        (b) => [b],
        cond,
      )
    })
  }

  private caseClause(cmd: Node, s: State): State[] {
    const line = this.ex.span(cmd).line
    const written = this.ex.wordVal(s, child(cmd, 'Word')!)
    const out: State[] = []
    for (const item of children(cmd, 'Items')) {
      const eq = written.known ? undefined : s.facts.get(written.text)?.eq
      const word = eq === undefined ? written : { text: eq, known: true }
      const patterns = children(item, 'Patterns').map((p) => this.ex.wordVal(s, p))
      const catchAll = patterns.some((p) => p.known && p.text === '*')
      const excluded = !word.known && patterns.every((p) => s.facts.get(word.text)?.ne.includes(p.text))
      const hit =
        word.known && patterns.every((p) => p.known) ? patterns.some((p) => globMatch(p.text, word.text)) : catchAll ? true : excluded ? false : undefined
      if (hit === false) continue
      const b = fork(s)
      b.path.push(`line ${line}: case ${patterns.map((p) => p.text).join('|')}`)
      // The item taken: the word is its pattern; passed over: it is none of them.
      if (hit === undefined) {
        if (patterns.length === 1) record(b.facts, word, patterns[0]!, true)
        for (const p of patterns) record(s.facts, word, p, false)
      }
      out.push(...this.inBranch(b, (x) => this.run(children(item, 'Stmts'), [x])))
      if (hit === true) return out
    }
    out.push(s)
    return out
  }

  private ifClause(cmd: Node, s: State): State[] {
    const line = this.ex.span(cmd).line
    const condStmts = children(cmd, 'Cond')
    const els = child(cmd, 'Else')
    const runElse = (st: State): State[] => {
      if (!els) return [st]
      if (children(els, 'Cond').length === 0) return this.inBranch(st, (b) => this.run(children(els, 'Then'), [b]))
      return this.ifClause(els, st)
    }
    const then = (b: State) => this.run(children(cmd, 'Then'), [b])
    if (condStmts.length === 0) return this.inBranch(s, then)
    // The condition's own commands run first (an assignment or a function in it counts), and a start among them runs
    // (`if ! ray start --head …; then exit 1; fi`).
    const truth = this.conds.of(s, condStmts)
    return this.run(condStmts, [s]).flatMap((st) =>
      st.done || st.returning || st.loopExit !== '' ? [st] : this.branch(st, truth, [`line ${line}: then`, `line ${line}: else`], then, runElse, condStmts),
    )
  }

  private assign(s: State, a: Node, kind: Assignment['kind'], exported: boolean | undefined, local: boolean): void {
    const nameNode = child(a, 'Name')
    if (!nameNode) return
    const name = str(nameNode, 'Value')
    const prev = this.lookup(s, name)
    const span = this.ex.span(a)
    if (bool(a, 'Naked')) {
      if (exported && prev?.kind === 'scalar') this.setVar(s, name, { ...prev, exported: true }, local)
      else if (local) {
        const val: Val = { text: '', known: true, map: [] }
        this.setVar(s, name, { kind: 'scalar', val, exported: false, assignment: { name, val, span, kind, inBranch: s.branch > 0 } }, true)
      }
      return
    }
    const array = child(a, 'Array')
    if (array) {
      const words = children(array, 'Elems').flatMap((e) => (child(e, 'Value') ? [child(e, 'Value')!] : []))
      const before = bool(a, 'Append') && prev?.kind === 'array' ? prev.items : []
      this.setVar(s, name, { kind: 'array', items: [...before, ...this.ex.argsOf(s, words)] }, local)
      return
    }
    const valueWord = child(a, 'Value')
    const valueSpan = valueWord && !bool(a, 'Append') ? this.ex.span(valueWord) : undefined
    const raw: Val = valueWord ? this.ex.wordVal(s, valueWord) : { text: '', known: true, map: [] }
    const val: Val =
      bool(a, 'Append') && prev?.kind === 'scalar'
        ? { text: prev.val.text + raw.text, known: prev.val.known && raw.known, map: [...fill(prev.val), ...fill(raw)], ...appendedHoles(prev.val, raw) }
        : raw
    const previous = prev?.kind === 'scalar' ? prev.assignment : undefined
    const assignment: Assignment = {
      name,
      val,
      span,
      kind,
      inBranch: s.branch > 0,
      ...(previous ? { previous } : {}),
      ...(span.start >= 0 ? { removable: { start: span.start, end: span.end } } : {}),
      ...(valueSpan && valueSpan.start >= 0 ? { valueAt: { start: valueSpan.start, end: valueSpan.end } } : {}),
    }
    this.setVar(s, name, { kind: 'scalar', val, exported: exported ?? (prev?.kind === 'scalar' && prev.exported), assignment }, local)
  }

  private decl(cmd: Node, s: State): State[] {
    const variant = str(child(cmd, 'Variant')!, 'Value')
    // Options are naked words (`-x`, `-gx`): their source text, as mvdan-sh keeps them as a Value word.
    const flags = children(cmd, 'Args').filter((a) => bool(a, 'Naked') && /^-\w/.test(this.ex.src(a)))
    // `declare -g` (bash 4.2+) sets the global variable from inside a function.
    const local = variant === 'local' || ((variant === 'declare' || variant === 'typeset') && !flags.some((f) => /^-\w*g/.test(this.ex.src(f))))
    const exported = variant === 'export' || flags.some((f) => /^-\w*x/.test(this.ex.src(f))) ? true : undefined
    const kind = variant === 'export' ? 'export' : local ? 'local' : 'assign'
    for (const a of children(cmd, 'Args')) {
      if (child(a, 'Name')) this.assign(s, a, kind, exported, local && s.frames.length > 1)
      else if (child(a, 'Value') && !flags.includes(a)) this.assignByName(s, child(a, 'Value')!, kind, exported, local && s.frames.length > 1)
    }
    return [s]
  }

  /**
   * `export "$name"="$value"` (a helper that exports what its caller names, as DGX Spark launchers'
   * `export_persist VLLM_HOST_IP "$HOST_IP"`): bash expands the word, then reads NAME=VALUE from it; a
   * name known on this path makes it that variable's assignment.
   */
  private assignByName(s: State, word: Node, kind: Assignment['kind'], exported: boolean | undefined, local: boolean): void {
    const v = this.ex.wordVal(s, word)
    const m = /^([A-Za-z_]\w*)=/.exec(v.text)
    if (!m) return
    const name = m[1]!
    const prev = this.lookup(s, name)
    const val = sliceVal(v, m[0].length)
    const previous = prev?.kind === 'scalar' ? prev.assignment : undefined
    const assignment: Assignment = {
      name,
      val,
      span: this.ex.span(word),
      kind,
      inBranch: s.branch > 0,
      ...(previous ? { previous } : {}),
      ...(s.frames.length > 1 ? { inFunction: true } : {}),
    }
    this.setVar(s, name, { kind: 'scalar', val, exported: exported ?? (prev?.kind === 'scalar' && prev.exported), assignment }, local)
  }

  /** `cat > FILE <<EOF`, `cat <<EOF >FILE`, `tee FILE <<EOF`, `cat <<EOF | tee -a FILE`: the file now holds the text. */
  private writesFile(stmt: Node, cmd: Node, s: State, body: Val): void {
    const words = children(cmd, 'Args')
    const name = words[0] ? this.ex.wordVal(s, words[0]).text.replace(/^.*\//, '') : ''
    const out = children(stmt, 'Redirs').find((x) => num(x, 'Op') === OP.RdrOut || num(x, 'Op') === OP.AppOut)
    const teeFile = name === 'tee' ? words.slice(1).find((w) => !this.ex.src(w).startsWith('-')) : undefined
    const target = name === 'cat' && out ? this.ex.wordVal(s, child(out, 'Word')!) : teeFile ? this.ex.wordVal(s, teeFile) : undefined
    // A path the script computes (`/tmp/ray-head-${SLURM_JOB_ID}.sh`) is the same file where it is written the same way.
    if (target && target.text.trim() !== '') s.files.set(target.text, body)
  }

  private call(cmd: Node, s: State, stdin?: Val): State[] {
    const words = children(cmd, 'Args')
    const assigns = children(cmd, 'Assigns')
    if (words.length === 0) {
      for (const a of assigns) this.assign(s, a, 'assign', undefined, false)
      return [s]
    }
    this.optionAsCommand(words[0]!)
    if (stdin && this.ex.src(words[0]!) === 'read') return this.readInto(s, words.slice(1), stdin)
    const prefix = new Map<string, Prefix>()
    for (const a of assigns) {
      const v = child(a, 'Value')
      const at = v ? this.ex.span(v) : undefined
      prefix.set(str(child(a, 'Name')!, 'Value'), {
        val: v ? this.ex.wordVal(s, v) : { text: '', known: true, map: [] },
        span: this.ex.span(a),
        ...(at && at.start >= 0 ? { valueAt: { start: at.start, end: at.end } } : {}),
      })
    }
    return this.cmds.run(this.ex.argsOf(s, words), prefix, s, this.ex.span(cmd), stdin)
  }

  /**
   * `read -r -d '' NAME <<EOF` (a command kept in a variable), `… | read NAME`: NAME holds the text it reads, the first
   * line, or all of it with `-d ''`, blanks around it trimmed; without `-r` a backslash at a line's end joins the lines.
   * Several names, or options this does not know, leave the names as they stand.
   */
  private readInto(s: State, words: Node[], text: Val): State[] {
    const args = this.ex.argsOf(s, words)
    let whole = false
    let raw = false
    const names: Arg[] = []
    for (let i = 0; i < args.length; i++) {
      const a = args[i]!.val
      if (!a.known) return [s]
      if (a.text === '-d') whole = args[++i]?.val.text === ''
      else if (a.text === '-p' || a.text === '-t') i++
      else if (/^-[rs]+$/.test(a.text)) raw ||= a.text.includes('r')
      else if (/^-r*d$/.test(a.text)) {
        raw ||= a.text.includes('r')
        whole = args[++i]?.val.text === ''
      } else if (/^[A-Za-z_]\w*$/.test(a.text)) names.push(args[i]!)
      else return [s]
    }
    if (names.length !== 1) return [s]
    let val = text
    if (!raw) {
      const pieces: Val[] = []
      let at = 0
      for (const m of val.text.matchAll(/\\\n/g)) {
        pieces.push(sliceVal(val, at, m.index))
        at = m.index + 2
      }
      val = concatVals([...pieces, sliceVal(val, at)])
    }
    const nl = val.text.indexOf('\n')
    const read = val.text.slice(0, whole || nl < 0 ? val.text.length : nl)
    const start = read.length - read.trimStart().length
    val = sliceVal(val, start, Math.max(start, read.trimEnd().length))
    const name = names[0]!.val.text
    const prev = this.lookup(s, name)
    const assignment: Assignment = { name, val, span: names[0]!.span, kind: 'assign', inBranch: s.branch > 0 }
    this.setVar(s, name, { kind: 'scalar', val, exported: prev?.kind === 'scalar' && prev.exported, assignment }, false)
    return [s]
  }

  /** A command whose name is written as an option (`--name "$C"`): kept for broken-continuation.ts (the script's own text only). */
  private optionAsCommand(word: Node): void {
    const at = this.ex.span(word)
    if (at.start < 0) return
    const written = this.shared.lines.text.slice(at.start, at.end)
    if (/^--?[A-Za-z][\w-]*(?:=\S*)?$/.test(written)) this.shared.optionCommands.add(at.start)
  }

  callFunction(fn: Node, args: Arg[], s: State, at: Span, stdin?: Val): State[] {
    if (s.frames.length >= MAX_DEPTH) return [s]
    const rest = args.some((a) => a.rest)
    s.frames.push({ args: args.filter((a) => !a.rest), rest, shifted: 0, locals: newVars(), callAt: at })
    return (owners.get(fn) ?? this).run([fn], [s], stdin).map((x) => {
      x.frames.pop()
      x.returning = false
      return x
    })
  }

  scriptText(): string {
    return this.shared.lines.text
  }

  spanOfVal(v: Val, otherwise: number): Span {
    const w = writtenAt(v)
    if (w) return { start: w.start, end: w.end, line: this.shared.lines.lineOf(w.start) }
    const first = v.map?.find((i) => i >= 0)
    return { start: -1, end: -1, line: first !== undefined ? this.shared.lines.lineOf(first) : otherwise }
  }

  /**
   * A file a command reads: one the script wrote from a here-document on this path (by the path as
   * written), else the file in the repository (read once, placed in the index space like a sourced
   * file). `dir`: the folder a relative path starts from (else the script's).
   */
  private fileVal(s: State, written: Val, dir?: string): { val: Val; path: string } | undefined {
    const here = s.files.get(written.text)
    if (here) return { val: here, path: written.text }
    const where =
      dir !== undefined && written.known && !written.text.startsWith('/') && !written.text.includes('$')
        ? { path: posix.normalize(posix.join(dir, written.text)) }
        : sourcedPath(written, this.shared.lines.path, this.file)
    if ('why' in where) return undefined
    let got = this.shared.readFiles.get(where.path)
    if (got === undefined) {
      const read = this.shared.read?.(where.path)
      got = read?.ok ? this.shared.lines.add(where.path, read.value) : null
      this.shared.readFiles.set(where.path, got)
    }
    if (!got) return undefined
    const offset = got.offset
    const map = Array.from({ length: got.text.length }, (_, i) => offset + i)
    return { val: { text: got.text, known: true, map }, path: where.path }
  }

  composeServices(s: State, files: readonly Val[], env: (name: string) => Val | undefined): Map<string, ComposeService> {
    const named = files.length > 0 ? files : COMPOSE_DEFAULTS.map((f) => ({ text: f, known: true }))
    const out = new Map<string, ComposeService>()
    for (const f of named) {
      const file = this.fileVal(s, f)
      if (!file) continue
      for (const svc of composeServices(file.val).values()) {
        const earlier = out.get(svc.name)
        const own = { ...svc, dir: posix.dirname(file.path), env: svc.env.map((e) => ({ ...e, val: interpolate(e.val, env) })) }
        // A later file overrides: its settings win, what it leaves out stays.
        out.set(svc.name, earlier ? { ...earlier, ...own, env: [...earlier.env.filter((e) => !own.env.some((x) => x.name === e.name)), ...own.env] } : own)
      }
      if (files.length === 0) break
    }
    return out
  }

  composeEnvFile(s: State, svc: ComposeService, path: Val): Val | undefined {
    return this.fileVal(s, path, svc.dir)?.val
  }

  /**
   * `source FILE [args]` / `. FILE`: the file's commands run in this shell, on this path (its
   * variables, functions and containers stay), with its lines placed in the one index space so
   * findings name the file and line and patches edit it. A file not known, not readable, or
   * already being sourced around this one (a cycle) is a note, and the path goes on without it.
   */
  sourceFile(word: Arg | undefined, args: Arg[], s: State, at: Span): State[] {
    const note = (why: string): State[] => {
      const written = word?.val.text ?? ''
      if (!this.shared.notes.some((n) => n.line === at.line && n.written === written)) this.shared.notes.push({ line: at.line, written, why })
      return [s]
    }
    if (!word) return note('it names no file')
    // A file this path wrote (`cat > "$RUN_DIR/lib.sh" <<'EOF'`, then `. "$RUN_DIR/lib.sh"`): its text, read in this shell.
    const written = s.files.get(word.val.text)
    if (written && this.nesting < MAX_NESTING) {
      const sub = this.textEvaluator(written, this.env, at, this.nesting + 1, this.unexported)
      if (sub) {
        const out = sub.run(children(sub.script.file, 'Stmts'), [s])
        if (sub.truncated) this.truncated = true
        return out
      }
    }
    const scriptPath = this.shared.lines.path
    const where = sourcedPath(word.val, scriptPath, this.file)
    if ('why' in where) return note(where.why)
    const path = where.path
    if (path === scriptPath || this.chain.includes(path))
      return note(`${path} is already being read (${[scriptPath, ...this.chain, path].join(' → ')}): a cycle, read once`)
    if (this.chain.length >= MAX_DEPTH) return note(`files are sourced more than ${MAX_DEPTH} deep`)
    let got = this.shared.sourced.get(path)
    if (!got) {
      const read = this.shared.read ? this.shared.read(path) : fail(problem('SOURCE_UNREADABLE', 'this check was given no files to read besides the script'))
      if (!read.ok) got = { why: `${path} ${read.problem.message}` }
      else {
        const parsed = parseBash(read.value, path)
        got =
          'error' in parsed
            ? { why: `${path} is not valid bash (line ${parsed.error.line}: ${parsed.error.message})` }
            : { parsed, text: read.value, offset: this.shared.lines.add(path, read.value).offset }
      }
      this.shared.sourced.set(path, got)
    }
    if ('why' in got) return note(got.why)
    const sub = new Evaluator(
      got.parsed,
      got.text,
      new Positions(this.shared.lines, undefined, undefined, at.line, got.offset),
      this.env,
      this.nesting,
      this.shared,
      path,
      [...this.chain, path],
    )
    // `source FILE a b`: the file sees a b as its positional arguments, and the caller's again after it.
    const frame = s.frames[s.frames.length - 1]!
    const saved = { args: frame.args, rest: frame.rest, shifted: frame.shifted }
    if (args.length > 0) Object.assign(frame, { args: args.filter((a) => !a.rest), rest: args.some((a) => a.rest), shifted: 0 })
    const out = sub.run(children(got.parsed.file, 'Stmts'), [s])
    if (sub.truncated) this.truncated = true
    return out.map((x) => {
      // `return` at a sourced file's top level ends the file, not the caller.
      if (x.frames.length === s.frames.length) x.returning = false
      if (args.length > 0) Object.assign(x.frames[x.frames.length - 1]!, saved)
      return x
    })
  }

  /**
   * A command substitution of a call of one of the script's functions: the function runs in a subshell (a copy of this path, dropped
   * after), its output kept as a pipe's left side keeps it (State.out). Known only where every path it takes prints the same text.
   */
  printed(s: State, stmt: Node): Val | undefined {
    const cmd = child(stmt, 'Cmd')
    const first = cmd && nodeType(cmd) === 'CallExpr' ? children(cmd, 'Args')[0] : undefined
    if (!first || !s.funcs.has(this.ex.src(first)) || s.frames.length >= MAX_DEPTH) return undefined
    const sub = fork(s)
    sub.out = []
    const texts = this.run([stmt], [sub]).map((st) => (st.out && st.out.length > 0 ? concatVals(st.out) : undefined))
    const one = texts[0]
    return one !== undefined && texts.every((x) => x?.text === one.text) ? one : undefined
  }

  evalText(script: Val, s: State, at: Span): State[] {
    if (this.nesting >= MAX_NESTING) return [s]
    const sub = this.textEvaluator(script, this.env, at, this.nesting + 1, this.unexported)
    if (!sub) return [s]
    const out = sub.run(children(sub.script.file, 'Stmts'), [s])
    if (sub.truncated) this.truncated = true
    return out
  }

  /** `bash FILE args` / `./FILE.sh args`: a script of the repository (or one this path wrote) run by a child shell with these arguments. */
  runScriptFile(file: Arg, args: Arg[], env: ReadonlyMap<string, Var>, s: State, at: Span): void {
    const f = this.fileVal(s, file.val)
    if (f) this.runNested(f.val, env, s, false, at, undefined, args)
    else if (/(?:^|\/)run_cluster\.sh$/.test(file.val.text)) {
      // vLLM's own helper, fetched beside the script rather than kept in the repository (NVIDIA's DGX Spark playbook, vLLM's docs): what its
      // ray start pins depends on the copy, said in a note in place of "no ray start".
      const written = file.val.text
      if (!this.shared.notes.some((n) => n.line === at.line && n.written === written))
        this.shared.notes.push({ line: at.line, written, why: 'it is not in the repository', runCluster: runClusterCall(args) })
    }
  }

  /** An evaluator of text a shell reads (a string, a here-document, a file the script wrote): parsed once per text, mapped back to where it was written. */
  private textEvaluator(
    script: Val,
    env: ReadonlyMap<string, Var> | undefined,
    at: Span,
    nesting: number,
    unexported?: ReadonlySet<string>,
  ): Evaluator | undefined {
    const parses = this.shared.parses
    const t = tokenized(script)
    if (!parses.has(t.text)) {
      const p = parseBash(t.text, 'nested')
      parses.set(t.text, 'error' in p ? undefined : p)
    }
    const parsed = parses.get(t.text)
    if (!parsed) return undefined
    const map = t.map && t.map.length === t.text.length ? t.map : Array<number>(t.text.length).fill(-1)
    const after = t.after && t.after.length === t.text.length ? t.after : undefined
    const pos = new Positions(this.pos.lines, map, after, at.line)
    return new Evaluator(parsed, t.text, pos, env, nesting, this.shared, this.file, this.chain, t.holes, unexported)
  }

  runNested(script: Val, env: ReadonlyMap<string, Var>, s: State, inContainer: boolean, at: Span, host?: string, args?: Arg[], stdin?: Val): void {
    if (this.nesting >= MAX_NESTING) return
    const sub = this.textEvaluator(script, env, at, this.nesting + 1, unexportedNames(s, env))
    if (!sub) return
    const parsed = sub.script
    // The nested shell's own arguments are as unknown as the script's: a symbolic `${3}` of the outer text stays symbolic.
    // It sees the containers this path started (on its host, `docker exec` finds them) and adds those it starts, and on the same host
    // the files this path wrote (`cat > lib.sh <<EOF`, then `. lib.sh` in the script it runs).
    const on = host ?? s.host
    const init = { ...initialState(), branch: s.branch, host: on, containers: s.containers.copy(), ...(on === s.host ? { files: s.files.copy() } : {}) }
    // A script file run with its arguments: they are known (as far as the caller's words are), and no others follow.
    if (args) init.frames = [{ args: args.filter((a) => !a.rest), rest: args.some((a) => a.rest), shifted: 0, locals: newVars() }]
    const done = sub.run(children(parsed.file, 'Stmts'), [init], stdin)
    if (sub.truncated) this.truncated = true
    for (const st of done) for (const [k, c] of st.containers) if (!s.containers.has(k)) s.containers.set(k, c)
    const seen = new Set<string>()
    for (const st of done)
      for (const start of st.starts) {
        const key = startKeyOf(start)
        if (seen.has(key)) continue
        seen.add(key)
        s.starts.push({
          ...start,
          inContainer: inContainer || start.inContainer,
          path: [...s.path, ...start.path],
          ...(s.assumedEmpty.length > 0 || start.assumedEmpty ? { assumedEmpty: [...s.assumedEmpty, ...(start.assumedEmpty ?? [])] } : {}),
        })
      }
  }
}

const fill = (v: Val): number[] => (v.map && v.map.length === v.text.length ? [...v.map] : Array<number>(v.text.length).fill(-1))

/**
 * After one pass of a loop that runs an unknown number of times (an option loop: `while [[ $# -gt 0 ]];
 * do case $1 in -r) ROLE=$2 …`), each path has taken one option; the others passes take stay open.
 * A variable some path set to an unknown value (an option's argument) that was unset or empty before
 * the loop is, on every path, that option's value as given or not: the symbolic `${NAME}` (an input
 * named for it, so two options are never taken for one address), keeping where it is written. A
 * variable with a value of its own before the loop (a default) keeps what each path gives it.
 */
function optionsOfOtherPasses(states: State[], before: HashedMap<Var>): State[] {
  const live = states.filter((x) => !x.done && !x.returning)
  const given = new Map<string, Var & { kind: 'scalar' }>()
  for (const st of live)
    for (const [name, v] of st.globals) {
      if (v === before.get(name) || v.kind !== 'scalar' || v.val.known || given.has(name)) continue
      const old = before.get(name)
      if (old === undefined || (old.kind === 'scalar' && old.val.known && old.val.text === '')) given.set(name, v)
    }
  if (given.size === 0) return states
  for (const st of live)
    for (const [name, v] of given) {
      const own = st.globals.get(name)
      const from = own !== before.get(name) && own?.kind === 'scalar' ? own : v
      // What the calling shell expands: a string another shell runs reads it as one word (model.ts Val.holes).
      const text = `\${${name}}`
      const val: Val = { text, known: false, holes: [[0, text.length]] }
      st.globals.set(name, { ...from, val, assignment: { ...from.assignment, val } })
    }
  return mergePaths(states)
}

/** The holes of `a` then `b` (model.ts Val.holes), for the value `a` + `b`. */
const appendedHoles = (a: Val, b: Val): { holes?: Hole[] } => {
  const holes: Hole[] = [...(a.holes ?? []), ...(b.holes ?? []).map(([x, y]): Hole => [x + a.text.length, y + a.text.length])]
  return holes.length > 0 ? { holes } : {}
}

/**
 * The text another shell runs, each hole (a value the caller computed) replaced by a token that reads
 * as a plain word in any quoting, with what each token stands for: that shell reads the value, not its
 * code (`'$head_ip:6379'` with head_ip=$(… awk '{print $1}') is one address, not a broken quote).
 */
function tokenized(script: Val): { text: string; map?: number[]; after?: number[]; holes?: Map<string, Val> } {
  if (!script.holes?.length)
    return { text: script.text, ...(script.map ? { map: [...script.map] } : {}), ...(script.after ? { after: [...script.after] } : {}) }
  const map = fill(script)
  const after = script.after && script.after.length === script.text.length ? script.after : undefined
  const holes = new Map<string, Val>()
  let text = ''
  const outMap: number[] = []
  const outAfter: number[] = []
  let at = 0
  const copy = (to: number): void => {
    text += script.text.slice(at, to)
    for (let i = at; i < to; i++) {
      outMap.push(map[i]!)
      outAfter.push(after ? after[i]! : map[i]! < 0 ? -1 : map[i]! + 1)
    }
  }
  for (const [from, to] of [...script.holes].sort((x, y) => x[0] - y[0])) {
    if (from < at) continue
    copy(from)
    const token = `${HOLE_TOKEN}${holes.size}_`
    holes.set(token, sliceVal(script, from, to))
    text += token
    // Not written in the script; text appended after it goes where it goes after the value (after `$x` that expanded to it).
    const end = after ? after[to - 1]! : map[to - 1]! < 0 ? -1 : map[to - 1]! + 1
    for (let i = 0; i < token.length; i++) {
      outMap.push(-1)
      outAfter.push(end)
    }
    at = to
  }
  copy(script.text.length)
  return { text, map: outMap, after: outAfter, holes }
}

/**
 * A start inside a string another shell runs (`ssh host "…; ray start --head … --num-gpus $GPUS"`) is on the line where its
 * missing flag goes: the last argument's characters may map to where a variable the calling shell expanded was set
 * (GPUS=8, lines above), which is not a line of the command.
 */
function placed(r: RayStart, lines: ScriptLines): RayStart {
  const at = (x: RayStart['insertAt']) => (x?.nested && x.offset >= 0 ? { ...x, line: lines.lineOf(x.offset) } : x)
  if (!r.insertAt?.nested && !r.commandInsertAt?.nested) return r
  const insertAt = at(r.insertAt)
  const commandInsertAt = at(r.commandInsertAt)
  return { ...r, line: insertAt?.line ?? r.line, ...(insertAt ? { insertAt } : {}), ...(commandInsertAt ? { commandInsertAt } : {}) }
}

/**
 * A published template's placeholder in angle brackets with blanks in it, quoted so bash takes it (`HF_TOKEN="<your HuggingFace token>"`,
 * `LOCAL_HF_CACHE="<Choose a path>/HF_cache"`, a Slurm template on MeluXina, held-out22): what the user writes there is an input, not these
 * words, which would otherwise split into options and images where the value is expanded unquoted; so is one the expander reads as an
 * input in a word (expand.ts hasPlaceholder: `HEAD={MASTER_NODE_ADDRESS}`).
 */
const PLACEHOLDER = /<[A-Za-z][^<>\n]*\s[^<>\n]*>/
function placeholderAsInput(name: string, v: Var): Var {
  if (v.kind !== 'scalar' || !v.val.known || !(PLACEHOLDER.test(v.val.text) || hasPlaceholder(v.val))) return v
  const text = `\${${name}}`
  return { ...v, val: { text, known: false, map: Array<number>(text.length).fill(-1) } }
}

/** Words of a start somewhere in the text: a script with none has nothing to read again. */
const START_WORDS = /\bray\b[^\n]*\bstart\b|\bvllm\b[^\n]*\bserve\b|\bapi_server\b|--nnodes\b|--node-rank\b/

/**
 * Every `ray start` on every path through a launch script.
 * `known`: environment variables whose value the tool will set (from the manifest: VRD_EXECUTOR), so
 * a branch on them is decided as the node will decide it, not explored both ways.
 */
export function evaluateScript(
  text: string,
  path: string,
  known: Readonly<Record<string, string>> = {},
  /** Reads the files the script sources (absent: none is read, each `source` is a note). */
  read?: ReadSourced,
): Evaluation {
  const lines = new ScriptLines(text, path)
  const parsed = parseBash(text, path)
  if ('error' in parsed) return { starts: [], error: parsed.error, truncated: false, lines, notes: [], optionCommands: [] }
  const shared: Shared = {
    parses: new Map(),
    lines,
    ...(read ? { read } : {}),
    sourced: new Map(),
    notes: [],
    optionCommands: new Set(),
    readFiles: new Map(),
  }
  const pass = (substitutionsMayBeEmpty: boolean) => {
    const ev = new Evaluator(parsed, text, new Positions(lines, undefined, undefined, 1), undefined, 0, shared, path)
    const start = initialState()
    for (const [name, value] of Object.entries(known)) start.facts.set(`\${${name}}`, { eq: value, ne: [] })
    if (substitutionsMayBeEmpty) start.facts.set(SUBSTITUTIONS_MAY_BE_EMPTY, { ne: [] })
    return { ev, finals: ev.run(children(parsed.file, 'Stmts'), [start]) }
  }
  // A command substitution is taken to print something (an address read with hostname -I is there). Where that leaves no path to a start,
  // it is the guard that does not hold (`others=$(docker ps | grep …)`, `[ -z "$others" ] || fail …`, tsw2k's DGX Spark launcher,
  // held-out21): read again with each substitution's output empty or not.
  let { ev, finals } = pass(false)
  if (!finals.some((st) => st.starts.length > 0) && START_WORDS.test(text)) {
    shared.notes.length = 0
    shared.optionCommands.clear()
    ;({ ev, finals } = pass(true))
  }
  // The same start reached on several paths (forks that changed nothing) is kept once.
  const seen = new Set<string>()
  const starts: RayStart[] = []
  for (const st of finals) {
    for (const r of st.starts) {
      const key = startKeyOf(r)
      if (seen.has(key)) continue
      seen.add(key)
      starts.push(placed(r, lines))
    }
  }
  return {
    starts,
    truncated: ev.truncated,
    lines,
    notes: shared.notes,
    optionCommands: [...shared.optionCommands],
    ...(parsed.placeholders ? { placeholders: parsed.placeholders } : {}),
  }
}

/** `run_cluster.sh IMAGE HEAD_IP --head|--worker HF_HOME [docker run args]`: the role, the head's address and a `-e VLLM_HOST_IP=` among the docker args. */
function runClusterCall(args: readonly Arg[]): RunClusterCall {
  const words = args.map((a) => a.val.text)
  const roleAt = words.findIndex((w) => w === '--head' || w === '--worker')
  let vllmHostIp: string | undefined
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!
    const env = w === '-e' || w === '--env' ? words[i + 1] : /^(?:-e|--env=)(.*)$/.exec(w)?.[1]
    const m = env === undefined ? null : /^VLLM_HOST_IP=(.*)$/.exec(env)
    if (m) vllmHostIp = m[1]
  }
  return {
    ...(roleAt >= 0 ? { role: words[roleAt] === '--head' ? ('head' as const) : ('worker' as const) } : {}),
    ...(roleAt === 2 ? { headAddress: words[1] } : {}),
    ...(vllmHostIp !== undefined ? { vllmHostIp } : {}),
  }
}

/**
 * The names a shell assigned and did not export (its globals and the current function's locals), which another shell it starts does not
 * get: a script's own `ip_addr=…` read as `\$ip_addr` in a here-document run by `srun … bash` is empty there. Names a node's environment
 * sets for every shell (HOME, HOSTNAME, the scheduler's) are left out: the other shell has its own.
 */
function unexportedNames(s: State, env: ReadonlyMap<string, Var>): ReadonlySet<string> {
  const out = new Set<string>()
  const add = (name: string, v: Var) => {
    if (!(v.kind === 'scalar' && v.exported) && !env.has(name) && !NODE_ENVIRONMENT.test(name)) out.add(name)
  }
  for (const [name, v] of s.globals) add(name, v)
  for (const [name, v] of s.frames[s.frames.length - 1]?.locals ?? []) add(name, v)
  return out
}
