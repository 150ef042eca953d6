/**
 * The tool's own options inside messages, said in the words of the front door that runs it: the
 * CLI's `--to RELEASE`, the Action's `rollback-to` input. A message names an option through
 * `option()`, which marks it; each front door renders the marks once with `inWords` (the CLI and
 * the Action over their whole outcome and their progress lines). The mark is U+2060 WORD JOINER, so a
 * line that reaches a reader unrendered still reads right. Pure; depends only on the options table.
 */

import { OPTIONS } from './options.js'

type Entry = (typeof OPTIONS)[keyof typeof OPTIONS]
/** Each CLI option a message may name: every option the Action takes too (the command table's entries with an input). */
export type OptionName = Extract<Entry, { input: string }>['flag']

/** Each such CLI option and the Action input that carries the same value, derived from the command table. */
export const OPTION_INPUTS: Readonly<Record<OptionName, string>> = Object.fromEntries(
  Object.values(OPTIONS).flatMap((o: { flag: string; input?: string }) => (o.input === undefined ? [] : [[o.flag, o.input]])),
) as Record<OptionName, string>

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
      const input = (OPTION_INPUTS as Readonly<Record<string, string | undefined>>)[name]
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
