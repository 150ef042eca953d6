/**
 * Size rules for src/ (issue 19's acceptance): no function longer than 100 lines, no file under
 * src/deploy/ longer than 400 lines. A long function is a list of steps that want names; split it
 * into named steps rather than raising the bound. Generated data and embedded scripts (a shell or
 * Python program held in a template literal) are the only exceptions, each named in ALLOWED with
 * its reason; an entry that is no longer over the bound fails too, so the list cannot go stale.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

const MAX_FUNCTION_LINES = 100
const MAX_DEPLOY_FILE_LINES = 400

/**
 * `path#function` → why it may be longer. Only generated data or an embedded script belongs here.
 * Empty today: every function in src/ fits. An entry reads
 *   ['src/probe/x.ts#PROGRAM_TEXT', 'embedded Python probe, run on the node as one script'],
 */
const ALLOWED: ReadonlyMap<string, string> = new Map<string, string>([])

const SRC = resolve('src')

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const path = join(dir, f)
    if (statSync(path).isDirectory()) return tsFiles(path)
    return f.endsWith('.ts') ? [path] : []
  })
}

export interface LongFunction {
  /** `path#name`, the key ALLOWED uses; an anonymous function is named by its first line. */
  readonly key: string
  readonly line: number
  readonly lines: number
}

/** A name for a function node: its own, its variable's or property's, else `<anonymous>@line`. */
function nameOf(node: ts.SignatureDeclaration, source: ts.SourceFile, line: number): string {
  if (node.name !== undefined) return node.name.getText(source)
  const parent = node.parent
  if (parent !== undefined && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))) {
    return parent.name.getText(source)
  }
  return `<anonymous>@${line}`
}

/** Every function (declaration, method, arrow, expression, accessor) with a body longer than `max` lines. */
export function longFunctions(path: string, text: string, max: number): LongFunction[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true)
  const found: LongFunction[] = []
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line + 1
      const lines = last - first + 1
      if (lines > max) found.push({ key: `${path}#${nameOf(node, source, first)}`, line: first, lines })
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

const body = (n: number): string => Array.from({ length: n }, (_, i) => `  const v${i} = ${i}`).join('\n')

describe('function and file length in src/', () => {
  it('the checker sees declarations, arrows, methods and nested functions, and counts signature to closing brace', () => {
    const text = [
      `export function declared() {\n${body(99)}\n}`, // 101 lines
      `function fits() {\n${body(98)}\n}`, // 100 lines: at the bound, allowed
      `const arrow = async () => {\n${body(120)}\n}`,
      `class K {\n  method(): void {\n${body(101)}\n  }\n}`,
      `function outer() {\n  const inner = function () {\n${body(150)}\n  }\n}`,
      `run(() => {\n${body(101)}\n})`,
    ].join('\n')
    const found = longFunctions('x.ts', text, 100)
    expect(found.map((f) => [f.key, f.lines])).toEqual([
      ['x.ts#declared', 101],
      ['x.ts#arrow', 122],
      ['x.ts#method', 103],
      ['x.ts#outer', 154],
      ['x.ts#inner', 152],
      ['x.ts#<anonymous>@583', 103],
    ])
  })

  it(`no function in src/ is longer than ${MAX_FUNCTION_LINES} lines, apart from the allow-list`, () => {
    const over = tsFiles(SRC).flatMap((file) => longFunctions(relative('.', file), readFileSync(file, 'utf8'), MAX_FUNCTION_LINES))
    const offenders = over.filter((f) => !ALLOWED.has(f.key)).map((f) => `${f.key} (line ${f.line}): ${f.lines} lines`)
    expect(offenders, 'split these into named steps').toEqual([])
    const stale = [...ALLOWED.keys()].filter((key) => !over.some((f) => f.key === key))
    expect(stale, 'these allow-list entries are no longer over the bound: remove them').toEqual([])
  })

  it(`no file in src/deploy/ is longer than ${MAX_DEPLOY_FILE_LINES} lines`, () => {
    const long = tsFiles(join(SRC, 'deploy'))
      .map((file) => ({ file: relative('.', file), lines: readFileSync(file, 'utf8').split('\n').length }))
      .filter((f) => f.lines > MAX_DEPLOY_FILE_LINES)
      .map((f) => `${f.file}: ${f.lines} lines`)
    expect(long).toEqual([])
  })
})
