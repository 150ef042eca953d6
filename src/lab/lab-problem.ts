/**
 * What the lab says when it cannot do its job: a Problem (src/result) whose code is one of the
 * lab's, whose message says what failed, whose fix says what to run or change, and whose evidence
 * holds the failing command's output. Every lab function that a user's input, this machine or a
 * node can make fail returns `LabResult<T>`; the lab's one adapter (src/tasks/lab-task.ts) turns the
 * Problem into exit 1 with `labProblemText` (issue 35).
 */
import { type Problem, type Result, fail } from '../result/result.js'

export type LabProblemCode = 'missing-tool' | 'docker-unreachable' | 'not-root' | 'command-failed' | 'conflict' | 'locked' | 'not-ready' | 'bad-input'

export type LabProblem = Problem<LabProblemCode>
export type LabResult<T> = Result<T, LabProblem>

/** A lab Problem; `fix` empty when there is nothing to do beyond the message, `output` the failing command's (trimmed). */
export function labProblem(code: LabProblemCode, message: string, fix = '', output = ''): LabProblem {
  return { code, message, fix, evidence: output ? { output } : {} }
}

export const labFail = (code: LabProblemCode, message: string, fix?: string, output?: string): Result<never, LabProblem> =>
  fail(labProblem(code, message, fix, output))

/** How the lab prints a Problem: what failed, then `fix: …`, then `output:` and the command's output. */
export function labProblemText(p: LabProblem): string {
  const output = p.evidence.output
  return [p.message, p.fix ? `fix: ${p.fix}` : '', output ? `output:\n${output}` : ''].filter(Boolean).join('\n')
}

/** The last `lines` lines of a command's output, for error messages. */
export function tail(text: string, lines = 20): string {
  const all = text.trimEnd().split('\n')
  return all.slice(-lines).join('\n')
}
