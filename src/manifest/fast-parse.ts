/**
 * The manifest's fast path: validates YAML-parsed manifest data against a plan generated at build
 * time from the zod schema (manifest-plan.generated.ts, written by fast-plan.ts through `npm run
 * schema`), without building the zod schema. Building it (hundreds of zod constructions, zod's code
 * compiled on first use) was the largest item before the Action's first SSH connection (bench row
 * 6).
 *
 * It only ever answers "valid, and this is exactly what zod returns" or "not decided": any value it
 * does not accept, and any construct the plan could not express (`unsupported`), ends in
 * `undefined`, and the caller runs the zod parse, which owns every error message. It runs the same
 * rule functions as the zod schema (format-rules.ts), mirrors zod's handling of absent keys,
 * defaults and prefaults, and is held to zod's output by test/manifest/fast-parse.test.ts.
 */
import { FAST_RULES, type FastRuleName, type Verdict } from './format-rules.js'

export type PlanCheck =
  | { readonly c: 'minLength' | 'maxLength'; readonly n: number }
  | { readonly c: 'regex'; readonly source: string; readonly flags: string }
  | { readonly c: 'min' | 'max'; readonly n: number; readonly inclusive: boolean }
  | { readonly c: 'int' }
  /** A string format's rule: fine when it answers undefined. */
  | { readonly c: 'verdict'; readonly rule: FastRuleName }
  /** A refinement: fine when it answers true. */
  | { readonly c: 'refine'; readonly rule: FastRuleName }

/** zod's view of a key's absence: `optin` is how absence is taken in, `optout` whether it may come out. */
export interface PlanField {
  readonly key: string
  readonly node: PlanNode
  readonly optin?: 'optional' | 'defaulted'
  readonly optout?: 'optional'
}

export type PlanNode = (
  | { readonly t: 'object'; readonly fields: readonly PlanField[]; readonly unknownKeys: 'reject' | 'strip' }
  | { readonly t: 'string' | 'number' | 'boolean' }
  | { readonly t: 'literal'; readonly values: readonly (string | number | boolean | null)[] }
  | { readonly t: 'array'; readonly element: PlanNode }
  | { readonly t: 'record'; readonly key: PlanNode; readonly value: PlanNode }
  | { readonly t: 'union'; readonly options: readonly PlanNode[] }
  | { readonly t: 'pipe'; readonly in: PlanNode; readonly out: PlanNode }
  | { readonly t: 'transform'; readonly rule: FastRuleName }
  | { readonly t: 'optional'; readonly inner: PlanNode }
  | { readonly t: 'default' | 'prefault'; readonly inner: PlanNode; readonly value: unknown }
  /** Something the generator could not express: the whole fast path gives up (zod decides). */
  | { readonly t: 'unsupported'; readonly what: string }
) & { readonly checks?: readonly PlanCheck[] }

/** Not valid by the plan (zod may still say why). */
const INVALID = Symbol('invalid')
/** The plan cannot decide (a construct it does not express): the whole document goes to zod. */
const UNDECIDED = Symbol('undecided')
/** Either sentinel: what a node answers when it has no value. */
const failed = (value: unknown): value is typeof INVALID | typeof UNDECIDED => value === INVALID || value === UNDECIDED

const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const proto = Object.getPrototypeOf(value)
  return (proto === Object.prototype || proto === null) && Object.getOwnPropertySymbols(value).length === 0
}

/** Length in code points, as zod counts a string's length (an array's is its length). */
const lengthOf = (value: unknown): number => (typeof value === 'string' ? [...value].length : (value as unknown[]).length)

// biome-ignore lint/suspicious/noExplicitAny: a rule's argument is whatever the plan hands it
const rule = (name: FastRuleName): ((value: any) => unknown) => FAST_RULES[name]

