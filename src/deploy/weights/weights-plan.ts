/**
 * What the weights stage moves, and the manifest a release with `model:` runs with. Pure.
 *
 * Sources and distributions:
 * - runner + relay: the runner sends the head what it lacks; the head sends each worker what it
 *   lacks over the fabric. The runner's link carries each missing byte once.
 * - runner + each: the runner sends every node what it lacks.
 * - hub + relay: the head downloads (src/deploy/weights/hub.ts); its verified listing is the
 *   reference; the head sends the workers what they lack. hub + each: every node downloads.
 * - nodes: the head's listing is the reference; relay repairs a worker from the head, each only verifies.
 */
import type { Manifest, ModelSettings } from '../../manifest/schema.js'

export type WeightsSourceKind = 'hub' | 'runner' | 'nodes'

export const sourceKind = (model: ModelSettings): WeightsSourceKind => (model.source.hub ? 'hub' : model.source.runner ? 'runner' : 'nodes')

/** The environment that keeps the hub offline inside the container. */
export const HUB_OFFLINE_ENV = { HF_HUB_OFFLINE: '1' } as const

/**
 * The manifest a release runs with when `model:` is set: model.path mounted read-only at the same
 * path, `vllm serve` given the path, the served model name kept as the name the user wrote, and
 * the hub offline in the container. Without `model:` it is `m` itself.
 */
export function withModel(m: Manifest): Manifest {
  const model = m.model
  if (!model) return m
  const mount = `${model.path}:${model.path}:ro`
  return {
    ...m,
    container: {
      ...m.container,
      volumes: m.container.volumes.includes(mount) ? m.container.volumes : [...m.container.volumes, mount],
      env: { ...m.container.env, ...HUB_OFFLINE_ENV },
    },
    vllm: { ...m.vllm, model: model.path, servedModelName: m.vllm.servedModelName ?? (m.vllm.model === model.path ? undefined : m.vllm.model) },
  }
}

/** The model is copied head → workers over the fabric: the host checks verify that SSH (RELAY_SSH_FAILED). */
export const modelRelays = (m: Manifest): boolean => m.model?.distribution === 'relay' && m.nodes.length > 1

/** A revision that is not a commit can move: the deploy says so. */
export const pinnedRevision = (revision: string): boolean => /^[0-9a-f]{40}$/.test(revision)
