/** How a value read from YAML is named in messages: `the string "22a"`, `the number 1.5`, `a list`. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing'
  if (value === null) return 'an empty value'
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`
  if (typeof value === 'number') return `the number ${value}`
  if (typeof value === 'boolean') return `the boolean ${value}`
  if (Array.isArray(value)) return 'a list'
  if (typeof value === 'object') return 'a mapping'
  return String(value)
}
