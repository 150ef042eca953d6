/**
 * The launch script, read before anything runs: `checkLaunchScript` is the deploy's first gate
 * for `launch.mode: script` and what `diagnose --launch-script` prints. Findings carry the script
 * line in their evidence and, where the fix is mechanical, a unified diff; `patch` is all of them
 * in one diff (what `--fix-out` writes).
 */

import { posix } from 'node:path'
import { EVIDENCE, type Finding } from '../preflight/finding.js'
import type { Manifest } from '../manifest/schema.js'
import { templateUnmasker } from './bash-ast.js'
import { type Evaluation, evaluateScript } from './evaluate.js'
import { applyEdits, compatibleEdits, type Edit, unifiedDiff } from './patch.js'
import type { PatchTarget } from './patch-target.js'
import { type ScriptFinding, type ScriptText, scriptFindings } from './rules.js'
import type { ScriptLines } from './source-map.js'
import type { ReadSourced, RunClusterCall, SourceNote } from './sourced.js'
import { brokenContinuationFindings, type OperatorRepair, operatorLineRepair, operatorRepairFinding } from './broken-continuation.js'

export type { ReadSourced } from './sourced.js'

export interface LaunchScriptCheck {
  readonly findings: Finding[]
  /** Where the patch applies from (absent when the caller gave no location). */
  readonly target?: PatchTarget
  /** Every mechanical fix in one unified diff for `git apply` / `patch -p1` (undefined: none). */
  readonly patch?: string
  /** The script with that patch applied. */
  readonly patched?: string
}

export interface LaunchScriptOptions {
  readonly manifest?: Manifest
  /** The script's path as findings name it ('Script line'), and as the diff names it when no target is given. */
  readonly path: string
  /** Where the patch applies from; the diff names the script relative to it (patch-target.ts). */
  readonly target?: PatchTarget
  /**
   * Reads the files the script sources (`source FILE`, `. FILE`) by their path relative to where the
   * command ran (as `path`); absent: none is read, and each `source` is a SCRIPT_SOURCE_NOT_FOLLOWED note.
   */
  readonly readSourced?: ReadSourced
}

