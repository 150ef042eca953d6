/** Helpers the lab's deploy tests share (support for *.e2e.test.ts under test/deploy). */
import { createHash } from 'node:crypto'
import { argv } from '../../../src/command/shell.js'
import type { Manifest } from '../../../src/manifest/schema.js'
import type { Transport } from '../../../src/transport/transport.js'

/** A clean start on every lab node: the release container removed, then `paths` (the cluster's state dir, a model path). */
export async function resetLabNodes(transports: ReadonlyMap<string, Transport>, manifest: Manifest, ...paths: string[]): Promise<void> {
  for (const t of transports.values()) {
    await t.run(argv('docker', 'rm', '-f', manifest.container.name), { timeoutMs: 60_000 })
    if (paths.length > 0) await t.run(argv('rm', '-rf', ...paths), { timeoutMs: 60_000 })
  }
}

/** After a file's lab tests: the release container removed from every node, then `paths`, and the connections closed. */
export async function leaveLabNodes(transports: ReadonlyMap<string, Transport> | undefined, manifest: Manifest, ...paths: string[]): Promise<void> {
  if (!transports) return
  await resetLabNodes(transports, manifest, ...paths)
  for (const t of transports.values()) await t.close()
}

/** Deterministic bytes of length `n` that differ by seed (a stand-in model shard). */
export function shardBytes(seed: string, n: number): Buffer {
  const out = Buffer.alloc(n)
  let block = createHash('sha256').update(seed).digest()
  for (let i = 0; i < n; i += block.length) {
    block.copy(out, i)
    block = createHash('sha256').update(block).digest()
  }
  return out
}
