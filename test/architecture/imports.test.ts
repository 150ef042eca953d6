/**
 * Data flows one way: manifest → plan → execute → facts → findings → report. Every module under src/
 * may import only from its own folder or from a folder of an earlier stage. Type-only imports count
 * too: a type is part of the contract between stages.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

/**
 * The stages in order; folders in one entry share a rank and may not import each other.
 * - result: the one Result/Problem type every stage and task returns; depends on nothing.
 * - command: commands as data and the one shell renderer; depends on nothing.
 * - net: IPv4 and interface-list rules shared by the manifest and the preflight.
 * - manifest: schema, validation, the expectation the checks compare against.
 * - probe: the facts probe program and its command, and the shape of what it prints. Before plan,
 *   because the plan lists the probe as its preflight phase's steps.
 * - plan: manifest → the exact commands of a deploy.
 * - transport: how a command reaches a node (SSH, this machine).
 * - execute: runs a plan over transports.
 * - preflight: facts (live gathering, offline assembly), checks, log signatures, findings, and the
 *   vLLM start-up watch (it produces findings).
 * - script-check: static check of a user's launch script (findings, so after preflight).
 * - smoke, deploy: the stages built on all of the above.
 * - report: renders plans, findings and manifest errors.
 * - lab: the local Docker lab (uses plan, execute, transport, preflight's watch).
 * - tasks: one TaskOutcome per command, for both front doors.
 * - cli, action: the two front doors; entry: src/index.ts and src/cli.ts.
 */
const STAGES: readonly (string | readonly string[])[] = [
  'result',
  'command',
  'net',
  'manifest',
  'probe',
  'plan',
  'transport',
  'execute',
  'preflight',
  'script-check',
  'smoke',
  'deploy',
  'report',
  'lab',
  'tasks',
  ['cli', 'action'],
  'entry',
]

const RANK = new Map<string, number>(STAGES.flatMap((s, i) => (typeof s === 'string' ? [[s, i]] : s.map((f) => [f, i] as [string, number]))))

const SRC = resolve('src')

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const path = join(dir, f)
    if (statSync(path).isDirectory()) return tsFiles(path)
    return f.endsWith('.ts') ? [path] : []
  })
}

/** The stage folder of a file under src/ (`entry` for src/*.ts). */
const stageOf = (file: string): string => {
  const parts = relative(SRC, file).split('/')
  return parts.length === 1 ? 'entry' : parts[0]!
}

/** Relative module specifiers a file imports or re-exports, static or dynamic. */
export function importsOf(text: string): string[] {
  const specs = [
    ...text.matchAll(/^\s*(?:import|export)\s[^'"]*?\sfrom\s+['"]([^'"]+)['"]/gm),
    ...text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm),
    ...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((m) => m[1]!)
  return specs.filter((s) => s.startsWith('.'))
}

describe('imports go one way: no module imports from a later stage', () => {
  const files = tsFiles(SRC)

  it('reads the imports it checks (the parser sees static, type-only, re-export and dynamic forms)', () => {
    expect(
      importsOf(
        "import { a } from './a.js'\nimport type { B } from '../b.js'\nexport { c } from './c.js'\nconst d = await import('../d.js')\nimport 'node:fs'",
      ),
    ).toEqual(['./a.js', '../b.js', './c.js', '../d.js'])
    expect(files.length).toBeGreaterThan(50)
  })

  it('every folder under src/ has a rank', () => {
    const unknown = [...new Set(files.map(stageOf))].filter((s) => !RANK.has(s))
    expect(unknown, `give these src/ folders a rank in STAGES (test/architecture/imports.test.ts): ${unknown.join(', ')}`).toEqual([])
  })

  it('no import reaches a later stage or a peer of the same rank', () => {
    const problems: string[] = []
    for (const file of files) {
      const from = stageOf(file)
      const fromRank = RANK.get(from)
      if (fromRank === undefined) continue
      for (const spec of importsOf(readFileSync(file, 'utf8'))) {
        const target = resolve(dirname(file), spec)
        if (!target.startsWith(SRC + '/')) continue
        const to = stageOf(target)
        if (to === from) continue
        const toRank = RANK.get(to)
        if (toRank === undefined || toRank >= fromRank) problems.push(`${relative('.', file)} (${from}) imports ${spec} (${to}), which is not an earlier stage`)
      }
    }
    expect(problems).toEqual([])
  })
})
