/**
 * The runner's side of a runner source: every file of model.source.runner.dir hashed here, with a
 * cache of what was hashed so an unchanged file is not read again.
 */
import { constants, createReadStream } from 'node:fs'
import { type FileHandle, lstat, mkdir, open, readFile, readdir, realpath, rename, stat, writeFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { createHash } from 'node:crypto'
import { basename, dirname, join, relative, resolve, sep } from 'node:path'
import { type Result, fail, ok } from '../../result/result.js'
import { type WeightsFile, type WeightsManifest, badFilePath, weightsManifest } from './weights-manifest.js'

/**
 * Where the runner keeps what it hashed: a file whose size, mtime, ctime and inode are unchanged is
 * not read again (the same rule as the nodes' .vrd-verified). $XDG_CACHE_HOME or ~/.cache.
 */
export const runnerHashCacheFile = (dir: string, env: NodeJS.ProcessEnv = process.env): string =>
  join(
    env.XDG_CACHE_HOME || join(homedir(), '.cache'),
    'vllm-ray-deploy',
    `weights-${createHash('sha256').update(resolve(dir)).digest('hex').slice(0, 16)}.json`,
  )

type HashCache = Record<string, { key: string; sha256: string }>

/** The cache read back; anything that is not its shape is no cache (it only saves reading files). */
async function readHashCache(file: string): Promise<HashCache> {
  try {
    const doc = JSON.parse(await readFile(file, 'utf8')) as unknown
    if (typeof doc !== 'object' || doc === null) return {}
    const out: HashCache = {}
    for (const [k, v] of Object.entries(doc as Record<string, unknown>)) {
      const e = v as { key?: unknown; sha256?: unknown }
      if (typeof e?.key === 'string' && typeof e.sha256 === 'string' && /^[0-9a-f]{64}$/.test(e.sha256)) out[k] = { key: e.key, sha256: e.sha256 }
    }
    return out
  } catch {
    return {}
  }
}

/**
 * Where the files of a runner directory may really be: the directory itself, or, for a Hugging Face
 * cache snapshot (`<cache>/models--org--name/snapshots/<revision>`, whose files are links to
 * `../../blobs/<hash>`), that repository's cache folder. A link that leads anywhere else (another
 * folder of the runner, /proc/self/environ) is refused, never followed.
 */
export async function runnerBoundary(dir: string): Promise<string> {
  const real = await realpath(resolve(dir))
  const up = dirname(dirname(real))
  return basename(dirname(real)) === 'snapshots' && /^(models|datasets|spaces)--/.test(basename(up)) ? up : real
}

const inside = (boundary: string, path: string): boolean => path === boundary || path.startsWith(boundary.endsWith(sep) ? boundary : `${boundary}${sep}`)

/** The real path of a runner file, when it stays inside the boundary; else why not. */
async function realInside(boundary: string, full: string): Promise<{ real: string } | { why: string }> {
  const real = await realpath(full)
  return inside(boundary, real) ? { real } : { why: `links out of the directory (to ${real}), which is never followed` }
}

/**
 * The runner file `rel` of `dir`, opened once for the send: its real path inside the boundary,
 * opened without following a link in its last part, and still the size that was hashed. The bytes
 * sent are read from this handle, so a file swapped or removed after the check cannot be sent.
 */
export async function openRunnerFile(dir: string, rel: string, size: number): Promise<Result<FileHandle>> {
  const problem = (message: string) =>
    fail({
      code: 'WEIGHTS_SOURCE_CHANGED',
      message: `${rel} in model.source.runner.dir ${dir}: ${message}`,
      evidence: { File: rel },
      fix: 'Leave the runner directory as it is while a deploy runs, then deploy again.',
    })
  try {
    const at = await realInside(await runnerBoundary(dir), join(resolve(dir), rel))
    if ('why' in at) return problem(at.why)
    const handle = await open(at.real, constants.O_RDONLY | constants.O_NOFOLLOW)
    const st = await handle.stat()
    if (!st.isFile() || st.size !== size) {
      await handle.close()
      return problem(`it is ${st.isFile() ? `${st.size} bytes` : 'no longer a file'} now; it was ${size} bytes when it was hashed`)
    }
    return ok(handle)
  } catch (err) {
    const e = err as NodeJS.ErrnoException
    return problem(e.code === 'ENOENT' ? 'it is gone (removed after it was hashed)' : `it cannot be opened (${e.code ?? e.message})`)
  }
}

/** A file's identity for the cache: unchanged size, mtime, ctime and inode mean unchanged bytes. */
export const fileKey = (st: { size: bigint; mtimeNs: bigint; ctimeNs: bigint; ino: bigint }): string => `${st.size} ${st.mtimeNs} ${st.ctimeNs} ${st.ino}`

/** The SHA-256 of a file no hash is known for yet, while `hashRunnerDir` left it out (`lazy`). */
export const PENDING_SHA256 = ''

/** The hashes computed while sending, added to the runner's cache (what was there kept). */
export async function rememberRunnerHashes(cacheFile: string, entries: ReadonlyMap<string, { key: string; sha256: string }>): Promise<void> {
  if (entries.size === 0) return
  try {
    const cache = { ...(await readHashCache(cacheFile)), ...Object.fromEntries(entries) }
    await mkdir(dirname(cacheFile), { recursive: true })
    await writeFile(`${cacheFile}.tmp`, JSON.stringify(cache))
    await rename(`${cacheFile}.tmp`, cacheFile)
  } catch {
    // No cache: the next deploy reads the files again.
  }
}

/** One runner file hashed now (a node holds a file of its size: the hash decides whether it is sent). */
export async function hashRunnerFile(dir: string, rel: string, size: number): Promise<Result<{ sha256: string; key: string }>> {
  const opened = await openRunnerFile(dir, rel, size)
  if (!opened.ok) return opened
  try {
    const key = fileKey(await opened.value.stat({ bigint: true }))
    const h = createHash('sha256')
    for await (const chunk of opened.value.createReadStream({ autoClose: false })) h.update(chunk as Buffer)
    return ok({ sha256: h.digest('hex'), key })
  } finally {
    await opened.value.close()
  }
}

/**
 * Hash every file of a runner directory (streamed; links followed only inside its boundary; names
 * starting with . left out). `lazy`: a file the cache does not know is not read here; its SHA-256
 * is PENDING_SHA256, computed as it is sent (or by `hashRunnerFile` when a node holds a file of its size).
 */
export async function hashRunnerDir(dir: string, cacheFile?: string, lazy = false): Promise<Result<WeightsManifest>> {
  const root = resolve(dir)
  const files: WeightsFile[] = []
  const cache = cacheFile ? await readHashCache(cacheFile) : {}
  const next: HashCache = {}
  let boundary = root
  const walk = async (d: string): Promise<string | undefined> => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const full = join(d, e.name)
      const rel = relative(root, full).split(sep).join('/')
      if (e.name.startsWith('.')) continue
      const link = (await lstat(full)).isSymbolicLink()
      if (link) {
        const at = await realInside(boundary, full)
        if ('why' in at) return `${rel} ${at.why}`
      }
      const st = await stat(full, { bigint: true })
      // A linked directory could lead back up (a loop): only real directories are walked.
      if (link && st.isDirectory()) return `${rel} is a link to a directory, which is never followed`
      if (st.isDirectory()) {
        const bad = await walk(full)
        if (bad) return bad
        continue
      }
      if (!st.isFile()) continue
      const why = badFilePath(rel)
      if (why) return `${rel}: ${why}`
      const key = fileKey(st)
      let sha256 = cache[rel]?.key === key ? cache[rel].sha256 : undefined
      if (!sha256 && lazy) {
        files.push({ path: rel, size: Number(st.size), sha256: PENDING_SHA256 })
        continue
      }
      if (!sha256) {
        const h = createHash('sha256')
        for await (const chunk of createReadStream(full)) h.update(chunk as Buffer)
        sha256 = h.digest('hex')
      }
      next[rel] = { key, sha256 }
      files.push({ path: rel, size: Number(st.size), sha256 })
    }
    return undefined
  }
  try {
    boundary = await runnerBoundary(root)
    const bad = await walk(root)
    if (bad)
      return fail({
        code: 'WEIGHTS_SOURCE_INVALID',
        message: `model.source.runner.dir ${dir}: ${bad}`,
        evidence: { Directory: root },
        fix: /links out of|link to a directory/.test(bad)
          ? 'Copy the real file into the directory (cp -L), or point model.source.runner.dir at the directory that holds it.'
          : 'Rename the file, or leave it out of the directory.',
      })
  } catch (err) {
    return fail({
      code: 'WEIGHTS_SOURCE_INVALID',
      message: `model.source.runner.dir ${dir} cannot be read: ${(err as Error).message}`,
      evidence: { Directory: root },
      fix: "Point model.source.runner.dir at a readable directory on the runner (relative to the manifest file's directory, or absolute).",
    })
  }
  if (cacheFile && !lazy) {
    try {
      await mkdir(dirname(cacheFile), { recursive: true })
      await writeFile(`${cacheFile}.tmp`, JSON.stringify(next))
      await rename(`${cacheFile}.tmp`, cacheFile)
    } catch {
      // No cache: the next deploy reads the files again.
    }
  }
  if (files.length === 0)
    return fail({
      code: 'WEIGHTS_SOURCE_INVALID',
      message: `model.source.runner.dir ${dir} holds no files`,
      evidence: { Directory: root },
      fix: 'Put the model files there first.',
    })
  if (cacheFile && lazy) await rememberRunnerHashes(cacheFile, new Map(Object.entries(next)))
  return ok(weightsManifest(files))
}