export function checkLaunchScript(text: string, opts: LaunchScriptOptions): LaunchScriptCheck {
  // With a manifest, what the tool will set is known: a branch on the executor goes the way the node's will.
  const env: Record<string, string> = opts.manifest ? { VRD_EXECUTOR: opts.manifest.vllm.executorBackend } : {}
  let ev = evaluateScript(text, opts.path, env, opts.readSourced)
  // A script bash refuses only because lines start with `&&`/`||`/`|` after a line without `\\`: read with each `\\` put back
  // (broken-continuation.ts), its findings' edits moved back onto the script as written, beside the edits that put them back.
  let repair: OperatorRepair | undefined
  if (ev.error) {
    repair = operatorLineRepair(text, ev.error.line)
    const again = repair ? evaluateScript(repair.text, opts.path, env, opts.readSourced) : undefined
    if (!again || again.error) {
      return {
        findings: [
          {
            code: 'SCRIPT_UNREADABLE',
            severity: 'error',
            node: null,
            message: `${opts.path} is not valid bash: ${ev.error.message}.`,
            evidence: { [EVIDENCE.scriptLine]: `${opts.path}:${ev.error.line}:${ev.error.col}` },
            fix: `Fix the syntax at line ${ev.error.line} (bash -n ${opts.path} shows the same error).`,
          },
        ],
      }
    }
    ev = again
  }
  const m = opts.manifest
  const diffPath = opts.target?.path ?? opts.path
  const head = m?.nodes.find((n) => n.role === 'head')
  const workers = m?.nodes.filter((n) => n.role === 'worker') ?? []
  const nodeFor = (role: 'head' | 'worker' | null): string | null =>
    role === 'head' ? (head?.name ?? null) : role === 'worker' && workers.length === 1 ? workers[0]!.name : null
  const lines = ev.lines
  // Words as the script wrote them: a template's placeholder, read as an input (bash-ast.ts maskTemplates), is quoted as written.
  const unmask = templateUnmasker(lines.text)
  const lineNamed = lineNames(lines)
  const named = (text: string) => lineNamed(unmask(text))
  const script = { text: lines.text, lineOf: (i: number) => lines.lineOf(i) }
  const asWritten = repair ? unrepaired(text, lines, repair) : { view: lines, edit: (e: Edit) => e }
  const cuts = brokenContinuationFindings(script, ev.optionCommands)
  // Ray starts in vLLM's run_cluster.sh, which the check did not read: its note says what that copy's start depends on.
  const helperRun = ev.notes.some((n) => n.runCluster)
  // A command written over lines with no `\\` runs its first line alone: what a start found there says is not what its author wrote
  // (a `ray start` cut from its `--head` reads as a worker); its findings come once the patch is applied.
  const cutFrom = new Set(cuts.filter((f) => f.evidence['Command written over lines'] !== undefined).map((f) => f.line))
  const found = [
    ...placeholderFindings(ev.placeholders, script, opts.path),
    ...(repair ? [operatorRepairFinding({ text: asWritten.view.text, lineOf: script.lineOf }, repair)] : []),
    ...[...cuts, ...scriptFindings(ev.starts, m, script).filter((f) => !cutFrom.has(f.line) && !(f.code === 'SCRIPT_NO_RAY_START' && helperRun))].map((f) => ({
      ...f,
      edits: f.edits.map((e) => asWritten.edit({ ...e, text: unmask(e.text) })),
    })),
  ]
  const all = compatibleEdits(found.flatMap((f) => f.edits))
  const diff = (edits: readonly Edit[]) => diffAcrossFiles(asWritten.view, diffPath, opts.path, edits)
  const findings = found.map((f): Finding => {
    const patch =
      f.edits.length > 0 && f.edits.every((e) => all.includes(e) || all.some((x) => x.start === e.start && x.end === e.end && x.text === e.text))
        ? diff(f.edits)
        : undefined
    const at = lines.locate(f.line)
    return {
      code: f.code,
      severity: f.severity,
      node: nodeFor(f.role),
      message: named(f.message),
      evidence: {
        ...Object.fromEntries(Object.entries(f.evidence).map(([k, v]) => [k, named(v)])),
        [EVIDENCE.scriptLine]: `${at.path}:${at.line}`,
        ...(ev.truncated ? { 'Paths read': 'the first 64 (the script has more)' } : {}),
      },
      fix: named(f.fix),
      ...(patch ? { patch } : {}),
    }
  })
  const patch = diff(all)
  const inScript = all.filter((e) => e.end <= text.length)
  return {
    findings: [...findings, ...ev.notes.map((n) => sourceNote(lines, n))],
    ...(patch ? { patch, patched: applyEdits(text, inScript), ...(opts.target ? { target: opts.target } : {}) } : {}),
  }
}

/**
 * A published template's angle-bracket placeholders (`--port <node1_port>`, `MASTER_ADDR=<node3_ip>`, `--master-addr <HEAD_NODE_IP> \\`):
 * bash refuses the script with them or reads them as redirections (parseBash read it with each as an input), so it cannot run as
 * written; said once, with every placeholder (bash-ast.ts ANGLE, PARSEABLE_PLACEHOLDER).
 */
function placeholderFindings(placeholders: Evaluation['placeholders'], script: ScriptText, path: string): ScriptFinding[] {
  if (!placeholders || placeholders.length === 0) return []
  const names = [...new Set(placeholders.map((p) => p.text))]
  const shown = names.slice(0, 8).join(', ') + (names.length > 8 ? ` … (${names.length})` : '')
  return [
    {
      code: 'SCRIPT_UNREADABLE',
      severity: 'error',
      role: null,
      line: script.lineOf(placeholders[0]!.at),
      message: `${path} is a template with placeholders left to fill in (${shown}): bash reads each \`<name>\` as a redirection (it refuses the script, or takes the next word for a file to write), so it cannot run as written. The rest of this check read it with each placeholder as an input.`,
      evidence: { Placeholders: shown, 'First at line': String(script.lineOf(placeholders[0]!.at)) },
      fix: `Put each placeholder's value in its place (${names[0]} and the others) before the script runs; \`bash -n ${path}\` passes then.`,
      edits: [],
    },
  ]
}

