/**
 * The one log sink: every line the Action or the CLI prints passes through here, because text from
 * nodes, servers and pasted files rides inside it (a holder's `who`, vLLM's `/version` body, Ray's
 * `NodeManagerAddress`, nvidia-smi's stderr, a pasted log). Written to the Action's log, such text
 * could run a workflow command; written to a terminal, it could move the cursor or rewrite a line.
 *
 * What it neutralises, following how the runner reads a step's output (actions/runner
 * `ActionCommand.TryParseV2`/`TryParse`; lines split on CR, LF and CRLF):
 * - a line whose first non-blank characters are `::` (`::error::`, `::add-mask::`,
 *   `::stop-commands::`, `::group::`) gets a space between the colons: `: :error::` runs nothing;
 * - `##[` anywhere in a line (the older form, `##[error]`, `##[set-output …]`) becomes `## [`;
 * - control characters other than LF and TAB (ESC, CR, BEL, DEL, the C1 range, U+2028/9) are
 *   written as `\xHH` / `\uHHHH`, so no CR can start a new line for the runner and no escape
 *   sequence reaches a terminal.
 * The result is plain text that reads like the original.
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what this matches.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g

function escapeControl(ch: string): string {
  const code = ch.charCodeAt(0)
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`
}

/** Text for a human-readable log line or terminal: no workflow command, no control character. */
export function inertText(text: string): string {
  return text
    .replace(CONTROL, escapeControl)
    .split('\n')
    .map((line) => line.replace(/^(\s*):(?=:)/, '$1: ').replace(/##\[/g, '## ['))
    .join('\n')
}

/**
 * JSON text (already serialised by JSON.stringify: C0 controls escaped, no line starts with `::`).
 * What is left can only sit inside a string there, so it is written as a JSON escape, the same
 * string to any JSON reader and inert to the runner: `##[` as `##\u005b`, DEL, C1 and U+2028/9 as
 * `\uHHHH`.
 */
export function inertJson(json: string): string {
  return json.replace(CONTROL, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`).replace(/##\[/g, '##\\u005b')
}

/** A writer that makes everything it is given inert first. */
export function logSink(write: (text: string) => void): (text: string) => void {
  return (text) => write(inertText(text))
}
