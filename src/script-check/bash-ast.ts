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

/**
 * A node of the syntax tree. mvdan-sh hands out a fresh GopherJS wrapper on every field read, and
 * each read converts Go slices and strings to JavaScript again; a walk that reads a field per path
 * and per call would pay that every time. So each node is read through this record, which keeps
 * what was read (its type, its range, each field) and is the same object on every read.
 */
export interface Node {
  readonly raw: ShNode
  type?: string
  range?: Span
  readonly fields: Map<string, unknown>
}

const parser = () => sh.syntax.NewParser(sh.syntax.KeepComments(false), sh.syntax.Variant(sh.syntax.LangBash))

export interface ParseError {
  readonly line: number
  readonly col: number
  readonly message: string
}

export interface ParsedScript {
  readonly file: Node
  /** UTF-8 byte offset → string index (node offsets count bytes); undefined where they are the same (ASCII text). */
  readonly byteToIndex?: Int32Array
}

/** Each byte offset of the text's UTF-8 form as a string index, computed once (undefined: ASCII, the identity). */
function byteIndex(text: string): Int32Array | undefined {
  const bytes = Buffer.byteLength(text, 'utf8')
  if (bytes === text.length) return undefined
  const out = new Int32Array(bytes + 1)
  let b = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.codePointAt(i)!
    const n = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4
    for (let k = 0; k < n; k++) out[b + k] = i
    b += n
    if (c >= 0x10000) i++
  }
  out[b] = text.length
  return out
}

const wrap = (raw: ShNode): Node => ({ raw, fields: new Map() })

/** Parse bash text; a syntax error comes back as a value with its line and column. */
export function parseBash(text: string, name: string): ParsedScript | { error: ParseError } {
  try {
    const file = wrap(parser().Parse(text, name))
    const byteToIndex = byteIndex(text)
    return byteToIndex ? { file, byteToIndex } : { file }
  } catch (e) {
    const msg = typeof (e as { Error?: unknown }).Error === 'function' ? String((e as { Error: () => string }).Error()) : String(e)
    const m = /^.*?:(\d+):(\d+): (.*)$/s.exec(msg)
    return { error: m ? { line: Number(m[1]), col: Number(m[2]), message: m[3]! } : { line: 1, col: 1, message: msg } }
  }
}

export const nodeType = (n: Node): string => (n.type ??= sh.syntax.NodeType(n.raw))

/** A struct of the tree (a node, or a part such as a parameter expansion's `Exp`): read through a record too. */
const isNode = (x: unknown): x is ShNode => typeof x === 'object' && x !== null

/** A field as read once: structs wrapped (the same record on every read), lists of nodes as arrays of them. */
function field(n: Node, name: string): unknown {
  if (n.fields.has(name)) return n.fields.get(name)
  const v = n.raw[name]
  const out = Array.isArray(v) ? v.map((x) => (isNode(x) ? wrap(x) : x)) : isNode(v) ? wrap(v) : v
  n.fields.set(name, out)
  return out
}

/** A field of a node, as the node type (or list of nodes) it holds. */
export const child = (n: Node, name: string): Node | null => (field(n, name) as Node | null | undefined) ?? null
export const children = (n: Node, name: string): Node[] => (field(n, name) as Node[] | null | undefined) ?? []
export const str = (n: Node, name: string): string => String(field(n, name) ?? '')
export const num = (n: Node, name: string): number => Number(field(n, name) ?? 0)
export const bool = (n: Node, name: string): boolean => Boolean(field(n, name))

/** A source range in UTF-16 units (JavaScript string indices) with the line it starts on. */
export interface Span {
  readonly start: number
  readonly end: number
  readonly line: number
}

/** The node's range in the script text (byte offsets turned into string indices). */
export function spanOf(script: ParsedScript, n: Node): Span {
  if (n.range) return n.range
  const map = script.byteToIndex
  const toIndex = (byte: number) => (map ? map[Math.min(byte, map.length - 1)]! : byte)
  const pos = n.raw.Pos()
  n.range = { start: toIndex(pos.Offset()), end: toIndex(n.raw.End().Offset()), line: pos.Line() }
  return n.range
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
  RemSmallSuffix: 76, // ${a%x}
  RemLargeSuffix: 77, // ${a%%x}
  RemSmallPrefix: 78, // ${a#x}
  RemLargePrefix: 79, // ${a##x}
  RdrOut: 54, // > file
  AppOut: 55, // >> file
  Hdoc: 61, // <<EOF
  DashHdoc: 62, // <<-EOF
} as const
