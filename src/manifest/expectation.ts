/** What the preflight checks should expect of the cluster, taken from a validated manifest. Pure. */
import type { Expectation } from '../preflight/expectation.js'
import { parseImageReference } from './image-reference.js'
import type { Manifest } from './schema.js'

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
