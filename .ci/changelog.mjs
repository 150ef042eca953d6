// CHANGELOG.md in Keep a Changelog form (https://keepachangelog.com/en/1.1.0/), read and cut by the
// release script (.ci/release) and the release workflow (.github/workflows/release.yml):
//
//   node .ci/changelog.mjs notes 0.2.0            the section of 0.2.0 (the release notes), to stdout
//   node .ci/changelog.mjs cut 0.2.0 2026-12-04   [Unreleased] becomes [0.2.0] - 2026-12-04, with a
//                                                 new empty [Unreleased] above it; the file is rewritten
//
// A problem (no such section, an empty one, a version already there) is one line on stderr, exit 1.
import { readFileSync, writeFileSync } from 'node:fs'

export const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?$/
const HEADING = /^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?[ \t]*$/gm

/** Every `## [name] - date` heading: its name, date and where its body starts and ends. */
export function sections(text) {
  const heads = [...text.matchAll(HEADING)]
  // Link definitions at the end (`[0.2.0]: https://...`) are not part of the last section.
  const links = /^\[[^\]]+\]: \S+\s*$/m.exec(text)
  const end = links ? links.index : text.length
  return heads.map((m, i) => ({
    name: m[1],
    date: m[2],
    start: m.index,
    bodyStart: m.index + m[0].length,
    bodyEnd: i + 1 < heads.length ? heads[i + 1].index : end,
  }))
}

/** The body of the section `version` (the release notes), trimmed; an error when missing or empty. */
export function notesOf(text, version) {
  const s = sections(text).find((x) => x.name === version)
  if (!s) return { ok: false, problem: `CHANGELOG.md has no section "## [${version}] - <date>"` }
  const body = text.slice(s.bodyStart, s.bodyEnd).trim()
  if (!/^[-*] /m.test(body)) return { ok: false, problem: `CHANGELOG.md's section [${version}] lists no change` }
  return { ok: true, notes: `${body}\n` }
}

/** The text with [Unreleased] renamed to [version] - date and a new empty [Unreleased] above it. */
export function cut(text, version, date) {
  if (!SEMVER.test(version)) return { ok: false, problem: `${version} is not a semantic version (MAJOR.MINOR.PATCH)` }
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return { ok: false, problem: `${date} is not a date (YYYY-MM-DD)` }
  const all = sections(text)
  if (all.some((x) => x.name === version)) return { ok: false, problem: `CHANGELOG.md already has a section [${version}]` }
  const unreleased = all.find((x) => x.name === 'Unreleased')
  if (!unreleased) return { ok: false, problem: 'CHANGELOG.md has no "## [Unreleased]" section to release' }
  const body = text.slice(unreleased.bodyStart, unreleased.bodyEnd)
  if (!/^[-*] /m.test(body)) return { ok: false, problem: 'the [Unreleased] section of CHANGELOG.md lists no change: nothing to release' }
  const head = `## [Unreleased]\n\n## [${version}] - ${date}`
  return { ok: true, text: text.slice(0, unreleased.start) + head + text.slice(unreleased.bodyStart) }
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const [cmd, version, date] = process.argv.slice(2)
  const file = process.env.CHANGELOG ?? 'CHANGELOG.md'
  const fail = (problem) => {
    process.stderr.write(`changelog: ${problem}\n`)
    process.exit(1)
  }
  const text = readFileSync(file, 'utf8')
  if (cmd === 'notes' && version) {
    const r = notesOf(text, version)
    if (!r.ok) fail(r.problem)
    process.stdout.write(r.notes)
  } else if (cmd === 'cut' && version && date) {
    const r = cut(text, version, date)
    if (!r.ok) fail(r.problem)
    writeFileSync(file, r.text)
  } else {
    fail('usage: node .ci/changelog.mjs notes VERSION | cut VERSION YYYY-MM-DD')
  }
}
