/**
 * The launch-script check as the real-world class tests read it: a script checked as `launch.sh` with no files beside it, its errors as
 * `CODE@line`, and every finding's code.
 */
import { checkLaunchScript } from '../../../src/script-check/index.js'

export const check = (text: string) => checkLaunchScript(text, { path: 'launch.sh' })

export const errors = (text: string): string[] =>
  check(text)
    .findings.filter((f) => f.severity === 'error')
    .map((f) => `${f.code}@${f.evidence['Script line']?.split(':')[1]}`)

export const codes = (text: string): string[] => check(text).findings.map((f) => f.code)
