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

export interface OutputFile {
  /** Name used for the action output that carries its path (`facts-file`). */
  readonly output: string
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
  readonly outputs: Readonly<Record<string, string>>
  readonly files: readonly OutputFile[]
}

/** A command the Action and the CLI accept whose stage has not shipped yet: say so, never pretend. */
export const notYetAvailable = (command: string): TaskOutcome =>
  usageError(`"${command}" is not available in this release yet; validate, plan, preflight and diagnose are`)

export const usageError = (message: string): TaskOutcome => ({
  exitCode: 2,
  headline: message,
  text: `error: ${message}\n`,
  json: { error: message },
  summary: `**vllm-ray-deploy:** ${message}\n`,
  annotations: [{ level: 'error', title: 'vllm-ray-deploy', message }],
  outputs: { result: 'error' },
  files: [],
})
