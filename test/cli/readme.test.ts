/**
 * The README's lists of commands, flags, inputs and outputs, held against the command table
 * (src/tasks/commands.ts) that both front doors read, so the docs cannot drift from the code.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { ACTION_COMMANDS, ACTION_INPUT_NAMES, COMMANDS, type CommandSpec, commandSpec, option } from '../../src/tasks/commands.js'
import { OUTPUT_NAMES } from '../../src/tasks/outcome.js'

const README = readFileSync('README.md', 'utf8')

/** The text from `start` up to the next `end`. */
function between(start: string, end: string): string {
  const a = README.indexOf(start)
  const b = README.indexOf(end, a + 1)
  if (a < 0 || b < 0) throw new Error(`README: no section from "${start}" to "${end}"`)
  return README.slice(a, b)
}

const backticked = (text: string): string[] => [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]!)

describe('the README against the command table', () => {
  it('"What works in this release" has one row per command, no more', () => {
    const rows = between('\n## What works in this release', '\n## Use it')
      .split('\n')
      .filter((l) => l.startsWith('| `'))
      .map((l) => /^\| `([a-z]+)/.exec(l)![1]!)
    expect([...rows].sort()).toEqual(COMMANDS.map((c) => c.name).sort())
  })

  it('the Action section names every command, input and output the table gives the Action', () => {
    const inputs = between('\nInputs (', 'Outputs:')
    expect(/`command` \(([a-z |]+)\)/.exec(inputs)?.[1]?.split(' | ')).toEqual([...ACTION_COMMANDS])
    expect(
      ACTION_INPUT_NAMES.filter((n) => !backticked(inputs).includes(n)),
      'inputs the README does not name',
    ).toEqual([])
    const outputs = between('`action.yml`. Outputs:', 'Manifest errors')
    expect(
      OUTPUT_NAMES.filter((n) => !backticked(outputs).includes(n)),
      'outputs the README does not name',
    ).toEqual([])
  })

  it('every CLI example uses a command the table has, with flags that command takes', () => {
    const examples = README.split('\n')
      .map((l) => /^\s*(?:npx )?vllm-ray-deploy ([a-z]+)(.*)$/.exec(l))
      .filter((m) => m !== null)
    expect(examples.length).toBeGreaterThan(5)
    const problems: string[] = []
    for (const [line, name, rest] of examples) {
      const spec = commandSpec(name!) as CommandSpec | undefined
      if (!spec) {
        problems.push(`${line}: no command ${name}`)
        continue
      }
      const flags = spec.options.map((k) => option(k).flag)
      for (const [, flag] of rest!.matchAll(/--([a-z-]+)/g)) if (!flags.includes(flag!)) problems.push(`${line.trim()}: ${name} takes no --${flag}`)
    }
    expect(problems).toEqual([])
  })
})
