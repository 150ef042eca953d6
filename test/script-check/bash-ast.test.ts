import sh from 'mvdan-sh'
import { describe, expect, it } from 'vitest'
import { OP, child, children, type Node, nodeType, num, parseBash, spanOf, str } from '../../src/script-check/bash-ast.js'

const parse = (text: string) => {
  const r = parseBash(text, 't.sh')
  if ('error' in r) throw new Error(r.error.message)
  return r
}
const cmdOf = (text: string, i = 0) => child(children(parse(text).file, 'Stmts')[i]!, 'Cmd')!

describe('mvdan-sh behind bash-ast.ts', () => {
  it('operator codes are the ones the evaluator reads', () => {
    expect(num(cmdOf('a && b'), 'Op')).toBe(OP.AndStmt)
    expect(num(cmdOf('a || b'), 'Op')).toBe(OP.OrStmt)
    expect(num(cmdOf('a | b'), 'Op')).toBe(OP.Pipe)
    const test = (t: string) => num(child(cmdOf(t), 'X')!, 'Op')
    expect([test('[[ a = b ]]'), test('[[ a == b ]]'), test('[[ a != b ]]')]).toEqual([OP.TsMatchShort, OP.TsMatch, OP.TsNoMatch])
    const exp = (t: string) => num(child(children(children(cmdOf(`echo ${t}`), 'Args')[1]!, 'Parts')[0]!, 'Exp')!, 'Op')
    expect([exp('${a-x}'), exp('${a:-x}'), exp('${a=x}'), exp('${a:=x}'), exp('${a+x}'), exp('${a:+x}')]).toEqual([
      OP.DefaultUnset,
      OP.DefaultUnsetOrNull,
      OP.AssignUnset,
      OP.AssignUnsetOrNull,
      OP.AlternateUnset,
      OP.AlternateUnsetOrNull,
    ])
  })

  it('spans are string indices even after multi-byte text, with the line', () => {
    const text = '# café ünïcode\necho "$VLLM_HOST_IP"\n'
    const s = parse(text)
    const word = children(child(children(s.file, 'Stmts')[0]!, 'Cmd')!, 'Args')[1]!
    const span = spanOf(s, word)
    expect(text.slice(span.start, span.end)).toBe('"$VLLM_HOST_IP"')
    expect(span.line).toBe(2)
    expect(nodeType(word)).toBe('Word')
  })

  it('a syntax error is a value with line and column', () => {
    expect(parseBash('echo ok\necho "unterminated', 'bad.sh')).toEqual({ error: { line: 2, col: 6, message: 'reached EOF without closing quote "' } })
  })

  it('reads every field as the JavaScript view of mvdan-sh gives it (node types, spans, strings, lists, nil)', () => {
    // bash-ast.ts reads the Go values under mvdan-sh's wrappers; this walks both views of one script and compares them.
    const text = [
      '# ünïcode 😀',
      'A="héllo $B wörld" C=(a "ß" c) D=${E:-ü}',
      'echo $\'\\u00e9\' é ${#A} ${A/x/y} ${A:1:2} "$@" >> /tmp/log 2>&1',
      'if [[ $A == é* && -n "$B" ]]; then ray start --head --node-ip-address="$A"; elif true; then :; else exit 1; fi',
      'case "$1" in --head) H=1 ;; *) H=0 ;; esac',
      'f() { local x=$1; for i in 1 2; do echo "$x$i"; done; while false; do break; done; }',
      'cat > env.txt <<EOF',
      'Ä $A $(hostname -I)',
      'EOF',
      'ssh host "bash -c \'ray start --address=$H:6379\'" & wait',
      '',
    ].join('\n')
    const s = parse(text)
    const view = sh.syntax.NewParser(sh.syntax.KeepComments(false), sh.syntax.Variant(sh.syntax.LangBash)).Parse(text, 't.sh')
    let compared = 0
    const walk = (n: Node, w: Record<string, unknown> & { Pos?: () => { Offset(): number; Line(): number } }): void => {
      compared++
      // Nodes (with Pos and End); other structs (a parameter expansion's `Exp`, a position) are only walked.
      if (typeof w.Pos === 'function') {
        expect(nodeType(n)).toBe(sh.syntax.NodeType(w as never))
        const span = spanOf(s, n)
        expect([span.line, text.slice(span.start, span.end)]).toEqual([
          w.Pos().Line(),
          Buffer.from(text)
            .subarray(w.Pos().Offset(), (w as never as { End(): { Offset(): number } }).End().Offset())
            .toString(),
        ])
      }
      // The view's fields are non-enumerable getters, one per exported field of the Go struct.
      for (const k of Object.getOwnPropertyNames(w)) {
        const v = w[k]
        if (typeof v === 'function' || k === '__internal_object__' || k === '$type') continue
        if (Array.isArray(v)) {
          const mine = children(n, k)
          expect(mine.length, k).toBe(v.length)
          v.forEach((x, i) => {
            if (typeof x === 'object' && x !== null) walk(mine[i]!, x)
            else expect(mine[i]).toBe(x)
          })
        } else if (typeof v === 'object' && v !== null) walk(child(n, k)!, v as never)
        else if (v === null) expect(child(n, k), k).toBeNull()
        else if (typeof v === 'string') expect(str(n, k), k).toBe(v)
        else expect(num(n, k), k).toBe(Number(v))
      }
    }
    walk(s.file, view as never)
    expect(compared).toBeGreaterThan(100)
  })
})
