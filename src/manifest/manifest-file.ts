/**
 * Reading files from disk for the tool: the manifest, and (through `readTextBounded`) every file a
 * person hands it (pasted logs, facts, keys). Every read is bounded: a manifest that is a link to
 * /dev/zero is an error after a few MiB, never an out-of-memory crash.
 *
 * A manifest is validated first by the fast path, the plan generated from the zod schema at build
 * time (fast-parse.ts); only what it does not accept (every invalid manifest, anything it cannot
 * express) loads the zod path (parse.ts). The Action reaches its first SSH connection without
 * building the zod schema (bench row 6), and every result stays parseManifest's.
 */
import { open } from 'node:fs/promises'
import { fail, ok, problem, type Result } from '../result/result.js'
import { fastParse } from './fast-parse.js'
import { MANIFEST_PLAN } from './manifest-plan.generated.js'
import { partsOfManifest } from './manifest-parts.js'
import { finishManifest, type ManifestResult, readManifestYaml } from './parse-stages.js'
import type { Manifest } from './schema.js'
import { checkManifestRules } from './semantic.js'

export type { ManifestResult } from './parse-stages.js'

/** `parseManifest`'s result for `text`, from the fast path when it accepts the manifest, else from zod. */
export async function parseManifestText(text: string, file: string): Promise<ManifestResult> {
  const stage = readManifestYaml(text, file)
  if ('done' in stage) return stage.done
  const fast = fastParse(MANIFEST_PLAN, stage.data)
  if (fast !== undefined) {
    const manifest = fast.value as Manifest
    return finishManifest(stage, file, checkManifestRules(partsOfManifest(manifest)), manifest)
  }
  const { manifestFromYaml } = await import('./parse.js')
  return manifestFromYaml(stage, file)
}

/** Read and parse `path`. A file that cannot be read is one error at 1:1, not an exception. */
export async function loadManifestFile(path: string): Promise<ManifestResult> {
  const read = await readTextBounded(path, MAX_MANIFEST_BYTES)
  if (!read.ok) {
    const missing = read.problem.code === 'FILE_NOT_FOUND'
    return {
      errors: [
        {
          code: missing ? 'FILE_NOT_FOUND' : 'FILE_UNREADABLE',
          message: missing ? `manifest file ${path} does not exist` : `cannot read manifest file ${path}: ${read.problem.message}`,
          file: path,
          line: 1,
          col: 1,
          path: [],
          fix: missing
            ? 'check the path (it is relative to the working directory), or create the file from src/manifest/examples/dgx-spark-pair.yml'
            : 'check the file permissions and that the path is a file',
        },
      ],
      warnings: [],
    }
  }
  return parseManifestText(read.value, path)
}

/** A manifest larger than this is refused (they are a few KiB). */
export const MAX_MANIFEST_BYTES = 4 * 1024 * 1024
/** Files a person pastes (logs, facts, Ray output): larger ones are refused, not read whole. */
export const MAX_PASTE_BYTES = 64 * 1024 * 1024

/**
 * A file's text, read at most `maxBytes` (plus one chunk), or why not: FILE_NOT_FOUND, FILE_TOO_LARGE
 * (the message says the limit), FILE_UNREADABLE (the message is the system's code, EACCES, EISDIR...).
 * Works for files that never end (/dev/zero, a FIFO).
 */
export async function readTextBounded(path: string, maxBytes: number): Promise<Result<string>> {
  try {
    const fh = await open(path, 'r')
    try {
      const chunks: Buffer[] = []
      const buf = Buffer.alloc(64 * 1024)
      let total = 0
      for (;;) {
        const { bytesRead } = await fh.read(buf, 0, buf.length, null)
        if (bytesRead === 0) break
        total += bytesRead
        if (total > maxBytes) return fail(problem('FILE_TOO_LARGE', `${path} is larger than ${maxBytes} bytes, the most this tool reads from it`))
        chunks.push(Buffer.from(buf.subarray(0, bytesRead)))
      }
      return ok(Buffer.concat(chunks).toString('utf8'))
    } finally {
      await fh.close()
    }
  } catch (cause) {
    // The file system's answer (no such file, no permission, a directory): a value, never an exception.
    const code = (cause as NodeJS.ErrnoException).code
    return fail(problem(code === 'ENOENT' ? 'FILE_NOT_FOUND' : 'FILE_UNREADABLE', code ?? String(cause)))
  }
}
