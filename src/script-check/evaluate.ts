/**
 * A launch script run on paper: every path through it (each `if`/`case`/`&&` whose condition is
 * not known forks), with variables, `export`, `local`, arrays, functions and their positional
 * arguments followed, up to each `ray start` (directly, or as the command of `docker run`, or in a
 * `bash -c` string). Each `ray start` is recorded with its arguments and the VLLM_HOST_IP /
 * NCCL_SOCKET_IFNAME / GLOO_SOCKET_IFNAME its processes get, and where each came from, so the
 * rules can point at the line and patches can edit the right word.
 *
 * Values the script cannot know (the environment, `$(...)`) stay symbolic: `${VRD_NODE_IP}`,
 * `$(mgmt_ip)`. Two values are the same when their texts are.
 */

import { OP, bool, child, children, nodeType, num, parseBash, spanOf, str, type Node, type ParseError, type ParsedScript, type Span } from './bash-ast.js'

/** A value: its text (unknown parts as `${NAME}` or `$(…)`), and where a patch may rewrite it. */
export interface Val {
  readonly text: string
  readonly known: boolean
  /** The word that wrote this value literally, and the text before the value inside it (`VLLM_HOST_IP=`). */
  readonly origin?: { readonly span: Span; readonly prefix: string }
}

/** One argument after expansion, with the word it was written as and the call depth it was written at. */
export interface Arg {
  readonly val: Val
  readonly span: Span
  readonly depth: number
}

/** Where a variable the rules care about was set, and what it replaced. */
export interface Assignment {
  readonly name: string
  readonly val: Val
  readonly span: Span
  readonly kind: 'assign' | 'export' | 'local' | 'docker -e' | 'prefix'
  /** Set inside an `if`/`case`/`&&` branch: one role's section. */
  readonly inBranch: boolean
  /** The assignment of the same name this one replaced, if any. */
  readonly previous?: Assignment
}

export const WATCHED = ['VLLM_HOST_IP', 'NCCL_SOCKET_IFNAME', 'GLOO_SOCKET_IFNAME', 'RAY_OVERRIDE_NODE_IP_ADDRESS'] as const
export type Watched = (typeof WATCHED)[number]

export interface RayStart {
  /** Line of the command that starts Ray in the role's section (the outermost call on the path). */
  readonly line: number
  /** Line of the `ray start` words themselves (inside a function, or the docker run). */
  readonly rayLine: number
  readonly head: boolean
  readonly args: readonly Arg[]
  /** `--node-ip-address` value, and the argument that holds it. */
  readonly nodeIp?: { readonly val: Val; readonly arg: Arg }
  /** `--address` value (the head's GCS, host:port). */
  readonly address?: Val
  readonly env: ReadonlyMap<Watched, Assignment>
  /** Where `--node-ip-address=…` can be appended (after the last argument written in the role's section); absent inside a string. */
  readonly insertAt?: { readonly offset: number; readonly line: number }
  /** Started inside a container (`docker run`): only its `-e` variables reach Ray. */
  readonly inContainer: boolean
  /** The path's branch decisions, e.g. `line 4: then`. */
  readonly path: readonly string[]
}

export interface Evaluation {
  readonly starts: readonly RayStart[]
  readonly error?: ParseError
  /** Paths were cut at this many. */
  readonly truncated: boolean
}

type Var =
  | { readonly kind: 'scalar'; readonly val: Val; readonly exported: boolean; readonly assignment: Assignment }
  | { readonly kind: 'array'; readonly items: readonly Arg[] }

interface Frame {
  args: Arg[]
  locals: Map<string, Var>
  /** The call that opened this frame. */
  callAt: Span
}

interface State {
  globals: Map<string, Var>
  funcs: Map<string, Node>
  frames: Frame[]
  branch: number
  done: boolean
  returning: boolean
  starts: RayStart[]
  path: string[]
}

const MAX_PATHS = 64
const MAX_DEPTH = 12

const fork = (s: State): State => ({
  globals: new Map(s.globals),
  funcs: new Map(s.funcs),
  frames: s.frames.map((f) => ({ args: [...f.args], locals: new Map(f.locals), callAt: f.callAt })),
  branch: s.branch,
  done: s.done,
  returning: s.returning,
  starts: [...s.starts],
  path: [...s.path],
})

interface Seg {
  readonly text: string
  readonly known: boolean
  /** The value of a single variable or argument this segment is. */
  readonly from?: Val
}

/** A field of an expanded word: its segments (or a whole argument passed on by `"$@"`). */
type Field = { readonly segs: readonly Seg[] } | { readonly arg: Arg }

