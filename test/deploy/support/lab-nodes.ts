/** Helpers the lab's deploy tests share (support for *.e2e.test.ts under test/deploy). */
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Document, parseDocument } from 'yaml'
import { argv } from '../../../src/command/shell.js'
import type { Manifest } from '../../../src/manifest/schema.js'
import { clusterStateDir } from '../../../src/plan/release-commands.js'
import type { Transport } from '../../../src/transport/transport.js'
import { type LabInfo, labPaths, labTransports, labUp, loadLabManifest, resolveLabDir } from '../../support/lab.js'

/** What a deploy test on the lab starts from (openLab). */
export interface OpenLab {
  readonly info: LabInfo
  /** The lab's own manifest and where it is. */
  readonly manifest: Manifest
  readonly path: string
  /** What a deploy logs in with: the lab's key and known_hosts. */
  readonly creds: { readonly privateKey: string; readonly knownHosts: string }
  /** One connection per node, for the test's own looks (close them with leaveLabNodes). */
  readonly transports: Map<string, Transport>
}

/**
 * The lab a deploy test needs: up with 2 nodes (reused when it is), its manifest, the credentials,
 * one connection per node, and every node reset: no release container, no cluster state, nor `paths`.
 */
export async function openLab(progress: (m: string) => void, ...paths: string[]): Promise<OpenLab> {
  const info = await labUp({ nodes: 2, onProgress: progress })
  const lab = await loadLabManifest()
  const keys = labPaths(resolveLabDir())
  const creds = { privateKey: readFileSync(keys.sshKey, 'utf8'), knownHosts: readFileSync(keys.knownHosts, 'utf8') }
  const transports = await labTransports(lab.manifest)
  await resetLabNodes(transports, lab.manifest, clusterStateDir(lab.manifest), ...paths)
  return { info, manifest: lab.manifest, path: lab.path, creds, transports }
}

/**
 * A variant of the lab's manifest for one test: `edit` changes the parsed document (comments and
 * order kept), and the result is written to a fresh temporary directory named after `name`.
 */
export function manifestVariant(labPath: string, name: string, edit: (doc: Document) => void): string {
  const doc = parseDocument(readFileSync(labPath, 'utf8'))
  edit(doc)
  const path = join(mkdtempSync(join(tmpdir(), `vrd-${name}-`)), 'manifest.yml')
  writeFileSync(path, doc.toString())
  return path
}

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
