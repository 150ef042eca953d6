/**
 * Relay, landed first (src/plan/image-landing-commands.ts says why): whether every node can take
 * the archive as a file (free space under the landing directory, a working python3), the runner's
 * framed stream with its SHA-256 computed as it is sent, and every node's `docker load -i` from its
 * own verified file at once. The file goes away on every path: the load removes it, and
 * `removeLandedEverywhere` runs after the relay whatever happened (a failure, a cancel).
 */
import { createHash } from 'node:crypto'
import { Transform } from 'node:stream'
import { argv } from '../command/shell.js'
import type { Manifest, ManifestNode } from '../manifest/schema.js'
import {
  LANDING_FRAME,
  landedArchive,
  landingDir,
  landingNeeds,
  landingProbe,
  landingRefused,
  loadLanded,
  parseLandingProbe,
  removeLanded,
} from '../plan/image-landing-commands.js'
import { LocalTransport } from '../transport/local.js'
import { type RunResult, type Transport, outcome } from '../transport/transport.js'

/** Why a node cannot take the landing; `space` when it is short of free space (the rest: no python3, no directory, no connection). */
export interface LandingRefusal {
  readonly node: string
  readonly why: string
  readonly space: boolean
}

export type LandingChoice =
  | { readonly land: true; readonly file: string; readonly needBytes: number }
  | { readonly land: false; readonly refusals: readonly LandingRefusal[] }

/** The image's size as this machine's docker reports it, or undefined. */
async function runnerImageBytes(docker: string, image: string): Promise<number | undefined> {
  const r = await new LocalTransport().run(argv(docker, 'image', 'inspect', '--format', '{{.Size}}', image), { timeoutMs: 30_000 })
  const n = Number(r.stdout.trim())
  return r.code === 0 && Number.isSafeInteger(n) && n > 0 ? n : undefined
}

/**
 * Land first when every target node (the head and the workers fed from it) can take the archive;
 * otherwise stream, saying why per node. One probe per node, all at once.
 */
export async function chooseLanding(
  m: Manifest,
  image: string,
  docker: string,
  targets: readonly ManifestNode[],
  transports: ReadonlyMap<string, Transport>,
): Promise<LandingChoice> {
  const bytes = await runnerImageBytes(docker, image)
  if (bytes === undefined) return { land: false, refusals: [{ node: 'runner', why: `the size of ${image} could not be read`, space: false }] }
  const need = landingNeeds(bytes)
  const dir = landingDir(m)
  const found = await Promise.all(
    targets.map(async (n): Promise<LandingRefusal | undefined> => {
      const t = transports.get(n.name)
      if (!t) return { node: n.name, why: 'no connection from the runner to load its file', space: false }
      const r = await t.run(landingProbe(m), { timeoutMs: 30_000 })
      if (r.code !== 0) return { node: n.name, why: `the landing probe failed (${outcome(r)})`, space: false }
      const probe = parseLandingProbe(r.stdout)
      const why = landingRefused(probe, need, dir)
      return why === undefined ? undefined : { node: n.name, why, space: probe.freeBytes !== undefined && probe.freeBytes < need }
    }),
  )
  const refusals = found.filter((f): f is LandingRefusal => f !== undefined)
  return refusals.length > 0 ? { land: false, refusals } : { land: true, file: landedArchive(m, image), needBytes: need }
}

/** Bytes per frame: docker save's 64 KiB reads gathered, so the receivers make a few large reads and writes per MiB. */
const FRAME_BYTES = 1 << 20

/**
 * The runner's `docker save` as LANDING_FRAME frames of up to FRAME_BYTES, hashed and counted as it
 * passes; at the end the SHA-256 and the size. `bytes()` counts the archive's bytes, not the frames'.
 */
export function landingFramer(): { readonly stream: Transform; readonly bytes: () => number } {
  const hash = createHash('sha256')
  let bytes = 0
  let held: Buffer[] = []
  let heldBytes = 0
  const emit = (t: Transform): void => {
    if (heldBytes === 0) return
    const head = Buffer.alloc(5)
    head[0] = LANDING_FRAME.data
    head.writeUInt32BE(heldBytes, 1)
    t.push(Buffer.concat([head, ...held], 5 + heldBytes))
    held = []
    heldBytes = 0
  }
  const stream = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      bytes += chunk.length
      hash.update(chunk)
      held.push(chunk)
      heldBytes += chunk.length
      if (heldBytes >= FRAME_BYTES) emit(this)
      cb()
    },
    flush(cb) {
      emit(this)
      const end = Buffer.alloc(41)
      end[0] = LANDING_FRAME.end
      hash.digest().copy(end, 1)
      end.writeBigUInt64BE(BigInt(bytes), 33)
      cb(null, end)
    },
  })
  return { stream, bytes: () => bytes }
}

/** Every node's `docker load -i` from its landed file, at once; each removes its file when its load ends. */
export async function loadLandedEverywhere(
  nodes: readonly ManifestNode[],
  file: string,
  transports: ReadonlyMap<string, Transport>,
  opts: { timeoutMs: number; signal?: AbortSignal },
): Promise<Map<string, RunResult | undefined>> {
  const results = await Promise.all(nodes.map(async (n) => [n.name, await transports.get(n.name)?.run(loadLanded(file), opts)] as const))
  return new Map(results)
}

/** Remove the landed file on every node (no signal: it runs after a cancel too). Never fails. */
export async function removeLandedEverywhere(nodes: readonly ManifestNode[], file: string, transports: ReadonlyMap<string, Transport>): Promise<void> {
  await Promise.all(
    nodes.map((n) =>
      transports
        .get(n.name)
        ?.run(removeLanded(file), { timeoutMs: 30_000 })
        .catch(() => undefined),
    ),
  )
}
