/**
 * What is wrong with a launch script's `vllm serve`s in vLLM's native multi-node mode, before it runs
 * (the live twins are src/preflight/checks/native-identity.ts): a `--master-addr` that is not the
 * head's fabric IP (or left at vLLM's default 127.0.0.1), node ranks that repeat or leave a gap,
 * `--nnodes` that disagrees with the manifest's nodes, a VLLM_HOST_IP that is not the node's fabric
 * IP. Socket interfaces are the shared rule in rules.ts. Each fix is an edit where the value was
 * written (an assignment, an array element, a `-e`), or the flag appended to the role's command.
 */

import type { Manifest } from '../manifest/schema.js'
import { unusableHostAddress } from '../net/ipv4.js'
import { EVIDENCE } from '../preflight/finding.js'
import { nativeByFlags, placesDataParallel, SERVE_DEFAULTS } from '../preflight/native-launch.js'
import { type Assignment, type RayStart, sliceVal, type Val, writtenAt } from './model.js'
import type { Edit } from './patch.js'
import { shellWord } from './patch.js'
import type { ScriptFinding, ScriptText } from './rules.js'
import { removeEdit, replaceEdit, replaceSetting } from './script-edits.js'

type Serve = RayStart & { readonly kind: 'vllm-serve' }

const flagValue = (r: RayStart, flag: keyof NonNullable<RayStart['serve']>): Val | undefined => {
  const hit = r.serve?.[flag]
  return hit ? sliceVal(hit.item.val, hit.offset) : undefined
}

/**
 * A serve of the native mode: it gives --nnodes or --node-rank, or --headless without placing data-parallel engines
 * (`--headless --data-parallel-start-rank … --data-parallel-address …` is vLLM's data-parallel mode: native-launch.ts).
 */
export const isNativeServe = (r: RayStart): r is Serve =>
  r.kind === 'vllm-serve' &&
  nativeByFlags(
    { nnodes: r.serve?.['--nnodes'] !== undefined, nodeRank: r.serve?.['--node-rank'] !== undefined, headless: r.serve?.['--headless'] !== undefined },
    placesDataParallel(r.args, (a) => a.val.text),
  )

/**
 * Append ` --flag value` after the last argument the role's section writes; a value every node gives alike
 * (`common`) after the last one the command itself writes, where it reaches every path.
 */
const appendFlag = (r: RayStart, flag: string, value: string, common = false): Edit[] => {
  const at = (common ? r.commandInsertAt : undefined) ?? r.insertAt
  return at ? [{ start: at.offset, end: at.offset, text: ` ${flag} ${at.nested ? value : shellWord(value)}` }] : []
}

const lineOf = (c: ScriptText, v: Val | undefined, otherwise: number): number => {
  const w = v ? writtenAt(v) : undefined
  return w ? c.lineOf(w.start) : otherwise
}

const roleOf = (r: RayStart): 'head' | 'worker' => (r.head ? 'head' : 'worker')
/** A flag the serve does not show may be in words the check could not read (RayStart.hiddenFlags). */
const hidden = (r: RayStart, flag: string): boolean => r.hiddenFlags === 'any' || r.hiddenFlags?.has(flag) === true

export function serveEvidence(r: RayStart): Record<string, string> {
  return {
    [EVIDENCE.scriptLine]: String(r.line),
    ...(r.rayLine !== r.line ? { 'vllm serve written at': `line ${r.rayLine}` } : {}),
    'Role (by the vllm serve flags)': r.head ? 'head (node rank 0, not --headless)' : 'worker (--headless or a node rank above 0)',
    ...(r.container
      ? { Container: `${r.container.name} (started at line ${r.container.line}; docker exec runs with the environment it was started with)` }
      : {}),
    ...(r.path.length ? { 'Path through the script': r.path.join(', ') } : {}),
  }
}

/** What the head's own section gives as --master-addr, when it is a literal host address (what the other sections must match without a manifest). */
function headsMaster(serves: readonly Serve[]): { text: string; line: number } | undefined {
  const heads = serves.filter((r) => r.head)
  const v = heads.length === 1 ? flagValue(heads[0]!, '--master-addr') : undefined
  return v?.known && v.text !== '' && !unusableHostAddress(v.text) && !v.text.includes('$') ? { text: v.text, line: heads[0]!.line } : undefined
}

