/**
 * The GitHub Action: a thin adapter. Reads inputs, calls the same tasks as the CLI, and turns the
 * outcome into annotations, outputs, files and the job summary.
 */
import * as core from '@actions/core'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { dirname, isAbsolute, join, relative } from 'node:path'
import { allInWords, inWords } from '../command/option-words.js'
import { inertText, logSink } from '../report/log-sink.js'
import { loadManifestFile } from '../manifest/manifest-file.js'
import { OPTIONS, type OptionKey, type OptionValues, commandSpec, option, runCommand } from '../tasks/command-table.js'
import { flatGroups } from './log-groups.js'
import { type TaskOutcome, usageError } from '../tasks/outcome.js'
import { type ActionInputs, type InputName, readActionInputs } from './action-inputs.js'
import { declaredDefault } from './metadata.js'
import { markMainPhase } from './phase.js'
import { clearLockForPost, saveLockForPost } from './lock-state.js'
import { recordFindings, recordStepOutcome, reportDir, stepId } from './action-report.js'

export { COMMANDS } from './action-inputs.js'

/** Every log line goes through the log sink: node, server and paste text inside it made inert. */
const info = logSink((m) => core.info(m))

/**
 * diagnose works without a manifest, but the `manifest` input always has a value (action.yml's
 * default). So: a manifest that exists is used; a missing one is an error only when the workflow
 * named it (the value differs from the declared default); a missing default is simply skipped.
 */
function diagnoseManifest(path: string): string | undefined {
  if (existsSync(path)) return path
  return path === declaredDefault('manifest') ? undefined : path
}

/** Runs the command the table names, with only the inputs that command reads. */
async function dispatch(inputs: ActionInputs): Promise<TaskOutcome> {
  const spec = commandSpec(inputs.command)!
  const values: Record<string, unknown> = {}
  for (const k of spec.options) if (inputs.values[k] !== undefined) values[k] = inputs.values[k]
  if (inputs.command === 'diagnose') {
    const used = diagnoseManifest(inputs.values.manifest)
    if (!used) info(`diagnose: no manifest at ${inputs.values.manifest}; checking without the cluster's expected nodes and fabric`)
    values.manifest = used
  }
  const manifest = inputs.values.manifest
  return runCommand(
    spec,
    {
      values: values as OptionValues,
      args: [],
      env: process.env,
      onProgress: (m) => info(inWords(m, 'action')),
      onStage: flatGroups(
        (name) => core.startGroup(inertText(name)),
        () => core.endGroup(),
      ),
      onLock: (lock) => (lock ? saveLockForPost(manifest, lock.cluster, lock.holder) : clearLockForPost()),
    },
    {
      howToGiveKey: 'input ssh-private-key (store the key in a secret)',
      missing: (k) => `input ${option(k).input} is empty`,
      // A cancelled workflow sends SIGINT, then SIGTERM (7.5 s later): the first cancels the step in
      // flight; the second changes nothing, and the post step releases the lock if this process is
      // killed before it could.
    },
  )
}

/** Annotation paths must be relative to the repository root to land on the file. */
function repoPath(file: string | undefined): string | undefined {
  if (!file) return undefined
  const workspace = process.env.GITHUB_WORKSPACE
  return workspace && isAbsolute(file) ? relative(workspace, file) : file
}

function emit(outcome: TaskOutcome): void {
  info(outcome.text.trimEnd())
  for (const a of outcome.annotations) {
    const props = { title: a.title, ...(a.file && { file: repoPath(a.file) }), ...(a.line && { startLine: a.line }), ...(a.col && { startColumn: a.col }) }
    if (a.level === 'error') core.error(inertText(a.message), props)
    else if (a.level === 'warning') core.warning(inertText(a.message), props)
    else core.notice(inertText(a.message), props)
  }
  for (const [name, value] of Object.entries(outcome.outputs)) core.setOutput(name, value)
  if (outcome.files.length > 0) {
    const dir = reportDir()
    mkdirSync(dir, { recursive: true })
    for (const f of outcome.files) {
      const path = join(dir, f.fileName)
      // The diagnostics bundle's files lie under report-dir/bundle/ (its `bundle` output: bundle.json, written last).
      mkdirSync(dirname(path), { recursive: true })
      writeFileSync(path, f.content)
      core.setOutput(f.output, path)
    }
  }
  core.setOutput('summary', outcome.headline)
}

async function writeSummary(markdown: string): Promise<void> {
  if (!process.env.GITHUB_STEP_SUMMARY) return
  await core.summary.addRaw(markdown, true).write()
}

/** The API key smoke.apiKeySecret names is masked before anything can print it (smoke, and the smoke gate of a rollout). */
async function maskSmokeApiKey(path: string): Promise<void> {
  const { manifest } = await loadManifestFile(path)
  const name = manifest?.smoke.apiKeySecret
  const value = name ? process.env[name] : undefined
  if (value) core.setSecret(value)
}

export async function run(): Promise<void> {
  markMainPhase()
  const get = (name: InputName): string => core.getInput(name)
  const key = get('ssh-private-key')
  if (key) for (const line of key.split('\n')) if (line.trim()) core.setSecret(line.trim())
  // Every secret input of the table (the key's passphrase, the hub token) is masked before anything runs.
  for (const k of Object.keys(OPTIONS) as OptionKey[]) {
    const o = option(k)
    const value = o.secret && o.input ? get(o.input as InputName) : ''
    if (value) for (const v of new Set([value, value.trim()])) if (v) core.setSecret(v)
  }
  // The failure report (report.ts): this step's block says "did not finish" until it does.
  const step = stepId()
  const report = (problem: string | undefined) => problem && core.warning(inertText(`vllm-ray-deploy: failure report: ${problem}`))
  report(recordStepOutcome({ step, command: get('command') }))
  core.setOutput('report-dir', reportDir())
  try {
    const read = readActionInputs({ get, getMultiline: (name) => core.getMultilineInput(name) })
    if (read.ok && ['smoke', 'deploy', 'rollback'].includes(read.value.command)) await maskSmokeApiKey(read.value.values.manifest)
    const outcome = allInWords(read.ok ? await dispatch(read.value) : usageError(read.problem.message), 'action')
    const command = read.ok ? read.value.command : get('command')
    // First line: the verdict; the command that wrote it closes the section.
    const markdown = `${outcome.summary.trimEnd()}\n\n<sub>vllm-ray-deploy ${command}</sub>\n`
    // The same Markdown as a file beside the facts bundle, for the failure artifact: a later step
    // cannot read this step's job summary.
    const summaryFile = { output: 'summary-file' as const, fileName: `vllm-ray-deploy-${command}-summary.md`, content: markdown }
    emit({ ...outcome, files: [...outcome.files, summaryFile] })
    await writeSummary(markdown)
    if (outcome.outputs.findings) report(recordFindings(outcome.outputs.findings))
    report(recordStepOutcome({ step, command, result: outcome.outputs.result, headline: outcome.headline }))
    if (outcome.exitCode !== 0) core.setFailed(inertText(outcome.headline))
  } catch (err) {
    const headline = `internal error (a bug in vllm-ray-deploy): ${(err as Error).message}`
    report(recordStepOutcome({ step, command: get('command'), result: 'error', headline }))
    core.setFailed(inertText(headline))
    core.debug((err as Error).stack ?? '')
  }
}
