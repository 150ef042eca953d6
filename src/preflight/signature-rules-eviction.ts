/**
 * Log signatures of the kubelet evicting a pod (pkg/kubelet/eviction/helpers.go, Kubernetes 1.9–1.36): the status message of an
 * evicted pod, as `kubectl describe pod` and the pod's events print it. A node low on disk (ephemeral-storage: the container's
 * writable layer, its logs and emptyDir volumes — where a hub cache under /tmp or ~/.cache lands unless a volume is mounted there), a
 * pod or container over its own ephemeral-storage limit, an emptyDir over its sizeLimit (the `dshm` volume pods mount at /dev/shm),
 * or a node low on memory. The pod is stopped whatever vLLM was doing, so vLLM's own log usually just ends.
 */

import { nodeEvidence as node } from './line-node.js'
import type { RuleHit, SignatureRule } from './signature-rules.js'

/**
 * helpers.go's messages: nodeLowMessageFmt "The node was low on resource: %v. ", thresholdMetMessageFmt "Threshold quantity: %v,
 * available: %v. ", containerMessageFmt "Container %s was using %s, request is %s, has larger consumption of %v. " (1.26+; before:
 * "…, which exceeds its request of %s. "), containerEphemeralStorageMessageFmt "Container %s exceeded its local ephemeral storage limit
 * %q. ", podEphemeralStorageMessageFmt "Pod ephemeral local storage usage exceeds the total limit of containers %s. ", emptyDirMessageFmt
 * "Usage of EmptyDir volume %q exceeds the limit %q. ", nodeConditionMessageFmt "The node had condition: %v. ".
 */
const EVICTION =
  /\bThe node was low on resource: ([\w./-]+)\.|\bThe node had condition: \[?(\w+)\]?\.|\bContainer ([\w.-]+) exceeded its local ephemeral storage limit "([^"]+)"|\bPod ephemeral local storage usage exceeds the total limit of containers (-?\d+(?:\.\d+)?[A-Za-z]*)|\bUsage of EmptyDir volume "([^"]+)" exceeds the limit "([^"]+)"/

interface Eviction {
  readonly resource: 'disk' | 'memory' | 'other'
  readonly evidence: Record<string, string>
  readonly what: string
}

function evictionOf(m: RegExpExecArray, line: string): Eviction {
  const threshold = /Threshold quantity: (-?\d+(?:\.\d+)?[A-Za-z]*), available: (-?\d+(?:\.\d+)?[A-Za-z]*)/.exec(line)
  const container =
    /Container(?: ([\w.-]+))? was using (-?\d+(?:\.\d+)?[A-Za-z]*), (?:request is (-?\d+(?:\.\d+)?[A-Za-z]*), has larger consumption of|which exceeds its request of (-?\d+(?:\.\d+)?[A-Za-z]*))/.exec(
      line,
    )
  const evidence: Record<string, string> = {
    ...(threshold ? { 'Eviction threshold': threshold[1]!, Available: threshold[2]! } : {}),
    ...(container
      ? { ...(container[1] ? { Container: container[1] } : {}), 'Container was using': container[2]!, 'Its request': container[3] ?? container[4] ?? '' }
      : {}),
  }
  const low = m[1] ?? m[2]
  if (low !== undefined) {
    const resource = /^(?:ephemeral-storage|nodefs|imagefs|DiskPressure)/i.test(low) ? 'disk' : /^(?:memory|MemoryPressure)$/i.test(low) ? 'memory' : 'other'
    return { resource, evidence: { 'Node was low on': low, ...evidence }, what: `the node was low on ${low}` }
  }
  if (m[3] !== undefined)
    return {
      resource: 'disk',
      evidence: { Container: m[3], 'Ephemeral-storage limit': m[4] ?? '' },
      what: `container ${m[3]} went over its ephemeral-storage limit ${m[4]}`,
    }
  if (m[5] !== undefined)
    return { resource: 'disk', evidence: { 'Ephemeral-storage limit (pod)': m[5] }, what: `the pod went over its containers' ephemeral-storage limit ${m[5]}` }
  return {
    resource: 'disk',
    evidence: { 'emptyDir volume': m[6] ?? '', sizeLimit: m[7] ?? '' },
    what: `the emptyDir volume ${m[6]} went over its sizeLimit ${m[7]}`,
  }
}

const SHM_VOLUME = /shm/i

export const EVICTION_RULES: readonly SignatureRule[] = [
  {
    code: 'DISK_SPACE_LOW',
    pattern: EVICTION,
    hit: (m, line, _ray, context): RuleHit | null => {
      const e = evictionOf(m, line)
      if (e.resource !== 'disk') return null
      const shm = m[6] !== undefined && SHM_VOLUME.test(m[6])
      return {
        key: `eviction:${e.what}`,
        severity: 'error',
        message: `Kubernetes evicted the pod because ${e.what}${shm ? ": that volume is the pod's /dev/shm, which NCCL and Ray fill" : ''}. The pod was stopped wherever the start was, and whatever it was writing (a weights download, a cache) is cut short.`,
        evidence: { ...e.evidence, Evicted: 'by the kubelet', ...node(context) },
        fix: shm
          ? `Raise the sizeLimit of the ${m[6]} emptyDir (medium: Memory) to what NCCL and Ray need (several GB; it counts against the pod's memory limit), or drop the limit.`
          : "Put the weights on a volume, not the container's own disk: mount a PersistentVolume (or hostPath) and point HF_HOME / --download-dir at it; raise the pod's ephemeral-storage request and limit to what the image, logs and caches need; and check the node's disk (kubectl describe node: DiskPressure). Then start again: a download the eviction cut short has left partial files.",
      }
    },
  },
  {
    code: 'OOM_KILLED',
    pattern: EVICTION,
    hit: (m, line, _ray, context): RuleHit | null => {
      const e = evictionOf(m, line)
      if (e.resource !== 'memory') return null
      return {
        key: `eviction:${e.what}`,
        severity: 'error',
        message: `Kubernetes evicted the pod because ${e.what}: the kubelet stopped it to free the node's memory, before the kernel's OOM killer would have.`,
        evidence: { ...e.evidence, Killer: 'the kubelet (node-pressure eviction)', ...node(context) },
        fix: "Give the pod a memory request that covers what it uses (vLLM's host memory: the weights while loading, --swap-space, --cpu-offload-gb, Ray's object store) so the scheduler places it where that memory is free, and keep other pods off the node; kubectl describe node shows MemoryPressure and what else runs there.",
      }
    },
  },
]
