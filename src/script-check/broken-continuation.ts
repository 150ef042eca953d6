/**
 * A multi-line command that bash does not read as one, found where the evaluator ran a command named by an option word
 * (evaluate.ts optionAsCommand: `--name: command not found`), in three shapes:
 * - one line lost its `\` (a real DGX Spark copy of vLLM's run_cluster.sh, held-out9/makiisthenes-run_cluster_persistent.sh:
 *   `--ulimit stack=67108864` with no `\` before `--name …`): bash ends the command there, and `docker run` starts its container
 *   without the options and the command after the cut;
 * - a `\` followed by a space or a tab: bash reads `\ ` as an escaped space (one more argument), not a line continuation, and
 *   ends the command on that line all the same;
 * - a command written over lines with no `\` at all (a YAML folded block given to `bash -c`, whose more-indented lines keep their
 *   line breaks: held-out10/timothystewart6's `ray start` with each flag on a line of its own; a README's block pasted without its
 *   `\`): bash runs the first line alone and each next line as a command of its own.
 * The patch puts each `\` back (or takes the space after it away). `operatorLineRepair` is the same mistake where bash refuses the
 * script outright: a line that starts with `&&`, `||` or `|` after a line without `\` is a syntax error.
 */
import type { ScriptFinding, ScriptText } from './rules.js'
import type { Edit } from './patch.js'

/** The physical line around `index`: where it starts and its text. */
function lineAt(text: string, index: number): { start: number; text: string } {
  const start = text.lastIndexOf('\n', index - 1) + 1
  const end = text.indexOf('\n', index)
  return { start, text: text.slice(start, end < 0 ? text.length : end) }
}

const comment = (line: string): boolean => /^\s*#/.test(line)
/** The line ends with a `\` that continues it (none after it, not a comment). */
const continues = (line: string): boolean => /\\$/.test(line) && !comment(line)
/** The line ends with a `\` and then spaces or tabs: an escaped space, not a continuation. */
const spaceAfterBackslash = (line: string): boolean => /(?<!\\)\\[ \t]+$/.test(line) && !comment(line)
/** A line whose first word is an option (`--port=6379`, `-e`): it can only be a piece of the command above it. */
const optionLine = (line: string): boolean => /^\s*--?[A-Za-z]/.test(line)
/** A line a command cannot go on from: blank, a comment, or a shell keyword that opens or closes a block. */
const notACommandHead = (line: string): boolean =>
  line.trim() === '' || comment(line) || /^\s*(?:then|do|else|elif|fi|done|esac|in|[{}()]|;;)(?:\s|;|$)/.test(line)

/** The edit that ends a line with ` \` (any spaces after its last word replaced, so the `\` is its last character). */
function continuationEdit(line: { start: number; text: string }): Edit {
  const kept = line.text.trimEnd()
  return { start: line.start + kept.length, end: line.start + line.text.length, text: ' \\' }
}

interface Cut {
  readonly kind: 'lost' | 'space' | 'none'
  /** The first line of the command's broken part (where the finding is reported). */
  readonly top: number
  /** The lines (their starts) that need a `\` at their end. */
  readonly missing: { start: number; text: string }[]
  readonly option: string
  /** The option lines run as commands (their starts). */
  readonly runs: number[]
}

/** What an option run as a command at `at` (a line's first word) says about the lines above it; undefined when it is no piece of a command above. */
function cutAbove(text: string, at: number): Cut | undefined {
  const here = lineAt(text, at)
  if (here.text.slice(0, at - here.start).trim() !== '' || here.start === 0) return undefined
  const option = /^\S+/.exec(here.text.trimStart())?.[0] ?? ''
  const cut = lineAt(text, here.start - 1)
  if (spaceAfterBackslash(cut.text)) return { kind: 'space', top: cut.start, missing: [cut], option, runs: [here.start] }
  const missing: { start: number; text: string }[] = []
  let line = cut
  for (;;) {
    if (notACommandHead(line.text) || continues(line.text) || spaceAfterBackslash(line.text)) return undefined
    missing.push(line)
    const above = line.start === 0 ? undefined : lineAt(text, line.start - 1)
    // The line above goes on into this one: the command began higher up, and the lines gathered lost their `\`.
    if (above && continues(above.text)) return { kind: 'lost', top: line.start, missing, option, runs: [here.start] }
    // The command's own first line: every line from it down lost its `\` (none was written).
    if (!optionLine(line.text)) return { kind: 'none', top: line.start, missing, option, runs: [here.start] }
    if (!above) return undefined
    line = above
  }
}

