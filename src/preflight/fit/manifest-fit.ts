/**
 * The fit for a manifest: its `vllm` settings, the model's files as far as they were read, and
 * each node's memory (from the manifest's `fit.nodeMemory` for `plan`, from the facts for
 * `preflight` and the deploy) → the report and its findings. Pure.
 */
import { fail, ok, problem } from '../../result/result.js'
import { VLLM_CONTRACTS, contractFor } from '../../command/vllm-contract.js'
import type { Manifest } from '../../manifest/schema.js'
import { manifestVllmVersion } from '../../manifest/vllm-release.js'
import type { FactsBundle } from '../facts.js'
import type { Finding } from '../finding.js'
import { type FitInput, type FitReport, type NodeMemory, fitModel } from './fit.js'
import type { ModelFiles } from './local-model.js'
import { parseModelConfig } from './model-config.js'
import { serveArgs } from './serve-args.js'

const MIB = 1024 * 1024

/** What `fit.nodeMemory` says each GPU node has (plan). */
export function nodeMemoryOfManifest(m: Manifest): NodeMemory[] {
  const said = m.fit.nodeMemory
  if (!said) return []
  return m.nodes
    .filter((n) => n.gpus > 0)
    .map((n) => ({ node: n.name, unified: said.unified, totalBytes: said.bytes, gpus: n.gpus, source: 'fit.nodeMemory in the manifest' }))
}

/**
 * What each node's facts say it has: unified memory from the driver's total when it gives one, else
 * MemTotal, and what the host uses now (MemTotal − MemAvailable) when no release is running there
 * (a running release's memory is not the host's); discrete GPUs from nvidia-smi's memory.total.
 */
export function nodeMemoryOfFacts(facts: FactsBundle, m: Manifest): NodeMemory[] {
  return m.nodes.flatMap((n): NodeMemory[] => {
    const f = facts.nodes.find((x) => x.node === n.name && x.ok)
    const host = f?.host
    const gpu = f?.gpus[0]
    if (!f || n.gpus === 0) return []
    if (host?.unifiedMemory) {
      const total = gpu?.memoryTotalMiB !== undefined ? gpu.memoryTotalMiB * MIB : host.memTotalBytes
      if (total === undefined) return []
      const used =
        !f.container?.running && host.memTotalBytes !== undefined && host.memAvailableBytes !== undefined
          ? host.memTotalBytes - host.memAvailableBytes
          : undefined
      const source = gpu?.memoryTotalMiB !== undefined ? 'nvidia-smi memory.total' : '/proc/meminfo MemTotal'
      return [{ node: n.name, unified: true, totalBytes: total, gpus: n.gpus, source, ...(used !== undefined && { hostUsedBytes: used }) }]
    }
    if (gpu?.memoryTotalMiB === undefined) return []
    return [{ node: n.name, unified: false, totalBytes: gpu.memoryTotalMiB * MIB, gpus: n.gpus, source: `nvidia-smi memory.total (${gpu.name ?? 'GPU'})` }]
  })
}

function modelOf(files: ModelFiles): FitInput['model'] {
  if (!files.config) return fail(problem('MODEL_FIT_UNKNOWN', files.missing ?? 'config.json'))
  const shape = parseModelConfig(files.config.text, files.config.path)
  return shape.ok ? ok({ shape: shape.value, source: files.config.path }) : fail(problem('MODEL_FIT_UNKNOWN', shape.problem.message))
}

/** The fit of the manifest's model on these nodes. */
export function fitOfManifest(m: Manifest, files: ModelFiles, nodes: readonly NodeMemory[]): FitReport {
  const args = serveArgs([...(m.vllm.kvCacheMemoryBytes !== undefined ? ['--kv-cache-memory-bytes', String(m.vllm.kvCacheMemoryBytes)] : []), ...m.vllm.args])
  return fitModel({ model: modelOf(files), weights: files.weights, args, tp: m.vllm.tensorParallelSize, pp: m.vllm.pipelineParallelSize, nodes })
}

/** The report's findings; a footprint that could not be computed is an info naming what was missing (nothing is wrong with the cluster; the check did not run). */
export function fitFindings(report: FitReport, where: string, opts: { readonly unknownAsFinding?: boolean } = {}): Finding[] {
  if (report.computed) return report.nodes.flatMap((n) => n.findings)
  // preflight and the deploy say it in their text and progress; only plan, asked for the fit, lists it as a finding.
  if (!opts.unknownAsFinding) return []
  return [
    {
      code: 'MODEL_FIT_UNKNOWN',
      severity: 'info',
      node: null,
      message: `${where}: the model's footprint cannot be computed, so whether it fits is not checked: missing ${report.missing.join('; ')}.`,
      evidence: { Missing: report.missing.join('; ') },
      fix: 'Make the missing input readable (see the message), or set vllm.kvCacheMemoryBytes and --max-model-len from a measured start.',
    },
  ]
}

/**
 * `vllm.kvCacheMemoryBytes` against a vLLM release: one whose `vllm serve` lacks
 * `--kv-cache-memory-bytes` stops with "unrecognized arguments"; one older than every release whose
 * flags are known here cannot be shown to have it. `validate`/`plan` warn on the release the manifest
 * names; the deploy's fit stage refuses, before anything stops, an image whose release is not known
 * to have it (the image-contents stage has already refused one known to lack it).
 */
export function kvBytesFlagFinding(
  m: Manifest,
  named: { readonly version: string; readonly from: string },
  severity: Finding['severity'],
): Finding | undefined {
  if (m.vllm.kvCacheMemoryBytes === undefined) return undefined
  const contract = contractFor(named.version)
  if (contract?.flags.flags.includes('--kv-cache-memory-bytes')) return undefined
  const oldest = VLLM_CONTRACTS[0]!.vllm
  return {
    code: 'KV_BYTES_FLAG_UNKNOWN',
    severity,
    node: null,
    message: contract
      ? `vllm.kvCacheMemoryBytes is passed as --kv-cache-memory-bytes, which \`vllm serve\` of vLLM ${named.version} (${named.from}) does not have: it would stop with "unrecognized arguments".`
      : `vllm.kvCacheMemoryBytes is passed as --kv-cache-memory-bytes, and vLLM ${named.version} (${named.from}) is older than every release whose flags are known here (${oldest} and later): it cannot be shown to have the flag.`,
    evidence: { 'vLLM release': `${named.version} (${named.from})`, 'Flags known from': contract ? contract.vllm : `${oldest} on` },
    fix: `Use an image whose vLLM has --kv-cache-memory-bytes (${oldest} and later do), or remove vllm.kvCacheMemoryBytes and size the KV cache with --gpu-memory-utilization.`,
  }
}

/** The warning for the release the manifest names (vllm.version or the image tag), when there is one. */
export function kvBytesFlagFindings(m: Manifest): Finding[] {
  const named = manifestVllmVersion(m)
  const finding = named ? kvBytesFlagFinding(m, named, 'warning') : undefined
  return finding ? [finding] : []
}
