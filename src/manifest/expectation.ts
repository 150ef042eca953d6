/**
 * What the cluster should look like, as far as the preflight checks care, taken from a validated
 * manifest. Pure. `diagnose` without a manifest has no expectation, and checks that need one are
 * skipped. Defined here, in the manifest stage, so the later stages import it and never the reverse.
 */
import { parseImageReference } from './image-reference.js'
import type { Manifest } from './schema.js'

export interface ExpectedNode {
  readonly name: string
  readonly role: 'head' | 'worker'
  /** SSH/management address (may be a hostname). */
  readonly sshHost: string
  /** The fabric IP this node should have and that Ray and vLLM should both use as its identity. */
  readonly fabricIp: string
  readonly gpus: number
}

export interface Expectation {
  readonly cluster: string
  readonly nodes: readonly ExpectedNode[]
  /** Fabric interface name(s), e.g. `enp1s0f1np1`. */
  readonly fabricInterfaces: readonly string[]
  /** Fabric subnet in CIDR form, e.g. `192.168.200.0/24`. */
  readonly fabricSubnet: string
  readonly tensorParallelSize: number
  readonly pipelineParallelSize: number
  /** Image reference every node should run (and its digest, if pinned). */
  readonly image?: string
  readonly imageDigest?: string
  /** Name of the Ray/vLLM container on every node. */
  readonly containerName: string
}

export function expectationFromManifest(manifest: Manifest): Expectation {
  const reference = parseImageReference(manifest.image.ref)
  const imageDigest = manifest.image.digest ?? (reference.ok ? reference.value.digest : undefined)
  return {
    cluster: manifest.cluster,
    nodes: manifest.nodes.map((node) => ({
      name: node.name,
      role: node.role,
      sshHost: node.ssh.host,
      fabricIp: node.fabricIp,
      gpus: node.gpus,
    })),
    fabricInterfaces: [...manifest.fabric.interfaces],
    fabricSubnet: manifest.fabric.subnet,
    tensorParallelSize: manifest.vllm.tensorParallelSize,
    pipelineParallelSize: manifest.vllm.pipelineParallelSize,
    image: manifest.image.ref,
    ...(imageDigest !== undefined && { imageDigest }),
    containerName: manifest.container.name,
  }
}
