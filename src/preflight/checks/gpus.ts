/** Enough GPUs for TP × PP, and one on the node that runs `vllm serve`. */

import type { Finding } from '../finding.js'
import { rayGpus, type CheckContext } from './check-context.js'

/**
 * Ray's GPU total: the sum over alive nodes when every node's resource map is complete (ray.nodes()
 * is current), else `ray status` totals (the autoscaler's snapshot, which lags a just-joined node by
 * seconds, but is all a pasted `ray status` or a truncated node list gives).
 */
function rayGpuTotal(ctx: CheckContext): number | undefined {
  const perNode = ctx.aliveRayNodes.map(rayGpus)
  if (perNode.length > 0 && perNode.every((g) => g !== undefined)) return perNode.reduce<number>((a, g) => a + (g ?? 0), 0)
  return ctx.ray?.totals?.['GPU']
}

/** GPU_SHORTFALL: Ray (or a node) has fewer GPUs than the parallel layout needs. */
export function gpuShortfall(ctx: CheckContext): Finding[] {
  const expected = ctx.expected
  if (!expected) return []
  const required = expected.tensorParallelSize * expected.pipelineParallelSize
  const requiredText = `${required} (TP ${expected.tensorParallelSize} × PP ${expected.pipelineParallelSize})`
  const findings: Finding[] = []
  const total = rayGpuTotal(ctx)
  if (ctx.ray && total !== undefined && total < required) {
    const perNode = ctx.aliveRayNodes.map((r) => `${r.address || r.nodeId.slice(0, 8) || '?'}: ${rayGpus(r) ?? '?'}`)
    findings.push({
      code: 'GPU_SHORTFALL',
      severity: 'error',
      node: null,
      message: `Ray counts ${total} GPU(s) but tensor × pipeline parallelism needs ${required}, so vLLM's placement group cannot be placed.`,
      evidence: {
        'Ray total GPU': String(total),
        'Required GPUs': requiredText,
        ...(perNode.length > 0 ? { 'GPU per alive Ray node': perNode.join(', ') } : {}),
        'Ray view': ctx.ray.source,
      },
      fix: 'Make every node join Ray with its GPUs: run each container with --gpus all (or ray start --num-gpus=<n>) and check `ray status` shows the total; otherwise lower --tensor-parallel-size / --pipeline-parallel-size.',
    })
  }
  for (const node of ctx.nodes) {
    const want = node.expected?.gpus
    const have = node.facts?.gpus.length
    // With host facts, NO_GPU_VISIBLE (a host check) already names this node.
    if (want === undefined || have === undefined || have >= want || node.facts?.host) continue
    findings.push({
      code: 'GPU_SHORTFALL',
      severity: 'error',
      node: node.name,
      message: `${node.name} shows ${have} GPU(s) but the manifest expects ${want}.`,
      evidence: { [`GPUs on ${node.name} (nvidia-smi)`]: String(have), 'Manifest GPUs': String(want) },
      fix: `On ${node.name} check the NVIDIA driver (nvidia-smi) and that no GPU is hidden (CUDA_VISIBLE_DEVICES), or correct gpus: for ${node.name} in the manifest.`,
    })
  }
  return findings
}

/** HEAD_WITHOUT_GPU: the driver node (Ray head, where vllm serve runs) has no GPU. */
export function headWithoutGpu(ctx: CheckContext): Finding[] {
  const head = ctx.head
  const rayHead = (head && ctx.rayNodeOf(head)?.alive ? ctx.rayNodeOf(head) : undefined) ?? ctx.aliveRayNodes.find((r) => r.isHead)
  const rayHeadGpus = rayHead ? rayGpus(rayHead) : undefined
  const smiGpus = head?.facts?.gpus.length
  if (rayHeadGpus !== 0 && smiGpus !== 0) return []
  const name = head?.name ?? rayHead?.address ?? 'the head'
  const severity = ctx.executor.pins === false ? 'warning' : 'error'
  return [
    {
      code: 'HEAD_WITHOUT_GPU',
      severity,
      node: head?.name ?? rayHead?.address ?? null,
      message: `The head ${name}, where vllm serve runs, has no GPU${rayHeadGpus === 0 ? ' in Ray' : ''}, and vLLM's driver needs one${severity === 'warning' ? ` unless ${ctx.executor.executor} is in use` : ''}.`,
      evidence: {
        ...(rayHead ? { 'Ray head': rayHead.address || rayHead.nodeId, 'GPU resource on Ray head': String(rayHeadGpus ?? '?') } : {}),
        ...(smiGpus !== undefined ? { [`GPUs on ${name} (nvidia-smi)`]: String(smiGpus) } : {}),
        'vLLM executor': ctx.executor.reason,
      },
      fix: `Run the head's container on ${name} with --gpus all so Ray registers its GPU (or ray start --head --num-gpus=1), or make a GPU node the head: the classic executor pins bundle 0 to the driver and fails with "Current node has no GPU available".`,
    },
  ]
}
