/**
 * The edits a finding's fix makes to the script (patch.ts turns them into a diff): a flag appended
 * after a role's last argument, a value rewritten where a role's setting writes it, a setting
 * dropped, a variable named instead of a value that cannot be written in place. Each fits the
 * quoting where it lands (inside a nested string only text that means the same there).
 */

import { writtenAt, type Assignment, type RayStart, type Val } from './model.js'
import { inlineWord, shellWord, type Edit } from './patch.js'

/**
 * Append `--node-ip-address=<value>` after the last argument the role's section writes (inside a nested
 * string too). A value only the node computes (`$(hostname -I …)`) is named by the variable the setting
 * read it from, when the script assigns that variable before.
 */
export function pinEdit(r: RayStart, setting: Assignment, text: string): Edit[] {
  if (!r.insertAt) return []
  const value = setting.val
  const ref = value.known ? undefined : referenceTo(value, setting.valueAt ? { span: setting.valueAt } : undefined, text)
  const named = ref && definedBefore(text, ref.replace(/^\\?\$/, ''), r.insertAt.offset) ? ref : undefined
  const word = named ?? innerReference(r, setting, text) ?? (r.insertAt.nested ? inlineWord(value.text) : shellWord(value.text))
  return word === undefined ? [] : [{ start: r.insertAt.offset, end: r.insertAt.offset, text: ` --node-ip-address=${word}` }]
}

/**
 * A setting the nested shell makes itself, in the string that runs the start (`bash -c "export
 * VLLM_HOST_IP=\$(hostname …) && ray start …"`), where the script defers its `$` to that shell with
 * `\$`: the pin names the variable the same way (`\$VLLM_HOST_IP`), so the nested shell reads its own
 * value, not the calling shell's.
 */
function innerReference(r: RayStart, setting: Assignment, text: string): string | undefined {
  if (!r.insertAt?.nested || setting.kind !== 'export' || setting.inFunction) return undefined
  const map = setting.val.map
  const dollar = setting.val.text.indexOf('$')
  const at = map && dollar >= 0 ? map[dollar]! : -1
  if (at < 1 || text[at - 1] !== '\\' || at > r.insertAt.offset) return undefined
  // The same string: no double quote of the calling shell ends it between the setting and the start.
  return /(?:^|[^\\])"/.test(text.slice(at, r.insertAt.offset)) ? undefined : `\\$${setting.name}`
}

/** Drop a setting (with the blank after it), so the value it replaced stands. */
export function removeEdit(a: Assignment, text: string): Edit[] {
  if (!a.removable) return []
  const blank = /^[ \t]*/.exec(text.slice(a.removable.end))![0].length
  return [{ start: a.removable.start, end: a.removable.end + blank, text: '' }]
}

/**
 * The variable reference that wrote a value (`$WORKER_ADDR` in `--node-ip-address=$WORKER_ADDR`), read from
 * the script just before where its characters were expanded: a value that cannot be written in place
 * (a command substitution) can still be named.
 */
export function referenceTo(v: Val, arg: { span: { start: number; end: number } } | undefined, text: string): string | undefined {
  const ends = [...new Set(v.after ?? [])]
  const candidates = [
    ...(ends.length === 1 && ends[0]! > 0 ? [text.slice(Math.max(0, ends[0]! - 80), ends[0])] : []),
    ...(arg && arg.span.start >= 0 ? [text.slice(arg.span.start, arg.span.end).replace(/^"(.*)"$/, '$1')] : []),
  ]
  for (const c of candidates) {
    const m = /(\\*)\$\{?([A-Za-z_]\w*)\}?$/.exec(c)
    // Written `\$NAME` in a string another shell runs (an odd run of backslashes before the `$`): that shell's variable, and a
    // fix written in the same string must defer it the same way.
    if (m) return `${m[1]!.length % 2 === 1 ? '\\' : ''}$${m[2]}`
  }
  return undefined
}

