/**
 * The launch script, read before anything runs: `checkLaunchScript` is the deploy's first gate
 * for `launch.mode: script` and what `diagnose --launch-script` prints. Findings carry the script
 * line in their evidence and, where the fix is mechanical, a unified diff; `patch` is all of them
 * in one diff (what `--fix-out` writes).
 */

import { EVIDENCE, type Finding } from '../preflight/finding.js'
import type { Manifest } from '../manifest/schema.js'
import { evaluateScript } from './evaluate.js'
import { applyEdits, compatibleEdits, unifiedDiff } from './patch.js'
import type { PatchTarget } from './patch-target.js'
import { scriptFindings } from './rules.js'
import { ScriptLines } from './source-map.js'

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
}

export function checkLaunchScript(text: string, opts: LaunchScriptOptions): LaunchScriptCheck {
  // With a manifest, what the tool will set is known: a branch on the executor goes the way the node's will.
  const ev = evaluateScript(text, opts.path, opts.manifest ? { VRD_EXECUTOR: opts.manifest.vllm.executorBackend } : {})
  if (ev.error) {
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
  const m = opts.manifest
  const diffPath = opts.target?.path ?? opts.path
  const head = m?.nodes.find((n) => n.role === 'head')
  const workers = m?.nodes.filter((n) => n.role === 'worker') ?? []
  const nodeFor = (role: 'head' | 'worker' | null): string | null =>
    role === 'head' ? (head?.name ?? null) : role === 'worker' && workers.length === 1 ? workers[0]!.name : null
  const lines = new ScriptLines(text)
  const found = scriptFindings(ev.starts, m, { text, lineOf: (i) => lines.lineOf(i) })
  const all = compatibleEdits(found.flatMap((f) => f.edits))
  const findings = found.map((f): Finding => {
    const patch =
      f.edits.length > 0 && f.edits.every((e) => all.includes(e) || all.some((x) => x.start === e.start && x.end === e.end && x.text === e.text))
        ? unifiedDiff(diffPath, text, f.edits)
        : undefined
    return {
      code: f.code,
      severity: f.severity,
      node: nodeFor(f.role),
      message: f.message,
      evidence: {
        ...f.evidence,
        [EVIDENCE.scriptLine]: `${opts.path}:${f.line}`,
        ...(ev.truncated ? { 'Paths read': 'the first 64 (the script has more)' } : {}),
      },
      fix: f.fix,
      ...(patch ? { patch } : {}),
    }
  })
  const patch = unifiedDiff(diffPath, text, all)
  return { findings, ...(patch ? { patch, patched: applyEdits(text, all), ...(opts.target ? { target: opts.target } : {}) } : {}) }
}
