/**
 * The parts of a manifest the cross-field rules read. From a valid manifest that is all of it; from
 * an invalid one it is every section (and every node) that validates on its own, so that one run
 * reports schema mistakes and rule violations together. Pure.
 */
import type { z } from 'zod'
import {
  type ContainerSettings,
  type Fabric,
  type ImageSettings,
  type LaunchSettings,
  type Manifest,
  type ManifestNode,
  ManifestSchema,
  NodeSchema,
  type RaySettings,
  type SmokeSettings,
  type SshSettings,
  type VllmSettings,
} from './schema.js'

export interface IndexedNode {
  /** Position in the manifest's `nodes` list. */
  readonly index: number
  readonly node: ManifestNode
}

export interface ManifestParts {
  readonly ssh?: SshSettings
  readonly fabric?: Fabric
  /** The nodes that validated. */
  readonly nodes: readonly IndexedNode[]
  /** False when the list or some node did not validate; rules that count over all nodes then stay quiet. */
  readonly allNodes: boolean
  readonly image?: ImageSettings
  readonly container?: ContainerSettings
  readonly ray?: RaySettings
  readonly vllm?: VllmSettings
  readonly launch?: LaunchSettings
  readonly smoke?: SmokeSettings
}

export function partsOfManifest(manifest: Manifest): ManifestParts {
  return { ...manifest, nodes: manifest.nodes.map((node, index) => ({ index, node })), allNodes: true }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** A copy of `value` without the keys zod called unrecognized. */
function withoutUnknownKeys(value: unknown, issues: readonly z.core.$ZodIssue[]): unknown {
  const copy = structuredClone(value)
  for (const issue of issues) {
    if (issue.code !== 'unrecognized_keys') continue
    let target: unknown = copy
    for (const key of issue.path) target = isRecord(target) || Array.isArray(target) ? (target as Record<PropertyKey, unknown>)[key] : undefined
    if (isRecord(target)) for (const key of issue.keys) delete target[key]
  }
  return copy
}

/** The parsed value when `value` validates once unknown keys (already reported) are set aside. */
function validOrUndefined<S extends z.ZodType>(schema: S, value: unknown): z.output<S> | undefined {
  const first = schema.safeParse(value)
  if (first.success) return first.data
  if (!first.error.issues.some((issue) => issue.code === 'unrecognized_keys')) return undefined
  const second = schema.safeParse(withoutUnknownKeys(value, first.error.issues))
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
