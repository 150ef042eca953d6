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

export function vllmServe(s: State, args: readonly Arg[], env: ReadonlyMap<Watched, Assignment>, at: Span, inContainer: boolean): RayStart {
  const flags = serveFlags(args, (a) => a.val.text)
  const written = args.filter((a) => !a.rest)
  const outer = written.reduce((d, a) => Math.min(d, a.depth), s.frames.length)
  const last = [...written].reverse().find((a) => a.depth === outer)
  const insertAt = last ? endOf(last) : undefined
  const own = at.start >= 0 ? [...written].reverse().find((a) => a.depth === outer && a.span.start >= at.start && a.span.end <= at.end) : undefined
  const commandInsertAt = own ? endOf(own) : undefined
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
