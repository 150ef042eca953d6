/**
 * One Action step run in this process, with the environment the runner gives it: INPUT_* from
 * `with` and action.yml's defaults (test/support/action.ts), GITHUB_OUTPUT, GITHUB_STATE and
 * GITHUB_STEP_SUMMARY files, RUNNER_TEMP and GITHUB_WORKSPACE. @actions/core is the real one: it
 * writes workflow commands (`::error`, `::add-mask::`, `::group::`) to stdout and outputs and state
 * to those files, which are read back here. The runner's variables of the test process are set
 * aside for the step and restored after it, and so is process.exitCode (core.setFailed sets it).
 *
 * The contract tests run the bundle (`node dist/index.js`) in a child process; these run the source.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import * as core from '@actions/core'
import { vi } from 'vitest'
import { inputEnv } from '../../support/action.js'

export interface InProcessStep {
  readonly stdout: string
  readonly outputs: Record<string, string>
  readonly state: Record<string, string>
  readonly summary: string
  /** process.exitCode when the step ended: 1 after core.setFailed, undefined otherwise. */
  readonly exitCode: number | undefined
  /** RUNNER_TEMP of the step. */
  readonly dir: string
}

/** `name<<delimiter\nvalue\ndelimiter` blocks, as @actions/core writes GITHUB_OUTPUT and GITHUB_STATE. */
function fileCommands(path: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const m of readFileSync(path, 'utf8').matchAll(/^(.+?)<<(ghadelimiter_[^\n]+)\n([\s\S]*?)\n?\2$/gm)) out[m[1]!] = m[3]!
  return out
}

const RUNNER_VARIABLE = /^(INPUT_|STATE_|GITHUB_|RUNNER_)/

export interface StepEnv {
  /** The step's `with:`; `inputs: false` sets no INPUT_* at all (the post step reads only a few, set in `env`). */
  readonly with?: Readonly<Record<string, string>> | false
  /** More variables (STATE_* for a post step, secrets a workflow maps into env:). */
  readonly env?: Readonly<Record<string, string>>
  /** Prepare RUNNER_TEMP before the step (e.g. files an earlier step left). */
  readonly before?: (dir: string) => void
  readonly summaryFile?: (dir: string) => string
}

export async function inProcessStep(step: () => Promise<void>, o: StepEnv = {}): Promise<InProcessStep> {
  const dir = mkdtempSync(join(tmpdir(), 'vrd-action-in-process-'))
  const files = {
    GITHUB_OUTPUT: join(dir, 'output'),
    GITHUB_STATE: join(dir, 'state'),
    GITHUB_STEP_SUMMARY: o.summaryFile?.(dir) ?? join(dir, 'summary'),
  }
  for (const f of [files.GITHUB_OUTPUT, files.GITHUB_STATE]) writeFileSync(f, '')
  if (!o.summaryFile) writeFileSync(files.GITHUB_STEP_SUMMARY, '')
  o.before?.(dir)
  const saved = { ...process.env }
  for (const k of Object.keys(process.env)) if (RUNNER_VARIABLE.test(k)) delete process.env[k]
  Object.assign(process.env, {
    RUNNER_TEMP: dir,
    GITHUB_WORKSPACE: resolve('.'),
    ...files,
    ...(o.with === false ? {} : inputEnv(o.with ?? {})),
    ...o.env,
  })
  // @actions/core keeps the summary file's path from its first write (one step per process on a runner): each step here has its own.
  ;(core.summary as unknown as { _filePath?: string })._filePath = undefined
  const savedExitCode = process.exitCode
  process.exitCode = undefined
  let stdout = ''
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stdout += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8')
    return true
  })
  let exitCode: number | undefined
  try {
    await step()
  } finally {
    write.mockRestore()
    exitCode = process.exitCode === undefined ? undefined : Number(process.exitCode)
    process.exitCode = savedExitCode
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k]
    Object.assign(process.env, saved)
  }
  let summary = ''
  try {
    summary = readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8')
  } catch {}
  return { stdout, outputs: fileCommands(files.GITHUB_OUTPUT), state: fileCommands(files.GITHUB_STATE), summary, exitCode, dir }
}