function masterFindings(c: ScriptText, r: Serve, manifest: Manifest | undefined, headMaster: { text: string; line: number } | undefined): ScriptFinding[] {
  const head = manifest?.nodes.find((n) => n.role === 'head')
  // Without a manifest, the head section's own literal --master-addr is what every other section must give.
  const fromHead = !head && !r.head ? headMaster : undefined
  const want = head?.fabricIp ?? fromHead?.text
  const v = flagValue(r, '--master-addr')
  const role = roleOf(r)
  if (!v && hidden(r, '--master-addr')) return []
  if (!v) {
    // The flag is the same on every node: it goes in the command, and the finding names that line.
    const line = r.commandInsertAt?.line ?? r.line
    return [
      {
        code: 'SCRIPT_MASTER_ADDR_NOT_FABRIC',
        severity: 'error',
        role,
        line,
        message: `The ${role}'s vllm serve runs on several nodes (--nnodes/--node-rank/--headless) without --master-addr, so vLLM uses its default ${SERVE_DEFAULTS.masterAddr}: ${r.head ? 'the head advertises a loopback address for its message queue' : 'the worker looks for the store on itself'} and the rendezvous hangs until torch's timeout.`,
        evidence: {
          ...serveEvidence(r),
          [EVIDENCE.scriptLine]: String(line),
          '--master-addr': `not given (vLLM's default ${SERVE_DEFAULTS.masterAddr})`,
          ...(want ? { "Head's fabric IP": want } : {}),
        },
        fix: `Give every node's vllm serve --master-addr ${want ?? "<the head's fabric IP>"} (VRD_HEAD_IP under launch.mode: script).`,
        edits: want ? appendFlag(r, '--master-addr', want, true) : [],
      },
    ]
  }
  if (!v.known) return []
  const unusable = unusableHostAddress(v.text)
  if (!unusable && (want === undefined || v.text === want)) return []
  return [
    {
      code: 'SCRIPT_MASTER_ADDR_NOT_FABRIC',
      severity: 'error',
      role,
      line: lineOf(c, v, r.line),
      message: unusable
        ? `The ${role}'s vllm serve gives --master-addr ${v.text}, ${unusable}: ${unusable === 'a loopback address' || unusable.startsWith('the wildcard') ? "other nodes cannot reach the head's store and message queue there" : "no host answers there, so the rendezvous waits until torch's timeout"}.`
        : fromHead
          ? `The ${role}'s vllm serve gives --master-addr ${v.text}, but the head's section (line ${fromHead.line}) gives ${fromHead.text}: this node looks for the store where the head does not serve it, and the rendezvous waits until torch's timeout.`
          : `The ${role}'s vllm serve gives --master-addr ${v.text}, not the head's fabric IP ${want}: torch's store rendezvous and vLLM's message queue would run off the fabric while NCCL and Gloo are told to use it.`,
      evidence: {
        ...serveEvidence(r),
        '--master-addr': v.text,
        ...(fromHead ? { "The head's --master-addr": `${fromHead.text} (line ${fromHead.line})` } : want ? { "Head's fabric IP (manifest)": want } : {}),
      },
      fix: `Give every node's vllm serve --master-addr ${want ?? "<the head's fabric IP>"} (VRD_HEAD_IP under launch.mode: script).`,
      edits: want ? replaceEdit(v, want) : [],
    },
  ]
}

function nnodesFindings(c: ScriptText, r: Serve, manifest: Manifest | undefined): ScriptFinding[] {
  const n = manifest?.nodes.length
  if (n === undefined) return []
  const v = flagValue(r, '--nnodes')
  if ((v && (!v.known || v.text === String(n))) || (!v && hidden(r, '--nnodes'))) return []
  const role = roleOf(r)
  return [
    {
      code: 'SCRIPT_NNODES_MISMATCH',
      severity: 'error',
      role,
      line: lineOf(c, v, r.line),
      message: v
        ? `The ${role}'s vllm serve gives --nnodes ${v.text}, but the manifest has ${n} nodes: the world size each node computes disagrees with the nodes started, and the rendezvous waits until torch's timeout.`
        : `The ${role}'s vllm serve gives no --nnodes (vLLM's default 1) while it runs on ${n} nodes.`,
      evidence: { ...serveEvidence(r), '--nnodes': v ? v.text : 'not given (1)', 'Nodes in the manifest': String(n) },
      fix: `Give every node's vllm serve --nnodes ${n}.`,
      edits: v ? replaceEdit(v, String(n)) : appendFlag(r, '--nnodes', String(n), true),
    },
  ]
}

/** A path's branch decisions by line (`line 44: then` → 44 → `line 44: then`). */
function decisionsOf(r: Serve): Map<number, string> {
  const out = new Map<number, string>()
  for (const p of r.path) {
    const line = /^line (\d+): /.exec(p)?.[1]
    if (line !== undefined) out.set(Number(line), p)
  }
  return out
}

