/**
 * One `ray start` as the rules see it: its role (`--head`, or a worker given `--address`), the
 * identity Ray registers the node under (`--node-ip-address`, or RAY_OVERRIDE_NODE_IP_ADDRESS in its
 * environment), the environment its processes get, and where a missing `--node-ip-address` goes:
 * after the last argument written at the outermost call on the path, which is the line that carries
 * the role's `ray start` (the call of a helper, the `bash -c` string, the `+=` that adds `--head`).
 */

import { sliceVal, type Arg, type Assignment, type RayStart, type Span, type Val, type Watched } from './model.js'
import type { State } from './state.js'

/** A flag's value as `--flag=v` or `--flag v`, with the argument it was written in. */
export function flagValue(args: readonly Arg[], flag: string): { val: Val; arg: Arg } | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!
    if (a.val.text.startsWith(`${flag}=`)) return { arg: a, val: sliceVal(a.val, flag.length + 1) }
    if (a.val.text === flag && args[i + 1]) return { arg: args[i + 1]!, val: args[i + 1]!.val }
  }
  return undefined
}

/** Where an argument's text ends in the script, when it was written there in one piece. */
export function endOf(a: Arg): { offset: number; line: number; nested: boolean } | undefined {
  if (!a.nested) return a.span.start >= 0 ? { offset: a.span.end, line: a.span.line, nested: false } : undefined
  // Inside a string another shell runs: just after the construct that wrote the argument's last character.
  const after = a.val.after
  const last = after && after.length > 0 && after.length === a.val.text.length ? after[after.length - 1]! : -1
  // The word's own end when it lies past its last character (closing quotes the nested shell removes).
  if (last >= 0 && a.endAfter !== undefined && a.endAfter > last) return { offset: a.endAfter, line: a.span.line, nested: true }
  if (last >= 0) return { offset: last, line: a.span.line, nested: true }
  return a.span.start >= 0 ? { offset: a.span.end, line: a.span.line, nested: true } : undefined
}

export function rayStart(s: State, args: readonly Arg[], env: ReadonlyMap<Watched, Assignment>, at: Span, inContainer: boolean): RayStart {
  // Ray 2.x also takes the node's identity from RAY_OVERRIDE_NODE_IP_ADDRESS in its environment.
  const override = env.get('RAY_OVERRIDE_NODE_IP_ADDRESS')
  const nodeIp =
    flagValue(args, '--node-ip-address') ??
    (override ? { val: override.val, arg: { val: override.val, span: override.span, depth: s.frames.length, nested: false } } : undefined)
  const address = flagValue(args, '--address')
  const written = args.filter((a) => !a.rest)
  const outer = written.reduce((d, a) => Math.min(d, a.depth), s.frames.length)
  // Extra arguments passed through last (`eval "${RAY_START_CMD} ${ADDITIONAL_ARGS[@]} &"`, `ray start … "$@"`) are the caller's, written
  // where the command is run: the role's own words end before them (the `+=` that added `--head`).
  const passThrough = (a: Arg) => !a.val.known && /^\$\{?(?:@|\*|\w+\[[@*]\])\}?$/.test(a.val.text)
  const own = [...written].reverse().filter((a) => a.depth === outer)
  const last = own.find((a) => !passThrough(a)) ?? own[0]
  const insertAt = last ? endOf(last) : undefined
  return {
    kind: 'ray-start',
    line: insertAt?.line ?? at.line,
    rayLine: at.line,
    head: args.some((a) => a.val.text === '--head'),
    args,
    ...(nodeIp ? { nodeIp } : {}),
    ...(address ? { address: address.val } : {}),
    env,
    ...(insertAt ? { insertAt } : {}),
    inContainer,
    path: [...s.path],
    ...(s.assumedEmpty.length > 0 ? { assumedEmpty: [...s.assumedEmpty] } : {}),
  }
}
