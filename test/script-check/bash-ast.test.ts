import { describe, expect, it } from 'vitest'
import { OP, child, children, nodeType, num, parseBash, spanOf } from '../../src/script-check/bash-ast.js'

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
})
