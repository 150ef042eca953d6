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

/** The file-system errors this machine can give the lab: its dir unwritable, full, or under a file. */
const FILE_SYSTEM_CODES = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT', 'ENOTDIR', 'EISDIR', 'ENAMETOOLONG', 'EMFILE', 'ENFILE'])

/**
 * A Problem for an error this machine's file system raised under the lab (an `fs` call that threw:
 * the lab's dir cannot be written, the disk is full), or undefined for anything else, which is a bug.
 * The lab's adapter asks this of whatever a lab command throws, so no file write anywhere in the lab
 * ends in the internal-error exit, however deep it sits.
 */
export function fileSystemProblem(err: unknown): LabProblem | undefined {
  const e = err as NodeJS.ErrnoException | undefined
  if (!e || typeof e.code !== 'string' || !FILE_SYSTEM_CODES.has(e.code)) return undefined
  const what = e.path ? `${e.syscall ?? 'use'} ${e.path}` : (e.syscall ?? 'use a file')
  return labProblem(
    'not-ready',
    `cannot ${what}: ${e.code}`,
    e.code === 'ENOSPC' || e.code === 'EDQUOT'
      ? 'free space on that disk, or point VRD_LAB_DIR at another'
      : 'check that the lab dir (VRD_LAB_DIR) and the paths given are writable directories',
  )
}
