/**
 * No silent drops: for every launch mode and every leaf key the schema allows in it, the key is
 * either read by that mode (LAUNCH_MODE_KEYS) or, written in a manifest, gives a warning at its line.
 * A key added to the schema later, or a new launch mode, fails here until someone decides.
 */
import { parseDocument } from 'yaml'
import { z } from 'zod'
import { describe, expect, it } from 'vitest'
import { manifestJsonSchema } from '../../src/manifest/json-schema.js'
import { LAUNCH_MODE_KEYS, type LaunchMode } from '../../src/manifest/launch-modes.js'
import { parseManifest } from '../../src/manifest/load-manifest.js'
import { LaunchSchema, ManifestSchema } from '../../src/manifest/schema.js'
import { leafKeyPatterns } from '../../src/manifest/schema-walk.js'
import { BASE } from './fixtures/base-manifest.js'

/** The modes the schema's `launch` union offers, read from the schema itself. */
const schemaModes = (): string[] => {
  const options = (LaunchSchema as unknown as { _zod: { def: { innerType: { options: { shape: { mode: { value: string } } }[] } } } })._zod.def.innerType
    .options
  return options.map((option) => option.shape.mode.value)
}

const MODES = Object.keys(LAUNCH_MODE_KEYS) as LaunchMode[]

/** The script a script-mode manifest names (parseManifest does not read it). */
const launchFor = (mode: LaunchMode): Record<string, unknown> => (mode === 'script' ? { mode, path: 'launch.sh' } : { mode })

interface JsonNode {
  readonly type?: string | string[]
  readonly default?: unknown
  readonly examples?: unknown[]
  readonly minimum?: number
  readonly const?: unknown
  readonly enum?: unknown[]
  readonly properties?: Record<string, JsonNode>
  readonly items?: JsonNode
  readonly oneOf?: JsonNode[]
  readonly anyOf?: JsonNode[]
}

/** The JSON Schema node of a leaf pattern in `mode` (the `launch` option its mode selects). */
function jsonNodeAt(pattern: string, mode: LaunchMode): JsonNode | undefined {
  let node: JsonNode | undefined = manifestJsonSchema() as JsonNode
  for (const part of pattern.split('.')) {
    const key = part.replace(/\[\]$/, '')
    const options: JsonNode[] = node?.oneOf ?? (node ? [node] : [])
    const chosen: JsonNode | undefined = options.find((o) => o.properties?.['mode']?.const === undefined || o.properties['mode'].const === mode)
    node = chosen?.properties?.[key]
    if (part.endsWith('[]')) node = node?.items
  }
  return node
}

/** A valid value for a leaf, from the schema: its default, an example, its constant, or the least its type allows. */
function sampleValue(node: JsonNode): unknown {
  if (node.default !== undefined) return node.default
  if (node.examples?.[0] !== undefined) return node.examples[0]
  if (node.const !== undefined) return node.const
  if (node.enum?.[0] !== undefined) return node.enum[0]
  if (node.anyOf?.[0]) return sampleValue(node.anyOf[0])
  const type = Array.isArray(node.type) ? node.type[0] : node.type
  if (type === 'integer' || type === 'number') return node.minimum ?? 1
  if (type === 'boolean') return true
  if (type === 'array') return []
  if (type === 'object') return {}
  return undefined
}

/** BASE with `launch` set for the mode and `pattern` written (list patterns: on the first item). */
function manifestWith(mode: LaunchMode, pattern: string, value: unknown): string {
  const doc = parseDocument(BASE)
  doc.set('launch', doc.createNode(launchFor(mode)))
  const path = pattern.split('.').flatMap((part) => (part.endsWith('[]') ? [part.slice(0, -2), 0] : [part]))
  doc.setIn(path, doc.createNode(value))
  return doc.toString()
}