/** Whether the script assigns NAME globally (not `local`) before index `at`, so `$NAME` written there has its value. */
export const definedBefore = (text: string, name: string, at: number): boolean =>
  new RegExp(`(?:^|[;&|(]|\\b(?:then|do|else)\\b)[ \\t]*(?:export[ \\t]+|readonly[ \\t]+)?${name}=|\\bfor[ \\t]+${name}[ \\t]+in\\b`, 'm').test(
    text.slice(0, at),
  )

/** Whether the script assigns NAME anywhere (an assignment, a loop variable, `read NAME`). */
const assignedIn = (text: string, name: string): boolean =>
  new RegExp(
    `(?:^|[\\s;&|(])(?:export[ \\t]+|local[ \\t]+|readonly[ \\t]+|declare[ \\t]+-?\\w*[ \\t]+)?${name}\\+?=|\\bfor[ \\t]+${name}\\b|\\bread\\b[^\\n]*\\b${name}\\b`,
  ).test(text)

/** Whether the script exports NAME before index `at` (`export NAME=…`, `export NAME`, `declare -x NAME`). */
const exportedBefore = (text: string, name: string, at: number): boolean =>
  new RegExp(`(?:^|[;&|(]|\\b(?:then|do|else)\\b)[ \\t]*(?:export|declare[ \\t]+-\\w*x\\w*)[ \\t]+${name}\\b`, 'm').test(text.slice(0, at))

/**
 * Rewrite the value where this setting writes it: its own value word (`NAME=$x`, or the part after
 * `NAME=` in a `-e` argument), else where the value was written (a call's argument).
 */
export function replaceSetting(a: Assignment, replacement: string, text = ''): Edit[] {
  const word = inlineWord(replacement)
  if (word === undefined) return []
  const own = (r: { start: number; end: number } | undefined) => (r && !otherVariablesValue(text, a.name, r.start) ? r : undefined)
  const at = own(a.valueAt) ?? dockerEnvValue(a, text) ?? own(writtenAt(a.val)) ?? referenceRange(a.val, text)
  if (!at) return []
  return [{ start: at.start, end: at.end, text: word }]
}

/**
 * Whether the range at `start` is the value of another variable's assignment that the script reads
 * more than once (`MASTER=10.0.0.1` read by `--master-addr $MASTER` too): rewriting it there would
 * change every reader, so the setting's own reference is edited instead.
 */
