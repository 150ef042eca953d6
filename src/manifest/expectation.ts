/**
 * What the cluster should look like, as far as the preflight checks care, taken from a validated
 * manifest. Pure. `diagnose` without a manifest has no expectation, and checks that need one are
 * skipped. Defined here, in the manifest stage, so the later stages import it and never the reverse.
 */
import { type GpuRequest, gpuRequestOf } from './gpu-request.js'
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
  /** SSH login user and port on this node (for fixes that say `ssh user@host`). */
  readonly sshUser?: string
  readonly sshPort?: number
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
  /** `fabric.mtu` / `fabric.linkSpeedGbps`, when the manifest says. */
  readonly fabricMtu?: number
  readonly fabricLinkSpeedGbps?: number
  /** Ray's GCS port on the head (`ray.port`). */
  readonly rayPort?: number
  /** vLLM's `--gpu-memory-utilization` as `vllm.args` sets it (vLLM's default 0.9 otherwise). */
  readonly gpuMemoryUtilization?: number
  /** The container's environment as the manifest sets it (`container.env`). */
  readonly containerEnv?: Readonly<Record<string, string>>
  /** How the container asks docker for GPUs (`--gpus`, `--runtime`, CDI `--device`); unknown under a launch script. */
  readonly gpuRequest?: GpuRequest
}

/** vLLM's default `--gpu-memory-utilization` (vllm/config/cache.py, `gpu_memory_utilization: float = 0.9`). */
export const VLLM_DEFAULT_GPU_MEMORY_UTILIZATION = 0.9

/** `--gpu-memory-utilization X` or `--gpu-memory-utilization=X` in vLLM's arguments (the last one wins, as in argparse). */
export function gpuMemoryUtilizationOf(args: readonly string[]): number {
  let value = VLLM_DEFAULT_GPU_MEMORY_UTILIZATION
  args.forEach((arg, i) => {
    const text = arg === '--gpu-memory-utilization' ? args[i + 1] : arg.startsWith('--gpu-memory-utilization=') ? arg.split('=')[1] : undefined
    const n = text === undefined ? Number.NaN : Number(text)
    if (Number.isFinite(n) && n > 0 && n <= 1) value = n
  })
  return value
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
      sshUser: node.ssh.user ?? manifest.ssh.user,
      sshPort: node.ssh.port ?? manifest.ssh.port,
    })),
    fabricInterfaces: [...manifest.fabric.interfaces],
    fabricSubnet: manifest.fabric.subnet,
    tensorParallelSize: manifest.vllm.tensorParallelSize,
    pipelineParallelSize: manifest.vllm.pipelineParallelSize,
    image: manifest.image.ref,
    ...(imageDigest !== undefined && { imageDigest }),
    containerName: manifest.container.name,
    ...(manifest.fabric.mtu !== undefined && { fabricMtu: manifest.fabric.mtu }),
    ...(manifest.fabric.linkSpeedGbps !== undefined && { fabricLinkSpeedGbps: manifest.fabric.linkSpeedGbps }),
    rayPort: manifest.ray.port,
    gpuMemoryUtilization: gpuMemoryUtilizationOf(manifest.vllm.args),
    containerEnv: manifest.container.env,
    gpuRequest: gpuRequestOf(manifest),
  }
}
