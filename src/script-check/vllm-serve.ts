/**
 * One `vllm serve` as the rules see it, in vLLM's native multi-node mode: its flags read as vLLM's
 * parser reads them (src/preflight/native-launch.ts, shared with the live checks), its role (the
 * head is the one without `--headless` at node rank 0), the environment its processes get, and
 * where a missing flag goes (after the last argument written in the role's section, as for
 * `ray start`).
 */

import { serveFlags } from '../preflight/native-launch.js'
import type { Arg, Assignment, RayStart, Span, Watched } from './model.js'
import { endOf } from './ray-start.js'
import type { State } from './state.js'

export function vllmServe(s: State, args: readonly Arg[], env: ReadonlyMap<Watched, Assignment>, at: Span, inContainer: boolean, scriptText = ''): RayStart {
  const flags = serveFlags(args, (a) => a.val.text)
  const written = args.filter((a) => !a.rest)
  const outer = written.reduce((d, a) => Math.min(d, a.depth), s.frames.length)
  const last = [...written].reverse().find((a) => a.depth === outer)
  const insertAt = last ? endOf(last) : undefined
  const own = at.start >= 0 ? [...written].reverse().find((a) => a.depth === outer && a.span.start >= at.start && a.span.end <= at.end) : undefined
  const shared =
    own ??
    firstRun(
      written.filter((a) => a.depth === outer && !a.nested && a.span.start >= 0),
      scriptText,
    )
  const commandInsertAt = shared ? endOf(shared) : undefined
  const rank = flags['--node-rank']
  const head = flags['--headless'] === undefined && (rank === undefined || (rank.item.val.known && rank.value === '0'))
  return {
    kind: 'vllm-serve',
    serve: flags,
    line: insertAt?.line ?? at.line,
    rayLine: at.line,
    head,
    args,
    env,
    ...(insertAt ? { insertAt } : {}),
    ...(commandInsertAt ? { commandInsertAt } : {}),
    inContainer,
    path: [...s.path],
    ...(s.assumedEmpty.length > 0 ? { assumedEmpty: [...s.assumedEmpty] } : {}),
    ...hiddenFlagsOf(args, scriptText),
  }
}

/** RayStart.hiddenFlags: for each array among the words whose value is not known, what its assignments in the script may hold. */
function hiddenFlagsOf(args: readonly Arg[], text: string): { hiddenFlags?: 'any' | ReadonlySet<string> } {
  const flags = new Set<string>()
  for (const a of args) {
    const name = unknownArray(a, text)
    if (name === undefined) continue
    const written = arrayAssignments(text, name)
    if (written.length === 0) return { hiddenFlags: 'any' }
    for (const w of written) for (const m of w.matchAll(/(?:^|[\s"'(])(--[a-z][\w-]*)/g)) flags.add(m[1]!)
  }
  return flags.size > 0 ? { hiddenFlags: flags } : {}
}

/**
 * `"${ARGS[@]}"` (or `[*]`) whose value the check does not know: a whole array of words, not one; never assigned here, or one whose
 * words the evaluation could not keep (it stands for them as `${ARGS[@]}`). Not the script's own arguments (`"$@"`: the caller's).
 */
function unknownArray(a: Arg, text: string): string | undefined {
  if (a.val.known) return undefined
  const lost = /^\$\{(\w+)\[[@*]\]\}$/.exec(a.val.text)?.[1]
  if (lost) return lost
  const written = a.span.start >= 0 && /^\$\{\w+\}$/.test(a.val.text) ? /^"?\$\{(\w+)\[[@*]\]\}"?$/.exec(text.slice(a.span.start, a.span.end)) : null
  return written?.[1]
}

/** The text of each `NAME=( … )` / `NAME+=( … )` in the script (quotes kept whole; a `)` inside one does not close it). */
function arrayAssignments(text: string, name: string): string[] {
  const out: string[] = []
  for (const m of text.matchAll(new RegExp(`(?:^|[\\s;&|(])${name}\\+?=\\(`, 'g'))) {
    let i = m.index + m[0].length
    let quote = ''
    for (; i < text.length; i++) {
      const c = text[i]!
      if (quote) {
        if (c === quote) quote = ''
        else if (c === '\\' && quote === '"') i++
      } else if (c === '"' || c === "'") quote = c
      else if (c === '\\') i++
      else if (c === ')') break
    }
    out.push(text.slice(m.index + m[0].length, i))
  }
  return out
}

/**
 * A command whose words all come from an expansion (`exec "${cmd[@]}"`, the serve built in an array): the last word
 * written in one run of text with the first one, that is by the array's own assignment (`cmd=(vllm serve "$MODEL" …
 * --master-port "$MASTER_PORT")`), which every path through the script shares; words a branch appends later
 * (`cmd+=(--headless)`, `extra=( … )`) are another statement's, reached on some paths only. Undefined when the
 * script text is not at hand.
 */
function firstRun(written: readonly Arg[], text: string): Arg | undefined {
  if (text === '' || written.length === 0) return undefined
  let run = written[0]!
  for (const next of written.slice(1)) {
    // Only blanks, line continuations and comments between two words of one statement.
    if (next.span.start < run.span.end || !/^(?:[ \t\n]|\\\n|#[^\n]*\n)*$/.test(text.slice(run.span.end, next.span.start))) break
    run = next
  }
  return run
}
