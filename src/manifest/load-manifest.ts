/**
 * The manifest's file and text entry points in one place: loadManifestFile and readTextBounded
 * (manifest-file.ts, without zod: the fast path first) and parseManifest (parse.ts, the zod path).
 * Code on the Action's path imports manifest-file.ts directly, so loading it does not build the
 * zod schema.
 */
export { loadManifestFile, MAX_MANIFEST_BYTES, MAX_PASTE_BYTES, parseManifestText, readTextBounded } from './manifest-file.js'
export { parseManifest, type ManifestResult } from './parse.js'
