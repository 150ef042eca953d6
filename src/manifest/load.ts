/** Reading a manifest file from disk: the one place this stage touches the file system. */
import { readFile } from 'node:fs/promises'
import { type ManifestResult, parseManifest } from './parse.js'

export { parseManifest, type ManifestResult } from './parse.js'

/** Read and parse `path`. A file that cannot be read is one error at 1:1, not an exception. */
export async function loadManifestFile(path: string): Promise<ManifestResult> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code
    const missing = code === 'ENOENT'
    return {
      errors: [
        {
          code: missing ? 'FILE_NOT_FOUND' : 'FILE_UNREADABLE',
          message: missing ? `manifest file ${path} does not exist` : `cannot read manifest file ${path}: ${code ?? String(cause)}`,
          file: path,
          line: 1,
          col: 1,
          path: [],
          fix: missing
            ? 'check the path (it is relative to the working directory), or create the file from src/manifest/examples/dgx-spark-pair.yml'
            : 'check the file permissions and that the path is a file',
        },
      ],
    }
  }
  return parseManifest(text, path)
}
