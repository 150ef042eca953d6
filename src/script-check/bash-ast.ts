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

import sh from 'mvdan-sh'

/**
 * A node of the syntax tree. mvdan-sh's own JavaScript view of a node (a GopherJS wrapper) is made
 * afresh on every field read, and each one defines a property for every field and method of the Go
 * struct; a long script's walk spent a fifth of its time making them. So a node is read from the Go
 * value under the wrapper (`__internal_object__`) by its struct's field table, converting each field
 * as GopherJS's `$externalize` does (pointers and interfaces: null when nil, else a node; slices:
 * arrays, empty when nil; strings: UTF-8 decoded), once per field, into this record, which is the same
 * object on every read.
 */
export interface Node {
  /** The Go value (a GopherJS pointer to the node's struct). */
  readonly go: GoValue
  type?: string
  range?: Span
  readonly fields: Map<string, unknown>
}

/** A GopherJS value as the compiled Go code holds it (the struct's fields by name, its methods on the prototype). */
interface GoValue {
  readonly constructor: GoType
  readonly $val: GoValue
  readonly [field: string]: unknown
  Pos(): GoPos
  End(): GoPos
}
interface GoPos {
  Offset(): number
  Line(): number
}
interface GoType {
  readonly kind: number
  readonly string: string
  readonly nil?: unknown
  readonly elem?: GoType
  readonly fields?: readonly { readonly name: string; readonly prop: string; readonly typ: GoType; readonly exported: boolean }[]
}
interface GoSlice {
  readonly $array: ArrayLike<unknown>
  readonly $offset: number
  readonly $length: number
}

// GopherJS's type kinds (its runtime's $kind… constants).
const KIND = { Int64: 6, Uint64: 11, Interface: 20, Ptr: 22, Slice: 23, String: 24, Struct: 25 } as const

/** Each struct type's exported fields by name (the Go field and its type). */
const fieldTables = new Map<GoType, Map<string, { prop: string; typ: GoType }>>()
function fieldTable(t: GoType): Map<string, { prop: string; typ: GoType }> {
  let table = fieldTables.get(t)
  if (!table) {
    table = new Map()
    for (const f of (t.kind === KIND.Ptr ? t.elem : t)?.fields ?? []) if (f.exported) table.set(f.name, { prop: f.prop, typ: f.typ })
    fieldTables.set(t, table)
  }
  return table
}

