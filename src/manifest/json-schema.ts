/**
 * The manifest's JSON Schema, generated from the zod schema (input side: keys with defaults are
 * optional). Committed as `cluster-manifest.schema.json` so editors can validate manifests; a test
 * keeps the file equal to `renderManifestJsonSchema()`.
 */
import { z } from 'zod'
import { EXTENSION_KEY_PREFIX, ManifestSchema } from './schema.js'

/** zod writes the safe-integer limits on every integer; they say nothing to a person. */
function withoutSafeIntegerBounds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSafeIntegerBounds)
  if (typeof value !== 'object' || value === null) return value
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key, inner]) => !((key === 'maximum' && inner === Number.MAX_SAFE_INTEGER) || (key === 'minimum' && inner === Number.MIN_SAFE_INTEGER)))
      .map(([key, inner]) => [key, withoutSafeIntegerBounds(inner)]),
  )
}

export function manifestJsonSchema(): Record<string, unknown> {
  const generated = withoutSafeIntegerBounds(z.toJSONSchema(ManifestSchema, { io: 'input' })) as Record<string, unknown>
  const { $schema, ...rest } = generated
  return {
    $schema,
    title: 'vllm-ray-deploy cluster manifest (version 1)',
    ...rest,
    patternProperties: {
      [`^${EXTENSION_KEY_PREFIX}`]: { description: 'Ignored; a place for YAML anchors (`x-common: &common ...`) and notes.' },
    },
  }
}

/** The committed file's exact text: 2-space indentation and a final newline. */
export function renderManifestJsonSchema(): string {
  return `${JSON.stringify(manifestJsonSchema(), null, 2)}\n`
}
