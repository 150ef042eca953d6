/**
 * The manifest reference (every key, its type, default and meaning) as Markdown, rendered from the
 * JSON Schema so it says exactly what the `.describe()` texts and the validator say. Committed as
 * `docs/manifest-reference.md` (src/generated-files.ts); a test keeps the file equal to `renderManifestReference()`. Pure.
 */
import { manifestJsonSchema } from './json-schema.js'
import { LAUNCH_MODE_KEYS } from './launch-modes.js'

/** The parts of a JSON Schema node this renderer reads. */
interface JsonSchema {
  readonly type?: string | readonly string[]
  readonly title?: string
  readonly description?: string
  readonly default?: unknown
  readonly const?: unknown
  readonly enum?: readonly unknown[]
  readonly minimum?: number
  readonly maximum?: number
  readonly exclusiveMinimum?: number
  readonly minItems?: number
  readonly minLength?: number
  readonly pattern?: string
  readonly properties?: Readonly<Record<string, JsonSchema>>
  readonly required?: readonly string[]
  readonly items?: JsonSchema
  readonly propertyNames?: JsonSchema
  readonly additionalProperties?: JsonSchema | boolean
  readonly anyOf?: readonly JsonSchema[]
  readonly oneOf?: readonly JsonSchema[]
}

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n+/g, ' ')
const code = (value: unknown): string => `\`${JSON.stringify(value)}\``

function typeOf(schema: JsonSchema): string {
  if (schema.const !== undefined) return code(schema.const)
  if (schema.enum) return schema.enum.map(code).join(' | ')
  if (schema.anyOf) return schema.anyOf.map(typeOf).join(' or ')
  if (schema.oneOf) return 'one of the forms below'
  if (Array.isArray(schema.type)) return schema.type.includes('string') ? 'string' : schema.type.join(' or ')
  switch (schema.type) {
    case 'string':
      return schema.title ? `string (${schema.title})` : 'string'
    case 'boolean':
      return 'boolean'
    case 'integer':
    case 'number': {
      const noun = schema.type === 'integer' ? 'integer' : 'number'
      const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : undefined)
      if (min !== undefined && schema.maximum !== undefined) return `${noun} ${min}–${schema.maximum}`
      if (min !== undefined) return `${noun} ≥ ${min}`
      return noun
    }
    case 'array': {
      const item = schema.items ?? {}
      return item.type === 'object' && !item.propertyNames ? 'list of mappings' : `list of ${typeOf(item)}`
    }
    case 'object':
      if (schema.propertyNames) {
        const value = typeof schema.additionalProperties === 'object' ? typeOf(schema.additionalProperties) : 'any'
        return `map of ${schema.propertyNames.title ?? 'name'} → ${value}`
      }
      return 'mapping'
    default:
      return 'any'
  }
}

function presence(schema: JsonSchema, required: boolean): string {
  if (required) return '**required**'
  if (schema.default !== undefined) return code(schema.default)
  return 'optional'
}

interface Row {
  readonly key: string
  readonly schema: JsonSchema
  readonly required: boolean
}

/** Is this a mapping whose own keys get rows (as opposed to a free-form map like `env`)? */
const hasFields = (schema: JsonSchema): boolean => schema.type === 'object' && schema.properties !== undefined

/** Rows for every key below `schema`, depth first, keys written as `a.b[].c`. */
function rowsBelow(schema: JsonSchema, prefix: string): Row[] {
  const target = schema.type === 'array' && schema.items ? schema.items : schema
  const base = schema.type === 'array' ? `${prefix}[]` : prefix
  if (!hasFields(target)) return []
  return Object.entries(target.properties ?? {}).flatMap(([key, child]) => {
    const path = base === '' ? key : `${base}.${key}`
    const row: Row = { key: path, schema: child, required: target.required?.includes(key) ?? false }
    const nested = hasFields(child) || (child.type === 'array' && child.items && hasFields(child.items))
    return nested ? [row, ...rowsBelow(child, path)] : [row]
  })
}