/** Words of a branch's condition that tell nodes apart: a role, a rank, a host or node name, a script argument. */
const PER_NODE_TEST =
  /\b(?:\w*(?:ROLE|RANK|NODE|HOST|HEAD|WORKER|LEADER|MASTER|hostname|role|rank|node|host|head|worker|leader|master)\w*)\b|\$[0-9#@*]|\$\{[0-9#@*]/

/**
 * Two copies of one start that took different ways at a branch that tests a setting, not which node runs it (`if [ -n "$DOCKER_NAME" ]`):
 * the same command on every node, however it is run.
 */
function alternatives(lines: readonly string[], a: Serve, b: Serve): boolean {
  const theirs = decisionsOf(b)
  for (const [line, decision] of decisionsOf(a))
    if (theirs.has(line) && theirs.get(line) !== decision && !PER_NODE_TEST.test(lines[line - 1] ?? '')) return true
  return false
}

/**
 * One start written once and reached on branches of a setting no run takes together (a helper that runs its command through `docker
 * exec` or on the bare host: miaozw66/hy3-vllm-dcu's run_pp2_80l.sh, held-out25) is one section of the script, not two. Copies that
 * parted at a branch on the node's role or rank are two nodes' sections.
 */
function oneCopyPerStart(c: ScriptText, serves: readonly Serve[]): Serve[] {
  const rankAt = (r: Serve) => {
    const v = flagValue(r, '--node-rank')
    return v ? `${v.text}@${writtenAt(v)?.start ?? r.line}` : undefined
  }
  const lines = c.text.split('\n')
  return serves.filter((r, i) => !serves.slice(0, i).some((q) => rankAt(q) !== undefined && rankAt(q) === rankAt(r) && alternatives(lines, q, r)))
}

/**
 * Ranks written as literals (a rank the script computes per node cannot be compared on paper): the
 * same rank in two sections; one worker section with a literal rank that several workers run; a
 * rank missing when every node has its own section.
 */
function rankFindings(c: ScriptText, all: readonly Serve[], manifest: Manifest | undefined): ScriptFinding[] {
  const serves = oneCopyPerStart(c, all)
  const ranked = serves.map((r) => ({ r, v: flagValue(r, '--node-rank') }))
  // (a rank or a node count not given beside an array the check cannot read may be in it)
  if (ranked.some(({ r, v }) => (v && !v.known) || (!v && hidden(r, '--node-rank')) || (flagValue(r, '--nnodes') === undefined && hidden(r, '--nnodes'))))
    return []
  const rankOf = (v: Val | undefined): number => (v ? Number(v.text) : SERVE_DEFAULTS.nodeRank)
  const nnodes = manifest?.nodes.length ?? serves.reduce((most, r) => Math.max(most, Number(flagValue(r, '--nnodes')?.text ?? 1)), 0)
  const workers = manifest?.nodes.filter((n) => n.role === 'worker').length ?? nnodes - 1
  const perNode = manifest?.launch.mode === 'script' ? '${VRD_NODE_RANK}' : undefined
  const ranks = ranked.map(({ v }) => rankOf(v))
  const free = Array.from({ length: nnodes }, (_, i) => i).filter((i) => !ranks.includes(i))
  const workerSections = ranked.filter(({ r }) => !r.head)
  const out: ScriptFinding[] = []
  const evidenceOf = (r: Serve, v: Val | undefined) => ({
    ...serveEvidence(r),
    '--node-rank': v ? v.text : `not given (${SERVE_DEFAULTS.nodeRank})`,
    '--nnodes': String(nnodes),
  })
  const fixTo = (r: Serve, v: Val | undefined, to: string | undefined): Edit[] =>
    to === undefined ? [] : v ? replaceEdit(v, to) : appendFlag(r, '--node-rank', to)
  const seen = new Set<number>()
  // The head's section keeps its rank; a later section that repeats one is the one to renumber.
  for (const { r, v } of [...ranked].sort((a, b) => Number(b.r.head) - Number(a.r.head))) {
    const rank = rankOf(v)
    const fewerSections = !r.head && workerSections.length < workers
    if (seen.has(rank) || fewerSections) {
      const to = fewerSections ? perNode : (free.shift()?.toString() ?? perNode)
      out.push({
        code: 'SCRIPT_NATIVE_RANK_DUPLICATE',
        severity: 'error',
        role: roleOf(r),
        line: lineOf(c, v, r.line),
        message: fewerSections
          ? `The worker section runs as node rank ${rank} on each of the manifest's ${workers} workers: they claim the same global ranks, one slot stays empty, and the rendezvous hangs.`
          : `This vllm serve runs as node rank ${rank}, which another section of the script gives too: two nodes claim the same global ranks, one slot stays empty, and the rendezvous hangs.`,
        evidence: { ...evidenceOf(r, v), ...(fewerSections ? { 'Workers in the manifest': String(workers) } : {}) },
        fix: `Give each node its own --node-rank: the head 0, the others 1 … ${nnodes - 1}${perNode ? ` (${perNode} under launch.mode: script)` : ''}.`,
        edits: fixTo(r, v, to),
      })
    }
    seen.add(rank)
  }
  // Every node has a section of its own and none repeats: a rank outside 0 … nnodes-1 leaves a gap.
  if (out.length === 0 && ranked.length === nnodes) {
    for (const { r, v } of ranked) {
      if (rankOf(v) < nnodes) continue
      const to = free.shift()
      out.push({
        code: 'SCRIPT_NATIVE_RANK_GAP',
        severity: 'error',
        role: roleOf(r),
        line: lineOf(c, v, r.line),
        message: `This vllm serve runs as node rank ${rankOf(v)}, outside 0 … ${nnodes - 1} (--nnodes ${nnodes}): rank ${to ?? '?'} has no node, so the head's store waits for it until torch's timeout.`,
        evidence: { ...evidenceOf(r, v), 'Ranks given': ranks.join(', ') },
        fix: `Number the nodes 0 … ${nnodes - 1}, each once.`,
        edits: fixTo(r, v, to === undefined ? undefined : String(to)),
      })
    }
  }
  return out
}

/** VLLM_HOST_IP in the native mode: the node's own fabric IP or unset. */
function hostIpFindings(c: ScriptText, r: Serve, serves: readonly Serve[], manifest: Manifest | undefined): ScriptFinding[] {
  const a: Assignment | undefined = r.env.get('VLLM_HOST_IP')
  if (!a?.val.known || a.val.text === '' || !manifest) return []
  const head = manifest.nodes.find((n) => n.role === 'head')
  const workers = manifest.nodes.filter((n) => n.role === 'worker')
  const own = r.head ? head?.fabricIp : workers.length === 1 ? workers[0]!.fabricIp : undefined
  const wrong = own !== undefined ? a.val.text !== own : !r.head && a.val.text === head?.fabricIp
  if (!wrong) return []
  // A setting every role reads is dropped (vLLM then takes the default-route address); one only this role reads is rewritten.
  const shared = serves.some((o) => o !== r && o.head !== r.head && o.env.get('VLLM_HOST_IP')?.span.start === a.span.start)
  const edits = !shared && own !== undefined ? replaceSetting(a, own, c.text) : removeEdit(a, c.text)
  const w = a.valueAt ?? writtenAt(a.val)
  return [
    {
      code: 'SCRIPT_VLLM_HOST_IP_OVERRIDE',
      severity: 'error',
      role: roleOf(r),
      // Where the fix goes (the setting's own reference when the value came through a shared variable), else where it was written.
      line: edits[0] ? c.lineOf(edits[0].start) : w ? c.lineOf(w.start) : a.span.line,
      message: `The ${roleOf(r)}'s vllm serve gets VLLM_HOST_IP=${a.val.text}, ${own ? `not its fabric IP ${own}` : "the head's fabric IP"}: in the native mode vLLM advertises that address to its peers.`,
      evidence: {
        ...serveEvidence(r),
        VLLM_HOST_IP: `${a.val.text} (set at line ${w ? c.lineOf(w.start) : a.span.line}, ${a.kind})`,
        ...(own ? { "Node's fabric IP (manifest)": own } : {}),
      },
      fix: own
        ? `Set VLLM_HOST_IP=${own} for the ${roleOf(r)}'s vllm serve, or drop it.`
        : "Drop the worker's VLLM_HOST_IP, or set each worker's own fabric IP (VRD_NODE_IP under launch.mode: script).",
      edits,
    },
  ]
}

export function nativeFindings(starts: readonly RayStart[], manifest: Manifest | undefined, script: ScriptText): ScriptFinding[] {
  const serves = starts.filter(isNativeServe)
  if (serves.length === 0) return []
  const headMaster = headsMaster(serves)
  return [
    ...serves.flatMap((r) => [
      ...masterFindings(script, r, manifest, headMaster),
      ...nnodesFindings(script, r, manifest),
      ...hostIpFindings(script, r, serves, manifest),
    ]),
    ...rankFindings(script, sections(serves), manifest),
  ]
}

/**
 * One serve per section of the script: the same line run with the same rank on paths that differ elsewhere (an option the script
 * sets or not, `[ "$VISION" = 1 ] && VISION_ARG=…`) is one section taken one way or the other, not two nodes claiming that rank.
 */
function sections(serves: readonly Serve[]): Serve[] {
  const seen = new Set<string>()
  return serves.filter((r) => {
    const key = `${r.line}\u0000${flagValue(r, '--node-rank')?.text ?? ''}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}
