/**
 * The parts of a manifest the cross-field rules read, from a valid manifest: all of it. Without zod,
 * so the fast path (manifest-file.ts) runs the rules without building the schema; parts.ts adds the
 * parts of an invalid manifest, which need it. Pure.
 */
import type {
  ContainerSettings,
  Fabric,
  ImageSettings,
  LaunchSettings,
  Manifest,
  ManifestNode,
  RaySettings,
  SmokeSettings,
  SshSettings,
  VllmSettings,
} from './schema.js'

export interface IndexedNode {
  /** Position in the manifest's `nodes` list. */
  readonly index: number
  readonly node: ManifestNode
}

export interface ManifestParts {
  readonly ssh?: SshSettings
  readonly fabric?: Fabric
  /** The nodes that validated. */
  readonly nodes: readonly IndexedNode[]
  /** False when the list or some node did not validate; rules that count over all nodes then stay quiet. */
  readonly allNodes: boolean
  readonly image?: ImageSettings
  readonly container?: ContainerSettings
  readonly ray?: RaySettings
  readonly vllm?: VllmSettings
  readonly launch?: LaunchSettings
  readonly smoke?: SmokeSettings
}

export function partsOfManifest(manifest: Manifest): ManifestParts {
  return { ...manifest, nodes: manifest.nodes.map((node, index) => ({ index, node })), allNodes: true }
}
