import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * A finding's patch applied the way a person applies it (`patch -p1` in the script's directory), with the files beside the
 * script it also edits: the script's text after it, and those files' texts. `patch` failing fails the test.
 */
export function applyPatch(text: string, diff: string, files: Readonly<Record<string, string>> = {}): { text: string; files: Record<string, string> } {
  const dir = mkdtempSync(join(tmpdir(), 'vrd-patch-'))
  writeFileSync(join(dir, 'launch.sh'), text)
  for (const [name, body] of Object.entries(files)) writeFileSync(join(dir, name), body)
  writeFileSync(join(dir, 'fix.patch'), diff)
  execFileSync('patch', ['-p1', '--forward', '-i', 'fix.patch'], { cwd: dir, stdio: 'pipe' })
  return {
    text: readFileSync(join(dir, 'launch.sh'), 'utf8'),
    files: Object.fromEntries(Object.keys(files).map((name) => [name, readFileSync(join(dir, name), 'utf8')])),
  }
}

/** The script's text after the patch (no other files). */
export const applied = (text: string, diff: string): string => applyPatch(text, diff).text
