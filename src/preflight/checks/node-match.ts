/**
 * NODE_DRIFT: the hosts of a cluster should match. Kernel, NVIDIA driver, the CUDA version the
 * driver supports and the docker engine, compared across nodes, as one finding with one row per
 * node naming only what differs. Whether each node's docker can give the container its GPUs (the
 * NVIDIA hook, runtime, CDI) is NVIDIA_RUNTIME_MISSING (container-gpu.ts), per node, with the fix.
 *
 * Severity (docs/deploy.md, "Node match"): a different NVIDIA driver or driver CUDA version is an
 * error: NCCL refuses to mix some driver pairs, and on GB10 drivers differ in the memory they leave
 * usable, so the same `gpu_memory_utilization` fits one node and not the other. Kernel and docker
 * versions are warnings: they break a cluster only sometimes (a kernel update that breaks RoCE on
 * one box), and a rolling OS update passes through such states. The container's own Ray, vLLM,
 * Python, torch and NCCL versions are VERSION_SKEW (consistency.ts), the image IMAGE_MISMATCH.
 */
import type { NodeFacts } from '../facts.js'
import type { Finding } from '../finding.js'
import type { CheckContext } from './check-context.js'

interface Aspect {
  readonly label: string
  readonly error: boolean
  readonly read: (f: NodeFacts) => string | undefined
}

const ASPECTS: readonly Aspect[] = [
  { label: 'NVIDIA driver', error: true, read: (f) => f.host?.driverVersion },
  { label: 'CUDA (driver)', error: true, read: (f) => f.host?.cudaVersion },
  { label: 'kernel', error: false, read: (f) => f.host?.kernel },
  { label: 'docker', error: false, read: (f) => (f.host?.docker?.ok ? f.host.docker.version : undefined) },
]

export function nodeDrift(ctx: CheckContext): Finding[] {
  const nodes = ctx.nodes.flatMap((n) => (n.facts?.host ? [{ name: n.name, facts: n.facts }] : []))
  if (nodes.length < 2) return []
  const differing = ASPECTS.filter((a) => {
    const values = nodes.map((n) => a.read(n.facts))
    return values.every((v) => v !== undefined) && new Set(values).size > 1
  })
  if (differing.length === 0) return []
  const error = differing.some((a) => a.error)
  const names = differing.map((a) => a.label)
  return [
    {
      code: 'NODE_DRIFT',
      severity: error ? 'error' : 'warning',
      node: null,
      message: `The nodes differ in ${names.join(', ')}.`,
      evidence: Object.fromEntries(nodes.map((n) => [n.name, differing.map((a) => `${a.label} ${a.read(n.facts)}`).join('; ')])),
      fix: `Bring every node to the same ${names.join(', ')} (the same OS image and driver package on each; DGX OS: apt install the same nvidia-driver and nvidia-container-toolkit versions, then reboot), and check with uname -r, cat /proc/driver/nvidia/version and docker version on each.`,
    },
  ]
}
