import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { INPUT_TEXT, OUTPUT_TEXT, renderActionYml } from '../../src/action/action-yml.js'
import { ACTION_COMMANDS, ACTION_INPUT_NAMES, commandsReadingInput } from '../../src/tasks/command-table.js'
import { OUTPUT_NAMES } from '../../src/tasks/outcome.js'

const REGENERATE = 'npm run schema'

describe('action.yml, generated from src/action/action-yml.ts and the command table', () => {
  it('is up to date', () => {
    expect(readFileSync('action.yml', 'utf8') === renderActionYml(), `action.yml is out of date; regenerate it with: ${REGENERATE}`).toBe(true)
  })

  it('declares every input and output of the table, each described, with the commands that use it first', () => {
    const meta = parse(renderActionYml()) as {
      inputs: Record<string, { description: string; default: unknown }>
      outputs: Record<string, { description: string }>
    }
    expect(Object.keys(meta.inputs).sort()).toEqual([...ACTION_INPUT_NAMES].sort())
    expect(Object.keys(meta.outputs).sort()).toEqual([...OUTPUT_NAMES].sort())
    expect(meta.inputs.command!.description).toBe(`What to do: ${ACTION_COMMANDS.join(' | ')}.`)
    expect(meta.inputs['wait-lock']!.description).toBe(`(deploy, rollback) ${INPUT_TEXT['wait-lock']!.description}`)
    expect(meta.inputs.manifest!.description).toBe(INPUT_TEXT.manifest!.description)
    expect(commandsReadingInput('manifest')).toEqual([...ACTION_COMMANDS])
    expect(meta.outputs.summary!.description).toBe(OUTPUT_TEXT.summary)
    // Defaults stay strings as the runner hands them over ("false", not false).
    expect(meta.inputs.force!.default).toBe('false')
    expect(meta.inputs.release!.default).toBe('${{ github.sha }}')
  })
})
