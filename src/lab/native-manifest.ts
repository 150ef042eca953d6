/**
 * The lab's manifest for vLLM's native multi-node mode: the generated lab manifest with
 * `vllm.executorBackend: mp` and without its `ray:` section (the native mode starts no Ray, and Ray
 * keys under it are refused). Pure text in, text out; the e2e test and `.ci/main --executor mp` use it.
 */
export function nativeLabManifest(text: string, extraVllm: readonly string[] = []): string {
  const lines = text.split('\n')
  const out: string[] = []
  let skipping = false
  for (const line of lines) {
    if (/^ray:\s*$/.test(line)) {
      skipping = true
      continue
    }
    if (skipping && /^\S/.test(line)) skipping = false
    if (skipping) continue
    out.push(line)
    if (/^vllm:\s*$/.test(line)) out.push('  executorBackend: mp', ...extraVllm.map((l) => `  ${l}`))
  }
  const result = out.join('\n')
  // bug: the lab writes the manifest it edits here
  if (!result.includes('  executorBackend: mp')) throw new Error('the lab manifest has no vllm: section to set executorBackend in')
  return result
}
