/** Run the bundled action the way the runner does: `node dist/index.js`, INPUT_* env, output files. */
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

export function runAction(inputs: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'vrd-action-'))
  const files = { GITHUB_OUTPUT: join(dir, 'output'), GITHUB_STEP_SUMMARY: join(dir, 'summary'), GITHUB_STATE: join(dir, 'state') }
  for (const f of Object.values(files)) writeFileSync(f, '')
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', RUNNER_TEMP: dir, GITHUB_WORKSPACE: resolve('.'), ...files }
  for (const [k, v] of Object.entries(inputs)) env[`INPUT_${k.toUpperCase()}`] = v
  const r = spawnSync('node', ['dist/index.js'], { env, encoding: 'utf8' })
  const outputs: Record<string, string> = {}
  const raw = readFileSync(files.GITHUB_OUTPUT, 'utf8')
  for (const m of raw.matchAll(/^(.+?)<<(ghadelimiter_[^\n]+)\n([\s\S]*?)\n\2$/gm)) outputs[m[1]!] = m[3]!
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, outputs, summary: readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8'), dir }
}


/** The same, without blocking this process (for tests whose servers live in it); `env` adds variables. */
export async function runActionAsync(inputs: Record<string, string>, extraEnv: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'vrd-action-'))
  const files = { GITHUB_OUTPUT: join(dir, 'output'), GITHUB_STEP_SUMMARY: join(dir, 'summary'), GITHUB_STATE: join(dir, 'state') }
  for (const f of Object.values(files)) writeFileSync(f, '')
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', RUNNER_TEMP: dir, GITHUB_WORKSPACE: resolve('.'), ...files, ...extraEnv }
  for (const [k, v] of Object.entries(inputs)) env[`INPUT_${k.toUpperCase()}`] = v
  const child = spawn('node', ['dist/index.js'], { env })
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