describe('every manifest key is read by the launch mode or warned about', () => {
  it('the table has one row per launch mode the schema offers', () => {
    expect(MODES.sort()).toEqual(schemaModes().sort())
  })

  for (const mode of MODES) {
    describe(`launch.mode: ${mode}`, () => {
      const leaves = leafKeyPatterns(ManifestSchema, { launch: launchFor(mode) })
      const { reads, ignores } = LAUNCH_MODE_KEYS[mode]

      it('each leaf key of the schema is decided exactly once: read, or ignored with a reason', () => {
        const undecided = leaves.filter((key) => !reads.includes(key) && !(key in ignores))
        const both = leaves.filter((key) => reads.includes(key) && key in ignores)
        expect(undecided, 'keys with no decision in src/manifest/launch-modes.ts').toEqual([])
        expect(both).toEqual([])
        // And the table names no key the schema does not allow in this mode (a rename is caught too).
        const stale = [...reads, ...Object.keys(ignores)].filter((key) => !leaves.includes(key))
        expect(stale, 'keys in the table the schema does not have in this mode').toEqual([])
      })

      it('each ignored key, written in a manifest, is a warning at that key, and the manifest stays valid', () => {
        expect(Object.keys(ignores).length + reads.length).toBe(leaves.length)
        for (const key of Object.keys(ignores)) {
          const node = jsonNodeAt(key, mode)
          expect(node, key).toBeDefined()
          const text = manifestWith(mode, key, sampleValue(node!))
          const { manifest, errors, warnings } = parseManifest(text, 'cluster.yml')
          expect(errors, `${key}: ${text}`).toEqual([])
          expect(manifest).toBeDefined()
          expect(warnings.map((w) => w.code)).toEqual(['KEY_NOT_READ_IN_LAUNCH_MODE'])
          const [w] = warnings
          expect(w!.message).toContain(`${key} is not read with launch.mode: ${mode}`)
          const lastKey = key.split('.').at(-1)!
          expect(text.split('\n')[w!.line - 1]!.slice(w!.col - 1), `${key} at ${w!.line}:${w!.col}`).toMatch(new RegExp(`^${lastKey}:`))
        }
      })

      it('a key the mode reads, written, is no warning', () => {
        for (const key of reads) {
          const node = jsonNodeAt(key, mode)
          const value = node ? sampleValue(node) : undefined
          if (value === undefined) continue // a required free-text leaf already in BASE (model, name, …)
          const { warnings } = parseManifest(manifestWith(mode, key, value), 'cluster.yml')
          expect(warnings, key).toEqual([])
        }
      })
    })
  }
})

describe('the issue #27 case: launch.mode script with container.env', () => {
  it('is valid and warns at container.env, naming what reaches the script instead', () => {
    const text = `${BASE}container:\n  name: vllm-ray\n  env:\n    NCCL_DEBUG: INFO\nlaunch:\n  mode: script\n  path: launch.sh\n`
    const { manifest, errors, warnings } = parseManifest(text, 'cluster.yml')
    expect(errors).toEqual([])
    expect(manifest?.launch.mode).toBe('script')
    expect(warnings.map(({ code, line, col, path }) => ({ code, line, col, path }))).toEqual([
      { code: 'KEY_NOT_READ_IN_LAUNCH_MODE', line: 24, col: 3, path: ['container', 'env'] },
    ])
    expect(warnings[0]!.fix).toMatch(/launch\.env or launch\.args/)
  })

  it('the same keys with the built-in launcher are no warning', () => {
    const text = `${BASE}container:\n  name: vllm-ray\n  env:\n    NCCL_DEBUG: INFO\nlaunch:\n  mode: builtin\n`
    expect(parseManifest(text, 'cluster.yml').warnings).toEqual([])
  })
})

describe('leafKeyPatterns', () => {
  it('names scalars, free maps, lists of scalars and empty mappings as leaves, goes into lists of mappings, and follows a union by its discriminator', () => {
    const schema = z.strictObject({
      a: z.string(),
      env: z.record(z.string(), z.string()).default({}),
      list: z.array(z.string()),
      items: z.array(z.strictObject({ x: z.number(), y: z.strictObject({ z: z.boolean() }).optional() })),
      marker: z.strictObject({}).optional(),
      pick: z.discriminatedUnion('kind', [
        z.strictObject({ kind: z.literal('one'), p: z.string() }),
        z.strictObject({ kind: z.literal('two'), q: z.string() }),
      ]),
    })
    expect(leafKeyPatterns(schema, { pick: { kind: 'two' } })).toEqual(['a', 'env', 'list', 'items[].x', 'items[].y.z', 'marker', 'pick.kind', 'pick.q'])
    expect(leafKeyPatterns(schema, {})).toEqual(['a', 'env', 'list', 'items[].x', 'items[].y.z', 'marker', 'pick.kind', 'pick.p', 'pick.q'])
  })
})
