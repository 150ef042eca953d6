/**
 * The bash parser, behind one small door: mvdan-sh, the GopherJS build of mvdan.cc/sh (the parser
 * behind shfmt). Chosen over bash-parser (unmaintained since 2017, no `[[ ]]`, arrays or `local`
 * coverage) and tree-sitter-bash / sh-syntax (both need a .wasm file next to the bundle, which ncc
 * does not carry into a single CommonJS file): mvdan-sh is one plain JavaScript file, parses full
 * bash (arrays, `[[ ]]`, `case`, functions, `local`, here-docs), keeps byte offsets and lines for
 * every node, and reports syntax errors as `file:line:col: message`.
 *
 * Only this file touches the package; the rest of src/script-check reads the typed view below.
 */

import sh, { type ShNode } from 'mvdan-sh'

export type Node = ShNode

const parser = () => sh.syntax.NewParser(sh.syntax.KeepComments(false), sh.syntax.Variant(sh.syntax.LangBash))

export interface ParseError {
  readonly line: number
  readonly col: number
  readonly message: string
}

export interface ParsedScript {
  readonly file: Node
  /** The script's bytes: node offsets count bytes, not UTF-16 units. */
  readonly bytes: Buffer
}

/** Parse bash text; a syntax error comes back as a value with its line and column. */
export function parseBash(text: string, name: string): ParsedScript | { error: ParseError } {
  try {
    return { file: parser().Parse(text, name), bytes: Buffer.from(text, 'utf8') }
  } catch (e) {
    const msg = typeof (e as { Error?: unknown }).Error === 'function' ? String((e as { Error: () => string }).Error()) : String(e)
    const m = /^.*?:(\d+):(\d+): (.*)$/s.exec(msg)
    return { error: m ? { line: Number(m[1]), col: Number(m[2]), message: m[3]! } : { line: 1, col: 1, message: msg } }
  }
}

export const nodeType = (n: Node): string => sh.syntax.NodeType(n)

/** A field of a node, as the node type (or list of nodes) it holds. */
export const child = (n: Node, field: string): Node | null => (n[field] as Node | null | undefined) ?? null
export const children = (n: Node, field: string): Node[] => (n[field] as Node[] | null | undefined) ?? []
export const str = (n: Node, field: string): string => String(n[field] ?? '')
export const num = (n: Node, field: string): number => Number(n[field] ?? 0)
export const bool = (n: Node, field: string): boolean => Boolean(n[field])

/** A source range in UTF-16 units (JavaScript string indices) with the line it starts on. */
export interface Span {
  readonly start: number
  readonly end: number
  readonly line: number
}

/** The node's range in the script text (byte offsets turned into string indices). */
export function spanOf(script: ParsedScript, n: Node): Span {
  const toIndex = (byte: number) => script.bytes.subarray(0, byte).toString('utf8').length
  return { start: toIndex(n.Pos().Offset()), end: toIndex(n.End().Offset()), line: n.Pos().Line() }
}

/** Operator codes of mvdan.cc/sh/v3/syntax as the GopherJS build exposes them (checked by tests). */
export const OP = {
  AndStmt: 10,
  OrStmt: 11,
  Pipe: 12,
  TsMatchShort: 74, // `=` in [[ ]]
  TsMatch: 40, // `==`
  TsNoMatch: 41, // `!=`
  DefaultUnset: 70, // ${a-x}
  DefaultUnsetOrNull: 71, // ${a:-x}
  ErrorUnset: 72, // ${a?msg}
  ErrorUnsetOrNull: 73, // ${a:?msg}
  AssignUnset: 74, // ${a=x}
  AssignUnsetOrNull: 75, // ${a:=x}
  AlternateUnset: 68, // ${a+x}
  AlternateUnsetOrNull: 69, // ${a:+x}
  RdrOut: 54, // > file
  AppOut: 55, // >> file
  Hdoc: 61, // <<EOF
  DashHdoc: 62, // <<-EOF
} as const
