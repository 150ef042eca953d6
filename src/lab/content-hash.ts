/**
 * Content hashes that decide whether a cached image is still good: an image is rebuilt exactly
 * when the hash of what it is made of changes. The hash is stored as an image label.
 */
import { createHash } from 'node:crypto'
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'

export const HASH_LABEL = 'vrd-lab.hash'

/** Files under `dir` (recursively), sorted, skipping caches that do not change behaviour. */
export function listFiles(dir: string): string[] {
  const out: string[] = []
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (e.name === '__pycache__' || e.name === '.pytest_cache' || e.name.endsWith('.pyc') || e.name.endsWith('.egg-info')) continue
      const p = join(d, e.name)
      if (e.isDirectory()) walk(p)
      else if (e.isFile()) out.push(p)
    }
  }
  walk(dir)
  return out
}

export interface HashInput {
  /** Literal strings (package lists, versions of the recipe). */
  readonly values?: readonly string[]
  /** Files, hashed by name (relative to `base`), mode and content. */
  readonly files?: readonly string[]
  /** Directories, every file inside. */
  readonly dirs?: readonly string[]
  readonly base?: string
}

export function contentHash(input: HashInput): string {
  const h = createHash('sha256')
  for (const v of input.values ?? []) h.update(`v\0${v}\0`)
  const files = [...(input.files ?? []), ...(input.dirs ?? []).flatMap(listFiles)]
  for (const f of files) {
    const name = input.base ? relative(input.base, f) : f
    const exec = (statSync(f).mode & 0o111) !== 0
    h.update(`f\0${name}\0${exec ? 'x' : '-'}\0`)
    h.update(readFileSync(f))
    h.update('\0')
  }
  return h.digest('hex').slice(0, 16)
}
