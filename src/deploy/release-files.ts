/**
 * What a release directory holds on each node, and the release fingerprint. Pure: manifest,
 * release id, image ID and launch script in; file contents out.
 *
 * Everything a node needs to start the release again lives in its directory, so a rollback starts
 * the previous release from its own files: `start.sh` (the built-in launcher's rendered
 * `docker run ... ray start`, or the call of the user's `launch.sh`), `serve.sh` on the head
 * (`vllm serve`; on every node with the native executor), the effective environment, the manifest snapshot and the image ID. Images are
 * named by ID in those files, so a tag that moved later cannot change what a release starts.
 * Secret values are never here: `secret.env` (0600) is written separately from stdin.
 */
import { createHash } from 'node:crypto'
import { renderScript } from '../command/shell.js'
import type { Manifest, ManifestNode } from '../manifest/schema.js'
import { executorOf } from '../plan/executor-commands.js'
import { launchScriptEnv, nodeEnv } from '../plan/node-commands.js'
import { RELEASE_FILE, releaseServeCmd, releaseStartCmd } from '../plan/release-commands.js'
import { snapshotText } from './snapshot.js'
import type { ImageContents } from '../probe/image-contents-probe.js'
import { imageContentsRecord } from './image-contents-memo.js'

export interface ReleaseFile {
  readonly content: string
  /** Octal mode, e.g. `0700`. */
  readonly mode: string
}

export interface ReleaseSpec {
  readonly manifest: Manifest
  readonly release: string
  /** The image ID (`sha256:...`) every node ends on. */
  readonly imageId: string
  /** Text of the launch script when `launch.mode` is `script`. */
  readonly launchScript?: string
  /** With `model:`: the weights manifest every node was verified against, and its identity. */
  readonly weights?: { readonly identity: string; readonly text: string }
  /** What the image-contents probe read in the image (kept for the next deploy of the same image ID; not fingerprinted). */
  readonly imageContents?: ImageContents
}

export interface ReleaseMeta {
  readonly who: string
  readonly createdAt: string
  readonly run?: string
}

const script = (comment: string, body: string): string => `#!/bin/sh\n# ${comment}\n${body}\n`

/** The command that starts the release's container on this node (Ray up, by us or by the user's script). */
function startScript(spec: ReleaseSpec, node: ManifestNode): string {
  const { manifest: m, release, imageId } = spec
  return script(`release ${release} on ${node.name} (${node.role}): start ${m.container.name}`, renderScript(releaseStartCmd(m, node, imageId, release)))
}

/** The effective environment: the container's (built-in launch) or the launch script's. Secret names only. */
function envFile(m: Manifest, node: ManifestNode, imageId: string): string {
  const env = m.launch.mode === 'builtin' ? nodeEnv(m, node) : launchScriptEnv(m, node, imageId)
  const lines = Object.entries(env).map(([k, v]) => `${k}=${v}`)
  const vllm = Object.entries(m.vllm.env).map(([k, v]) => `${k}=${v}`)
  return [
    `# ${m.launch.mode === 'builtin' ? 'container' : 'launch script'} environment on ${node.name}`,
    ...lines,
    ...(vllm.length > 0 ? ['# vllm serve only', ...vllm] : []),
    ...m.container.secretEnv.map((n) => `# secret ${n}: value in ${RELEASE_FILE.secretEnv} (0600)`),
    '',
  ].join('\n')
}

/** The files whose content decides what starts on a node (the fingerprint covers exactly these). */
function startingFiles(spec: ReleaseSpec, node: ManifestNode): Record<string, ReleaseFile> {
  const m = spec.manifest
  const files: Record<string, ReleaseFile> = {
    [RELEASE_FILE.start]: { content: startScript(spec, node), mode: '0700' },
    [RELEASE_FILE.env]: { content: envFile(m, node, spec.imageId), mode: '0644' },
    [RELEASE_FILE.imageId]: { content: `${spec.imageId}\n`, mode: '0644' },
  }
  if (m.launch.mode === 'script') files[RELEASE_FILE.launch] = { content: spec.launchScript ?? '', mode: '0700' }
  if (
    executorOf(m)
      .serveNodes(m)
      .some((n) => n.name === node.name)
  )
    files[RELEASE_FILE.serve] = {
      content: script(`release ${spec.release} on ${node.name}: vllm serve ${m.vllm.model}`, renderScript(releaseServeCmd(m, node))),
      mode: '0700',
    }
  return files
}