/** Bytes over 0x7f: a Go string (one character per byte) that needs decoding as UTF-8. */
const NON_ASCII = /[^\0-\x7f]/
/** A Go field's value as GopherJS's `$externalize` gives it to JavaScript, structs as nodes. */
function fromGo(v: unknown, t: GoType): unknown {
  switch (t.kind) {
    case KIND.Ptr:
      return v === t.nil ? null : wrap(v as GoValue)
    case KIND.Interface:
      // The nil interface ($ifaceNil) is a plain object without a value.
      return v === null || v === undefined || (v as GoValue).$val === undefined ? null : fromGo((v as GoValue).$val, (v as GoValue).constructor)
    case KIND.Struct:
      return wrap(v as GoValue)
    case KIND.Slice: {
      const s = v as GoSlice
      const out = new Array<unknown>(s.$length)
      for (let i = 0; i < s.$length; i++) out[i] = fromGo(s.$array[s.$offset + i], t.elem!)
      return out
    }
    case KIND.String:
      return !NON_ASCII.test(v as string) ? v : Buffer.from(v as string, 'latin1').toString('utf8')
    case KIND.Int64:
    case KIND.Uint64: {
      const x = v as { $high: number; $low: number }
      return x.$high * 4294967296 + x.$low
    }
    default:
      return v
  }
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
  /** Angle-bracket placeholders (`<node1_ip>`) read as inputs because bash refused the text with them (their offsets in the text). */
  readonly placeholders?: readonly { readonly at: number; readonly text: string }[]
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

const wrap = (go: GoValue): Node => ({ go, fields: new Map() })

/**
 * A templating engine's placeholders on one line (Jinja2's and Go's `{{ … }}`: an Ansible `shell:` block, a Helm chart's command,
 * a `.j2` launch script): filled in before any shell reads the text, each is one word there, whatever blanks it holds inside.
 */
const TEMPLATE = /\{\{[^\n{}]{0,1000}\}\}/g
/**
 * Jinja2's statements and comments (`{% if vllm_load_format %} --load-format {{ vllm_load_format }}{% endif %}`, `{# … #}`): gone when
 * the engine renders the text, so blanks of the same length here; what a conditional adds is read as if it were given (an Ansible
 * `shell:` block, microscaler/cylon-local-infra's vLLM role, held-out19).
 */
const STATEMENT = /\{%[^\n]{0,1000}?%\}|\{#[^\n]{0,1000}?#\}/g

/**
 * Each placeholder as a parameter expansion of the same length (`{{ inventory_hostname }}` → `${Tinventory_hostname___}`), so bash
 * reads one word whose value is an input, as the engine's value is; every offset stays where it was. `unmask` gives a value or a
 * message the placeholders back as written.
 */
export function maskTemplates(text: string): string {
  const read = text.includes('{%') || text.includes('{#') ? text.replace(STATEMENT, (t) => ' '.repeat(t.length)) : text
  return read.includes('{{') ? read.replace(TEMPLATE, maskOf) : read
}
const maskOf = (t: string): string => `\${${`T${t.slice(2, -2).replace(/\W/g, '_')}`.padEnd(t.length - 3, '_').slice(0, t.length - 3)}}`

/**
 * A published template's placeholders in angle brackets, a whole word each (`--port <node1_port>`, `MASTER_ADDR=<node3_ip>`,
 * `OPENRLHF_PATH=<OPENRLHF_ROOT_PATH>`: ms-swift's and OpenRLHF's multi-node examples, held-out13). bash reads `<name>` as a
 * redirection and refuses the text (`> must be followed by a word`); where it does, each is read as an input instead, as a
 * template engine's placeholder is (at least two characters inside, so a mask of the same length is a parameter expansion).
 */
const ANGLE = /(?<![\w<>$&|-])<([A-Za-z][\w.-]{1,60})>(?![\w<>&|])/g
const angleMaskOf = (t: string): string => `\${${`P${t.slice(1, -1).replace(/\W/g, '_')}`.padEnd(t.length - 3, '_').slice(0, t.length - 3)}}`

/** The placeholders of `text` put back where their masks stand in `value` (a finding's words, a patch's text). */
export function templateUnmasker(text: string): (value: string) => string {
  const back = new Map<string, string>()
  if (text.includes('{{'))
    for (const m of text.matchAll(TEMPLATE)) {
      const mask = maskOf(m[0])
      back.set(mask, m[0])
      // (a rule that writes the reference again may write it without braces: `$Tfabric_ip_`)
      back.set(`$${mask.slice(2, -1)}`, m[0])
    }
  if (text.includes('<'))
    for (const m of text.matchAll(ANGLE)) {
      const mask = angleMaskOf(m[0])
      back.set(mask, m[0])
      back.set(`$${mask.slice(2, -1)}`, m[0])
    }
  if (back.size === 0) return (value) => value
  const masks = new RegExp([...back.keys()].map((k) => `${k.replace(/[$\\{}]/g, '\\$&')}(?!\\w)`).join('|'), 'g')
  return (value) => value.replace(masks, (k) => back.get(k) ?? k)
}

/** Parse bash text; a syntax error comes back as a value with its line and column. Template placeholders are one word each (maskTemplates). */
export function parseBash(text: string, name: string): ParsedScript | { error: ParseError } {
  const read = maskTemplates(text)
  const first = parsed(read, name)
  if (!read.includes('<')) return first
  if (!('error' in first)) return parsedPlaceholders(read, name) ?? first
  // Refused: read again with a template's angle-bracket placeholders as inputs; the placeholders are said (index.ts), the error kept if that fails too.
  const placeholders = [...read.matchAll(ANGLE)].map((m) => ({ at: m.index, text: m[0] }))
  if (placeholders.length === 0) return first
  const again = parsed(read.replace(ANGLE, angleMaskOf), name)
  return 'error' in again ? first : { ...again, placeholders }
}

/**
 * Placeholders bash parses (`--master-addr <HEAD_NODE_IP> \\` then `--master-port <MASTER_PORT> \\`: two redirections, the next option
 * their target; vllm-ascend's pipeline-parallel guide, held-out24): a whole word outside quotes, upper case with `_` or `-` as a
 * documentation placeholder is written, so a redirection of a real file (`< in.txt`, `<in.txt>out.txt`) is not one.
 */
const PARSEABLE_PLACEHOLDER = /(?<=[\s=])<([A-Z][A-Z0-9]*(?:[_-][A-Z0-9]+)+)>(?=\s|$)/g
function parsedPlaceholders(read: string, name: string): ParsedScript | undefined {
  const unquoted = (at: number): boolean => {
    const before = read.slice(read.lastIndexOf('\n', at) + 1, at)
    return (before.match(/"/g)?.length ?? 0) % 2 === 0 && (before.match(/'/g)?.length ?? 0) % 2 === 0 && !before.trimStart().startsWith('#')
  }
  const placeholders = [...read.matchAll(PARSEABLE_PLACEHOLDER)].filter((m) => unquoted(m.index)).map((m) => ({ at: m.index, text: m[0] }))
  if (placeholders.length === 0) return undefined
  let masked = read
  for (const p of [...placeholders].reverse()) masked = masked.slice(0, p.at) + angleMaskOf(p.text) + masked.slice(p.at + p.text.length)
  const again = parsed(masked, name)
  return 'error' in again ? undefined : { ...again, placeholders }
}

function parsed(read: string, name: string): ParsedScript | { error: ParseError } {
  try {
    const file = wrap((parser().Parse(read, name) as unknown as { __internal_object__: GoValue }).__internal_object__)
    const byteToIndex = byteIndex(read)
    return byteToIndex ? { file, byteToIndex } : { file }
  } catch (e) {
    const msg = typeof (e as { Error?: unknown }).Error === 'function' ? String((e as { Error: () => string }).Error()) : String(e)
    const m = /^.*?:(\d+):(\d+): (.*)$/s.exec(msg)
    return { error: m ? { line: Number(m[1]), col: Number(m[2]), message: m[3]! } : { line: 1, col: 1, message: msg } }
  }
}

/** The node's Go type name (`CallExpr` for a `*syntax.CallExpr`), as mvdan-sh's NodeType names it. */
export const nodeType = (n: Node): string => (n.type ??= n.go.constructor.string.replace(/^\*?syntax\./, ''))

/** A field as read once: structs wrapped (the same record on every read), lists of nodes as arrays of them. */
function field(n: Node, name: string): unknown {
  let out = n.fields.get(name)
  if (out !== undefined || n.fields.has(name)) return out
  const f = fieldTable(n.go.constructor).get(name)
  out = f ? fromGo(n.go[f.prop], f.typ) : undefined
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
  const pos = n.go.Pos()
  n.range = { start: toIndex(pos.Offset()), end: toIndex(n.go.End().Offset()), line: pos.Line() }
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
  DplOut: 59, // >&2
  ClbOut: 60, // >| file
  RdrAll: 64, // &> file
  AppAll: 65, // &>> file
  Hdoc: 61, // <<EOF
  DashHdoc: 62, // <<-EOF
} as const
