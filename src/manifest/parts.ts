/**
 * The parts of a manifest the cross-field rules read. From a valid manifest that is all of it; from
 * an invalid one it is every section (and every node) that validates on its own, so that one run
 * reports schema mistakes and rule violations together. Pure.
 */
import type { z } from 'zod'
import { didYouMean } from './did-you-mean.js'
import { allowedKeysAt, valueAt } from './schema-walk.js'
import type { IndexedNode, ManifestParts } from './manifest-parts.js'
import { ManifestSchema, NodeSchema } from './schema.js'

export { type IndexedNode, type ManifestParts, partsOfManifest } from './manifest-parts.js'

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * A copy of `value` with the keys zod called unrecognized (and already reported) set aside: a
 * misspelling of an allowed key that is not also written correctly is read as that key, the rest
 * are dropped. So `fabricIP: 192.168.201.13` is still checked against the fabric subnet.
 */
function withUnknownKeysResolved(schema: z.ZodType, value: unknown, issues: readonly z.core.$ZodIssue[]): unknown {
  const copy = structuredClone(value)
  for (const issue of issues) {
    if (issue.code !== 'unrecognized_keys') continue
    const path = issue.path.map((key) => (typeof key === 'number' ? key : String(key)))
    const target = valueAt(copy, path)
    if (!isRecord(target)) continue
    const allowed = allowedKeysAt(schema, path, copy)?.keys ?? []
    for (const key of issue.keys) {
      const meant = didYouMean(key, allowed)
      if (meant !== undefined && !(meant in target)) target[meant] = target[key]
      delete target[key]
    }
  }
  return copy
}

/** The parsed value when `value` validates once unknown keys are resolved. */
function validOrUndefined<S extends z.ZodType>(schema: S, value: unknown): z.output<S> | undefined {
  const first = schema.safeParse(value)
  if (first.success) return first.data
  if (!first.error.issues.some((issue) => issue.code === 'unrecognized_keys')) return undefined
  const second = schema.safeParse(withUnknownKeysResolved(schema, value, first.error.issues))
  return second.success ? second.data : undefined
}

/** The parts of raw (already YAML-parsed) manifest data that validate on their own. */
export function partsOfData(data: unknown): ManifestParts {
  const root = isRecord(data) ? data : {}
  const shape = ManifestSchema.shape
  const rawNodes = Array.isArray(root['nodes']) ? (root['nodes'] as unknown[]) : undefined
  const nodes = (rawNodes ?? []).flatMap((raw, index): IndexedNode[] => {
    const node = validOrUndefined(NodeSchema, raw)
    return node ? [{ index, node }] : []
  })
  const section = <S extends z.ZodType>(schema: S, key: string): { [k: string]: z.output<S> } => {
    const value = validOrUndefined(schema, root[key])
    return value === undefined ? {} : { [key]: value }
  }
  return {
    ...section(shape.ssh, 'ssh'),
    ...section(shape.fabric, 'fabric'),
    nodes,
    allNodes: rawNodes !== undefined && rawNodes.length > 0 && nodes.length === rawNodes.length,
    ...section(shape.image, 'image'),
    ...section(shape.container, 'container'),
    ...section(shape.ray, 'ray'),
    ...section(shape.vllm, 'vllm'),
    ...section(shape.launch, 'launch'),
    ...section(shape.smoke, 'smoke'),
  } as ManifestParts
}