class Evaluator {
  constructor(
    private readonly script: ParsedScript,
    private readonly text: string,
    private readonly lineOffset: number,
    private readonly nested: boolean,
    private readonly envOverride?: ReadonlyMap<string, Var>,
  ) {}

  truncated = false

  private span(n: Node): Span {
    const s = spanOf(this.script, n)
    return { ...s, line: s.line + this.lineOffset }
  }
  private src(n: Node): string {
    const s = spanOf(this.script, n)
    return this.text.slice(s.start, s.end)
  }

  lookup(s: State, name: string): Var | undefined {
    for (let i = s.frames.length - 1; i >= 0; i--) {
      const v = s.frames[i]!.locals.get(name)
      if (v) return v
    }
    return s.globals.get(name) ?? this.envOverride?.get(name)
  }

  private setVar(s: State, name: string, v: Var, local: boolean): void {
    if (local && s.frames.length > 0) {
      s.frames[s.frames.length - 1]!.locals.set(name, v)
      return
    }
    for (let i = s.frames.length - 1; i >= 0; i--) {
      if (s.frames[i]!.locals.has(name)) {
        s.frames[i]!.locals.set(name, v)
        return
      }
    }
    s.globals.set(name, v)
  }

  // ---- words -------------------------------------------------------------------------------

  private paramSegs(s: State, n: Node, quoted: boolean): Field[] | Seg {
    const name = str(child(n, 'Param')!, 'Value')
    const index = child(n, 'Index')
    const exp = child(n, 'Exp')
    if (bool(n, 'Length') || child(n, 'Repl') || child(n, 'Slice')) return { text: this.src(n), known: false }
    const frame = s.frames[s.frames.length - 1]
    if (name === '@' || name === '*') {
      const args = frame?.args ?? []
      return quoted && name === '@'
        ? args.map((arg) => ({ arg }))
        : [{ segs: [{ text: args.map((a) => a.val.text).join(' '), known: args.every((a) => a.val.known) }] }]
    }
    if (name === '#') return { text: String(frame?.args.length ?? 0), known: frame !== undefined }
    if (/^\d+$/.test(name)) {
      const a = frame?.args[Number(name) - 1]
      if (a) return { text: a.val.text, known: a.val.known, from: { ...a.val, origin: a.val.origin ?? { span: a.span, prefix: '' } } }
      return { text: frame ? '' : `\${${name}}`, known: frame !== undefined }
    }
    const v = this.lookup(s, name)
    if (index && v?.kind === 'array') {
      const sub = this.src(index)
      if (sub === '@' || sub === '*')
        return quoted && sub === '@' ? v.items.map((arg) => ({ arg })) : [{ segs: [{ text: v.items.map((a) => a.val.text).join(' '), known: true }] }]
      const item = /^\d+$/.test(sub) ? v.items[Number(sub)] : undefined
      return item ? { text: item.val.text, known: item.val.known, from: item.val } : { text: this.src(n), known: false }
    }
    const set = v?.kind === 'scalar' ? v.val : undefined
    if (exp) {
      const op = num(exp, 'Op')
      const word = child(exp, 'Word')
      const alt = word ? this.wordVal(s, word, true) : { text: '', known: true }
      const nullish = set === undefined || (set.known && set.text === '')
      if (op === OP.DefaultUnsetOrNull || op === OP.DefaultUnset || op === OP.AssignUnsetOrNull || op === OP.AssignUnset) {
        if (set?.known && (!nullish || op === OP.DefaultUnset || op === OP.AssignUnset)) return { text: set.text, known: true, from: set }
        if (set && !set.known) return { text: set.text, known: false, from: set }
        if (v === undefined && this.envOverride === undefined) return { text: this.src(n), known: false }
        return { text: alt.text, known: alt.known, from: alt }
      }
      if (op === OP.AlternateUnsetOrNull || op === OP.AlternateUnset) {
        if (set === undefined) return v === undefined ? { text: this.src(n), known: false } : { text: '', known: true }
        return nullish ? { text: '', known: true } : { text: alt.text, known: alt.known }
      }
      // ${a:?msg}, ${a?msg}: the value, or the script stops (taken as set).
      if (set) return { text: set.text, known: set.known, from: set }
      return { text: `\${${name}}`, known: false }
    }
    if (set) return { text: set.text, known: set.known, from: set }
    if (v?.kind === 'array') return { text: v.items[0]?.val.text ?? '', known: true }
    return { text: `\${${name}}`, known: false }
  }

