/**
 * Reading the manifest schema at a key path: which keys a mapping allows there and what the field
 * is described as. Used to turn validation issues into suggestions ("did you mean ...").
 */
import { z } from 'zod'
import type { ManifestPath } from './manifest-error.js'

type Def = {
  readonly type: string
  readonly innerType?: z.ZodType
  readonly in?: z.ZodType
  readonly shape?: Record<string, z.ZodType>
  readonly element?: z.ZodType
  readonly valueType?: z.ZodType
  readonly options?: readonly z.ZodType[]
  readonly discriminator?: string
}

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def

/** Wrappers that do not change which keys are allowed. */
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional'])

/** Each layer from the schema itself down through wrappers and pipes to the structural type. */
function layers(schema: z.ZodType): z.ZodType[] {
  const result = [schema]
  for (let def = defOf(schema); ; def = defOf(result[result.length - 1] as z.ZodType)) {
    const next = WRAPPERS.has(def.type) ? def.innerType : def.type === 'pipe' ? def.in : undefined
    if (!next) return result
    result.push(next)
  }
}

const core = (schema: z.ZodType): z.ZodType => layers(schema).at(-1) as z.ZodType

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/** The object options of a union that `data` could be meant for: the one its discriminator selects, else all. */
function candidateObjects(union: Def, data: unknown): z.ZodType[] {
  const options = (union.options ?? []).map(core).filter((option) => defOf(option).type === 'object')
  if (union.discriminator && isRecord(data)) {
    const value = data[union.discriminator]
    const chosen = options.filter((option) => {
      const literal = defOf(option).shape?.[union.discriminator as string]
      return literal !== undefined && (defOf(literal) as { values?: unknown[] }).values?.includes(value)
    })
    if (chosen.length > 0) return chosen
  }
  return options
}

/** The schema (outermost layer, so its description is kept) at `path`, following `data` to choose union options. */
export function schemaAt(root: z.ZodType, path: ManifestPath, data: unknown): z.ZodType | undefined {
  let schema: z.ZodType | undefined = root
  let value = data
  for (const key of path) {
    if (!schema) return undefined
    const def = defOf(core(schema))
    if (def.type === 'object') schema = def.shape?.[String(key)]
    else if (def.type === 'array') schema = def.element
    else if (def.type === 'record') schema = def.valueType
    else if (def.type === 'union') {
      schema = candidateObjects(def, value)
        .map((option) => defOf(option).shape?.[String(key)])
        .find((field) => field !== undefined)
    } else return undefined
    value = isRecord(value) || Array.isArray(value) ? (value as Record<string | number, unknown>)[key] : undefined
  }
  return schema
}

/** The keys a mapping at `path` allows, and for unions the keys only other options allow (with what selects them). */
export function allowedKeysAt(
  root: z.ZodType,
  path: ManifestPath,
  data: unknown,
): { readonly keys: string[]; readonly elsewhere: ReadonlyMap<string, string> } | undefined {
  const schema = schemaAt(root, path, data)
  if (!schema) return undefined
  const def = defOf(core(schema))
  if (def.type === 'object') return { keys: Object.keys(def.shape ?? {}), elsewhere: new Map() }
  if (def.type !== 'union') return undefined
  const value = valueAt(data, path)
  const chosen = candidateObjects(def, value)
  const keys = [...new Set(chosen.flatMap((option) => Object.keys(defOf(option).shape ?? {})))]
  const elsewhere = new Map<string, string>()
  if (def.discriminator) {
    for (const option of candidateObjects(def, undefined)) {
      if (chosen.includes(option)) continue
      const shape = defOf(option).shape ?? {}
      const literal = shape[def.discriminator]
      const selector = literal ? (defOf(literal) as { values?: unknown[] }).values?.[0] : undefined
      for (const key of Object.keys(shape)) {
        if (!keys.includes(key) && !elsewhere.has(key)) elsewhere.set(key, `${def.discriminator}: ${String(selector)}`)
      }
    }
  }
  return { keys, elsewhere }
}

/** The `.describe()` text of the field at `path`, looking through wrappers. */
export function descriptionAt(root: z.ZodType, path: ManifestPath, data: unknown): string | undefined {
  const schema = schemaAt(root, path, data)
  if (!schema) return undefined
  for (const layer of layers(schema)) {
    const description = z.globalRegistry.get(layer)?.description
    if (description) return description
  }
  return undefined
}

export function valueAt(data: unknown, path: ManifestPath): unknown {
  let value = data
  for (const key of path) {
    if (!isRecord(value) && !Array.isArray(value)) return undefined
    value = (value as Record<string | number, unknown>)[key]
  }
  return value
}

/**
 * Every leaf key the schema allows, as patterns like `nodes[].ssh.host` (`[]` for any list index),
 * following `data` to choose union options (`launch` with `mode: script` has `path`, with `builtin`
 * it has not). A leaf is a key whose value is not itself a mapping of named keys: a scalar, a list
 * of scalars, a map of free names (`container.env`), a union of scalars, or a mapping with no keys.
 */
export function leafKeyPatterns(root: z.ZodType, data: unknown): string[] {
  const out: string[] = []
  const visit = (schema: z.ZodType, pattern: string, value: unknown): void => {
    const def = defOf(core(schema))
    const objects = def.type === 'object' ? [core(schema)] : def.type === 'union' ? candidateObjects(def, isRecord(value) ? value : undefined) : []
    if (def.type === 'array') {
      const element = def.element as z.ZodType
      const inner = defOf(core(element))
      if (inner.type === 'object' || (inner.type === 'union' && candidateObjects(inner, undefined).length > 0)) {
        visit(element, `${pattern}[]`, undefined)
        return
      }
    }
    // A scalar, or a mapping with no keys of its own (`{}` as a marker): the key itself is the leaf.
    if (objects.every((option) => Object.keys(defOf(option).shape ?? {}).length === 0)) {
      out.push(pattern)
      return
    }
    for (const option of objects) {
      for (const [key, field] of Object.entries(defOf(option).shape ?? {})) {
        const child = pattern === '' ? key : `${pattern}.${key}`
        visit(field, child, isRecord(value) ? value[key] : undefined)
      }
    }
  }
  visit(root, '', data)
  return [...new Set(out)]
}