function otherVariablesValue(text: string, name: string, start: number): boolean {
  if (text === '') return false
  const m = /([A-Za-z_]\w*)=["']?$/.exec(text.slice(Math.max(0, start - 80), start))
  if (!m || m[1] === name) return false
  return (text.match(new RegExp(`\\$\\{?${m[1]}\\b`, 'g'))?.length ?? 0) >= 2
}

/** The `$NAME` reference a whole value was expanded from, where the setting wrote it (inside a here-document or an `--env` list too). */
function referenceRange(v: Val, text: string): { start: number; end: number } | undefined {
  const ends = new Set(v.after ?? [])
  if (ends.size !== 1 || text === '') return undefined
  const end = [...ends][0]!
  if (end <= 0) return undefined
  const m = /\$\{?[A-Za-z_]\w*\}?$/.exec(text.slice(Math.max(0, end - 80), end))
  return m ? { start: end - m[0].length, end } : undefined
}

/** The value part of a `-e NAME=value` argument as written (inside its quotes), so the fix lands on the -e line. */
function dockerEnvValue(a: Assignment, text: string): { start: number; end: number } | undefined {
  if (a.kind !== 'docker -e' || a.inFunction || a.span.start < 0 || text === '') return undefined
  const src = text.slice(a.span.start, a.span.end)
  const m = new RegExp(`${a.name}=`).exec(src)
  if (!m) return undefined
  const start = a.span.start + m.index + m[0].length
  const end = a.span.end - (/["']$/.test(src) ? 1 : 0)
  return end >= start ? { start, end } : undefined
}

/** Replace the characters that wrote a value with another value (which fits in or out of quotes). */
export function replaceEdit(v: Val, replacement: string): Edit[] {
  const w = writtenAt(v)
  const word = inlineWord(replacement)
  if (!w || word === undefined) return []
  return [{ start: w.start, end: w.end, text: word }]
}

/**
 * The fix for a VLLM_HOST_IP that differs from the node's Ray identity: the identity written where the
 * setting writes its value; else, for an identity that cannot be written in place (a command
 * substitution), the variable it came from (when that is assigned before); else drop the setting
 * when what it replaced is the identity.
 */
export function overrideEdits(vhi: Assignment, nodeIp: { val: Val; arg: { span: { start: number; end: number } } }, text: string): Edit[] {
  const replaced = replaceSetting(vhi, nodeIp.val.text, text)
  if (replaced.length > 0) return replaced
  const ref = referenceTo(nodeIp.val, nodeIp.arg, text)
  const at = vhi.valueAt?.start ?? writtenAt(vhi.val)?.start ?? -1
  const name = ref?.replace(/^\\?\$/, '')
  // A compose file interpolates `$NAME` from the environment compose runs with (an exported variable only); docker's
  // --env-file does not interpolate at all.
  // A name the script never assigns is the node's own input (`$MY_POD_IP` from Kubernetes' downward API, a job's variable): the same
  // shell that sets VLLM_HOST_IP has it.
  const input = name !== undefined && (vhi.kind === 'prefix' || vhi.kind === 'export' || vhi.kind === 'assign') && !assignedIn(text, name)
  const named =
    name !== undefined &&
    at >= 0 &&
    vhi.kind !== 'env file' &&
    (vhi.kind === 'compose' ? exportedBefore(text, name, at) : definedBefore(text, name, at) || input)
  const byRef = named ? replaceSetting(vhi, ref!, text) : []
  if (byRef.length > 0) return byRef
  const computed = sameCommandComputation(vhi, nodeIp, text)
  if (computed) return [computed]
  return vhi.previous?.val.text === nodeIp.val.text ? removeEdit(vhi, text) : []
}

/**
 * A pin the node computes (`--node-ip-address="$(hostname -i)"`) with the override a prefix of the same command (`VLLM_HOST_IP=<other>
 * … ray start … --node-ip-address="$(hostname -i)"`): the same words give VLLM_HOST_IP the same address there (xtuner's Ascend worker,
 * held-out13). Only within one command line, at the same quoting, so the words mean the same in both places.
 */
function sameCommandComputation(vhi: Assignment, nodeIp: { arg: { span: { start: number; end: number } } }, text: string): Edit | undefined {
  const at = vhi.valueAt ?? writtenAt(vhi.val)
  const arg = nodeIp.arg.span
  if (!at || arg.start < at.end || text === '' || !(vhi.kind === 'prefix' || vhi.kind === 'export' || vhi.kind === 'assign')) return undefined
  const written = text.slice(arg.start, arg.end).replace(/^--node-ip-address=/, '')
  if (!/^"?\$\([^()"'`\\]*\)"?$/.test(written)) return undefined
  const between = text.slice(at.end, arg.start)
  // At the same quoting (no quote opened or closed between the two), and on the same node: one command (lines joined by `\`) for a
  // prefix (`env NAME=v` too), or the same shell for an export before it, with no launcher between that would run the start elsewhere.
  if ((between.match(/["']/g) ?? []).length % 2 !== 0) return undefined
  if (vhi.kind === 'prefix' ? /[^\\]\n/.test(between) : ELSEWHERE.test(between)) return undefined
  return { start: at.start, end: at.end, text: written.startsWith('"') ? written : `"${written}"` }
}

/** Commands that run what follows on another node or in another environment. */
const ELSEWHERE = /\b(?:ssh|srun|mpirun|mpiexec|pdsh|clush|docker|podman|apptainer|singularity|enroot|kubectl|sbatch|qsub|bsub|flux)\b/
