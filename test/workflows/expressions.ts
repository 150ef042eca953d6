/**
 * A small evaluator for the GitHub Actions expression language, enough to run the workflows'
 * `if:` conditions and `with:` values over every trigger and input combination: literals, context
 * paths (`inputs.dry-run`, `github.event_name`), `!`, `==`, `!=`, `&&`, `||`, parentheses, status
 * functions and `format('{0}-{1}', a, b)`. Semantics as GitHub documents them: `&&`/`||` return an operand, strings
 * compare case-insensitively, a missing property is null. Anything else throws, so a workflow that
 * grows an expression this cannot read fails the test instead of passing unread.
 */

export type Value = string | number | boolean | null
export interface Context {
  readonly [name: string]: Value | Context
}

type Token = { kind: 'str'; v: string } | { kind: 'num'; v: number } | { kind: 'id'; v: string } | { kind: 'op'; v: string }

function tokenize(src: string): Token[] {
  const out: Token[] = []
  let i = 0
  while (i < src.length) {
    const c = src[i]!
    if (/\s/.test(c)) {
      i++
    } else if (c === "'") {
      let s = ''
      i++
      for (;;) {
        if (i >= src.length) throw new Error(`unterminated string in ${src}`)
        if (src[i] === "'" && src[i + 1] === "'") {
          s += "'"
          i += 2
        } else if (src[i] === "'") {
          i++
          break
        } else s += src[i++]
      }
      out.push({ kind: 'str', v: s })
    } else if (/[0-9]/.test(c)) {
      const m = /^[0-9]+(\.[0-9]+)?/.exec(src.slice(i))!
      out.push({ kind: 'num', v: Number(m[0]) })
      i += m[0].length
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*/.exec(src.slice(i))!
      out.push({ kind: 'id', v: m[0] })
      i += m[0].length
    } else {
      const op = ['==', '!=', '&&', '||', '!', '(', ')', ','].find((o) => src.startsWith(o, i))
      if (!op) throw new Error(`cannot read "${src.slice(i)}" in expression ${src}`)
      out.push({ kind: 'op', v: op })
      i += op.length
    }
  }
  return out
}

export const truthy = (v: Value): boolean => !(v === null || v === false || v === 0 || v === '' || Number.isNaN(v))

function equal(a: Value, b: Value): boolean {
  if (typeof a === 'string' && typeof b === 'string') return a.toLowerCase() === b.toLowerCase()
  if (typeof a === typeof b) return a === b
  // Different types: GitHub coerces to numbers.
  const num = (v: Value): number => (v === null ? 0 : typeof v === 'boolean' ? Number(v) : typeof v === 'number' ? v : v.trim() === '' ? 0 : Number(v))
  return num(a) === num(b)
}

function lookup(ctx: Context, path: string): Value {
  let cur: Value | Context = ctx
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return null
    cur = (cur as Context)[part] ?? null
  }
  if (cur !== null && typeof cur === 'object') throw new Error(`${path} is an object, not a value`)
  return cur
}

export function evaluate(src: string, ctx: Context, functions: Readonly<Record<string, () => Value>> = {}): Value {
  const tokens = tokenize(src)
  let pos = 0
  const peek = () => tokens[pos]
  const isOp = (v: string) => peek()?.kind === 'op' && peek()!.v === v
  const or = (): Value => {
    let left = and()
    while (isOp('||')) {
      pos++
      const right = and()
      left = truthy(left) ? left : right
    }
    return left
  }
  const and = (): Value => {
    let left = cmp()
    while (isOp('&&')) {
      pos++
      const right = cmp()
      left = truthy(left) ? right : left
    }
    return left
  }
  const cmp = (): Value => {
    let left = unary()
    while (isOp('==') || isOp('!=')) {
      const op = tokens[pos++]!.v
      const right = unary()
      left = op === '==' ? equal(left, right) : !equal(left, right)
    }
    return left
  }
  const unary = (): Value => {
    if (isOp('!')) {
      pos++
      return !truthy(unary())
    }
    return primary()
  }
  const primary = (): Value => {
    const t = tokens[pos++]
    if (!t) throw new Error(`unexpected end of expression ${src}`)
    if (t.kind === 'op' && t.v === '(') {
      const v = or()
      if (!isOp(')')) throw new Error(`missing ) in ${src}`)
      pos++
      return v
    }
    if (t.kind === 'str' || t.kind === 'num') return t.v
    if (t.kind === 'id') {
      if (t.v === 'true') return true
      if (t.v === 'false') return false
      if (t.v === 'null') return null
      if (isOp('(')) {
        pos++
        const args: Value[] = []
        while (!isOp(')')) {
          if (args.length > 0) {
            if (!isOp(',')) throw new Error(`expected , or ) in ${src}`)
            pos++
          }
          args.push(or())
        }
        pos++
        if (t.v === 'format') return format(args, src)
        if (args.length > 0) throw new Error(`${t.v}() takes no arguments here: ${src}`)
        const f = functions[t.v]
        if (!f) throw new Error(`unknown function ${t.v}() in ${src}`)
        return f()
      }
      return lookup(ctx, t.v)
    }
    throw new Error(`unexpected "${t.v}" in ${src}`)
  }
  const v = or()
  if (pos !== tokens.length) throw new Error(`trailing tokens in ${src}`)
  return v
}

/** GitHub's format(): `{N}` replaced by argument N (as a string), `{{`/`}}` literal braces. */
function format(args: Value[], src: string): string {
  const [fmt, ...rest] = args
  if (typeof fmt !== 'string') throw new Error(`format() needs a string first: ${src}`)
  return fmt.replace(/\{\{|\}\}|\{(\d+)\}/g, (m, n: string | undefined) => {
    if (m === '{{') return '{'
    if (m === '}}') return '}'
    const v = rest[Number(n)]
    if (v === undefined) throw new Error(`format() has no argument ${n}: ${src}`)
    return v === null ? '' : String(v)
  })
}

const EXPR = /\$\{\{([\s\S]*?)\}\}/g

/** A `with:`/`env:` value: the text with each `${{ }}` replaced by its value (as GitHub formats it). */
export function interpolate(text: string, ctx: Context): string {
  return text.replace(EXPR, (_, e: string) => {
    const v = evaluate(e, ctx)
    return v === null ? '' : String(v)
  })
}

/** A job or step `if:`: an expression with or without `${{ }}`. */
export function condition(text: string | boolean | undefined, ctx: Context, functions: Readonly<Record<string, () => Value>> = {}): boolean {
  if (text === undefined) return true
  if (typeof text === 'boolean') return text
  const m = /^\s*\$\{\{([\s\S]*)\}\}\s*$/.exec(text)
  return truthy(evaluate(m ? m[1]! : text, ctx, functions))
}

export const hasExpression = (text: string): boolean => /\$\{\{/.test(text)