/** Placeholder release id for the fingerprint: the id itself is not part of what starts. */
const ANY_RELEASE = 'release'

/**
 * Parts of the manifest the fingerprint leaves out, each because it does not change what starts on
 * a node. Everything else in the effective manifest is covered, so a key added later is covered
 * until someone decides here that it should not be.
 * - `ssh`, `nodes[].ssh`: how this tool reaches the nodes.
 * - `image`: the reference, digest and distribution name and fetch the image; the image ID they
 *   end on is covered on its own (a tag moved to the same ID is the same release).
 * - `smoke`: what the smoke gate asks; an unchanged release still runs the gate with today's settings.
 * - `deploy`: how the rollout proceeds (on-failure, the lock's TTL, releases kept, the script check).
 */
export const FINGERPRINT_EXCLUDES = ['ssh', 'nodes[].ssh', 'image', 'smoke', 'deploy'] as const

function fingerprintedManifest(m: Manifest): Record<string, unknown> {
  const { ssh: _ssh, image: _image, smoke: _smoke, deploy: _deploy, nodes, ...rest } = m
  return { ...rest, nodes: nodes.map(({ ssh: _nodeSsh, ...n }) => n) }
}

/**
 * The release fingerprint: SHA-256 over the effective manifest (less FINGERPRINT_EXCLUDES), the
 * image ID and what starts on every node (rendered start and serve commands or the launch script,
 * effective env), with the release id itself left out, so the same content under a new id is
 * "unchanged".
 */
export function releaseFingerprint(spec: Omit<ReleaseSpec, 'release'>): string {
  const m = spec.manifest
  const doc = {
    v: 2,
    imageId: spec.imageId,
    ...(spec.weights && { weights: spec.weights.identity }),
    manifest: fingerprintedManifest(m),
    nodes: m.nodes.map((n) => ({ name: n.name, files: startingFiles({ ...spec, release: ANY_RELEASE }, n) })),
  }
  return `sha256:${createHash('sha256').update(JSON.stringify(doc)).digest('hex')}`
}

/** Every file of the release directory on `node` (SHA256SUMS is computed on the node as they are written). */
export function releaseFiles(spec: ReleaseSpec, node: ManifestNode, meta: ReleaseMeta): Record<string, ReleaseFile> {
  const m = spec.manifest
  const fingerprint = releaseFingerprint(spec)
  const info = {
    release: spec.release,
    cluster: m.cluster,
    node: node.name,
    role: node.role,
    image: m.image.ref,
    imageId: spec.imageId,
    fingerprint,
    ...(spec.weights && { weights: spec.weights.identity }),
    launch: m.launch.mode,
    createdAt: meta.createdAt,
    who: meta.who,
    ...(meta.run && { run: meta.run }),
  }
  return {
    ...startingFiles(spec, node),
    [RELEASE_FILE.fingerprint]: { content: `${fingerprint}\n`, mode: '0644' },
    [RELEASE_FILE.manifest]: { content: snapshotText(m), mode: '0644' },
    [RELEASE_FILE.info]: { content: `${JSON.stringify(info, null, 2)}\n`, mode: '0644' },
    ...(spec.weights && { [RELEASE_FILE.weights]: { content: spec.weights.text, mode: '0644' } }),
    ...(spec.imageContents && { [RELEASE_FILE.imageContents]: { content: imageContentsRecord(spec.imageId, spec.imageContents), mode: '0644' } }),
  }
}
