/**
 * Where a model's config.json and weights can be read on the runner without touching a node, and
 * reading them: the one file of the fit that reads the disk.
 *
 * - `model.source.runner.dir`: the directory the weights stage sends (relative to the manifest).
 * - A Hugging Face repository (`model.source.hub.repo`, or `vllm.model` when there is no `model:`
 *   section and it reads `org/name`): the runner's own hub cache, laid out as huggingface_hub
 *   writes it (`$HF_HUB_CACHE`, else `$HF_HOME/hub`, else `~/.cache/huggingface/hub`;
 *   `models--org--name/snapshots/<commit>/`, the commit a revision names in `refs/<revision>`).
 * - `model.source.nodes` and a path inside the container: not on the runner; said so.
 *
 * What it reads: config.json, each `*.safetensors` file's size and header (8-byte little-endian
 * length, then at most 100 MB of JSON, the format's own bound), and, without weight files,
 * `model.safetensors.index.json`'s `metadata.total_size`.
 */
import { closeSync, existsSync, openSync, readFileSync, readSync, readdirSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import type { Manifest } from '../../manifest/schema.js'
import { type Tensor, type WeightsInput, parseSafetensorsHeader } from './weights-share.js'

/** The safetensors format's bound on a header (safetensors/src/tensor.rs MAX_HEADER_SIZE). */
const MAX_HEADER_BYTES = 100_000_000
const HF_REPO = /^[A-Za-z0-9][A-Za-z0-9._-]*\/[A-Za-z0-9][A-Za-z0-9._-]*$/
const COMMIT = /^[0-9a-f]{40}$/

export interface ModelFiles {
  /** config.json's text and where it was read, when readable. */
  readonly config?: { readonly text: string; readonly path: string }
  readonly weights?: WeightsInput
  /** Why config.json was not read (which input is missing), when it was not. */
  readonly missing?: string
}

/** The hub cache directory huggingface_hub uses with this environment. */
export function hubCacheDir(env: NodeJS.ProcessEnv): string {
  if (env['HF_HUB_CACHE']) return env['HF_HUB_CACHE']
  if (env['HF_HOME']) return join(env['HF_HOME'], 'hub')
  return join(env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache'), 'huggingface', 'hub')
}

/** The directory on the runner that holds the model's files, or why there is none. */
export function localModelDir(m: Manifest, manifestPath: string, env: NodeJS.ProcessEnv): { readonly dir?: string; readonly missing?: string } {
  const source = m.model?.source
  if (source?.runner) return { dir: resolve(dirname(manifestPath), source.runner.dir) }
  if (source?.nodes)
    return { missing: `config.json: model.source.nodes keeps the files on the nodes only (${m.model?.path}); the deploy's fit stage reads it from the head` }
  const repo = source?.hub?.repo ?? (HF_REPO.test(m.vllm.model) ? m.vllm.model : undefined)
  if (!repo)
    return {
      missing: `config.json: vllm.model ${m.vllm.model} is a path inside the container, not readable on the runner; with a model: section the deploy's fit stage reads the head's copy`,
    }
  const revision = source?.hub?.revision ?? 'main'
  const cache = hubCacheDir(env)
  const repoDir = join(cache, `models--${repo.replace('/', '--')}`)
  const refFile = join(repoDir, 'refs', revision)
  const commit = COMMIT.test(revision) ? revision : existsSync(refFile) ? readFileSync(refFile, 'utf8').trim() : undefined
  const dir = commit ? join(repoDir, 'snapshots', commit) : undefined
  if (!dir || !existsSync(join(dir, 'config.json')))
    return {
      missing: `config.json of ${repo}@${revision}: not in the runner's hub cache (${repoDir}); download it there (hf download ${repo} config.json model.safetensors.index.json) or give the model a model: section, whose copy on the head the deploy's fit stage reads`,
    }
  return { dir }
}

function readHeader(path: string): string | undefined {
  const fd = openSync(path, 'r')
  try {
    const head = Buffer.alloc(8)
    if (readSync(fd, head, 0, 8, 0) !== 8) return undefined
    const length = Number(head.readBigUInt64LE(0))
    if (length <= 0 || length > MAX_HEADER_BYTES) return undefined
    const json = Buffer.alloc(length)
    return readSync(fd, json, 0, length, 8) === length ? json.toString('utf8') : undefined
  } finally {
    closeSync(fd)
  }
}

function weightsIn(dir: string): WeightsInput | undefined {
  const files = readdirSync(dir).filter((f) => f.endsWith('.safetensors'))
  if (files.length > 0) {
    const tensors: Tensor[] = []
    let headers = true
    let bytes = 0
    for (const f of files) {
      bytes += statSync(join(dir, f)).size
      const text = headers ? readHeader(join(dir, f)) : undefined
      const parsed = text === undefined ? undefined : parseSafetensorsHeader(text, f)
      if (parsed?.ok) tensors.push(...parsed.value)
      else headers = false
    }
    return { fileBytes: bytes, ...(headers && { tensors }), source: `${files.length} safetensors files in ${dir}` }
  }
  const index = join(dir, 'model.safetensors.index.json')
  if (!existsSync(index)) return undefined
  const total = (JSON.parse(readFileSync(index, 'utf8')) as { metadata?: { total_size?: unknown } }).metadata?.total_size
  return typeof total === 'number' ? { fileBytes: total, source: `${index}'s metadata.total_size` } : undefined
}

/** The model's files as far as the runner can read them. */
export function readLocalModel(m: Manifest, manifestPath: string, env: NodeJS.ProcessEnv): ModelFiles {
  const where = localModelDir(m, manifestPath, env)
  if (!where.dir) return { missing: where.missing ?? 'config.json' }
  const configPath = join(where.dir, 'config.json')
  if (!existsSync(configPath)) return { missing: `config.json: not in ${where.dir}` }
  try {
    const weights = weightsIn(where.dir)
    return { config: { text: readFileSync(configPath, 'utf8'), path: configPath }, ...(weights && { weights }) }
  } catch (err) {
    return { missing: `the model's files in ${where.dir}: ${(err as Error).message}` }
  }
}
