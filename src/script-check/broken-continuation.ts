/**
 * A multi-line command whose `\` went missing on one line (a real DGX Spark copy of vLLM's run_cluster.sh,
 * held-out9/makiisthenes-run_cluster_persistent.sh: `--ulimit stack=67108864` with no `\` before `--name …`): bash ends the
 * command on that line and runs the next line as a command of its own, named by an option (`--name: command not found`),
 * so `docker run` starts its container without the options and the command after the cut (the image, the `ray start` it
 * was given). Read from where the evaluator ran a command named by an option word (evaluate.ts optionAsCommand): the line
 * before it ends with no `\` while the line before that ended with one (the command was going on). The patch puts the `\` back.
 */
import type { ScriptFinding, ScriptText } from './rules.js'

/** The physical line around `index`: where it starts and its text. */
function lineAt(text: string, index: number): { start: number; text: string } {
  const start = text.lastIndexOf('\n', index - 1) + 1
  const end = text.indexOf('\n', index)
  return { start, text: text.slice(start, end < 0 ? text.length : end) }
}

const continues = (line: string): boolean => /\\$/.test(line.trimEnd()) && !/^\s*#/.test(line)

export function brokenContinuationFindings(script: ScriptText, optionCommands: readonly number[]): ScriptFinding[] {
  const { text } = script
  const out: ScriptFinding[] = []
  for (const at of [...optionCommands].sort((a, b) => a - b)) {
    const here = lineAt(text, at)
    if (here.text.slice(0, at - here.start).trim() !== '' || here.start === 0) continue
    const cut = lineAt(text, here.start - 1)
    if (cut.start === 0 || cut.text.trim() === '' || continues(cut.text) || /^\s*#/.test(cut.text)) continue
    const before = lineAt(text, cut.start - 1)
    if (!continues(before.text)) continue
    const option = /^\S+/.exec(here.text.trimStart())?.[0] ?? ''
    const cutLine = script.lineOf(cut.start)
    const kept = cut.text.trimEnd()
    out.push({
      code: 'SCRIPT_CONTINUATION_BROKEN',
      severity: 'error',
      role: null,
      line: cutLine,
      // (`line N` in lower case: a sourced file's lines are renamed to that file's in the message, index.ts lineNames)
      message: `A multi-line command's line ${cutLine} ends without its \`\\\`, so bash ends the command there and runs line ${cutLine + 1} as a command of its own named \`${option}\` (command not found): the command starts without the options and arguments written after the cut.`,
      evidence: {
        'Line without its \\': kept.trim(),
        'Next line, run as a command': here.text.trim(),
      },
      fix: `End line ${cutLine} with \` \\\` (the patch adds it), as the lines before it do.`,
      edits: [{ start: cut.start + kept.length, end: cut.start + kept.length, text: ' \\' }],
    })
  }
  return out
}
