/**
 * The Action's inputs as one typed, validated object. Which inputs exist and which command reads
 * each comes from the command table (src/tasks/command-table.ts); every input's default is declared in
 * action.yml and nowhere else: the runner fills `INPUT_*` from action.yml's defaults before this
 * code runs, so an empty value here means "declared default is empty", never "use a fallback".
 */
import { ON_FAILURE } from '../manifest/manifest-constants.js'
import { fail, ok, problem, type Result } from '../result/result.js'
import { ACTION_COMMANDS, ACTION_INPUT_NAMES, type ActionCommand, OPTIONS, type OptionKey, type OptionValues, option } from '../tasks/command-table.js'

export const COMMANDS = ACTION_COMMANDS
export type Command = ActionCommand

/** Every input name the command table gives the Action (the contract test holds action.yml to it). */
export const INPUT_NAMES = ACTION_INPUT_NAMES
export type InputName = 'command' | Exclude<(typeof OPTIONS)[OptionKey] extends infer O ? (O extends { input: infer I } ? I : never) : never, undefined>

export interface ActionInputs {
  readonly command: Command
  /**
   * Every table input, keyed by option (text options hold the text). A set `onFailure` overrides
   * the manifest's `deploy.onFailure` for this run (the rollout reads it); unset, the manifest decides.
   */
  readonly values: OptionValues & { readonly manifest: string }
}

export interface InputSource {
  readonly get: (name: InputName) => string
  readonly getMultiline: (name: InputName) => string[]
}

/** The inputs, or a USAGE Problem naming the input that is wrong. */
export type InputsResult = Result<ActionInputs>

const usage = (message: string) => fail(problem('USAGE', message))

const oneOf = <T extends string>(list: readonly T[], value: string): value is T => (list as readonly string[]).includes(value)

const INPUT_OPTIONS = (Object.keys(OPTIONS) as OptionKey[]).filter((k) => option(k).input !== undefined)

/** Read and check every input. A wrong value is a usage error that names the input. */
export function readActionInputs(source: InputSource): InputsResult {
  const command = source.get('command')
  if (!oneOf(COMMANDS, command)) return usage(`input command must be one of ${COMMANDS.join(', ')}, got "${command}"`)
  const values: Record<string, unknown> = {}
  for (const k of INPUT_OPTIONS) {
    const o = option(k)
    const name = o.input as InputName
    if (o.multiple) values[k] = source.getMultiline(name)
    else if (o.type === 'boolean') {
      const v = source.get(name)
      if (v !== 'true' && v !== 'false') return usage(`input ${name} must be "true" or "false", got "${v}"`)
      values[k] = v === 'true'
    } else if (source.get(name) !== '') values[k] = source.get(name)
  }
  if (values.onFailure !== undefined && !oneOf(ON_FAILURE, values.onFailure as string)) {
    return usage(`input on-failure must be one of ${ON_FAILURE.join(', ')} (or empty: the manifest's deploy.onFailure decides), got "${values.onFailure}"`)
  }
  if (values.manifest === undefined) return usage('input manifest is empty: give the path of the cluster manifest')
  return ok({ command, values: values as ActionInputs['values'] })
}
