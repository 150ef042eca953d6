/**
 * The GitHub Action: a thin adapter. Reads inputs, calls the same tasks as the CLI, and turns the
 * outcome into annotations, outputs, files and the job summary.
 */
import * as core from '@actions/core'
import { mkdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { isAbsolute, join, relative } from 'node:path'
import { diagnoseTask } from '../tasks/diagnose.js'
import { type TaskOutcome, notYetAvailable, usageError } from '../tasks/outcome.js'
import { planTask } from '../tasks/plan.js'
import { preflightTask } from '../tasks/preflight.js'
import { validateTask } from '../tasks/validate.js'
import { deployTask, flatGroups, rollbackTask } from '../tasks/deploy.js'
import { clearLockForPost, markMainPhase, saveLockForPost } from './post-lock.js'

export const COMMANDS = ['validate', 'plan', 'deploy', 'preflight', 'smoke', 'diagnose', 'rollback'] as const
const ON_FAILURE = ['rollback', 'stop', 'keep'] as const

const input = (name: string): string => core.getInput(name)
const optional = (name: string): string | undefined => input(name) || undefined

async function dispatch(command: string): Promise<TaskOutcome> {
  const manifest = input('manifest') || '.github/vllm-ray-deploy.yml'
  const onFailure = input('on-failure') || 'rollback'
  if (!(ON_FAILURE as readonly string[]).includes(onFailure)) return usageError(`input on-failure must be one of ${ON_FAILURE.join(', ')}, got "${onFailure}"`)
  switch (command) {
    case 'validate':
      return validateTask(manifest)
    case 'plan':
      return planTask(manifest, { ...(optional('image') && { image: input('image') }), release: input('release') || process.env.GITHUB_SHA || 'manual' })
    case 'preflight': {
      const key = input('ssh-private-key')
      if (!key) return usageError('input ssh-private-key is required for preflight (store the key in a secret)')
      return preflightTask(manifest, {
        credentials: { privateKey: key.endsWith('\n') ? key : `${key}\n`, ...(optional('known-hosts') && { knownHosts: input('known-hosts') }) },
        onProgress: (m) => core.info(m),
      })
    }
    case 'diagnose':
      return diagnoseTask({
        ...(optional('facts') && { facts: input('facts') }),
        ...(optional('ray-nodes') && { rayNodes: input('ray-nodes') }),
        ...(optional('ray-status') && { rayStatus: input('ray-status') }),
        logs: core.getMultilineInput('logs'),
        ...(input('manifest') && { manifest }),
      })
    case 'deploy':
    case 'rollback': {
      const key = input('ssh-private-key')
      if (!key) return usageError(`input ssh-private-key is required for ${command} (store the key in a secret)`)
      // A cancelled workflow sends SIGINT, then SIGTERM: stop at the next step; the post step
      // releases the lock if this process is killed before it could.
      const cancel = new AbortController()
      const onSignal = () => cancel.abort()
      process.on('SIGINT', onSignal)
      process.on('SIGTERM', onSignal)
      try {
        const opts = {
          credentials: { privateKey: key.endsWith('\n') ? key : `${key}\n`, ...(optional('known-hosts') && { knownHosts: input('known-hosts') }) },
          env: process.env,
          signal: cancel.signal,
          onProgress: (m: string) => core.info(m),
          onStage: flatGroups((name) => core.startGroup(name), () => core.endGroup()),
          onLock: (lock: { holder: Parameters<typeof saveLockForPost>[2]; cluster: string } | undefined) => (lock ? saveLockForPost(manifest, lock.cluster, lock.holder) : clearLockForPost()),
          ...(optional('release') && { release: input('release') }),
          ...(optional('image') && { image: input('image') }),
          ...(input('force') === 'true' && { force: true }),
          ...(input('wait-lock') === 'true' && { waitLock: true }),
          ...(optional('on-failure') && { onFailure }),
          ...(optional('rollback-to') && { to: input('rollback-to') }),
        }
        return command === 'deploy' ? await deployTask(manifest, opts) : await rollbackTask(manifest, opts)
      } finally {
        process.off('SIGINT', onSignal)
        process.off('SIGTERM', onSignal)
      }
    }
    case 'smoke':
      return notYetAvailable(command)
    default:
      return usageError(`input command must be one of ${COMMANDS.join(', ')}, got "${command}"`)
  }
}

/** Annotation paths must be relative to the repository root to land on the file. */
function repoPath(file: string | undefined): string | undefined {
  if (!file) return undefined
  const workspace = process.env.GITHUB_WORKSPACE
  return workspace && isAbsolute(file) ? relative(workspace, file) : file
}

function emit(outcome: TaskOutcome): void {
  core.info(outcome.text.trimEnd())
  for (const a of outcome.annotations) {
    const props = { title: a.title, ...(a.file && { file: repoPath(a.file) }), ...(a.line && { startLine: a.line }), ...(a.col && { startColumn: a.col }) }
    if (a.level === 'error') core.error(a.message, props)
    else if (a.level === 'warning') core.warning(a.message, props)
    else core.notice(a.message, props)
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

export async function run(): Promise<void> {
  markMainPhase()
  const key = input('ssh-private-key')
  if (key) for (const line of key.split('\n')) if (line.trim()) core.setSecret(line.trim())
  const command = input('command') || 'validate'
  try {
    const outcome = await dispatch(command)
    emit(outcome)
    await writeSummary(`## vllm-ray-deploy ${command}\n\n${outcome.summary}`)
    if (outcome.exitCode !== 0) core.setFailed(outcome.headline)
  } catch (err) {
    core.setFailed(`internal error (a bug in vllm-ray-deploy): ${(err as Error).message}`)
    core.debug((err as Error).stack ?? '')
  }
}
