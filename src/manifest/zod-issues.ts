/**
 * Turning zod validation issues into manifest problems a person can act on: a stable code, a
 * sentence naming the key and what was given, a suggestion where one exists, and what in the file
 * to point at. Pure.
 */
import type { z } from 'zod'
import { describeValue } from './describe-value.js'
import { didYouMean } from './did-you-mean.js'
import type { FormatIssueParams } from './formats.js'
import { type ManifestErrorCode, type ManifestPath, type PathIssue, pathLabel } from './manifest-error.js'
import { allowedKeysAt, descriptionAt, valueAt } from './schema-walk.js'

/** The fields of a zod issue this module reads (a structural view of zod's issue union). */
interface Issue {
  readonly code: string
  readonly path: readonly PropertyKey[]
  readonly message: string
  readonly input?: unknown
  readonly expected?: string
  readonly keys?: readonly string[]
  readonly values?: readonly unknown[]
  readonly origin?: string
  readonly minimum?: number | bigint
  readonly maximum?: number | bigint
  readonly inclusive?: boolean
  readonly discriminator?: string
  readonly options?: readonly unknown[]
  readonly issues?: readonly Issue[]
  readonly params?: Partial<FormatIssueParams>
}

const TYPE_NOUNS: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'a mapping (key: value lines)',
  array: 'a list',
  record: 'a mapping (key: value lines)',
}

const plural = (n: number | bigint, noun: string): string => `${n} ${noun}${Number(n) === 1 ? '' : 's'}`

const oneOf = (values: readonly unknown[]): string => {
  const texts = values.map((value) => JSON.stringify(value))
  return texts.length <= 1 ? (texts[0] ?? 'nothing') : `${texts.slice(0, -1).join(', ')} or ${texts.at(-1)}`
}

/**
 * Messages for issues whose schema does not bring its own. Passed as the per-parse error map, so a
 * field's own `error` still wins.
 */
export function genericIssueMessage(issue: Omit<Issue, 'message' | 'path'>): string {
  const got = describeValue(issue.input)
  switch (issue.code) {
    case 'invalid_type':
      return `expected ${TYPE_NOUNS[issue.expected ?? ''] ?? issue.expected}, got ${got}`
    case 'invalid_value':
      return `expected ${oneOf(issue.values ?? [])}, got ${got}`
    case 'too_small':
      if (issue.origin === 'array') {
        const count = Array.isArray(issue.input) ? `, got ${plural(issue.input.length, 'item')}` : ''
        return `expected at least ${plural(issue.minimum ?? 0, 'item')}${count}`
      }
      if (issue.origin === 'string') {
        return issue.minimum === 1 ? 'expected a non-empty string' : `expected at least ${plural(issue.minimum ?? 0, 'character')}`
      }
      return `expected at least ${issue.minimum}, got ${got}`
    case 'too_big':
      if (issue.origin === 'array') return `expected at most ${plural(issue.maximum ?? 0, 'item')}`
      if (issue.origin === 'string') return `expected at most ${plural(issue.maximum ?? 0, 'character')}`
      return `expected at most ${issue.maximum}, got ${got}`
    case 'invalid_union':
      return `${got} matches none of the allowed forms`
    default:
      return `invalid value: ${got}`
  }
}

const CODES: Readonly<Record<string, ManifestErrorCode>> = {
  invalid_type: 'WRONG_TYPE',
  invalid_value: 'INVALID_VALUE',
  too_small: 'OUT_OF_RANGE',
  too_big: 'OUT_OF_RANGE',
  invalid_format: 'INVALID_FORMAT',
  invalid_union: 'INVALID_VALUE',
}

const toPath = (path: readonly PropertyKey[]): (string | number)[] => path.map((key) => (typeof key === 'number' ? key : String(key)))

/** "in nodes[1]" / "at the top level". */
const inside = (path: ManifestPath): string => (path.length === 0 ? 'at the top level' : `in ${pathLabel(path)}`)

/** An unknown key's problem carries the key it probably meant, for `pathIssuesFromZodIssues`. */
type UnknownKeyIssue = PathIssue & { readonly suggestion?: string }

function unknownKeys(issue: Issue, schema: z.ZodType, data: unknown): UnknownKeyIssue[] {
  const parent = toPath(issue.path)
  const allowed = allowedKeysAt(schema, parent, data)
  return (issue.keys ?? []).map((key): UnknownKeyIssue => {
    const path = [...parent, key]
    const base = { code: 'UNKNOWN_KEY' as const, path, anchor: 'key' as const }
    const selector = allowed?.elsewhere.get(key)
    if (selector) {
      return {
        ...base,
        message: `key "${key}" ${inside(parent)} is only allowed with ${selector}`,
        fix: `remove "${key}", or set ${selector}`,
      }
    }
    const suggestion = allowed ? didYouMean(key, allowed.keys) : undefined
    if (suggestion) {
      return {
        ...base,
        suggestion,
        message: `unknown key "${key}" ${inside(parent)}; did you mean "${suggestion}"?`,
        fix: `rename "${key}" to "${suggestion}"`,
      }
    }
    const extension = parent.length === 0 ? '; top-level keys starting with "x-" are allowed for anchors' : ''
    return {
      ...base,
      message: `unknown key "${key}" ${inside(parent)}`,
      fix: `remove "${key}"${allowed ? `; allowed keys here: ${allowed.keys.join(', ')}` : ''}${extension}`,
    }
  })
}

