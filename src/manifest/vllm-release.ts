/**
 * `vllm.args` against the `vllm serve` flags of the vLLM release the image holds, as far as the
 * manifest tells it before anything runs: `vllm.version`, else the image tag (`vllm/vllm-openai:v0.24.0`).
 * vLLM's parser stops on a flag it does not have ("unrecognized arguments") after the running release
 * was stopped, so `validate` and `plan` warn here; the deploy checks again with the version the image
 * itself reports (src/preflight/checks/image-contents-checks.ts).
 */
import { contractFor, unknownVllmFlags, vllmVersionOfImageTag } from '../command/vllm-contract.js'
import type { PathIssue } from './manifest-error.js'

const record = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined

/** The vLLM version the manifest names, and where it says so. */
export function manifestVllmVersion(data: unknown): { readonly version: string; readonly from: string } | undefined {
  const root = record(data)
  const stated = record(root?.vllm)?.version
  if (typeof stated === 'string' && stated.trim() !== '') return { version: stated.trim(), from: 'vllm.version' }
  const ref = record(root?.image)?.ref
  const tagged = typeof ref === 'string' ? vllmVersionOfImageTag(ref) : undefined
  return tagged ? { version: tagged, from: `the tag of image.ref ${ref as string}` } : undefined
}

/** The words of `vllm.args` the named vLLM release's `vllm serve` does not accept. */
export function vllmArgsUnknownToRelease(data: unknown): PathIssue[] {
  const named = manifestVllmVersion(data)
  const args = record(record(data)?.vllm)?.args
  if (!named || !Array.isArray(args)) return []
  const contract = contractFor(named.version)
  if (!contract) return []
  const words = args.map((a) => (typeof a === 'string' ? a : String(a)))
  const as = contract.vllm === named.version.replace(/^v/, '') ? '' : ` (read as ${contract.vllm}, the nearest release whose flags are known)`
  return unknownVllmFlags(words, contract).map(({ index, flag }) => ({
    code: 'VLLM_FLAG_NOT_IN_VERSION',
    message: `vllm.args passes ${flag}, which \`vllm serve\` of vLLM ${named.version}${as} does not have (version from ${named.from}): it would stop with "unrecognized arguments"`,
    path: ['vllm', 'args', index],
    fix: `remove ${flag} or spell it as vLLM ${named.version} does (\`vllm serve --help\` in the image); if the image holds another vLLM, set vllm.version to it`,
  }))
}
