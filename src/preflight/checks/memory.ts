/**
 * GB10 unified memory: the GPU takes its memory from the host's, and vLLM reserves
 * `gpu_memory_utilization × total` at start-up. vLLM's own start-up check refuses when free memory is
 * below that ("Free memory on device ... is less than desired GPU memory utilization"); on unified
 * memory a start that gets past it can still wedge the host (NV_ERR_NO_MEMORY in the kernel log).
 * So before a start, the memory available now must cover the reservation.
 */
import type { Finding } from '../finding.js'
import type { CheckContext } from './check-context.js'
import { formatBytes } from './host.js'

const MIB = 1024 * 1024

/** UNIFIED_MEMORY_SHORT: on a node whose GPU shares host memory, less is available than vLLM will reserve. */
export function unifiedMemoryShort(ctx: CheckContext): Finding[] {
  const utilization = ctx.expected?.gpuMemoryUtilization
  if (utilization === undefined) return []
  return ctx.nodes.flatMap((node): Finding[] => {
    const f = node.facts
    const host = f?.host
    if (!f || !host?.unifiedMemory) return []
    // A running release holds its own reservation: what is free now says nothing about the next start.
    if (f.container?.running) return []
    const gpu = f.gpus[0]
    // The driver's numbers where it gives them; GB10's driver reports [N/A], so the host's meminfo.
    const total = gpu?.memoryTotalMiB !== undefined ? gpu.memoryTotalMiB * MIB : host.memTotalBytes
    const available = gpu?.memoryFreeMiB !== undefined ? gpu.memoryFreeMiB * MIB : host.memAvailableBytes
    if (total === undefined || available === undefined) return []
    const needed = Math.ceil(total * utilization)
    if (available >= needed) return []
    const fits = Math.floor((available / total) * 100 - 2) / 100
    const source = gpu?.memoryTotalMiB !== undefined ? 'nvidia-smi memory.total / memory.free' : '/proc/meminfo MemTotal / MemAvailable'
    return [
      {
        code: 'UNIFIED_MEMORY_SHORT',
        severity: 'error',
        node: node.name,
        message: `${node.name}'s GPU shares host memory, and only ${formatBytes(available)} is available of the ${formatBytes(needed)} vLLM reserves (gpu_memory_utilization ${utilization} × ${formatBytes(total)}): vLLM refuses to start, or wedges the host.`,
        evidence: {
          [`${node.name} GPU`]: `${gpu?.name ?? '(unknown)'} (unified memory)`,
          Total: formatBytes(total),
          Available: formatBytes(available),
          gpu_memory_utilization: String(utilization),
          'vLLM reserves': formatBytes(needed),
          Source: source,
        },
        fix: `Free memory on ${node.name} (stop what else runs there; sync; echo 3 > /proc/sys/vm/drop_caches releases the page cache, which GB10's driver does not count as free), or lower --gpu-memory-utilization in vllm.args to ${fits > 0 ? fits : 'what fits'}.`,
      },
    ]
  })
}

/** GPU_MEMORY_EXHAUSTED: the kernel log shows the GPU driver out of memory (NV_ERR_NO_MEMORY) or the OOM killer at work. */
export function gpuMemoryExhausted(ctx: CheckContext): Finding[] {
  return ctx.nodes.flatMap((node): Finding[] => {
    const lines = node.facts?.host?.kernelLog ?? []
    if (lines.length === 0) return []
    const nv = lines.filter((l) => l.includes('NV_ERR_NO_MEMORY'))
    return [
      {
        code: 'GPU_MEMORY_EXHAUSTED',
        severity: nv.length > 0 ? 'error' : 'warning',
        node: node.name,
        message:
          nv.length > 0
            ? `${node.name}'s kernel log shows the NVIDIA driver out of memory (NV_ERR_NO_MEMORY): the model and its KV cache did not fit.`
            : `${node.name}'s kernel log shows the OOM killer at work: memory ran out there.`,
        evidence: { [`${node.name} kernel log (dmesg), last lines`]: lines.slice(-3).join(' | ') },
        fix: `Lower --gpu-memory-utilization (and --max-model-len) in vllm.args, or serve a smaller model; on GB10 leave room for the host: the GPU's memory is the host's.`,
      },
    ]
  })
}
