/**
 * Conditions a script branches on, decided when they can be: `[ a = b ]`, `test`, `[[ … ]]` with
 * glob patterns, `-n`/`-z`, numeric comparisons, `!`, `&&`/`||`, `true`/`false`. Anything that
 * depends on the machine (`$(hostname)`, `ip addr | grep -q …`, the script's arguments) is
 * undecided: both ways are followed, which is how every role's section is reached.
 */

import { OP, bool, child, children, nodeType, num, type Node } from './bash-ast.js'
import type { Expander } from './expand.js'
import type { Val } from './model.js'
import type { State } from './state.js'

type Truth = boolean | undefined

const not = (r: Truth): Truth => (r === undefined ? undefined : !r)
const and = (x: Truth, y: Truth): Truth => (x === false || y === false ? false : x === true && y === true ? true : undefined)
const or = (x: Truth, y: Truth): Truth => (x === true || y === true ? true : x === false && y === false ? false : undefined)

/** Shell glob match for case patterns and [[ == ]]: `*`, `?`, `[…]`, and `a|b` alternatives. */
export function globMatch(pattern: string, text: string): boolean {
  return pattern.split('|').some((p) => {
    const re = globAlternative(p)
    return re ? re.test(text) : p === text
  })
}

/** One alternative of a pattern as a regular expression, made once per text (null: not one; it matches itself only). */
const alternatives = new Map<string, RegExp | null>()
function globAlternative(p: string): RegExp | null {
  let re = alternatives.get(p)
  if (re === undefined) {
    const src = p
      .replace(/[.+^${}()\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')
    try {
      re = new RegExp(`^${src}$`)
    } catch {
      re = null
    }
    if (alternatives.size > 10_000) alternatives.clear()
    alternatives.set(p, re)
  }
  return re
}

type Facts = State['facts']
const literal = (v: Val): boolean => v.known && !/[*?[]/.test(v.text)

/** A value with what the path assumed about it: a symbolic value the path took as equal to a literal is that literal. */
function resolve(facts: Facts, v: Val): Val {
  const eq = v.known ? undefined : facts.get(v.text)?.eq
  return eq === undefined ? v : { text: eq, known: true }
}

function compare(facts: Facts, a0: Val, b0: Val, negate: boolean): Truth {
  const a = resolve(facts, a0)
  const b = resolve(facts, b0)
  const [u, k] = !a.known && literal(b) ? [a, b] : !b.known && literal(a) ? [b, a] : [undefined, undefined]
  if (u && k && facts.get(u.text)?.ne.includes(k.text)) return negate
  if (!a.known || !b.known) return a.text === b.text && a.text !== '' ? !negate : undefined
  const eq = globMatch(b.text, a.text)
  return negate ? !eq : eq
}

const NUMERIC: Record<string, (a: number, b: number) => boolean> = {
  '-eq': (a, b) => a === b,
  '-ne': (a, b) => a !== b,
  '-lt': (a, b) => a < b,
  '-le': (a, b) => a <= b,
  '-gt': (a, b) => a > b,
  '-ge': (a, b) => a >= b,
}

/** A fact every path of a reading holds: a command substitution's output may be empty (evaluate.ts evaluateScript). */
export const SUBSTITUTIONS_MAY_BE_EMPTY = '\u0000substitutions may be empty'

function testWords(facts: Facts, ops: Val[]): Truth {
  if (ops[0]?.text === '!' && ops[0].known) return not(testWords(facts, ops.slice(1)))
  if (ops.length === 3) {
    const op = ops[1]!.text
    if (['=', '==', '!='].includes(op)) return compare(facts, ops[0]!, ops[2]!, op === '!=')
    const f = NUMERIC[op]
    if (f)
      return ops[0]!.known && ops[2]!.known && /^-?\d+$/.test(ops[0]!.text) && /^-?\d+$/.test(ops[2]!.text)
        ? f(Number(ops[0]!.text), Number(ops[2]!.text))
        : undefined
  }
  if (ops.length === 2 && (ops[0]!.text === '-n' || ops[0]!.text === '-z')) {
    const v = ops[1]!
    // VRD_* variables are always set under launch.mode: script; a command substitution is taken as non-empty, unless this reading
    // takes it either way (evaluate.ts: a first reading that reached no start).
    const empty = v.known
      ? v.text === ''
      : /^\$\{VRD_\w+\}$/.test(v.text) || (/^\$\(/.test(v.text) && !facts.has(SUBSTITUTIONS_MAY_BE_EMPTY))
        ? false
        : undefined
    return ops[0]!.text === '-z' ? empty : not(empty)
  }
  if (ops.length === 1) return ops[0]!.known ? ops[0]!.text !== '' : undefined
  return undefined
}

/** A symbolic value found equal (or not) to a literal on this path. */
export function record(facts: Facts, a: Val, b: Val, equal: boolean): void {
  const [u, k] = !a.known && literal(b) ? [a, b] : !b.known && literal(a) ? [b, a] : [undefined, undefined]
  if (!u || !k) return
  const f = facts.get(u.text) ?? { ne: [] }
  facts.set(u.text, equal ? { ...f, eq: k.text } : { ...f, ne: [...f.ne, k.text] })
}

export class Conditions {
  constructor(private readonly ex: Expander) {}

  /** A condition list's truth when it can be known (the last command decides). */
  of(s: State, stmts: Node[]): Truth {
    const last = stmts[stmts.length - 1]
    if (!last) return undefined
    const r = this.cmd(s, child(last, 'Cmd'))
    return bool(last, 'Negated') ? not(r) : r
  }

  /** Record what taking a branch means for the values its condition compared (`[ "$3" == --head ]` taken: `${3}` is `--head`). */
  assume(s: State, stmts: Node[], truth: boolean): void {
    const last = stmts[stmts.length - 1]
    if (!last) return
    this.assumeCmd(s, child(last, 'Cmd'), bool(last, 'Negated') ? !truth : truth)
  }

  private assumeCmd(s: State, cmd: Node | null, truth: boolean): void {
    if (!cmd) return
    const t = nodeType(cmd)
    if (t === 'TestClause') {
      this.assumeExpr(s, child(cmd, 'X'), truth)
      return
    }
    if (t === 'BinaryCmd') {
      const op = num(cmd, 'Op')
      // Both sides hold when `a && b` held; neither did when `a || b` failed.
      if ((op === OP.AndStmt && truth) || (op === OP.OrStmt && !truth)) for (const side of ['X', 'Y']) this.assume(s, [child(cmd, side)!], truth)
      return
    }
    if (t === 'CallExpr') {
      const words = children(cmd, 'Args').map((w) => this.ex.wordVal(s, w))
      const ops = words[0]?.text === '[' ? words.slice(1, -1) : words[0]?.text === 'test' ? words.slice(1) : []
      if (ops.length === 3 && ['=', '==', '!='].includes(ops[1]!.text)) record(s.facts, ops[0]!, ops[2]!, ops[1]!.text === '!=' ? !truth : truth)
      if (ops.length === 2 && (ops[0]!.text === '-n' || ops[0]!.text === '-z')) this.assumeEmpty(s, ops[0]!.text, ops[1], truth)
    }
  }

  /** `-n`/`-z` on an input the path does not know, the branch taking it empty: the user did not give it (State.assumedEmpty). */
  private assumeEmpty(s: State, op: string, operand: Val | undefined, truth: boolean): void {
    const input = operand && !operand.known ? /^\$\{(\w+)\}$/.exec(operand.text)?.[1] : undefined
    if (input && (op === '-z') === truth && !s.assumedEmpty.includes(input)) s.assumedEmpty.push(input)
  }

  private assumeExpr(s: State, x: Node | null, truth: boolean): void {
    if (!x) return
    const t = nodeType(x)
    if (t === 'ParenTest') {
      this.assumeExpr(s, child(x, 'X'), truth)
      return
    }
    if (t === 'UnaryTest') {
      // `[[ -n "${NAME:-}" ]]` not taken (or `-z` taken) on an input the path does not know: the user did not give NAME.
      const opText = this.ex.src(x).trim().slice(0, 2)
      if (opText === '-n' || opText === '-z') this.assumeEmpty(s, opText, this.operand(s, child(x, 'X')), truth)
      return
    }
    if (t !== 'BinaryTest') return
    const op = num(x, 'Op')
    if ((op === OP.AndStmt && truth) || (op === OP.OrStmt && !truth)) {
      this.assumeExpr(s, child(x, 'X'), truth)
      this.assumeExpr(s, child(x, 'Y'), truth)
      return
    }
    const l = this.operand(s, child(x, 'X'))
    const r = this.operand(s, child(x, 'Y'))
    if (l && r && (op === OP.TsMatch || op === OP.TsMatchShort || op === OP.TsNoMatch)) record(s.facts, l, r, op === OP.TsNoMatch ? !truth : truth)
  }

  private cmd(s: State, cmd: Node | null): Truth {
    if (!cmd) return undefined
    const t = nodeType(cmd)
    if (t === 'TestClause') return this.expr(s, child(cmd, 'X'))
    if (t === 'CallExpr') {
      const words = children(cmd, 'Args')
      const first = words[0] ? this.ex.wordVal(s, words[0]).text : ''
      if (first === 'true' || first === ':') return true
      if (first === 'false') return false
      // Any other command's success depends on the machine.
      if (first !== '[' && first !== 'test') return undefined
      return testWords(
        s.facts,
        words.slice(1, first === '[' ? -1 : undefined).map((w) => this.ex.wordVal(s, w)),
      )
    }
    if (t === 'BinaryCmd') {
      const op = num(cmd, 'Op')
      const x = this.of(s, [child(cmd, 'X')!])
      const y = this.of(s, [child(cmd, 'Y')!])
      if (op === OP.AndStmt) return and(x, y)
      if (op === OP.OrStmt) return or(x, y)
    }
    if (t === 'Block' || t === 'Subshell') return this.of(s, children(cmd, 'Stmts'))
    return undefined
  }

  private expr(s: State, x: Node | null): Truth {
    if (!x) return undefined
    const t = nodeType(x)
    if (t === 'BinaryTest') {
      const op = num(x, 'Op')
      if (op === OP.AndStmt) return and(this.expr(s, child(x, 'X')), this.expr(s, child(x, 'Y')))
      if (op === OP.OrStmt) return or(this.expr(s, child(x, 'X')), this.expr(s, child(x, 'Y')))
      const l = this.operand(s, child(x, 'X'))
      const r = this.operand(s, child(x, 'Y'))
      if (!l || !r) return undefined
      if (op === OP.TsMatch || op === OP.TsMatchShort) return compare(s.facts, l, r, false)
      if (op === OP.TsNoMatch) return compare(s.facts, l, r, true)
      const opText =
        this.ex
          .src(x)
          .slice(this.ex.src(child(x, 'X')!).length)
          .trim()
          .split(/\s+/)[0] ?? ''
      return NUMERIC[opText] ? testWords(s.facts, [l, { text: opText, known: true }, r]) : undefined
    }
    if (t === 'UnaryTest') {
      const opText = this.ex.src(x).trim().slice(0, 2)
      if (opText.startsWith('!')) return not(this.expr(s, child(x, 'X')))
      const operand = this.operand(s, child(x, 'X'))
      if (!operand) return undefined
      if (opText === '-n' || opText === '-z') return testWords(s.facts, [{ text: opText, known: true }, operand])
      return undefined
    }
    if (t === 'ParenTest') return this.expr(s, child(x, 'X'))
    if (t === 'Word') return testWords(s.facts, [this.ex.wordVal(s, x)])
    return undefined
  }

  private operand(s: State, x: Node | null): Val | undefined {
    return x && nodeType(x) === 'Word' ? this.ex.wordVal(s, x) : undefined
  }
}
