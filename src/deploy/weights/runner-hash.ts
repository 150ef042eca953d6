/**
 * The runner's side of a runner source: every file of model.source.runner.dir hashed here, with a
 * cache of what was hashed so an unchanged file is not read again.
 */
import { createReadStream } from 'node:fs'
import { mkdir, readFile, readdir, rename, stat, writeFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { createHash } from 'node:crypto'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { type Result, fail, ok } from '../../result/result.js'
import { type WeightsFile, type WeightsManifest, badFilePath, weightsManifest } from './manifest.js'

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

/** Hash every file of a runner directory (streamed; symlinks followed as files; names starting with . left out). */
export async function hashRunnerDir(dir: string, cacheFile?: string): Promise<Result<WeightsManifest>> {
  const root = resolve(dir)
  const files: WeightsFile[] = []
  const cache = cacheFile ? await readHashCache(cacheFile) : {}
  const next: HashCache = {}
  const walk = async (d: string): Promise<string | undefined> => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const full = join(d, e.name)
      const rel = relative(root, full).split(sep).join('/')
      if (e.name.startsWith('.')) continue
      const st = await stat(full, { bigint: true })
      if (st.isDirectory()) {
        const bad = await walk(full)
        if (bad) return bad
        continue
      }
      if (!st.isFile()) continue
      const why = badFilePath(rel)
      if (why) return `${rel}: ${why}`
      const key = `${st.size} ${st.mtimeNs} ${st.ctimeNs} ${st.ino}`
      let sha256 = cache[rel]?.key === key ? cache[rel].sha256 : undefined
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
    const bad = await walk(root)
    if (bad)
      return fail({
        code: 'WEIGHTS_SOURCE_INVALID',
        message: `model.source.runner.dir ${dir}: ${bad}`,
        evidence: { Directory: root },
        fix: 'Rename the file, or leave it out of the directory.',
      })
  } catch (err) {
    return fail({
      code: 'WEIGHTS_SOURCE_INVALID',
      message: `model.source.runner.dir ${dir} cannot be read: ${(err as Error).message}`,
      evidence: { Directory: root },
      fix: "Point model.source.runner.dir at a readable directory on the runner (relative to the manifest file's directory, or absolute).",
    })
  }
  if (cacheFile) {
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
  return ok(weightsManifest(files))
}