/** The script and the files it sources, end to end: what a diff is made against. */
type TextAndFiles = Pick<ScriptLines, 'text' | 'files'>

/**
 * The script as written, for a script read with `\\` put back (operatorLineRepair): its text and the sourced files' offsets
 * without the inserts, and an edit made on the repaired text moved onto it (an edit at an insert's place goes before the ` \\`).
 */
function unrepaired(text: string, lines: ScriptLines, repair: OperatorRepair): { view: TextAndFiles; edit: (e: Edit) => Edit } {
  const shift = 2 * repair.inserts.length
  // Each insert's place in the repaired text: the k-th (0-based) sits 2k characters later than in the script as written.
  const placed = repair.inserts.map((p, k) => p + 2 * k)
  const back = (at: number): number => {
    let k = 0
    while (k < placed.length && placed[k]! < at) k++
    // inside an insert (its ' \\'): onto the insert's own place
    if (k > 0 && at < placed[k - 1]! + 2) return repair.inserts[k - 1]!
    return at - 2 * k
  }
  // The script as written, then the files it sources (after the repaired script in `lines`, so `shift` later there).
  const view: TextAndFiles = {
    text: text + lines.text.slice(text.length + shift),
    files: lines.files.map((f) => ({ ...f, offset: f.offset - shift })),
  }
  const edit = (e: Edit): Edit => {
    // An insertion right where a ` \\` goes (a flag appended to the line's last word): written over the character before it, so
    // the two edits neither share a place (compatibleEdits would drop both) nor lose their order (the flag, then the ` \\`).
    if (e.start === e.end && placed.includes(e.start)) {
      const at = back(e.start)
      return { ...e, start: at - 1, end: at, text: view.text[at - 1] + e.text }
    }
    return { ...e, start: back(e.start), end: back(e.end) }
  }
  return { view, edit }
}

/** `line N` in a finding's text, for a line of a sourced file: that file's own line and its path. */
function lineNames(lines: ScriptLines): (text: string) => string {
  const own = lines.scriptLines
  return (text) =>
    lines.files.length === 0
      ? text
      : text.replace(/\bline (\d+)\b/g, (whole, n: string) => {
          if (Number(n) <= own) return whole
          const at = lines.locate(Number(n))
          return `line ${at.line} of ${at.path}`
        })
}

/**
 * The edits as one diff over every file they touch: the script under `diffPath`, each sourced file
 * under its path from the same place (its path relative to the script's folder, put beside `diffPath`).
 */
function diffAcrossFiles(lines: TextAndFiles, diffPath: string, scriptPath: string, edits: readonly Edit[]): string | undefined {
  const files = lines.files
  const end = files[0]?.offset ?? Number.POSITIVE_INFINITY
  // An insertion where one file ends and the next begins is after the first file's last character (edits append after a word).
  const parts = [
    unifiedDiff(
      diffPath,
      lines.text.slice(0, end),
      edits.filter((e) => e.end <= end),
    ),
  ]
  for (const f of files) {
    const mine = edits.filter((e) => e.start >= f.offset && e.end <= f.offset + f.text.length && !(e.start === f.offset && e.end === f.offset))
    if (mine.length === 0) continue
    const rel = posix.relative(posix.dirname(scriptPath), f.path)
    const path = posix.normalize(posix.join(posix.dirname(diffPath), rel))
    // A file the patch could not name from where it applies is left out (its finding still names it).
    if (path.startsWith('..')) continue
    parts.push(
      unifiedDiff(
        path,
        f.text,
        mine.map((e) => ({ ...e, start: e.start - f.offset, end: e.end - f.offset })),
      ),
    )
  }
  const out = parts.filter((p) => p !== undefined).join('')
  return out === '' ? undefined : out
}