  /** A word's fields (`"$@"` and `"${arr[@]}"` give several; unquoted known text splits on blanks). */
  private wordFields(s: State, word: Node): Field[] {
    const fields: Field[] = []
    const cur: Seg[] = []
    let splittable = true
    const pushParts = (parts: Node[], quoted: boolean): void => {
      for (const p of parts) {
        const t = nodeType(p)
        if (t === 'Lit') cur.push({ text: quoted ? str(p, 'Value') : str(p, 'Value').replace(/\\(.)/g, '$1'), known: true })
        else if (t === 'SglQuoted') {
          cur.push({ text: str(p, 'Value'), known: true })
          splittable = false
        } else if (t === 'DblQuoted') {
          splittable = false
          pushParts(children(p, 'Parts'), true)
        } else if (t === 'ParamExp') {
          const r = this.paramSegs(s, p, quoted)
          if (Array.isArray(r)) {
            // Several fields inside a longer word: joined with blanks (the whole-word case is above).
            for (const f of r) cur.push(...('arg' in f ? [{ text: f.arg.val.text, known: f.arg.val.known }] : f.segs))
          } else cur.push(r)
        } else cur.push({ text: this.src(p), known: false })
      }
    }
    // `"$@"`, `$@`, `"${a[@]}"` as the whole word: one field per argument or item, each keeping its origin.
    const parts = children(word, 'Parts')
    const only = parts.length === 1 ? (nodeType(parts[0]!) === 'DblQuoted' ? children(parts[0]!, 'Parts') : parts) : []
    if (only.length === 1 && nodeType(only[0]!) === 'ParamExp') {
      const r = this.paramSegs(s, only[0]!, nodeType(parts[0]!) === 'DblQuoted')
      if (Array.isArray(r)) return r
    }
    pushParts(parts, false)
    if (cur.length > 0 || fields.length === 0) fields.push({ segs: cur })
    // Unquoted known text with blanks splits into several arguments.
    if (splittable && fields.length === 1) {
      const f = fields[0]!
      if ('segs' in f && f.segs.every((x) => x.known)) {
        const joined = f.segs.map((x) => x.text).join('')
        if (/\s/.test(joined.trim()))
          return joined
            .trim()
            .split(/\s+/)
            .map((t) => ({ segs: [{ text: t, known: true }] }))
      }
    }
    return fields
  }

  private segsVal(segs: readonly Seg[], origin: { span: Span; prefix: string } | undefined): Val {
    if (segs.length === 1 && segs[0]!.from) return segs[0]!.from
    return {
      text: segs.map((x) => x.text).join(''),
      known: segs.every((x) => x.known),
      ...(origin ? { origin } : {}),
    }
  }

  /** One word as one value (assignments, case words, test operands). */
  wordVal(s: State, word: Node, _quoted = false): Val {
    const fields = this.wordFields(s, word)
    const segs: Seg[] = fields.flatMap((f) => ('arg' in f ? [{ text: f.arg.val.text, known: f.arg.val.known, from: f.arg.val }] : f.segs))
    const span = this.span(word)
    return this.segsVal(segs.length === 0 ? [{ text: '', known: true }] : segs, this.nested ? undefined : { span, prefix: '' })
  }

  private argsOf(s: State, words: Node[]): Arg[] {
    const depth = s.frames.length
    return words.flatMap((w) => {
      const span = this.span(w)
      return this.wordFields(s, w).map((f): Arg => {
        if ('arg' in f) return f.arg
        return { val: this.segsVal(f.segs.length ? f.segs : [{ text: '', known: true }], this.nested ? undefined : { span, prefix: '' }), span, depth }
      })
    })
  }

  /** `NAME=value` in one argument: the value with its own origin (`-e VLLM_HOST_IP=$x`). */
  private splitEnvArg(s: State, a: Arg): { name: string; val: Val } | undefined {
    const m = /^([A-Za-z_]\w*)=/.exec(a.val.text)
    if (!m) return undefined
    const name = m[1]!
    const rest = a.val.text.slice(m[0].length)
    // Re-expand the word to see whether the value part is a single variable (its origin then travels).
    if (a.val.origin && !this.nested) {
      const inner = /^[A-Za-z_]\w*=(?:\$\{?(\w+)\}?|\$(\d))$/.exec(this.text.slice(a.span.start, a.span.end).replace(/^"|"$/g, '').replace(/^'|'$/g, ''))
      const ref = inner?.[1] ?? inner?.[2]
      if (ref) {
        const v = /^\d+$/.test(ref) ? s.frames[s.frames.length - 1]?.args[Number(ref) - 1] : undefined
        if (v) return { name, val: { ...v.val, origin: v.val.origin ?? { span: v.span, prefix: '' } } }
        const sv = this.lookup(s, ref)
        if (sv?.kind === 'scalar') return { name, val: sv.val }
      }
    }
    return { name, val: { text: rest, known: a.val.known, ...(a.val.origin ? { origin: { span: a.span, prefix: `${name}=` } } : {}) } }
  }

