/** YAML parse errors and warnings as manifest problems, with the key path when the parser's position names a key. Pure. */
import { type Document, isMap, isScalar, isSeq, type LineCounter, type Node, type YAMLError } from 'yaml'
import type { ManifestError } from './manifest-error.js'
import { pathLabel } from './manifest-error.js'

/** The key path of the mapping key that starts at `offset`, if any. */
function keyPathAt(node: unknown, offset: number, path: (string | number)[] = []): (string | number)[] | undefined {
  if (isMap(node)) {
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : undefined
      if (key === undefined) continue
      if ((pair.key as Node).range?.[0] === offset) return [...path, key]
      const inner = keyPathAt(pair.value, offset, [...path, key])
      if (inner) return inner
    }
  } else if (isSeq(node)) {
    for (const [index, item] of node.items.entries()) {
      const inner = keyPathAt(item, offset, [...path, index])
      if (inner) return inner
    }
  }
  return undefined
}

/** The first key equal to the duplicate's in the same mapping, for "first written at line N". */
function firstOffsetOf(doc: Document, path: (string | number)[]): number | undefined {
  const parent = path.length === 1 ? doc.contents : doc.getIn(path.slice(0, -1), true)
  if (!isMap(parent)) return undefined
  const key = String(path.at(-1))
  return (parent.items.find((pair) => isScalar(pair.key) && String(pair.key.value) === key)?.key as Node | undefined)?.range?.[0]
}

const HINTS: Record<string, { readonly message?: string; readonly fix: string }> = {
  TAB_AS_INDENT: { message: 'tabs are not allowed for indentation in YAML', fix: 'indent with spaces' },
  MULTIPLE_DOCS: {
    message: 'the file holds more than one YAML document (a second "---")',
    fix: 'keep one manifest per file',
  },
  BAD_INDENT: { fix: 'check the indentation and the closing bracket of flow lists/maps on this line and the ones before' },
  MISSING_CHAR: { fix: 'add the missing character; for quotes, check where the string starts' },
  BLOCK_AS_IMPLICIT_KEY: { fix: 'put a line break after "key:" before a nested mapping, or quote a value that contains ": "' },
  MULTILINE_IMPLICIT_KEY: { fix: 'check the indentation: a line indented more than its key is read as part of it' },
}

export function manifestErrorsFromYaml(doc: Document, lineCounter: LineCounter, text: string, file: string): ManifestError[] {
  const problems: readonly YAMLError[] = [...doc.errors, ...doc.warnings]
  return problems.map((problem): ManifestError => {
    const offset = problem.pos[0]
    const { line, col } = lineCounter.linePos(offset)
    // Only a duplicate key is about the key at the position; a syntax error is about the text before it.
    const path = problem.code === 'DUPLICATE_KEY' ? (keyPathAt(doc.contents, offset) ?? []) : []
    if (problem.code === 'DUPLICATE_KEY' && path.length > 0) {
      const first = firstOffsetOf(doc, path)
      const firstLine = first !== undefined && first !== offset ? `, first written at line ${lineCounter.linePos(first).line}` : ''
      return {
        code: 'DUPLICATE_KEY',
        message: `duplicate key "${String(path.at(-1))}" ${path.length > 1 ? `in ${pathLabel(path.slice(0, -1))}` : 'at the top level'}${firstLine}`,
        file,
        line,
        col,
        path,
        fix: 'keep only one of them; a mapping may hold each key once',
      }
    }
    const hint = HINTS[problem.code]
    const near = text.slice(offset, offset + 20).split('\n')[0]
    return {
      code: `YAML_${problem.code}`,
      message: `YAML: ${hint?.message ?? problem.message.replace(/\.$/, '')}${near ? ` (at "${near}")` : ''}`,
      file,
      line,
      col,
      path,
      ...(hint && { fix: hint.fix }),
    }
  })
}
