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
  }
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
