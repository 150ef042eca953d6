/**
 * The tool's own options inside messages, said in the words of the front door that runs it: the
 * CLI's `--to RELEASE`, the Action's `rollback-to` input. A message names an option through
 * `option()`, which marks it; each front door renders the marks once with `inWords` (the CLI and
 * the Action over their whole outcome and their progress lines). The mark is U+2060 WORD JOINER, so a
 * line that reaches a reader unrendered still reads right. Pure; depends on nothing.
 */

/** Each CLI option a message may name, and the Action input that carries the same value. */
export const OPTION_INPUTS = {
  manifest: 'manifest',
  'ssh-key': 'ssh-private-key',
  'ssh-key-passphrase': 'ssh-key-passphrase',
  'hf-token-file': 'hf-token',
  'known-hosts': 'known-hosts',
  image: 'image',
  release: 'release',
  'on-failure': 'on-failure',
  force: 'force',
  'wait-lock': 'wait-lock',
  to: 'rollback-to',
  facts: 'facts',
  'ray-nodes': 'ray-nodes',
  'ray-status': 'ray-status',
  log: 'logs',
  'launch-script': 'launch-script',
} as const

export type OptionName = keyof typeof OPTION_INPUTS
export type Words = 'cli' | 'action'

const MARK = '\u2060'
const MARKED = /\u2060--([a-z][a-z-]*)(?: ([^\u2060]*))?\u2060/g

/** An option named inside a message (with the value a reader fills in, e.g. `RELEASE`). */
export const option = (name: OptionName, value?: string): string => `${MARK}--${name}${value !== undefined ? ` ${value}` : ''}${MARK}`

/** A message in a front door's words: `--to RELEASE` for the CLI, "the `rollback-to` input (RELEASE)" for the Action. */
export function inWords(text: string, words: Words): string {
  if (!text.includes(MARK)) return text
  return text
    .replace(MARKED, (whole: string, name: string, value: string | undefined) => {
      const input = (OPTION_INPUTS as Readonly<Record<string, string>>)[name]
      if (words === 'cli' || input === undefined) return whole
      return `the \`${input}\` input${value !== undefined ? ` (${value})` : ''}`
    })
    .replaceAll(MARK, '')
}

/** Every string inside a value (an outcome: text, summary, annotations, outputs, JSON) in a front door's words. */
export function allInWords<T>(value: T, words: Words): T {
  if (typeof value === 'string') return inWords(value, words) as T
  if (Array.isArray(value)) return value.map((v) => allInWords(v, words)) as T
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, allInWords(v, words)])) as T
  }
  return value
}
