/**
 * The GitHub Action: a thin adapter. Reads inputs, calls the same tasks as the CLI, and turns the
 * outcome into annotations, outputs, files and the job summary.
 */
import * as core from '@actions/core'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { isAbsolute, join, relative } from 'node:path'
import { inertText, logSink } from '../report/log-sink.js'
import { loadManifestFile } from '../manifest/load.js'
import { diagnoseTask } from '../tasks/diagnose.js'
import { type TaskOutcome, usageError } from '../tasks/outcome.js'
import { planTask } from '../tasks/plan.js'
import { preflightTask } from '../tasks/preflight.js'
import { smokeTask } from '../tasks/smoke.js'
import { validateTask } from '../tasks/validate.js'
import { type ActionInputs, type InputName, readActionInputs } from './inputs.js'
import { declaredDefault } from './metadata.js'
import { clearLockForPost, markMainPhase, saveLockForPost } from './post-lock.js'
import { deployTask, flatGroups, rollbackTask } from '../tasks/deploy.js'

export { COMMANDS } from './inputs.js'

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

/** The SSH credentials the inputs give (key, its passphrase, known_hosts): one place for every command. */
function credentialsOf(inputs: ActionInputs, privateKey: string) {
  return {
    privateKey,
    ...(inputs.sshKeyPassphrase && { passphrase: inputs.sshKeyPassphrase }),
    ...(inputs.knownHosts && { knownHosts: inputs.knownHosts }),
  }
}

async function dispatch(inputs: ActionInputs): Promise<TaskOutcome> {
  const { manifest } = inputs
  switch (inputs.command) {
    case 'validate':
      return validateTask(manifest)
    case 'plan':
      return planTask(manifest, { ...(inputs.image && { image: inputs.image }), ...(inputs.release && { release: inputs.release }) })
    case 'preflight': {
      if (!inputs.sshPrivateKey) return usageError('input ssh-private-key is required for preflight (store the key in a secret)')
      return preflightTask(manifest, {
        credentials: credentialsOf(inputs, inputs.sshPrivateKey),
        onProgress: info,
      })
    }
    case 'smoke': {
      if (!inputs.sshPrivateKey) return usageError('input ssh-private-key is required for smoke (store the key in a secret)')
      return smokeTask(manifest, {
        credentials: credentialsOf(inputs, inputs.sshPrivateKey),
        env: process.env,
        onProgress: info,
      })
    }
    case 'diagnose': {
      const used = diagnoseManifest(manifest)
      if (!used) info(`diagnose: no manifest at ${manifest}; checking without the cluster's expected nodes and fabric`)
      return diagnoseTask({
        ...(inputs.facts && { facts: inputs.facts }),
        ...(inputs.rayNodes && { rayNodes: inputs.rayNodes }),
        ...(inputs.rayStatus && { rayStatus: inputs.rayStatus }),
        logs: inputs.logs,
        ...(used && { manifest: used }),
        ...(inputs.launchScript && { launchScript: inputs.launchScript }),
      })
    }
    case 'deploy':
    case 'rollback': {
      if (!inputs.sshPrivateKey) return usageError(`input ssh-private-key is required for ${inputs.command} (store the key in a secret)`)
      // A cancelled workflow sends SIGINT, then SIGTERM (7.5 s later): stop the step in flight (its
      // remote command gets SIGTERM) and start no other, within that time; the post step
      // releases the lock if this process is killed before it could.
      const cancel = new AbortController()
      const onSignal = () => cancel.abort()
      process.on('SIGINT', onSignal)
      process.on('SIGTERM', onSignal)
      try {
        const opts = {
          credentials: credentialsOf(inputs, inputs.sshPrivateKey),
          env: process.env,
          signal: cancel.signal,
          onProgress: info,
          onStage: flatGroups(
            (name) => core.startGroup(inertText(name)),
            () => core.endGroup(),
          ),
          onLock: (lock: { holder: Parameters<typeof saveLockForPost>[2]; cluster: string } | undefined) =>
            lock ? saveLockForPost(manifest, lock.cluster, lock.holder) : clearLockForPost(),
          ...(inputs.release && { release: inputs.release }),
          ...(inputs.image && { image: inputs.image }),
          ...(inputs.force && { force: true }),
          ...(inputs.waitLock && { waitLock: true }),
          ...(inputs.onFailure && { onFailure: inputs.onFailure }),
          ...(inputs.rollbackTo && { to: inputs.rollbackTo }),
        }
        return inputs.command === 'deploy' ? await deployTask(manifest, opts) : await rollbackTask(manifest, opts)
      } finally {
        process.off('SIGINT', onSignal)
        process.off('SIGTERM', onSignal)
      }
    }
  }
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
    const dir = join(process.env.RUNNER_TEMP || tmpdir(), 'vllm-ray-deploy')
    mkdirSync(dir, { recursive: true })
    for (const f of outcome.files) {
      const path = join(dir, f.fileName)
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

/** The API key smoke.apiKeySecret names is masked before anything can print it. */
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
  const passphrase = get('ssh-key-passphrase')
  if (passphrase) core.setSecret(passphrase)
  try {
    const read = readActionInputs({ get, getMultiline: (name) => core.getMultilineInput(name) })
    if (read.ok && read.inputs.command === 'smoke') await maskSmokeApiKey(read.inputs.manifest)
    const outcome = read.ok ? await dispatch(read.inputs) : usageError(read.error)
    const command = read.ok ? read.inputs.command : get('command')
    const markdown = `## vllm-ray-deploy ${command}\n\n${outcome.summary}`
    // The same Markdown as a file beside the facts bundle, for the failure artifact: a later step
    // cannot read this step's job summary.
    const summaryFile = { output: 'summary-file' as const, fileName: `vllm-ray-deploy-${command}-summary.md`, content: markdown }
    emit({ ...outcome, files: [...outcome.files, summaryFile] })
    await writeSummary(markdown)
    if (outcome.exitCode !== 0) core.setFailed(inertText(outcome.headline))
  } catch (err) {
    core.setFailed(inertText(`internal error (a bug in vllm-ray-deploy): ${(err as Error).message}`))
    core.debug((err as Error).stack ?? '')
  }
}
