/**
 * The README's command table, docs/usage.md's inputs and outputs, and every CLI example in the README
 * and docs/, held against the command table (src/tasks/command-table.ts) that both front doors read, so
 * the docs cannot drift from the code.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { ACTION_COMMANDS, ACTION_INPUT_NAMES, COMMANDS, type CommandSpec, commandSpec, option } from '../../src/tasks/command-table.js'
import { OUTPUT_NAMES } from '../../src/tasks/outcome.js'

const README = readFileSync('README.md', 'utf8')
const USAGE = readFileSync('docs/usage.md', 'utf8')
const DOCS = [
  README,
  ...readdirSync('docs')
    .filter((f) => f.endsWith('.md'))
    .map((f) => readFileSync(`docs/${f}`, 'utf8')),
]

/** The text of `doc` from `start` up to the next `end`. */
function between(start: string, end: string, doc = README): string {
  const a = doc.indexOf(start)
  const b = doc.indexOf(end, a + 1)
  if (a < 0 || b < 0) throw new Error(`no section from "${start}" to "${end}"`)
  return doc.slice(a, b)
}

const backticked = (text: string): string[] => [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]!)

describe('the README and docs/ against the command table', () => {
  it('"What works in this release" has one row per command, no more', () => {
    const rows = between('\n## What works in this release', '\n## Use it')
      .split('\n')
      .filter((l) => l.startsWith('| `'))
      .map((l) => /^\| `([a-z]+)/.exec(l)![1]!)
    expect([...rows].sort()).toEqual(COMMANDS.map((c) => c.name).sort())
  })

  it("docs/usage.md's Action section names every command, input and output the table gives the Action", () => {
    const inputs = between('\nInputs (', 'Outputs:', USAGE)
    // The command list itself is action.yml's, generated from the table (test/action/action-yml.test.ts); here it is only pointed to.
    expect(inputs).toMatch(/`command` \([^)]*`action\.yml`\)/)
    expect(readFileSync('action.yml', 'utf8')).toContain(`What to do: ${ACTION_COMMANDS.join(' | ')}.`)
    expect(
      ACTION_INPUT_NAMES.filter((n) => !backticked(inputs).includes(n)),
      'inputs the README does not name',
    ).toEqual([])
    const outputs = between('`action.yml`. Outputs:', 'Manifest errors', USAGE)
    expect(
      OUTPUT_NAMES.filter((n) => !backticked(outputs).includes(n)),
      'outputs the README does not name',
    ).toEqual([])
  })

  it('every CLI example in the README and docs/ uses a command the table has, with flags that command takes', () => {
    // `vllm-ray-deploy CMD`, `npx vllm-ray-deploy CMD`, `npx --yes github:OWNER/vllm-ray-deploy#TAG CMD`
    const examples = DOCS.flatMap((doc) => doc.split('\n'))
      .map((l) => /^\s*(?:npx (?:--yes github:[^\s#]+#\S+|vllm-ray-deploy)|vllm-ray-deploy) ([a-z]+)(.*)$/.exec(l))
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