export function brokenContinuationFindings(script: ScriptText, optionCommands: readonly number[]): ScriptFinding[] {
  const { text } = script
  // One finding per broken command: the option lines of one command, read from each, meet at the same top line.
  const cuts = new Map<number, Cut>()
  for (const at of [...optionCommands].sort((a, b) => a - b)) {
    const cut = cutAbove(text, at)
    if (!cut) continue
    const known = cuts.get(cut.top)
    if (!known) cuts.set(cut.top, cut)
    else {
      for (const m of cut.missing) if (!known.missing.some((k) => k.start === m.start)) known.missing.push(m)
      known.runs.push(...cut.runs)
    }
  }
  return [...cuts.values()].map((cut) => finding(script, cut))
}

function finding(script: ScriptText, cut: Cut): ScriptFinding {
  const missing = [...cut.missing].sort((a, b) => a.start - b.start)
  const first = script.lineOf(missing[0]!.start)
  const last = script.lineOf(missing[missing.length - 1]!.start)
  // (the option lines run as commands, in order: the first and the last, without spreading a list into Math.min/max)
  const runs = [...cut.runs].sort((a, b) => a - b)
  const firstRun = runs[0]!
  const lastRun = runs[runs.length - 1]!
  const runAt = script.lineOf(firstRun)
  const head = missing[0]!.text.trim()
  const base = {
    code: 'SCRIPT_CONTINUATION_BROKEN',
    severity: 'error',
    role: null,
    line: first,
  } as const
  // (`line N` in lower case: a sourced file's lines are renamed to that file's in the message, index.ts lineNames)
  if (cut.kind === 'space') {
    const kept = missing[0]!.text.trimEnd()
    return {
      ...base,
      message: `A multi-line command's line ${first} ends with \`\\\` and then a space: bash reads \`\\ \` as an escaped space, not a line continuation, so it ends the command there and runs line ${runAt} as a command of its own named \`${cut.option}\` (command not found): the command starts without the options and arguments written after it.`,
      evidence: { 'Line ending in \\ and a space': `${kept.trim()}␠`, 'Next line, run as a command': lineAt(script.text, firstRun).text.trim() },
      fix: `Take the space${missing[0]!.text.length - kept.length > 1 ? 's' : ''} after the \`\\\` at the end of line ${first} away (the patch does): a \`\\\` continues a line only as its last character.`,
      edits: [{ start: missing[0]!.start + kept.length, end: missing[0]!.start + missing[0]!.text.length, text: '' }],
    }
  }
  if (cut.kind === 'lost') {
    const one = missing.length === 1
    return {
      ...base,
      message: one
        ? `A multi-line command's line ${first} ends without its \`\\\`, so bash ends the command there and runs line ${runAt} as a command of its own named \`${cut.option}\` (command not found): the command starts without the options and arguments written after the cut.`
        : `A multi-line command's lines ${first}–${last} end without their \`\\\`, so bash ends the command at line ${first} and runs each next line as a command of its own, the first named \`${cut.option}\` (command not found): the command starts without the options and arguments written after the cut.`,
      evidence: {
        [one ? 'Line without its \\' : 'Lines without their \\']: one ? head : missing.map((m) => `${script.lineOf(m.start)}: ${m.text.trim()}`).join('\n'),
        'Next line, run as a command': lineAt(script.text, firstRun).text.trim(),
      },
      fix: one
        ? `End line ${first} with \` \\\` (the patch adds it), as the lines before it do.`
        : `End lines ${first}–${last} with \` \\\` (the patch adds them), as the lines before them do.`,
      edits: missing.map(continuationEdit),
    }
  }
  const end = script.lineOf(lastRun)
  return {
    ...base,
    message: `The command at line ${first} (\`${head.slice(0, 80)}\`) is written over lines ${first}–${end} with no \`\\\` at the end of ${last > first ? `lines ${first}–${last}` : `line ${first}`}, so bash runs line ${first} alone and each next line as a command of its own, the first named \`${cut.option}\` (command not found): the command starts without the options written below it. (A YAML folded block (\`>-\`) keeps the line breaks around its more-indented lines, so \`bash -c\` gets them as lines.)`,
    evidence: {
      'Command written over lines': `${first}–${end}`,
      'First line, run alone': head,
      'Next line, run as a command': lineAt(script.text, firstRun).text.trim(),
    },
    fix: `End lines ${first}–${end - 1} with \` \\\` (the patch adds them) so bash reads lines ${first}–${end} as one command; in a YAML block, indent every line of the command alike or write it on one line.`,
    edits: missing.map(continuationEdit),
  }
}

