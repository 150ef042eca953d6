/**
 * From a key path to a 1-based line:col in the YAML source, using the ranges the yaml parser keeps
 * on every node. Pure. Paths that leave the document (a value that came from a default, say) are
 * placed at the deepest part of the path that exists.
 */
import { type Document, isAlias, isMap, isPair, isScalar, isSeq, type LineCounter, type Node, type Pair, type YAMLMap } from 'yaml'
import { didYouMean } from './did-you-mean.js'
import type { ManifestPath, PathIssue } from './manifest-error.js'

export interface Position {
  readonly line: number
  readonly col: number
}

interface Step {
  /** The node reached (null: a key written with no value). */
  readonly node: Node | null
  /** The key that led to it, when it is a mapping value. */
  readonly key?: Node
}

const offsetOf = (node: Node | null | undefined): number | undefined => node?.range?.[0]

function resolve(node: unknown, doc: Document): unknown {
  return isAlias(node) ? node.resolve(doc) : node
}

/**
 * The pair for `key` in a mapping, looking into `<<` merge sources when it is not written there
 * directly, and finally at a misspelling of it (the validator reads `fabricIP` as `fabricIp` when
 * it checks cross-field rules, so their problems point there).
 */
function pairFor(map: unknown, key: string, doc: Document, depth = 0): Pair | undefined {
  if (!isMap(map) || depth > 8) return undefined
  const direct = map.items.find((pair) => isScalar(pair.key) && String(pair.key.value) === key)
  if (direct) return direct
  const merged = mergedPairFor(map, key, doc, depth)
  if (merged) return merged
  return map.items.find((pair) => isScalar(pair.key) && didYouMean(String(pair.key.value), [key]) === key)
}

/** `<<` (with merge keys on, the parser gives it a symbol value). */
const isMergeKey = (key: unknown): boolean => isScalar(key) && (key.value === '<<' || (typeof key.value === 'symbol' && key.source === '<<'))

function mergedPairFor(map: YAMLMap, key: string, doc: Document, depth: number): Pair | undefined {
  for (const pair of map.items) {
    if (!isMergeKey(pair.key)) continue
    const value = resolve(pair.value, doc)
    const sources = isSeq(value) ? value.items.map((item) => resolve(item, doc)) : [value]
    for (const source of sources) {
      const found = pairFor(source, key, doc, depth + 1)
      if (found) return found
    }
  }
  return undefined
}

/** Follow `path` as far as the document goes. */
function walk(doc: Document, path: ManifestPath): { readonly steps: Step[]; readonly complete: boolean } {
  const steps: Step[] = [{ node: (doc.contents as Node | null) ?? null }]
  for (const segment of path) {
    const current = resolve(steps[steps.length - 1]?.node, doc)
    if (isMap(current)) {
      const pair = pairFor(current, String(segment), doc)
      if (!pair) return { steps, complete: false }
      steps.push({ node: (pair.value as Node | null) ?? null, key: pair.key as Node })
    } else if (isSeq(current) && typeof segment === 'number' && segment < current.items.length) {
      const item = current.items[segment]
      steps.push({ node: isPair(item) ? ((item.key as Node | null) ?? null) : ((item as Node | null) ?? null) })
    } else {
      return { steps, complete: false }
    }
  }
  return { steps, complete: true }
}

/** A value node that is really "nothing written here" (`key:` followed by a line break). */
const isEmpty = (node: Node | null): boolean =>
  node === null || (isScalar(node) && node.value === null && node.range != null && node.range[0] === node.range[1])

/** Where a step is best shown: its value, or its key when the value is empty. */
function stepOffset(step: Step | undefined): number | undefined {
  if (!step) return undefined
  return isEmpty(step.node) ? (offsetOf(step.key) ?? offsetOf(step.node)) : (offsetOf(step.node) ?? offsetOf(step.key))
}

/**
 * The source offset to show for an issue: the value at its path, the key at its path, or, for a
 * missing key, the mapping that should hold it (its own key when it has one, e.g. the `ssh:` line).
 */
export function offsetFor(doc: Document, issue: Pick<PathIssue, 'path' | 'anchor' | 'related'>): number {
  const anchor = issue.anchor ?? 'value'
  const path = anchor === 'parent' ? issue.path.slice(0, -1) : issue.path
  const walked = walk(doc, path)
  if (!walked.complete && issue.related && walk(doc, issue.related).complete) {
    return offsetFor(doc, { path: issue.related })
  }
  const { steps, complete } = walked
  const last = steps[steps.length - 1]
  let offset: number | undefined
  if (!complete) offset = stepOffset(last)
  else if (anchor === 'key') offset = offsetOf(last?.key) ?? stepOffset(last)
  else if (anchor === 'parent') offset = offsetOf(last?.key) ?? stepOffset(last)
  else offset = stepOffset(last)
  return offset ?? 0
}

export function positionFor(doc: Document, lineCounter: LineCounter, issue: Pick<PathIssue, 'path' | 'anchor' | 'related'>): Position {
  return lineCounter.linePos(offsetFor(doc, issue))
}
