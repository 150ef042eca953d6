import { verdictLine } from '../report/verdict.js'

/**
 * What a task hands to a front door (CLI or Action). The task decides everything; the adapters
 * only print `text` or `json`, turn `annotations` into `::error` lines, set `outputs`, append
 * `summary` to the job summary and write `files`.
 */
export interface Annotation {
  readonly level: 'error' | 'warning' | 'notice'
  readonly title: string
  readonly message: string
  /** Repository-relative file and 1-based position, when the problem has one. */
  readonly file?: string
  readonly line?: number
  readonly col?: number
}

/**
 * Every output a task can set, by name: the Action sets them as step outputs (each one declared in
 * action.yml; the contract test checks both ways), the CLI reads files by them (`--facts-out`).
 */
export const OUTPUT_NAMES = [
  'result',
  'summary',
  'error-count',
  'warning-count',
  'findings',
  'facts-file',
  'plan',
  'plan-file',
  'cluster',
  'fix-file',
  'summary-file',
  'report-dir',
  'bundle',
  'release',
  'previous-release',
  'image-id',
  'weights-id',
  'weights-bytes-moved',
  'weights-files-skipped',
  'fabric-test',
  'changed',
  'rolled-back',
  'verdict',
  'model',
  'ttft-ms',
  'itl-ms',
  'tokens-per-second',
  'p95-ms',
] as const
export type OutputName = (typeof OUTPUT_NAMES)[number]

/** The `result` output: one word for what happened. */
export type ResultValue = 'valid' | 'invalid' | 'planned' | 'passed' | 'failed' | 'error' | 'ok' | 'deployed' | 'unchanged' | 'rolled-back' | 'cancelled'

export type Outputs = Readonly<Partial<Record<Exclude<OutputName, 'result'>, string>>> & { readonly result: ResultValue }

export interface OutputFile {
  /** Name of the action output that carries its path (`facts-file`). */
  readonly output: OutputName
  readonly fileName: string
  readonly content: string
}

export interface TaskOutcome {
  /** 0 success, 1 the cluster or manifest is wrong, 2 the tool was used wrongly, 130 cancelled (SIGINT/SIGTERM). */
  readonly exitCode: 0 | 1 | 2 | 130
  /** One line for the end of the log: what happened. */
  readonly headline: string
  readonly text: string
  readonly json: unknown
  /** Markdown for the GitHub job summary. */
  readonly summary: string
  readonly annotations: readonly Annotation[]
  readonly outputs: Outputs
  readonly files: readonly OutputFile[]
}

export const usageError = (message: string): TaskOutcome => ({
  exitCode: 2,
  headline: message,
  text: `error: ${message}\n`,
  json: { error: message },
  summary: `${verdictLine('failed', message)}\n`,
  annotations: [{ level: 'error', title: 'vllm-ray-deploy', message }],
  outputs: { result: 'error' },
  files: [],
})