/** A script bash refuses because lines start with an operator the line before does not lead into, and the text with each put right. */
export interface OperatorRepair {
  readonly text: string
  /** The offsets in the original text where ` \` was put (each 2 characters), in order. */
  readonly inserts: readonly number[]
  /** The lines (1-based) that start with the operator. */
  readonly lines: readonly number[]
}

const OPERATOR_START = /^\s*(?:&&|\|\|?)(?!&)/

/**
 * Lines that start with `&&`, `||` or `|` after a line without `\`: bash's syntax error ("unexpected token `&&'"), where a
 * command meant to go on over lines lost its `\` (held-out10/timothystewart6's `ray start …` then `&& sleep 60` then `&& vllm
 * serve …` in a folded YAML block). Put right only where bash's error is at one of them; the caller checks the result parses.
 */
export function operatorLineRepair(text: string, errorLine: number): OperatorRepair | undefined {
  const lines = text.split('\n')
  if (!OPERATOR_START.test(lines[errorLine - 1] ?? '')) return undefined
  const inserts: number[] = []
  const at: number[] = []
  let offset = 0
  const starts = lines.map((l) => {
    const s = offset
    offset += l.length + 1
    return s
  })
  for (let i = 1; i < lines.length; i++) {
    if (!OPERATOR_START.test(lines[i]!)) continue
    const before = lines[i - 1]!
    if (notACommandHead(before) || continues(before) || /(?:&&|\|\|?|\||;)\s*$/.test(before)) continue
    at.push(i + 1)
    inserts.push(starts[i - 1]! + before.length)
  }
  if (inserts.length === 0) return undefined
  let repaired = ''
  let from = 0
  for (const p of inserts) {
    repaired += `${text.slice(from, p)} \\`
    from = p
  }
  return { text: repaired + text.slice(from), inserts, lines: at }
}

/** The finding for a repaired script: which lines, and the edits (in the original text) that put their `\` back. */
export function operatorRepairFinding(script: ScriptText, repair: OperatorRepair): ScriptFinding {
  const first = repair.lines[0]!
  const shown = repair.lines.length === 1 ? `line ${first} starts` : `lines ${repair.lines.join(', ')} start`
  return {
    code: 'SCRIPT_CONTINUATION_BROKEN',
    severity: 'error',
    role: null,
    line: first,
    message: `The script is not valid bash: ${shown} with \`${/&&|\|\|?/.exec(script.text.split('\n')[first - 1] ?? '')?.[0] ?? '&&'}\` while the line before ${repair.lines.length === 1 ? 'it ends' : 'each ends'} without \`\\\`, so bash refuses the whole script (syntax error near unexpected token) and nothing in it runs. The rest of this check read the script with the \`\\\` put back.`,
    evidence: { 'Lines starting with an operator': repair.lines.join(', ') },
    fix: `End the line before ${repair.lines.length === 1 ? `line ${first}` : 'each of them'} with \` \\\` (the patch adds ${repair.lines.length === 1 ? 'it' : 'them'}), or put the operator at the end of the line before.`,
    edits: repair.inserts.map((p) => ({ start: p, end: p, text: ' \\' })),
  }
}
