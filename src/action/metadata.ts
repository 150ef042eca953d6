/**
 * The Action's own metadata (action.yml beside dist/), read at run time for one question the
 * inputs cannot answer: did the workflow set an input, or did the runner fill in action.yml's
 * default? (The runner sets `INPUT_*` from the defaults before this process starts.) Reading the
 * default from the file keeps action.yml the only place it is written.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'yaml'
import type { InputName } from './action-inputs.js'

/**
 * action.yml of the running action: the bundle (dist/index.js) lives in <action>/dist/, the sources
 * (src/action/metadata.ts, as the tests and the CLI from source run them) in <action>/src/action/.
 */
const ACTION_YML =
  [join(__dirname, '..', 'action.yml'), join(__dirname, '..', '..', 'action.yml')].find((f) => existsSync(f)) ?? join(__dirname, '..', 'action.yml')

/** The default action.yml declares for `name`, or undefined when the file cannot be read. */
export function declaredDefault(name: InputName, file = ACTION_YML): string | undefined {
  try {
    const doc = parse(readFileSync(file, 'utf8')) as { inputs?: Record<string, { default?: unknown }> }
    const value = doc.inputs?.[name]?.default
    return value === undefined ? undefined : String(value)
  } catch {
    return undefined
  }
}