/** True when the key at the end of `path` is not written in its (existing) parent mapping. */
function isAbsent(data: unknown, path: ManifestPath): boolean {
  const parent = valueAt(data, path.slice(0, -1))
  return typeof parent === 'object' && parent !== null && !Array.isArray(parent) && !(String(path.at(-1)) in parent)
}

function missingKey(path: (string | number)[], schema: z.ZodType, data: unknown, options?: readonly unknown[]): PathIssue {
  const key = String(path.at(-1))
  const parent = path.slice(0, -1)
  const description = options ? `one of ${oneOf(options)}` : descriptionAt(schema, path, data)
  return {
    code: 'MISSING_KEY',
    message: `missing required key "${key}" ${inside(parent)}`,
    path,
    anchor: 'parent',
    fix: `add "${key}:"${description ? ` (${description})` : ''}`,
  }
}

/** Codes zod uses for a key that is absent, depending on the field's type. */
const ABSENT_CODES = new Set(['invalid_type', 'invalid_value', 'invalid_union'])

/** "nodes[1].fabricIp: expected ..." so a message stands on its own in logs and annotations. */
const labelled = (path: ManifestPath, message: string): string => (path.length === 0 ? message : `${pathLabel(path)}: ${message}`)

/** One zod issue as zero or more located-by-path manifest problems. */
export function pathIssuesFromZod(issue: Issue, schema: z.ZodType, data: unknown): UnknownKeyIssue[] {
  const path = toPath(issue.path)
  if (path.length === 0 && (data === null || data === undefined)) {
    return [
      {
        code: 'EMPTY_MANIFEST',
        message: 'the manifest is empty',
        path,
        fix: 'start from src/manifest/examples/dgx-spark-pair.yml; version, cluster, fabric, nodes, image and vllm are required',
      },
    ]
  }
  if (ABSENT_CODES.has(issue.code) && path.length > 0 && isAbsent(data, path)) {
    return [missingKey(path, schema, data, issue.discriminator !== undefined ? issue.options : undefined)]
  }
  switch (issue.code) {
    case 'unrecognized_keys':
      return unknownKeys(issue, schema, data)
    case 'invalid_key': {
      const inner = issue.issues?.[0]
      return [
        {
          code: inner?.params?.code ?? 'INVALID_KEY',
          message: `key ${JSON.stringify(String(path.at(-1)))} ${inside(path.slice(0, -1))}: ${inner?.message ?? issue.message}`,
          path,
          anchor: 'key',
          ...(inner?.params?.fix !== undefined && { fix: inner.params.fix }),
        },
      ]
    }
    case 'custom':
      return [
        {
          code: issue.params?.code ?? 'INVALID_VALUE',
          message: labelled(path, issue.message),
          path,
          ...(issue.params?.fix !== undefined && { fix: issue.params.fix }),
        },
      ]
    case 'invalid_union':
      if (issue.discriminator !== undefined) {
        // zod reports a bad discriminator at the discriminator's own path.
        const value = valueAt(data, path)
        const options = (issue.options ?? []).map(String)
        const suggestion = typeof value === 'string' ? didYouMean(value, options) : undefined
        return [
          {
            code: 'INVALID_VALUE',
            message: labelled(path, `expected ${oneOf(options)}, got ${describeValue(value)}`),
            path,
            ...(suggestion !== undefined && { fix: `use ${issue.discriminator}: ${suggestion}` }),
          },
        ]
      }
      break
    case 'invalid_value': {
      const options = (issue.values ?? []).filter((value): value is string => typeof value === 'string')
      const suggestion = typeof issue.input === 'string' ? didYouMean(issue.input, options) : undefined
      if (suggestion !== undefined) {
        return [
          {
            code: 'INVALID_VALUE',
            message: labelled(path, `${issue.message}; did you mean "${suggestion}"?`),
            path,
            fix: `use "${suggestion}"`,
          },
        ]
      }
      break
    }
  }
  return [{ code: CODES[issue.code] ?? 'INVALID_VALUE', message: labelled(path, issue.message), path }]
}

/**
 * All issues of one validation. A misspelt required key shows up twice in zod (the unknown
 * spelling and the missing key); it is reported once, as the unknown key with its suggestion.
 */
export function pathIssuesFromZodIssues(issues: readonly Issue[], schema: z.ZodType, data: unknown): PathIssue[] {
  const all = issues.flatMap((issue) => pathIssuesFromZod(issue, schema, data))
  const meant = new Set(all.flatMap(({ path, suggestion }) => (suggestion === undefined ? [] : [pathLabel([...path.slice(0, -1), suggestion])])))
  return all.filter((issue) => !(issue.code === 'MISSING_KEY' && meant.has(pathLabel(issue.path)))).map(({ suggestion: _suggestion, ...issue }) => issue)
}
