/**
 * The CLI reads the command table and nothing else: every command is in the usage with every flag it
 * takes, a flag another command takes is a usage error naming it, and `<command> --help` shows
 * that command alone.
 */
import { describe, expect, it } from 'vitest'
import { USAGE, main } from '../../src/cli/cli-main.js'
import { COMMANDS, type CommandSpec, OPTIONS, type OptionKey, option } from '../../src/tasks/command-table.js'

async function cli(...args: string[]) {
  let out = ''
  let err = ''
  const code = await main(args, { out: (s) => (out += s), err: (s) => (err += s), env: {} })
  return { code, out, err }
}

const specs: readonly CommandSpec[] = COMMANDS
const allKeys = Object.keys(OPTIONS) as OptionKey[]

describe('the CLI from the command table', () => {
  it('lists every command, each with every flag it takes', () => {
    for (const spec of specs) {
      const block = USAGE.split('\n').find((l) => l.startsWith(`  ${spec.name} `))
      expect(block, spec.name).toBeDefined()
      for (const k of spec.options) expect(block, `${spec.name} --${option(k).flag}`).toContain(`--${option(k).flag}`)
      for (const k of allKeys.filter((k) => !spec.options.includes(k)))
        expect(block, `${spec.name} lists --${option(k).flag}`).not.toMatch(new RegExp(`--${option(k).flag}(?![\\w-])`))
    }
  })

  it('refuses, before doing anything, a flag the command does not take (every command, a flag of another)', async () => {
    for (const spec of specs) {
      const foreign = allKeys.filter((k) => !spec.options.includes(k) && option(k).type === 'boolean')[0]!
      const r = await cli(spec.name, `--${option(foreign).flag}`)
      expect(r.code, `${spec.name} --${option(foreign).flag}`).toBe(2)
      expect(r.err).toContain(`Unknown option '--${option(foreign).flag}'`)
      expect(r.err).toContain(`usage:\n  ${spec.name} `)
    }
  })

  it('<command> --help shows that command alone; no command, help or --help show them all', async () => {
    const one = await cli('plan', '--help')
    expect(one.code).toBe(0)
    expect(one.out).toContain('  plan ')
    expect(one.out).not.toContain('  deploy ')
    for (const args of [[], ['help'], ['--help']]) expect((await cli(...args)).out).toBe(USAGE)
  })

  it('a required option missing is a usage error naming the flag (every command that has one)', async () => {
    for (const spec of specs.filter((s) => s.required?.length)) {
      const r = await cli(spec.name, ...(spec.synopsis ? [spec.synopsis.split('|')[0]!] : []))
      expect(r.code, spec.name).toBe(2)
      expect(r.err).toContain(`--${option(spec.required![0]!).flag} is required`)
    }
  })

  it('options come after the command: a flag first is a usage error that says so', async () => {
    const r = await cli('--manifest', 'x', 'validate')
    expect(r.code).toBe(2)
    expect(r.err).toContain('the command comes first')
  })
})