/** A shell's or an environment manager's own start-up file (`~/.bashrc`, `/etc/profile`, a venv's or conda's activate): it sets no cluster identity. */
const ENVIRONMENT_FILE = /(?:^~|\$\{?HOME\b|^\/etc\/|\/\.(?:bashrc|profile|bash_profile)$|\bbin\/activate$|conda\.sh$|\/env\.d\/|\$\{?CONDA_)/

/** A `source` the check did not follow: what that file sets is not known to it. */
function sourceNote(lines: ScriptLines, n: SourceNote): Finding {
  const at = lines.locate(n.line)
  if (n.runCluster) return runClusterNote(`${at.path}:${at.line}`, n.written, n.runCluster)
  return {
    code: 'SCRIPT_SOURCE_NOT_FOLLOWED',
    // A settings file of the project is a warning (it may set VLLM_HOST_IP); a shell's or venv's start-up file is a note.
    severity: ENVIRONMENT_FILE.test(n.written) ? 'info' : 'warning',
    node: null,
    message: `${at.path} line ${at.line} sources ${JSON.stringify(n.written)}, which the check did not read: ${n.why}. What that file sets (VLLM_HOST_IP, the Ray and vLLM flags) is not known to the check.`,
    evidence: { [EVIDENCE.scriptLine]: `${at.path}:${at.line}`, 'Sourced file': n.written, 'Not read because': n.why },
    fix: 'Keep the sourced file in the repository and name it from the script\'s folder ("$(dirname "$0")/FILE" or a path relative to the script), or set its variables in the script itself.',
  }
}

/**
 * vLLM's run_cluster.sh run but not in the repository: its `ray start` is in the copy the node has, and what it pins changed (research
 * vllm-ray-multinode.md §2.3): before vLLM PR #28328 (2025-11) neither role passes --node-ip-address, so a `-e VLLM_HOST_IP=` that is not
 * the node's default-route address is the seed incident; from PR #30002 the head is pinned to VLLM_HOST_IP (else the head address given)
 * and a worker to its VLLM_HOST_IP. Without `-e VLLM_HOST_IP`, a newer copy pins the head to the address given while vLLM in the
 * container takes its default-route address.
 */
function runClusterNote(line: string, written: string, call: RunClusterCall): Finding {
  const role = call.role ?? 'node'
  const ip = call.vllmHostIp
  // (a value the script computes, quoted whole in the evidence, is named in the sentence by what it is)
  const told = ip !== undefined && ip.length > 40 ? 'the address the script computes for it' : `VLLM_HOST_IP=${ip}`
  const risk =
    ip !== undefined
      ? `copies before vLLM PR #28328 (2025-11) start the ${role}'s Ray without --node-ip-address, so Ray registers this node under its default-route address while vLLM is told ${told}: the seed incident, a placement group that never schedules. Copies from PR #30002 on pin Ray to VLLM_HOST_IP.`
      : call.role === 'head'
        ? `copies from vLLM PR #28328 (2025-11) on pin the head's Ray to ${call.headAddress ?? 'the head address given'}, while vLLM in the container, without -e VLLM_HOST_IP, takes the node's default-route address; if the two differ, vLLM's placement group asks for a node Ray does not have.`
        : "what it pins depends on the copy (vLLM PR #28328 and #30002 changed it), and without -e VLLM_HOST_IP vLLM in the container takes the node's default-route address."
  return {
    code: 'SCRIPT_SOURCE_NOT_FOLLOWED',
    severity: 'warning',
    node: null,
    message: `${line.replace(/:(\d+)$/, ' line $1')} runs vLLM's run_cluster.sh (${JSON.stringify(written)}) as the ${role}, which is not in the repository, so the check cannot read its ray start: ${risk}`,
    evidence: {
      [EVIDENCE.scriptLine]: line,
      'Script run': written,
      ...(call.role ? { Role: call.role } : {}),
      ...(call.headAddress !== undefined ? { 'Head address given': call.headAddress } : {}),
      ...(ip !== undefined ? { 'VLLM_HOST_IP passed': ip } : {}),
      'Not read because': 'it is not in the repository',
    },
    fix: `Keep the run_cluster.sh you run in the repository beside this script, taken from vLLM's examples/ray_serving/run_cluster.sh at or after PR #30002, so the check reads its ray start; ${ip !== undefined ? 'an older copy must have --node-ip-address=$VLLM_HOST_IP added to its ray start (RAY_START_CMD)' : "pass -e VLLM_HOST_IP=<this node's fabric address> as every node's last arguments"}. After it runs, \`ray status\` / \`ray list nodes\` on the head must show each node under its VLLM_HOST_IP.`,
  }
}
