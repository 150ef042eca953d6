/**
 * What the lab says when it cannot do its job: a code, what failed, and what to run or change.
 */
export type LabErrorCode = 'missing-tool' | 'docker-unreachable' | 'not-root' | 'command-failed' | 'conflict' | 'locked' | 'not-ready' | 'bad-input'

export class LabError extends Error {
  override readonly name = 'LabError'
  constructor(
    readonly code: LabErrorCode,
    message: string,
    /** What the person should run or change. */
    readonly fix?: string,
    /** Output of the failing command, trimmed. */
    readonly detail?: string,
  ) {
    super([message, fix ? `fix: ${fix}` : '', detail ? `output:\n${detail}` : ''].filter(Boolean).join('\n'))
  }
}

/** The last `lines` lines of a command's output, for error messages. */
export function tail(text: string, lines = 20): string {
  const all = text.trimEnd().split('\n')
  return all.slice(-lines).join('\n')
}