function passes(check: PlanCheck, value: unknown): boolean {
  switch (check.c) {
    case 'minLength':
      return lengthOf(value) >= check.n
    case 'maxLength':
      return lengthOf(value) <= check.n
    case 'regex':
      return new RegExp(check.source, check.flags).test(value as string)
    case 'min':
      return check.inclusive ? (value as number) >= check.n : (value as number) > check.n
    case 'max':
      return check.inclusive ? (value as number) <= check.n : (value as number) < check.n
    case 'int':
      return Number.isSafeInteger(value)
    case 'verdict':
      return (rule(check.rule)(value) as Verdict | undefined) === undefined
    case 'refine':
      return rule(check.rule)(value) === true
  }
}

function runObject(node: Extract<PlanNode, { t: 'object' }>, input: unknown): unknown {
  if (!isPlainObject(input)) return INVALID
  const known = new Set(node.fields.map((f) => f.key))
  for (const key of Object.keys(input)) {
    if (key === '__proto__' || input[key] === undefined) return UNDECIDED
    if (!known.has(key) && node.unknownKeys === 'reject') return INVALID
  }
  const out: Record<string, unknown> = {}
  for (const field of node.fields) {
    const present = field.key in input
    // zod's handlePropertyResult: an absent key that may stay absent contributes nothing.
    if (!present && field.optin === 'optional' && field.optout === 'optional') continue
    if (!present && field.optin === undefined) return INVALID
    const value = run(field.node, input[field.key])
    if (failed(value)) return value
    if (value !== undefined) out[field.key] = value
    else if (present || (field.optin === 'defaulted' && field.optout !== 'optional')) out[field.key] = undefined
  }
  return out
}

function runRecord(node: Extract<PlanNode, { t: 'record' }>, input: unknown): unknown {
  if (!isPlainObject(input)) return INVALID
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(input)) {
    if (key === '__proto__') return UNDECIDED
    const outKey = run(node.key, key)
    if (failed(outKey)) return outKey
    if (outKey !== key) return UNDECIDED
    const value = run(node.value, input[key])
    if (failed(value)) return value
    out[key] = value
  }
  return out
}

function runArray(node: Extract<PlanNode, { t: 'array' }>, input: unknown): unknown {
  if (!Array.isArray(input)) return INVALID
  const out: unknown[] = []
  for (const item of input) {
    const value = run(node.element, item)
    if (failed(value)) return value
    out.push(value)
  }
  return out
}

function runNode(node: PlanNode, input: unknown): unknown {
  switch (node.t) {
    case 'object':
      return runObject(node, input)
    case 'record':
      return runRecord(node, input)
    case 'array':
      return runArray(node, input)
    case 'string':
      return typeof input === 'string' ? input : INVALID
    case 'number':
      return typeof input === 'number' && Number.isFinite(input) ? input : INVALID
    case 'boolean':
      return typeof input === 'boolean' ? input : INVALID
    case 'literal':
      return node.values.includes(input as string) ? input : INVALID
    case 'union':
      // zod's union: the first option that accepts the value.
      for (const option of node.options) {
        const value = run(option, input)
        if (value !== INVALID) return value // a value, or undecided
      }
      return INVALID
    case 'pipe': {
      const value = run(node.in, input)
      return failed(value) ? value : run(node.out, value)
    }
    case 'transform':
      return rule(node.rule)(input)
    case 'optional':
      return input === undefined ? undefined : run(node.inner, input)
    case 'default':
      // zod's default: the value itself (a fresh copy), not parsed.
      return input === undefined ? structuredClone(node.value) : run(node.inner, input)
    case 'prefault':
      // zod's prefault: the value parsed as if it had been written.
      return run(node.inner, input === undefined ? structuredClone(node.value) : input)
    case 'unsupported':
      return UNDECIDED
  }
}

function run(node: PlanNode, input: unknown): unknown {
  const value = runNode(node, input)
  if (failed(value)) return value
  return (node.checks ?? []).every((check) => passes(check, value)) ? value : INVALID
}

/** The manifest data as zod would return it, when the plan accepts it; undefined: ask zod. */
export function fastParse(plan: PlanNode, data: unknown): { readonly value: unknown } | undefined {
  const value = run(plan, data)
  return failed(value) ? undefined : { value }
}
