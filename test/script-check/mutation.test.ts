/**
 * The incident's two bugs injected into real public launch scripts (fixtures/real/, sources and
 * licences in its README) in each syntactic style that fits each script (mutation/inject.ts): the
 * checker must name the bug at a line a user edits, carry a patch that `patch -p1` applies, and
 * find nothing wrong after it; the scripts as published give no error. `dev/` is the set the
 * checker was developed against; `held-out/` was added at the end and run once (its score is in
 * the README).
 */
import { fail, ok, problem } from '../../src/result/result.js'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { checkLaunchScript, type ReadSourced } from '../../src/script-check/index.js'
import { FABRIC_IP, type Mutant, mutants } from './mutation/inject.js'

const NAME = 'launch.sh'
type Files = Readonly<Record<string, string>>
/** Reads the files beside the script (a mutant's settings or compose file) by the path the check names them with. */
const reader =
  (files: Files): ReadSourced =>
  (p) => {
    const text = files[p.replace(/^\.\//, '')]
    return text === undefined ? fail(problem('SOURCE_UNREADABLE', 'does not exist')) : ok(text)
  }
const check = (text: string, files: Files = {}) => checkLaunchScript(text, { path: NAME, readSourced: reader(files) })
const errors = (text: string, files: Files = {}) => check(text, files).findings.filter((f) => f.severity === 'error')
const lineOfFinding = (f: { evidence: Record<string, string> }) => Number(/:(\d+)$/.exec(f.evidence['Script line'] ?? '')?.[1])
/** The file a finding names (`launch.sh`, or a file beside it). */
const fileOfFinding = (f: { evidence: Record<string, string> }) => /^(.*):\d+$/.exec(f.evidence['Script line'] ?? '')?.[1]

/** The lines of the script (`file`) that a unified diff changes. */
const changedLines = (diff: string, file = NAME): number[] => {
  const out: number[] = []
  let line = 0
  let mine = false
  for (const l of diff.split('\n')) {
    const h = /^@@ -(\d+),/.exec(l)
    if (l.startsWith('+++ ')) mine = l === `+++ b/${file}`
    else if (h) line = Number(h[1])
    else if (!mine) continue
    else if (l.startsWith('-') && !l.startsWith('---')) out.push(line++)
    else if (l.startsWith(' ')) line++
  }
  return out
}

/** The files a unified diff edits. */
const patchedFiles = (diff: string): string[] => [...diff.matchAll(/^\+\+\+ b\/(.+)$/gm)].map((m) => m[1]!)

/** Apply a diff with the real tool in a fresh directory holding the script and its files; the patched script and files. */
function patchP1(text: string, files: Files, diff: string): { text: string; files: Files } {
  const dir = mkdtempSync(join(tmpdir(), 'vrd-mut-'))
  writeFileSync(join(dir, NAME), text)
  for (const [name, body] of Object.entries(files)) writeFileSync(join(dir, name), body)
  writeFileSync(join(dir, 'fix.patch'), diff)
  execFileSync('patch', ['-p1', '--forward', '-i', 'fix.patch'], { cwd: dir, stdio: 'pipe' })
  return { text: readFileSync(join(dir, NAME), 'utf8'), files: Object.fromEntries(Object.keys(files).map((n) => [n, readFileSync(join(dir, n), 'utf8')])) }
}

/** Where the mutant's VLLM_HOST_IP is read by the role's own ray start, the injected value changes nothing: no bug. */
const consistent = (m: Mutant): boolean =>
  m.bug === 'worker' && (m.style === 'export' || m.style === 'source') && /\$\{?VLLM_HOST_IP\b/.test(m.text.split('\n')[m.roleLines[0]! - 1] ?? '')

export function checkMutant(m: Mutant): void {
  const r = check(m.text, m.files)
  const errs = r.findings.filter((f) => f.severity === 'error')
  if (consistent(m)) {
    expect(errs, 'the injected value is the one the ray start uses').toEqual([])
    return
  }
  const codes = m.bug === 'head' ? ['SCRIPT_HEAD_IDENTITY_UNPINNED'] : ['SCRIPT_VLLM_HOST_IP_OVERRIDE', 'SCRIPT_WORKER_IDENTITY_UNPINNED']
  const f = errs.find((x) => codes.includes(x.code) && x.message.includes(m.bug === 'head' ? '10.99.0.1' : '10.99.0.2'))
  expect(f, `${codes.join('|')} in ${JSON.stringify(errs.map((x) => `${x.code}@${x.evidence['Script line']}`))}`).toBeDefined()
  expect(f!.patch, 'the finding carries its patch').toBeDefined()
  // The line named is where the value was injected, or a line of the role's ray start that the patch edits.
  const edited = changedLines(f!.patch!)
  const line = lineOfFinding(f!)
  // A finding in a file beside the script names the file the value was injected into; one in the script, a line of the role or the injection.
  const file = fileOfFinding(f!)
  if (file !== NAME) expect(Object.keys(m.files), `finding in ${file}`).toContain(file)
  else expect([...m.injectedLines, ...edited.filter((l) => m.roleLines.includes(l))], `line ${line}`).toContain(line)
  expect(
    edited.every((l) => m.injectedLines.includes(l) || m.roleLines.includes(l)),
    `edits ${edited} stay on the role's lines`,
  ).toBe(true)
  expect(
    patchedFiles(f!.patch!).every((p) => p === NAME || p in m.files),
    'the patch edits the script and the files it reads',
  ).toBe(true)
  // A value injected into a command both roles share reaches the worker too: it claims the head's address, which has no
  // mechanical fix, and it meets identities the user passes in; those findings name the injected value and stay.
  if (m.shared) expect(errs.map((x) => x.code)).toContain('SCRIPT_WORKER_USES_HEAD_IP')
  const consequence = (x: { code: string; evidence: Record<string, string> }) =>
    m.shared && x.code !== 'SCRIPT_HEAD_IDENTITY_UNPINNED' && (x.evidence['VLLM_HOST_IP'] ?? '').startsWith(FABRIC_IP)
  const patched = patchP1(m.text, m.files, r.patch!)
  expect(patched.text).toBe(r.patched ?? m.text)
  expect(
    errors(patched.text, patched.files)
      .filter((x) => !consequence(x))
      .map((x) => `${x.code}@${x.evidence['Script line']}`),
  ).toEqual([])
}

export function realScripts(folder: string): { name: string; text: string }[] {
  const dir = join(__dirname, 'fixtures', 'real', folder)
  return readdirSync(dir)
    .filter((n) => n.endsWith('.sh'))
    .sort()
    .map((name) => ({ name, text: readFileSync(join(dir, name), 'utf8') }))
}

for (const set of ['dev', 'held-out'] as const)
  describe(`real launch scripts (${set} set), as published and with the incident bugs injected`, () => {
    for (const { name, text } of realScripts(set)) {
      describe(name, () => {
        it('as published: no error', () => {
          expect(errors(text).map((x) => `${x.code}@${x.evidence['Script line']}`)).toEqual([])
        })
        const ms = mutants(text)
        it('takes a bug in at least three styles', () => {
          expect(ms.length).toBeGreaterThanOrEqual(3)
        })
        for (const m of ms) it(`${m.bug} bug, ${m.style}`, () => checkMutant(m))
      })
    }
  })
