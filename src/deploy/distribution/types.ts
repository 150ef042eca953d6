/**
 * One image distribution mode (image.distribution): everything about it in one module — the steps
 * `plan` shows for it, how the image gate delivers with it, and what the host checks must also
 * look at for it. The registry (index.ts) holds one per value of the manifest schema's enum.
 */
import type { Manifest, ManifestNode } from '../../manifest/schema.js'
import type { PlannedStep } from '../../plan/plan.js'
import type { Transport } from '../../transport/transport.js'

export type ImageAction = 'present' | 'pulled' | 'up-to-date' | 'loaded' | 'relayed' | 'failed'
export type NodeImage = { readonly action: ImageAction; readonly imageId?: string; readonly detail?: string }

/** What a delivery works with and records into. */
export interface Delivery {
  readonly m: Manifest
  readonly image: string
  readonly manifestPath: string
  readonly transports: ReadonlyMap<string, Transport>
  /** The nodes with a connection. */
  readonly nodes: readonly ManifestNode[]
  /** The image ID each node had before. */
  readonly before: ReadonlyMap<string, string | undefined>
  /** The image ID every node must end on, when known before delivery (the runner's, or a release's). */
  readonly want?: string
  readonly actions: Map<string, NodeImage>
  readonly findings: import('../../preflight/finding.js').Finding[]
  readonly addBytes: (n: number) => void
  readonly progress: (m: string) => void
  readonly signal?: AbortSignal
}

export interface Distribution {
  readonly name: Manifest['image']['distribution']
  /** The image comes from this machine's docker: the gate checks once that it is there, before any node is touched. */
  readonly fromRunner: boolean
  /** The plan's image phase runs its nodes at the same time. */
  readonly parallel: boolean
  /** What the host checks also look at for this mode, and says in its pass line. */
  readonly hostChecks: { readonly relay?: boolean; readonly alsoChecked?: string }
  /** The commands `plan` shows for one node. */
  planSteps(m: Manifest, node: ManifestNode, image: string): PlannedStep[]
  /** Bring the image onto the nodes that need it, recording what happened on each in `actions`. */
  deliver(d: Delivery): Promise<void>
}

const short = (id: string | undefined): string => (id ? id.replace(/^sha256:/, '').slice(0, 12) : '(none)')

/** A node that already has the wanted image ID is left alone. Returns true when it was. */
export function keepIfPresent(d: Delivery, node: string): boolean {
  const has = d.before.get(node)
  if (!d.want || has !== d.want) return false
  d.actions.set(node, { action: 'present', imageId: has })
  d.progress(`[${node}] image: ${short(has)} already present, nothing sent`)
  return true
}

export { short as shortImageId }