  // ---- statements ------------------------------------------------------------------------------

  run(stmts: Node[], states: State[]): State[] {
    let cur = states
    for (const stmt of stmts) {
      cur = cur.flatMap((s) => (s.done || s.returning ? [s] : this.stmt(stmt, s)))
      if (cur.length > MAX_PATHS) {
        this.truncated = true
        cur = cur.slice(0, MAX_PATHS)
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

  /** A condition's truth when it can be known: `[ a = b ]`, `[[ … ]]`, `-n`/`-z`, `!`. */
  private cond(s: State, stmts: Node[]): boolean | undefined {
    const last = stmts[stmts.length - 1]
    if (!last) return undefined
    const negate = bool(last, 'Negated')
    const r = this.condCmd(s, child(last, 'Cmd'))
    return r === undefined ? undefined : negate ? !r : r
  }

  private condCmd(s: State, cmd: Node | null): boolean | undefined {
    if (!cmd) return undefined
    const t = nodeType(cmd)
    if (t === 'TestClause') return this.testExpr(s, child(cmd, 'X'))
    if (t === 'CallExpr') {
      const words = children(cmd, 'Args')
      const first = words[0] ? this.wordVal(s, words[0]).text : ''
      if (first !== '[' && first !== 'test') return true // a command: taken as succeeding
      const ops = words.slice(1, first === '[' ? -1 : undefined).map((w) => this.wordVal(s, w))
      return this.testWords(ops)
    }
    if (t === 'BinaryCmd') {
      const op = num(cmd, 'Op')
      const x = this.cond(s, [child(cmd, 'X')!])
      const y = this.cond(s, [child(cmd, 'Y')!])
      if (op === OP.AndStmt) return x === false || y === false ? false : x === true && y === true ? true : undefined
      if (op === OP.OrStmt) return x === true || y === true ? true : x === false && y === false ? false : undefined
    }
    return true
  }

  private testWords(ops: Val[]): boolean | undefined {
    if (ops[0]?.text === '!' && ops[0].known) {
      const r = this.testWords(ops.slice(1))
      return r === undefined ? undefined : !r
    }
    if (ops.length === 3 && ['=', '==', '!='].includes(ops[1]!.text)) return this.compare(ops[0]!, ops[2]!, ops[1]!.text === '!=')
    if (ops.length === 2 && (ops[0]!.text === '-n' || ops[0]!.text === '-z')) {
      const v = ops[1]!
      const empty = v.known ? v.text === '' : /^\$\{VRD_\w+\}$|^\$\(/.test(v.text) ? false : undefined
      if (empty === undefined) return undefined
      return ops[0]!.text === '-z' ? empty : !empty
    }
    if (ops.length === 1) return ops[0]!.known ? ops[0]!.text !== '' : undefined
    return undefined
  }

  private compare(a: Val, b: Val, negate: boolean): boolean | undefined {
    if (!a.known || !b.known) return a.text === b.text && a.text !== '' ? !negate : undefined
    const eq = globMatch(b.text, a.text)
    return negate ? !eq : eq
  }

  private testExpr(s: State, x: Node | null): boolean | undefined {
    if (!x) return undefined
    const t = nodeType(x)
    if (t === 'BinaryTest') {
      const op = num(x, 'Op')
      const l = this.testOperand(s, child(x, 'X'))
      const r = this.testOperand(s, child(x, 'Y'))
      if (op === OP.AndStmt || op === OP.OrStmt) {
        const lb = this.testExpr(s, child(x, 'X'))
        const rb = this.testExpr(s, child(x, 'Y'))
        if (op === OP.AndStmt) return lb === false || rb === false ? false : lb && rb ? true : undefined
        return lb === true || rb === true ? true : lb === false && rb === false ? false : undefined
      }
      if (!l || !r) return undefined
      if (op === OP.TsMatch || op === OP.TsMatchShort) return this.compare(l, r, false)
      if (op === OP.TsNoMatch) return this.compare(l, r, true)
      return undefined
    }
    if (t === 'UnaryTest') {
      const operand = this.testOperand(s, child(x, 'X'))
      const opText = this.src(x).trim().slice(0, 2)
      if (!operand) return undefined
      if (opText === '-n' || opText === '-z') return this.testWords([{ text: opText, known: true }, operand])
      if (opText.startsWith('!')) {
        const r = this.testExpr(s, child(x, 'X'))
        return r === undefined ? undefined : !r
      }
      return undefined
    }
    if (t === 'ParenTest') return this.testExpr(s, child(x, 'X'))
    if (t === 'Word') return this.testWords([this.wordVal(s, x)])
    return undefined
  }

  private testOperand(s: State, x: Node | null): Val | undefined {
    return x && nodeType(x) === 'Word' ? this.wordVal(s, x) : undefined
  }

  private stmt(stmt: Node, s: State): State[] {
    const cmd = child(stmt, 'Cmd')
    if (!cmd) return [s]
    const t = nodeType(cmd)
    const line = this.span(cmd).line
    switch (t) {
      case 'CallExpr':
        return this.call(cmd, s)
      case 'DeclClause':
        return this.decl(cmd, s)
      case 'IfClause':
        return this.ifClause(cmd, s)
      case 'CaseClause': {
        const word = this.wordVal(s, child(cmd, 'Word')!)
        const items = children(cmd, 'Items')
        const out: State[] = []
        let matchedAll = false
        for (const item of items) {
          const patterns = children(item, 'Patterns').map((p) => this.wordVal(s, p))
          const hit =
            word.known && patterns.every((p) => p.known)
              ? patterns.some((p) => globMatch(p.text, word.text))
              : patterns.some((p) => p.text === '*')
                ? undefined
                : undefined
          if (hit === false) continue
          const branch = fork(s)
          branch.path.push(`line ${line}: case ${patterns.map((p) => p.text).join('|')}`)
          out.push(...this.inBranch(branch, (b) => this.run(children(item, 'Stmts'), [b])))
          if (hit === true || patterns.some((p) => p.text === '*' && p.known)) {
            matchedAll = true
            break
          }
        }
        if (!matchedAll) out.push(s)
        return out
      }
      case 'BinaryCmd': {
        const op = num(cmd, 'Op')
        const x = child(cmd, 'X')!
        const y = child(cmd, 'Y')!
        if (op === OP.AndStmt || op === OP.OrStmt) {
          const c = this.cond(s, [x])
          const after = this.run([x], [s])
          return after.flatMap((st) => {
            const runY = op === OP.AndStmt ? c : c === undefined ? undefined : !c
            if (runY === false) return [st]
            if (runY === true) return this.run([y], [st])
            const other = fork(st)
            st.path.push(`line ${line}: ${op === OP.AndStmt ? '&&' : '||'} taken`)
            other.path.push(`line ${line}: ${op === OP.AndStmt ? '&&' : '||'} not taken`)
            return [...this.inBranch(st, (b) => this.run([y], [b])), other]
          })
        }
        return this.run([x, y], [s])
      }
      case 'Block':
      case 'Subshell':
        return this.run(children(cmd, 'Stmts'), [s])
      case 'FuncDecl':
        s.funcs.set(str(child(cmd, 'Name')!, 'Value'), child(cmd, 'Body')!)
        return [s]
      case 'WhileClause':
      case 'ForClause':
        return this.run(children(cmd, 'Do'), [s])
      default:
        return [s]
    }
  }

  private ifClause(cmd: Node, s: State): State[] {
    const line = this.span(cmd).line
    const condStmts = children(cmd, 'Cond')
    const els = child(cmd, 'Else')
    const runElse = (st: State): State[] => {
      if (!els) return [st]
      if (children(els, 'Cond').length === 0) return this.inBranch(st, (b) => this.run(children(els, 'Then'), [b]))
      return this.ifClause(els, st)
    }
    if (condStmts.length === 0) return this.inBranch(s, (b) => this.run(children(cmd, 'Then'), [b]))
    const c = this.cond(s, condStmts)
    if (c === true) return this.inBranch(s, (b) => this.run(children(cmd, 'Then'), [b]))
    if (c === false) return runElse(s)
    const other = fork(s)
    s.path.push(`line ${line}: then`)
    other.path.push(`line ${line}: else`)
    return [...this.inBranch(s, (b) => this.run(children(cmd, 'Then'), [b])), ...runElse(other)]
  }

  private assign(s: State, a: Node, kind: Assignment['kind'], exported: boolean | undefined, local: boolean): void {
    const nameNode = child(a, 'Name')
    if (!nameNode) return
    const name = str(nameNode, 'Value')
    const prev = this.lookup(s, name)
    if (bool(a, 'Naked')) {
      if (exported && prev?.kind === 'scalar') this.setVar(s, name, { ...prev, exported: true }, local)
      else if (local)
        this.setVar(
          s,
          name,
          {
            kind: 'scalar',
            val: { text: '', known: true },
            exported: false,
            assignment: { name, val: { text: '', known: true }, span: this.span(a), kind, inBranch: s.branch > 0 },
          },
          true,
        )
      return
    }
    const array = child(a, 'Array')
    if (array) {
      const items = this.argsOf(
        s,
        children(array, 'Elems')
          .map((e) => child(e, 'Value')!)
          .filter(Boolean),
      )
      const before = bool(a, 'Append') && prev?.kind === 'array' ? prev.items : []
      this.setVar(s, name, { kind: 'array', items: [...before, ...items] }, local)
      return
    }
    const valueWord = child(a, 'Value')
    const span = this.span(a)
    const raw = valueWord
      ? this.wordVal(s, valueWord)
      : { text: '', known: true, ...(this.nested ? {} : { origin: { span: { ...span, start: span.end, end: span.end }, prefix: '' } }) }
    const val = bool(a, 'Append') && prev?.kind === 'scalar' ? { text: prev.val.text + raw.text, known: prev.val.known && raw.known } : raw
    const previous = prev?.kind === 'scalar' ? prev.assignment : undefined
    const assignment: Assignment = { name, val, span, kind, inBranch: s.branch > 0, ...(previous ? { previous } : {}) }
    this.setVar(s, name, { kind: 'scalar', val, exported: exported ?? (prev?.kind === 'scalar' && prev.exported), assignment }, local)
  }

  private decl(cmd: Node, s: State): State[] {
    const variant = str(child(cmd, 'Variant')!, 'Value')
    const local = variant === 'local' || variant === 'declare' || variant === 'typeset'
    const flags = children(cmd, 'Args').filter((a) => bool(a, 'Naked') && str(child(a, 'Name') ?? child(a, 'Value')!, 'Value').startsWith('-'))
    const exported = variant === 'export' || flags.some((f) => /x/.test(this.src(f))) ? true : undefined
    for (const a of children(cmd, 'Args')) {
      if (!child(a, 'Name')) continue
      this.assign(s, a, variant === 'export' ? 'export' : local ? 'local' : 'assign', exported, local && s.frames.length > 0)
    }
    return [s]
  }

  private call(cmd: Node, s: State): State[] {
    const words = children(cmd, 'Args')
    const assigns = children(cmd, 'Assigns')
    if (words.length === 0) {
      for (const a of assigns) this.assign(s, a, 'assign', undefined, false)
      return [s]
    }
    const prefix = new Map<string, Val>()
    for (const a of assigns) {
      const v = child(a, 'Value')
      prefix.set(str(child(a, 'Name')!, 'Value'), v ? this.wordVal(s, v) : { text: '', known: true })
    }
    const argv = this.argsOf(s, words)
    return this.command(argv, prefix, s, this.span(cmd))
  }

  private command(argv: Arg[], prefix: Map<string, Val>, s: State, at: Span): State[] {
    const name = (argv[0]?.val.text ?? '').replace(/^.*\//, '')
    const rest = argv.slice(1)
    const fn = s.funcs.get(name)
    if (fn && s.frames.length < MAX_DEPTH) {
      s.frames.push({ args: rest, locals: new Map(), callAt: at })
      const out = this.run([fn], [s])
      return out.map((x) => {
        x.frames.pop()
        x.returning = false
        return x
      })
    }
    switch (name) {
      case 'exit':
        s.done = true
        return [s]
      case 'return':
        s.returning = true
        return [s]
      case 'shift': {
        const f = s.frames[s.frames.length - 1]
        if (f) f.args.splice(0, rest[0]?.val.known ? Number(rest[0].val.text) || 1 : 1)
        return [s]
      }
      case 'sudo':
      case 'exec':
      case 'nohup':
      case 'time':
      case 'command':
        return this.command(
          rest.filter((a, i) => !(i === 0 && a.val.text.startsWith('-'))),
          prefix,
          s,
          at,
        )
      case 'env': {
        let i = 0
        while (i < rest.length && /^[A-Za-z_]\w*=/.test(rest[i]!.val.text)) {
          const e = this.splitEnvArg(s, rest[i]!)!
          prefix.set(e.name, e.val)
          i++
        }
        return this.command(rest.slice(i), prefix, s, at)
      }
      case 'ray':
        if (rest[0]?.val.text === 'start') this.recordStart(s, rest.slice(1), this.hostEnv(s, prefix, at), at, false)
        return [s]
      case 'docker':
      case 'podman':
      case 'nvidia-docker': {
        const sub = rest[0]?.val.text === 'container' ? rest.slice(1) : rest
        if (sub[0]?.val.text === 'run') this.dockerRun(s, sub.slice(1), at)
        return [s]
      }
      case 'bash':
      case 'sh':
        this.shellString(s, rest, this.hostEnv(s, prefix, at), false, at)
        return [s]
      default:
        return [s]
    }
  }

  /** The watched variables a process started from this shell gets: exported ones and command prefixes. */
  private hostEnv(s: State, prefix: Map<string, Val>, at: Span): Map<Watched, Assignment> {
    const env = new Map<Watched, Assignment>()
    for (const name of WATCHED) {
      const p = prefix.get(name)
      const v = this.lookup(s, name)
      if (p) env.set(name, { name, val: p, span: at, kind: 'prefix', inBranch: s.branch > 0, ...(v?.kind === 'scalar' ? { previous: v.assignment } : {}) })
      else if (v?.kind === 'scalar' && v.exported) env.set(name, v.assignment)
    }
    return env
  }

  private dockerRun(s: State, args: Arg[], at: Span): void {
    const WITH_VALUE = new Set([
      '--name',
      '--network',
      '--net',
      '--gpus',
      '--shm-size',
      '-v',
      '--volume',
      '--device',
      '-w',
      '--workdir',
      '-u',
      '--user',
      '--ipc',
      '--ulimit',
      '--cap-add',
      '--cap-drop',
      '-p',
      '--publish',
      '--runtime',
      '--restart',
      '--mount',
      '--label',
      '-l',
      '--memory',
      '-m',
      '--cpus',
      '--pid',
      '--hostname',
      '-h',
      '--add-host',
      '--security-opt',
      '--log-driver',
      '--log-opt',
      '--platform',
      '--env-file',
      '--cpuset-cpus',
      '--group-add',
      '--tmpfs',
      '--dns',
      '--uts',
      '--userns',
      '--stop-signal',
      '--stop-timeout',
      '--health-cmd',
      '--pull',
    ])
    const env = new Map<Watched, Assignment>()
    let entrypoint: Arg | undefined
    let i = 0
    for (; i < args.length; i++) {
      const a = args[i]!
      const t = a.val.text
      if (t === '--') {
        i++
        break
      }
      if (!t.startsWith('-') || t === '-') break
      let flag = t
      let value: Arg | undefined
      const eq = t.indexOf('=')
      if (t.startsWith('--') && eq > 0) {
        flag = t.slice(0, eq)
        value = { ...a, val: { text: t.slice(eq + 1), known: a.val.known, ...(a.val.origin ? { origin: { span: a.span, prefix: `${flag}=` } } : {}) } }
      } else if (/^-e./.test(t)) {
        flag = '-e'
        value = { ...a, val: { text: t.slice(2), known: a.val.known, ...(a.val.origin ? { origin: { span: a.span, prefix: '-e' } } : {}) } }
      } else if (flag === '-e' || flag === '--env' || flag === '--entrypoint' || WITH_VALUE.has(flag)) {
        value = args[++i]
      }
      if ((flag === '-e' || flag === '--env') && value) this.dockerEnv(s, a, value, env)
      if (flag === '--entrypoint' && value) entrypoint = value
    }
    const command = [...(entrypoint ? [entrypoint] : []), ...args.slice(i + 1)]
    const exe = (command[0]?.val.text ?? '').replace(/^.*\//, '')
    if (exe === 'ray' && command[1]?.val.text === 'start') this.recordStart(s, command.slice(2), env, at, true)
    else if (exe === 'bash' || exe === 'sh') this.shellString(s, command.slice(1), env, true, at)
  }

  /** One `-e`/`--env` of docker run: NAME=value, or NAME alone (the exported shell variable). */
  private dockerEnv(s: State, flagArg: Arg, value: Arg, env: Map<Watched, Assignment>): void {
    let kv: { name: string; val: Val } | undefined
    if (value.span === flagArg.span) {
      // Joined form (`--env=NAME=v`, `-eNAME=v`): the value's text already has the flag taken off.
      const m = /^([A-Za-z_]\w*)=/.exec(value.val.text)
      const flagPrefix = value.val.origin?.prefix ?? ''
      kv = m
        ? {
            name: m[1]!,
            val: {
              text: value.val.text.slice(m[0].length),
              known: value.val.known,
              ...(value.val.origin ? { origin: { span: value.span, prefix: flagPrefix + m[0] } } : {}),
            },
          }
        : undefined
    } else kv = this.splitEnvArg(s, value)
    const name = kv?.name ?? value.val.text
    if (!(WATCHED as readonly string[]).includes(name)) return
    const shell = this.lookup(s, name)
    if (!kv) {
      if (shell?.kind === 'scalar' && shell.exported) env.set(name as Watched, shell.assignment)
      return
    }
    // `-e NAME=$NAME` passes the shell variable on: the assignment is where the shell set it.
    if (shell?.kind === 'scalar' && shell.val === kv.val) {
      env.set(name as Watched, shell.assignment)
      return
    }
    const previous = shell?.kind === 'scalar' && shell.val.text !== kv.val.text ? shell.assignment : undefined
    env.set(name as Watched, { name, val: kv.val, span: value.span, kind: 'docker -e', inBranch: s.branch > 0, ...(previous ? { previous } : {}) })
  }

  /** `bash -c "… ray start …"`: the string is parsed and run on paper too (no patches inside it). */
  private shellString(s: State, args: Arg[], env: Map<Watched, Assignment>, inContainer: boolean, at: Span): void {
    const ci = args.findIndex((a) => /^-\w*c$/.test(a.val.text))
    const script = ci >= 0 ? args[ci + 1] : undefined
    // Unknown parts are kept as `${NAME}` / `$(…)`, which parse as the expansions they stand for.
    if (!script) return
    const parsed = parseBash(script.val.text, 'bash -c')
    if ('error' in parsed) return
    const vars = new Map<string, Var>()
    for (const [name, a] of env) vars.set(name, { kind: 'scalar', val: a.val, exported: true, assignment: a })
    const sub = new Evaluator(parsed, script.val.text, at.line - 1, true, vars)
    const done = sub.run(children(parsed.file, 'Stmts'), [{ ...fork(s), globals: new Map(), frames: [], starts: [] }])
    for (const st of done)
      for (const start of st.starts)
        s.starts.push({ ...start, line: at.line, rayLine: at.line, inContainer, path: s.path, env: new Map([...env, ...start.env]) })
  }

  private recordStart(s: State, args: Arg[], env: Map<Watched, Assignment>, at: Span, inContainer: boolean): void {
    const flagValue = (flag: string): { val: Val; arg: Arg } | undefined => {
      for (let i = 0; i < args.length; i++) {
        const a = args[i]!
        if (a.val.text.startsWith(`${flag}=`)) {
          const text = a.val.text.slice(flag.length + 1)
          return { arg: a, val: { text, known: a.val.known } }
        }
        if (a.val.text === flag && args[i + 1]) return { arg: args[i + 1]!, val: args[i + 1]!.val }
      }
      return undefined
    }
    // Ray 2.x also takes the node's identity from RAY_OVERRIDE_NODE_IP_ADDRESS in its environment.
    const override = env.get('RAY_OVERRIDE_NODE_IP_ADDRESS')
    const nodeIp =
      flagValue('--node-ip-address') ?? (override ? { val: override.val, arg: { val: override.val, span: override.span, depth: s.frames.length } } : undefined)
    const address = flagValue('--address')
    const outer = args.reduce((d, a) => Math.min(d, a.depth), s.frames.length)
    const last = [...args].reverse().find((a) => a.depth === outer)
    s.starts.push({
      line: s.frames[0]?.callAt.line ?? at.line,
      rayLine: at.line,
      head: args.some((a) => a.val.text === '--head'),
      args,
      ...(nodeIp ? { nodeIp } : {}),
      ...(address ? { address: address.val } : {}),
      env,
      ...(last && !this.nested ? { insertAt: { offset: last.span.end, line: last.span.line } } : {}),
      inContainer,
      path: [...s.path],
    })
  }
}

/** Shell glob match for case patterns and [[ == ]]: `*`, `?`, `[…]`, and `a|b` alternatives. */
export function globMatch(pattern: string, text: string): boolean {
  return pattern.split('|').some((p) => {
    const re = p
      .replace(/[.+^${}()\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')
    try {
      return new RegExp(`^${re}$`).test(text)
    } catch {
      return p === text
    }
  })
}

/** Every `ray start` on every path through a launch script. */
export function evaluateScript(text: string, path: string): Evaluation {
  const parsed = parseBash(text, path)
  if ('error' in parsed) return { starts: [], error: parsed.error, truncated: false }
  const ev = new Evaluator(parsed, text, 0, false)
  const init: State = { globals: new Map(), funcs: new Map(), frames: [], branch: 0, done: false, returning: false, starts: [], path: [] }
  const finals = ev.run(children(parsed.file, 'Stmts'), [init])
  // The same start reached on several paths (forks that changed nothing) is kept once.
  const seen = new Set<string>()
  const starts: RayStart[] = []
  for (const st of finals) {
    for (const r of st.starts) {
      const key = JSON.stringify([r.line, r.rayLine, r.args.map((a) => a.val.text), [...r.env].map(([k, v]) => [k, v.val.text, v.span.start])])
      if (seen.has(key)) continue
      seen.add(key)
      starts.push(r)
    }
  }
  return { starts, truncated: ev.truncated }
}
