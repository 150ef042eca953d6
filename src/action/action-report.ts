/**
 * The failure report travels with the action: every step of it keeps, in one directory
 * (`$RUNNER_TEMP/vllm-ray-deploy/`, the `report-dir` output), the files an operator needs when a
 * run fails — the facts bundle, the job summary (written by main.ts) and, written here:
 *
 *   outcome.txt    one block per step of this action in the job: command, result, headline, the run's link
 *   findings.json  the findings of every step of the job, as one JSON array
 *
 * A workflow uploads that directory with actions/upload-artifact on failure(); it copies no script.
 * The step's block is written when the step starts ("the step did not finish") and replaced when it
 * ends, so a step killed halfway still leaves a true outcome. (The post step cannot do this: post
 * steps run after every main step of the job, the upload included.)
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export const OUTCOME_FILE = 'outcome.txt'
export const FINDINGS_FILE = 'findings.json'

/** The directory every file of the report goes to. */
export const reportDir = (env: NodeJS.ProcessEnv = process.env): string => join(env.RUNNER_TEMP || tmpdir(), 'vllm-ray-deploy')

export interface StepOutcome {
  /** The step's identity in the job: its id (GITHUB_ACTION) and the command. */
  readonly step: string
  readonly command: string
  /** `result` output; undefined while the step runs. */
  readonly result?: string
  readonly headline?: string
}

const DID_NOT_FINISH = '(the step did not finish: cancelled, timed out or killed)'

/** The block of one step, headed `== step <id>: <command>`. Values are single lines. */
export function outcomeBlock(o: StepOutcome, env: NodeJS.ProcessEnv = process.env): string {
  const oneLine = (s: string) => s.replace(/[\r\n]+/g, ' ')
  return [
    `== step ${oneLine(o.step)}: ${oneLine(o.command)}`,
    `result: ${o.result === undefined ? DID_NOT_FINISH : oneLine(o.result)}`,
    `summary: ${oneLine(o.headline ?? '')}`,
    `run: ${env.GITHUB_SERVER_URL ?? ''}/${env.GITHUB_REPOSITORY ?? ''}/actions/runs/${env.GITHUB_RUN_ID ?? ''} (attempt ${env.GITHUB_RUN_ATTEMPT ?? ''})`,
    '',
  ].join('\n')
}

/** `existing` with the block of `o.step` replaced (or appended when the step has none yet). */
export function withOutcome(existing: string, o: StepOutcome, env: NodeJS.ProcessEnv = process.env): string {
  const block = outcomeBlock(o, env)
  const blocks = existing.split(/(?=^== step )/m).filter((b) => b.trim() !== '')
  const head = `== step ${o.step.replace(/[\r\n]+/g, ' ')}: `
  const at = blocks.findIndex((b) => b.startsWith(head))
  if (at >= 0) blocks[at] = block
  else blocks.push(block)
  return blocks.map((b) => (b.endsWith('\n') ? b : `${b}\n`)).join('\n')
}

/** The findings already in the file followed by `findingsJson`'s; a file that is not a JSON array is replaced. */
export function mergedFindings(existing: string | undefined, findingsJson: string): string {
  let added: unknown
  try {
    added = JSON.parse(findingsJson)
  } catch {
    added = []
  }
  let before: unknown = []
  if (existing !== undefined) {
    try {
      before = JSON.parse(existing)
    } catch {
      before = []
    }
  }
  const list = [...(Array.isArray(before) ? before : []), ...(Array.isArray(added) ? added : [])]
  return `${JSON.stringify(list, null, 2)}\n`
}

/** The step id the runner gives this step (GITHUB_ACTION: the step's `id:`, or `__owner_repo` when it has none). */
export const stepId = (env: NodeJS.ProcessEnv = process.env): string => env.GITHUB_ACTION || 'vllm-ray-deploy'

/** The most of a report file this step reads back (the steps of one job write a few KiB). */
export const MAX_REPORT_FILE_BYTES = 4 * 1024 * 1024

/**
 * A report file earlier steps wrote, bounded: one past the bound (written by something else in the
 * job) is not read into memory; this step's record starts a new file, and the caller says so.
 */
function readBounded(path: string, said: string[]): string | undefined {
  if (!existsSync(path)) return undefined
  if (statSync(path).size > MAX_REPORT_FILE_BYTES) {
    said.push(`${path} is larger than ${MAX_REPORT_FILE_BYTES} bytes; it was replaced by this step's record`)
    return undefined
  }
  return readFileSync(path, 'utf8')
}

/** Record this step in outcome.txt; `result` undefined marks it as started. Never throws. */
export function recordStepOutcome(o: StepOutcome, env: NodeJS.ProcessEnv = process.env): string | undefined {
  try {
    const dir = reportDir(env)
    mkdirSync(dir, { recursive: true })
    const path = join(dir, OUTCOME_FILE)
    const said: string[] = []
    writeFileSync(path, withOutcome(readBounded(path, said) ?? '', o, env))
    return said[0]
  } catch (err) {
    return `could not write ${OUTCOME_FILE}: ${(err as Error).message}`
  }
}

/** Add this step's findings (the `findings` output) to findings.json. Never throws. */
export function recordFindings(findingsJson: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  try {
    const dir = reportDir(env)
    mkdirSync(dir, { recursive: true })
    const path = join(dir, FINDINGS_FILE)
    const said: string[] = []
    writeFileSync(path, mergedFindings(readBounded(path, said), findingsJson))
    return said[0]
  } catch (err) {
    return `could not write ${FINDINGS_FILE}: ${(err as Error).message}`
  }
}