function table(rows: readonly Row[]): string[] {
  return [
    '| Key | Type | Default | Meaning |',
    '| --- | --- | --- | --- |',
    ...rows.map(
      ({ key, schema, required }) => `| \`${key}\` | ${cell(typeOf(schema))} | ${cell(presence(schema, required))} | ${cell(schema.description ?? '')} |`,
    ),
  ]
}

function section(key: string, schema: JsonSchema): string[] {
  const heading = schema.type === 'array' ? `${key}[]` : key
  const lines = ['', `## \`${heading}\``, '']
  if (schema.description) lines.push(schema.description, '')
  if (schema.oneOf) {
    for (const option of schema.oneOf) {
      const discriminator = Object.entries(option.properties ?? {}).find(([, child]) => child.const !== undefined)
      const label = discriminator ? `${discriminator[0]}: ${String(discriminator[1].const)}` : 'form'
      lines.push(`### \`${key}\` with \`${label}\``, '')
      if (option.description) lines.push(option.description, '')
      lines.push(...table(rowsBelow(option, key)), '')
    }
    return lines.slice(0, -1)
  }
  return [...lines, ...table(rowsBelow(schema, key))]
}

/** Which keys each launch mode does not read (src/manifest/launch-modes.ts), and why that is a warning. */
function launchModeSection(): string[] {
  const rows = Object.entries(LAUNCH_MODE_KEYS).flatMap(([mode, { ignores }]) =>
    Object.entries(ignores).map(([key, { why, fix }]) => `| \`${mode}\` | \`${key}\` | ${cell(why)} | ${cell(fix)} |`),
  )
  return [
    '',
    '## Keys a launch mode does not read',
    '',
    'Every key above is read in every `launch.mode` except those below. Written in a manifest whose mode',
    'does not read it, such a key is a warning (`KEY_NOT_READ_IN_LAUNCH_MODE`, at its line and column) from',
    '`validate`, `plan` and `deploy`, and a `::warning` annotation in the Action; the manifest stays valid.',
    'A warning and not an error because the value is valid and means something to the other mode: one',
    'manifest can switch `launch.mode` (to try a launch script, or to go back to the built-in launcher)',
    'without deleting and re-adding those settings, and is never silent about what they do now.',
    '',
    '| `launch.mode` | key | why it is not read | instead |',
    '| --- | --- | --- | --- |',
    ...rows,
  ]
}

export function renderManifestReference(): string {
  const root = manifestJsonSchema() as JsonSchema
  const properties = Object.entries(root.properties ?? {})
  const topRows = properties.map(([key, schema]) => ({ key, schema, required: root.required?.includes(key) ?? false }))
  const lines = [
    '# Cluster manifest reference (version 1)',
    '',
    '<!-- Generated by renderManifestReference() in src/manifest/reference.ts from the .describe() texts of',
    '     src/manifest/schema.ts. Do not edit by hand; regenerate with',
    '     npm run schema -->',
    '',
    root.description ?? '',
    '',
    'Editors can validate a manifest against `src/manifest/cluster-manifest.schema.json`: with the YAML',
    'language server, put `# yaml-language-server: $schema=<path or URL of that file>` at the top.',
    'A complete example is `src/manifest/examples/dgx-spark-pair.yml`.',
    '',
    'Where a string (or a list of strings, or an env value) is expected, YAML numbers and booleans are',
    'accepted and used as their text; quote values such as `1e3` or `0.10` to keep them exactly as written.',
    '',
    '## Top level',
    '',
    ...table(topRows),
    ...properties.flatMap(([key, schema]) =>
      hasFields(schema) || schema.oneOf || (schema.type === 'array' && schema.items && hasFields(schema.items)) ? section(key, schema) : [],
    ),
    ...launchModeSection(),
  ]
  return `${lines.join('\n')}\n`
}
