/**
 * Generates the fast path's plan (manifest-plan.generated.ts) from the zod schema at build time
 * (`npm run schema`; the generated-files test keeps it current). Each zod construct the manifest
 * uses becomes a plain node that fast-parse.ts interprets; the functions zod holds (format checks,
 * refinements, transforms) become the names of the same functions in format-rules.ts. Anything
 * else (a function not in FAST_RULES, a string format such as `url`, an unknown check) becomes an
 * `unsupported` node: a manifest that reaches it is left to zod.
 *
 * Why not ajv on the committed JSON Schema: the JSON Schema cannot say what zod does beyond it (the
 * transforms of YAML numbers to text, `prefault` against `default`, the formats' parsers behind their
 * patterns, the refinements), so ajv's output would differ from zod's on valid manifests; this plan
 * runs the very rules the zod schema runs, and reads zod's own record of each schema.
 */
import { isDeepStrictEqual } from 'node:util'
import { FAST_RULES, type FastRuleName } from './format-rules.js'
import { FORMAT_CHECK_RULES } from './formats.js'
import type { PlanCheck, PlanField, PlanNode } from './fast-parse.js'
import { ManifestSchema } from './schema.js'

// zod keeps each schema's definition in `_zod.def`; these are the fields the plan reads.
interface Def {
  readonly type: string
  readonly checks?: readonly { readonly _zod: { readonly def: CheckDef } }[]
  readonly [field: string]: unknown
}
interface CheckDef {
  readonly check: string
  readonly [field: string]: unknown
}
interface Internals {
  readonly _zod: { readonly def: Def; readonly optin?: 'optional' | 'defaulted'; readonly optout?: 'optional' }
}

const ruleNames = new Map<unknown, FastRuleName>(Object.entries(FAST_RULES).map(([name, fn]) => [fn, name as FastRuleName]))
const unsupported = (what: string): PlanNode => ({ t: 'unsupported', what })

function planCheck(check: { readonly _zod: { readonly def: CheckDef } }): PlanCheck | string {
  const def = check._zod.def
  if (def.check === 'min_length') return { c: 'minLength', n: def['minimum'] as number }
  if (def.check === 'max_length') return { c: 'maxLength', n: def['maximum'] as number }
  if (def.check === 'greater_than') return { c: 'min', n: def['value'] as number, inclusive: def['inclusive'] === true }
  if (def.check === 'less_than') return { c: 'max', n: def['value'] as number, inclusive: def['inclusive'] === true }
  if (def.check === 'number_format' && def['format'] === 'safeint') return { c: 'int' }
  if (def.check === 'string_format' && def['format'] === 'regex') {
    const re = def['pattern'] as RegExp
    return { c: 'regex', source: re.source, flags: re.flags }
  }
  if (def.check === 'custom' && def['when'] === undefined) {
    const formatRule = ruleNames.get(FORMAT_CHECK_RULES.get(check))
    if (formatRule) return { c: 'verdict', rule: formatRule }
    const refineRule = ruleNames.get(def['fn'])
    if (refineRule) return { c: 'refine', rule: refineRule }
  }
  return `check ${def.check}${def['format'] ? ` ${String(def['format'])}` : ''}`
}

/** A default's value as JSON, when it survives the trip unchanged (else zod keeps it). */
function jsonValue(value: unknown): unknown {
  const copy = JSON.parse(JSON.stringify(value) ?? 'null') as unknown
  return isDeepStrictEqual(copy, value) ? copy : undefined
}

function planObject(def: Def): PlanNode {
  const catchall = def['catchall'] as Internals | undefined
  if (catchall !== undefined && catchall._zod.def.type !== 'never') return unsupported('object catchall')
  const shape = def['shape'] as Record<string, Internals>
  const fields = Object.entries(shape).map(([key, schema]): PlanField => {
    const { optin, optout } = schema._zod
    return { key, node: planOf(schema), ...(optin !== undefined && { optin }), ...(optout !== undefined && { optout }) }
  })
  return { t: 'object', fields, unknownKeys: catchall === undefined ? 'strip' : 'reject' }
}

