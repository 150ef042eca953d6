/**
 * A compose file as `docker compose` reads the parts a launch check needs: per service its
 * `environment:` (the list form `- NAME=value` and the map form `NAME: value`), its `env_file:`
 * (one path or a list), `container_name`, `network_mode`, `entrypoint` and `command` (a string,
 * split as compose splits it, or a list). Each value keeps where it was written (model.ts Val.map),
 * whether the file is in the repository or a here-document the script wrote, so a finding names
 * the line and a fix edits the value there. `${NAME}` / `$NAME` / `${NAME:-default}` are filled in
 * from the environment `docker compose` runs with; what is not known stays symbolic.
 */

import { isMap, isScalar, isSeq, type Node as YamlNode, parseDocument, type Scalar } from 'yaml'
import { concatVals, sliceVal, type Val } from './model.js'

export interface ComposeSetting {
  readonly name: string
  readonly val: Val
}

export interface ComposeService {
  readonly name: string
  /** The folder of the compose file it is in (where `env_file:` paths start), as findings name files. */
  readonly dir?: string
  readonly containerName?: string
  readonly networkMode?: string
  readonly env: readonly ComposeSetting[]
  /** `env_file:` paths as written (relative to the compose file's folder). */
  readonly envFiles: readonly Val[]
  readonly entrypoint?: readonly Val[]
  readonly command?: readonly Val[]
  /** The command was a string whose words are edited in place (a list item is not: text appended there would be one argument). */
  readonly commandEditable: boolean
}

/** A scalar's value mapped to where the body wrote it when the text is written as is (plain, or quoted without escapes). */
function scalarVal(body: Val, node: Scalar): Val {
  const value = node.value === null || node.value === undefined ? '' : String(node.value)
  const [start, end] = node.range ?? [-1, -1]
  if (start < 0) return { text: value, known: body.known }
  const raw = body.text.slice(start, end)
  const quoted = node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE'
  const inner = quoted ? raw.slice(1, -1) : raw
  const at = quoted ? start + 1 : start
  if (inner === value) return sliceVal(body, at, at + value.length)
  return { text: value, known: true }
}

const unmappedVal = (text: string): Val => ({ text, known: true })

/** Compose's split of a command string: blanks, with single and double quotes (no shell). Words keep their map where unquoted. */
function splitWords(v: Val): Val[] {
  const out: Val[] = []
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|[^\s"']+/g
  let cur: Val[] = []
  let last = -1
  for (let m = re.exec(v.text); m; m = re.exec(v.text)) {
    if (last >= 0 && m.index > last && cur.length > 0) {
      out.push(concatVals(cur))
      cur = []
    }
    const inner = m[1] ?? m[2]
    cur.push(inner !== undefined ? sliceVal(v, m.index + 1, m.index + 1 + inner.length) : sliceVal(v, m.index, m.index + m[0].length))
    last = m.index + m[0].length
    const next = v.text[last]
    if (next === undefined || /\s/.test(next)) {
      out.push(concatVals(cur))
      cur = []
    }
  }
  if (cur.length > 0) out.push(concatVals(cur))
  return out
}

function words(body: Val, node: YamlNode | null | undefined): { words: Val[]; editable: boolean } | undefined {
  if (isScalar(node))
    return { words: splitWords(scalarVal(body, node)), editable: node.type === 'PLAIN' || node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE' }
  if (isSeq(node))
    return {
      words: node.items.map((x) => (isScalar(x) ? { ...scalarVal(body, x), after: undefined } : unmappedVal(String(x)))),
      editable: false,
    }
  return undefined
}

function settings(body: Val, node: YamlNode | null | undefined): ComposeSetting[] {
  const out: ComposeSetting[] = []
  if (isSeq(node)) {
    for (const item of node.items) {
      if (!isScalar(item)) continue
      const v = scalarVal(body, item)
      const eq = v.text.indexOf('=')
      // `- NAME` alone passes the caller's NAME on.
      if (eq < 0) out.push({ name: v.text.trim(), val: { text: `\${${v.text.trim()}}`, known: false } })
      else out.push({ name: v.text.slice(0, eq).trim(), val: sliceVal(v, eq + 1) })
    }
  } else if (isMap(node)) {
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key)
      const val = isScalar(pair.value) ? scalarVal(body, pair.value) : unmappedVal('')
      out.push({ name: key, val: pair.value === null || (isScalar(pair.value) && pair.value.value === null) ? { text: `\${${key}}`, known: false } : val })
    }
  }
  return out
}

const str = (node: unknown): string | undefined => (isScalar(node) && node.value !== null ? String(node.value) : undefined)

/** The services of a compose file (an empty map when it is not one, or not valid YAML). */
export function composeServices(body: Val): Map<string, ComposeService> {
  const out = new Map<string, ComposeService>()
  const doc = parseDocument(body.text, { keepSourceTokens: false })
  if (doc.errors.length > 0 || !isMap(doc.contents)) return out
  const services = doc.contents.get('services', true)
  if (!isMap(services)) return out
  for (const pair of services.items) {
    const name = str(pair.key)
    const svc = pair.value
    if (!name || !isMap(svc)) continue
    const get = (k: string) => svc.get(k, true) as YamlNode | null | undefined
    const envFileNode = get('env_file')
    const envFiles = isSeq(envFileNode)
      ? envFileNode.items.flatMap((x) =>
          isScalar(x) ? [scalarVal(body, x)] : isMap(x) && isScalar(x.get('path', true)) ? [scalarVal(body, x.get('path', true) as Scalar)] : [],
        )
      : isScalar(envFileNode)
        ? [scalarVal(body, envFileNode)]
        : []
    const command = words(body, get('command'))
    const entrypoint = words(body, get('entrypoint'))
    const containerName = str(get('container_name'))
    const networkMode = str(get('network_mode'))
    out.set(name, {
      name,
      ...(containerName ? { containerName } : {}),
      ...(networkMode ? { networkMode } : {}),
      env: settings(body, get('environment')),
      envFiles,
      ...(entrypoint ? { entrypoint: entrypoint.words } : {}),
      ...(command ? { command: command.words } : {}),
      commandEditable: (command?.editable ?? false) && (entrypoint?.editable ?? true),
    })
  }
  return out
}

/**
 * `${NAME}`, `$NAME`, `${NAME:-default}` / `${NAME-default}` in a compose value, filled in from the
 * environment compose runs with (`lookup`: the value, or undefined when not set there); `$$` is a `$`.
 */
export function interpolate(v: Val, lookup: (name: string) => Val | undefined): Val {
  if (!v.text.includes('$')) return v
  const parts: Val[] = []
  const re = /\$\$|\$\{([A-Za-z_]\w*)(?:(:?-)([^}]*))?\}|\$([A-Za-z_]\w*)/g
  let at = 0
  for (let m = re.exec(v.text); m; m = re.exec(v.text)) {
    parts.push(sliceVal(v, at, m.index))
    at = m.index + m[0].length
    if (m[0] === '$$') {
      parts.push(sliceVal(v, m.index + 1, at))
      continue
    }
    const name = m[1] ?? m[4]!
    const set = lookup(name)
    if (set && !(m[2] === ':-' && set.known && set.text === '')) parts.push(set)
    else if (m[2] !== undefined) {
      const d = m.index + 2 + name.length + m[2].length
      parts.push(sliceVal(v, d, d + (m[3] ?? '').length))
    } else parts.push({ text: `\${${name}}`, known: false })
  }
  parts.push(sliceVal(v, at))
  return concatVals(parts)
}
