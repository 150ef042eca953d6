/**
 * Run the bundled action the way the runner does: read action.yml, give every declared input its
 * value from `with` or else action.yml's default (expressions such as `${{ github.sha }}` evaluated
 * from a fixed test context), set INPUT_* env, start `node dist/index.js`, read the output files.
 * The defaults are applied here, as the runner applies them, never by the action's code.
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parse } from 'yaml'

export interface ActionMetadata {
  readonly inputs: Readonly<Record<string, { readonly description: string; readonly required?: boolean; readonly default?: string }>>
  readonly outputs: Readonly<Record<string, { readonly description: string }>>
  readonly runs: { readonly using: string; readonly main: string }
}

export const ACTION_YML = 'action.yml'

export function loadActionMetadata(file = ACTION_YML): ActionMetadata {
  return parse(readFileSync(file, 'utf8')) as ActionMetadata
}

/** The `github` context the harness evaluates default expressions against. */
export const TEST_GITHUB_CONTEXT = { sha: '0123456789abcdef0123456789abcdef01234567', workspace: resolve('.') } as const

/** `${{ github.sha }}` and friends; anything the harness does not know fails the test loudly. */
function evaluateDefault(text: string): string {
  return text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, expr: string) => {
    const m = /^github\.(\w+)$/.exec(expr)
    const value = m ? (TEST_GITHUB_CONTEXT as Record<string, string>)[m[1]!] : undefined
    if (value === undefined) throw new Error(`the test harness cannot evaluate \${{ ${expr} }} in an action.yml default`)
    return value
  })
}

/** INPUT_* as the runner sets them: every declared input, `with` first, else its default. */
export function inputEnv(withInputs: Readonly<Record<string, string>>, meta = loadActionMetadata()): Record<string, string> {
  const unknown = Object.keys(withInputs).filter((k) => !(k in meta.inputs))
  if (unknown.length > 0) throw new Error(`inputs not declared in action.yml: ${unknown.join(', ')}`)
  const env: Record<string, string> = {}
  for (const [name, spec] of Object.entries(meta.inputs)) {
    // The runner upper-cases the name and keeps dashes: INPUT_SSH-PRIVATE-KEY.
    env[`INPUT_${name.toUpperCase()}`] = withInputs[name] ?? evaluateDefault(spec.default ?? '')
  }
  return env
}

export interface ActionRun {
  readonly status: number | null
  readonly stdout: string
  readonly stderr: string
  readonly outputs: Record<string, string>
  readonly summary: string
  readonly dir: string
}

export function runAction(withInputs: Readonly<Record<string, string>>): ActionRun {
  const meta = loadActionMetadata()
  const dir = mkdtempSync(join(tmpdir(), 'vrd-action-'))
  const files = { GITHUB_OUTPUT: join(dir, 'output'), GITHUB_STEP_SUMMARY: join(dir, 'summary'), GITHUB_STATE: join(dir, 'state') }
  for (const f of Object.values(files)) writeFileSync(f, '')
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/root',
    RUNNER_TEMP: dir,
    GITHUB_WORKSPACE: TEST_GITHUB_CONTEXT.workspace,
    GITHUB_SHA: TEST_GITHUB_CONTEXT.sha,
    ...files,
    ...inputEnv(withInputs, meta),
  }
  const r = spawnSync('node', [meta.runs.main], { env, encoding: 'utf8' })
  const outputs: Record<string, string> = {}
  const raw = readFileSync(files.GITHUB_OUTPUT, 'utf8')
  for (const m of raw.matchAll(/^(.+?)<<(ghadelimiter_[^\n]+)\n([\s\S]*?)\n\2$/gm)) outputs[m[1]!] = m[3]!
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, outputs, summary: readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8'), dir }
}

/** The same, without blocking this process (for tests whose servers live in it); `extraEnv` adds variables (secrets mapped into env:). */
export async function runActionAsync(withInputs: Readonly<Record<string, string>>, extraEnv: Readonly<Record<string, string>> = {}): Promise<ActionRun> {
  const meta = loadActionMetadata()
  const dir = mkdtempSync(join(tmpdir(), 'vrd-action-'))
  const files = { GITHUB_OUTPUT: join(dir, 'output'), GITHUB_STEP_SUMMARY: join(dir, 'summary'), GITHUB_STATE: join(dir, 'state') }
  for (const f of Object.values(files)) writeFileSync(f, '')
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/root',
    RUNNER_TEMP: dir,
    GITHUB_WORKSPACE: TEST_GITHUB_CONTEXT.workspace,
    GITHUB_SHA: TEST_GITHUB_CONTEXT.sha,
    ...files,
    ...extraEnv,
    ...inputEnv(withInputs, meta),
  }
  const child = spawn('node', [meta.runs.main], { env })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c))
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c))
  const status = await new Promise<number | null>((r) => child.on('close', r))
  const outputs: Record<string, string> = {}
  const raw = readFileSync(files.GITHUB_OUTPUT, 'utf8')
  for (const m of raw.matchAll(/^(.+?)<<(ghadelimiter_[^\n]+)\n([\s\S]*?)\n\2$/gm)) outputs[m[1]!] = m[3]!
  return { status, stdout, stderr, outputs, summary: readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8'), dir }
}
