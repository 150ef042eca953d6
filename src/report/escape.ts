/**
 * Escaping of user-derived text (node names, addresses, image references, messages, model output)
 * for the two languages the job summary is written in: GitHub-flavoured Markdown (tables and
 * paragraphs) and mermaid labels. Both are allow-lists: anything that is not plainly harmless is
 * written as a character reference, so no value can end a table cell, open a link, a code span or
 * an HTML tag, or end a mermaid label and start a statement.
 */

/** Characters that never break Markdown inline text or table cells (`_` at most emphasises, and not inside words). */
const MARKDOWN_SAFE = /[A-Za-z0-9 .,:;/@=+_\-%?(){}'"\u00a0-\uffff]/u

const NAMED: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' }

/**
 * Markdown text, safe in a table cell and in a paragraph or heading: line breaks become `<br>`,
 * every other character outside the allow-list a character reference (`|` → `&#124;`, `<` → `&lt;`).
 */
export function escapeMarkdown(text: string): string {
  let out = ''
  for (const ch of text.replace(/\r\n?/g, '\n')) {
    if (ch === '\n') out += '<br>'
    else if (MARKDOWN_SAFE.test(ch)) out += ch
    else out += NAMED[ch] ?? `&#${ch.codePointAt(0)};`
  }
  return out
}

/** Characters left as they are inside a quoted mermaid label (`["..."]`, `|"..."|`). */
const MERMAID_SAFE = /[A-Za-z0-9 .,:/_@=+\-()\u00a0-\uffff]/u

/**
 * Text for a quoted mermaid label: line breaks become spaces (the diagram adds its own `<br/>`),
 * every other character outside the allow-list mermaid's entity form `#<code>;` (`"` → `#34;`),
 * which mermaid turns back into the character when it draws the label.
 */
export function escapeMermaid(text: string): string {
  let out = ''
  for (const ch of text.replace(/\r\n?|\n/g, ' ')) {
    out += MERMAID_SAFE.test(ch) ? ch : `#${ch.codePointAt(0)};`
  }
  return out
}
