/**
 * Fixes as data: edits to a script's text, and the unified diff that makes them, in the form
 * `git apply` and `patch -p1` read (`--- a/<path>` / `+++ b/<path>`, three lines of context).
 * Edits never add or remove lines (a value replaced, a flag appended), so each hunk has the same
 * range on both sides.
 */

export interface Edit {
  /** String indices into the script text. */
  readonly start: number
  readonly end: number
  readonly text: string
}

const CONTEXT = 3

/** The edits that can all be made: sorted, the same edit once, overlapping or conflicting ones dropped. */
export function compatibleEdits(edits: readonly Edit[]): Edit[] {
  const sorted = [...edits].sort((a, b) => a.start - b.start || a.end - b.end)
  const out: Edit[] = []
  const conflicted = new Set<string>()
  for (const e of sorted) {
    const last = out[out.length - 1]
    if (last && last.start === e.start && last.end === e.end) {
      if (last.text !== e.text) conflicted.add(`${e.start}:${e.end}`)
      continue
    }
    if (last && e.start < last.end) {
      conflicted.add(`${e.start}:${e.end}`)
      continue
    }
    out.push(e)
  }
  return out.filter((e) => !conflicted.has(`${e.start}:${e.end}`))
}

export function applyEdits(text: string, edits: readonly Edit[]): string {
  let out = text
  for (const e of [...compatibleEdits(edits)].reverse()) out = out.slice(0, e.start) + e.text + out.slice(e.end)
  return out
}

/** The unified diff from `before` to `before` with the edits made; undefined when nothing changes. */
export function unifiedDiff(path: string, before: string, edits: readonly Edit[]): string | undefined {
  // bug: the rules' edits replace within a line
  if (edits.some((e) => e.text.includes('\n'))) throw new Error('bug: a script edit must not add lines')
  const after = applyEdits(before, edits)
  if (after === before) return undefined
  const a = before.split('\n')
  const b = after.split('\n')
  const endsWithNewline = before.endsWith('\n')
  if (endsWithNewline) {
    a.pop()
    b.pop()
  }
  const changed = a.map((l, i) => l !== b[i]).flatMap((c, i) => (c ? [i] : []))
  const hunks: [number, number][] = []
  for (const i of changed) {
    const from = Math.max(0, i - CONTEXT)
    const to = Math.min(a.length - 1, i + CONTEXT)
    const last = hunks[hunks.length - 1]
    if (last && from <= last[1] + 1) last[1] = to
    else hunks.push([from, to])
  }
  const clean = path.replace(/^\.?\//, '')
  const out = [`--- a/${clean}`, `+++ b/${clean}`]
  for (const [from, to] of hunks) {
    const len = to - from + 1
    out.push(`@@ -${from + 1},${len} +${from + 1},${len} @@`)
    const noNewline = (i: number) => i === a.length - 1 && !endsWithNewline
    for (let i = from; i <= to; i++) {
      if (a[i] === b[i]) {
        out.push(` ${a[i]}`)
        if (noNewline(i)) out.push('\\ No newline at end of file')
      } else {
        out.push(`-${a[i]}`)
        if (noNewline(i)) out.push('\\ No newline at end of file')
        out.push(`+${b[i]}`)
        if (noNewline(i)) out.push('\\ No newline at end of file')
      }
    }
  }
  return `${out.join('\n')}\n`
}

/** A value as shell text: `${NAME}` shortened to `$NAME` where safe, double-quoted when it expands or has blanks. */
export function shellWord(text: string): string {
  const short = text.replace(/\$\{(\w+)\}(?!\w)/g, (_m, n: string) => `$${n}`)
  if (/^[\w.:,/@%+=-]+$/.test(short)) return short
  return `"${short.replace(/(["\\`])/g, '\\$1')}"`
}

/** A value as text that means the same unquoted and inside double quotes (a nested string, a quoted value); undefined when there is none. */
export function inlineWord(text: string): string | undefined {
  if (/^[\w.:,/@%+=-]*$/.test(text)) return text
  const m = /^\$\{(\w+)\}$|^\$(\w+)$/.exec(text)
  if (m) return `$${m[1] ?? m[2]}`
  // A reference the calling shell leaves to the nested one (`\$NAME` inside its double quotes) stays deferred.
  const deferred = /^\\\$(\w+)$/.exec(text)
  if (deferred) return `\\$${deferred[1]}`
  return undefined
}