/** A discriminated union's options each need their discriminator (a literal, never absent): then the first option to accept is the one zod picks. */
function planUnion(def: Def): PlanNode {
  const options = def['options'] as readonly Internals[]
  const discriminator = def['discriminator'] as string | undefined
  if (def['inclusive'] === false) {
    if (discriminator === undefined) return unsupported('exclusive union')
    const tags = options.map((o) => (o._zod.def['shape'] as Record<string, Internals> | undefined)?.[discriminator]?._zod)
    if (tags.some((tag) => tag === undefined || tag.def.type !== 'literal' || tag.optin !== undefined)) return unsupported('discriminated union')
    const values = tags.flatMap((tag) => tag?.def['values'] as unknown[])
    if (new Set(values).size !== values.length) return unsupported('discriminated union')
  }
  return { t: 'union', options: options.map(planOf) }
}

function planWrapper(def: Def): PlanNode {
  const inner = def['innerType'] as Internals
  if (def.type === 'optional') return inner._zod.optin === 'defaulted' ? unsupported('optional default') : { t: 'optional', inner: planOf(inner) }
  const value = jsonValue(def['defaultValue'])
  if (value === undefined) return unsupported(`${def.type} value`)
  return { t: def.type as 'default' | 'prefault', inner: planOf(inner), value }
}

function planType(def: Def): PlanNode {
  switch (def.type) {
    case 'object':
      return planObject(def)
    case 'string':
      return def['format'] === undefined && def['coerce'] !== true ? { t: 'string' } : unsupported(`string ${String(def['format'] ?? 'coerce')}`)
    case 'number':
      if (def['coerce'] === true || (def['format'] !== undefined && def['format'] !== 'safeint')) return unsupported('number format')
      return { t: 'number', ...(def['format'] === 'safeint' && { checks: [{ c: 'int' }] }) }
    case 'boolean':
      return def['coerce'] === true ? unsupported('boolean coerce') : { t: 'boolean' }
    case 'literal':
      return { t: 'literal', values: def['values'] as (string | number | boolean | null)[] }
    case 'enum':
      return { t: 'literal', values: Object.values(def['entries'] as Record<string, string | number>) }
    case 'array':
      return { t: 'array', element: planOf(def['element'] as Internals) }
    case 'record':
      return def['mode'] === undefined || def['mode'] === 'strict'
        ? { t: 'record', key: planOf(def['keyType'] as Internals), value: planOf(def['valueType'] as Internals) }
        : unsupported(`record ${String(def['mode'])}`)
    case 'union':
      return planUnion(def)
    case 'pipe':
      return { t: 'pipe', in: planOf(def['in'] as Internals), out: planOf(def['out'] as Internals) }
    case 'transform': {
      const name = ruleNames.get(def['transform'])
      return name ? { t: 'transform', rule: name } : unsupported('transform')
    }
    case 'optional':
    case 'default':
    case 'prefault':
      return planWrapper(def)
    default:
      return unsupported(def.type)
  }
}

const CHECKED = new Set(['object', 'string', 'number', 'array', 'record', 'pipe'])

export function planOf(schema: Internals): PlanNode {
  const def = schema._zod.def
  const node = planType(def)
  const checks = (def.checks ?? []).map(planCheck)
  if (checks.length === 0 || node.t === 'unsupported') return node
  if (!CHECKED.has(def.type)) return unsupported(`checks on ${def.type}`)
  const failed = checks.find((c): c is string => typeof c === 'string')
  if (failed !== undefined) return unsupported(failed)
  return { ...node, checks: [...(node.checks ?? []), ...(checks as PlanCheck[])] }
}

/** The manifest's plan (the same tree the generated file holds). */
export const manifestPlan = (): PlanNode => planOf(ManifestSchema as unknown as Internals)

/** The generated file's exact text. */
export function renderManifestPlan(): string {
  return [
    '// Generated by `npm run schema` from the zod schema (src/manifest/fast-plan.ts): do not edit.',
    "// The manifest's fast path (src/manifest/fast-parse.ts) reads it; zod decides whatever it does not accept.",
    "import type { PlanNode } from './fast-parse.js'",
    '',
    `export const MANIFEST_PLAN: PlanNode = ${JSON.stringify(manifestPlan())}`,
    '',
  ].join('\n')
}
