/**
 * The smoke test's part of the job summary: latency rows from its inference figures, and node rows
 * from the manifest and the cluster proof (which Ray node each placement-group bundle sits on).
 * Pure.
 */
import type { Manifest } from '../manifest/schema.js'
import type { Finding } from '../preflight/finding.js'
import type { ClusterProof } from '../smoke/cluster-proof.js'
import { nativeOf } from './node-rows.js'
import type { InferenceResult } from '../smoke/inference.js'
import type { SummaryLatency, SummaryNode } from './summary.js'

/**
 * One row per smoke request, then the streamed request's TTFT/ITL and the burst's p95; without a
 * burst, the p95 over the smoke's requests (the `p95-ms` output) gets a row of its own, so every
 * figure the outputs carry is in the table.
 */
export function latencyRowsFrom(i: InferenceResult | undefined): SummaryLatency[] {
  if (!i) return []
  const rows: SummaryLatency[] = i.requests.map((q) => ({
    name: q.label,
    passed: q.ok,
    totalMs: q.ms,
    ...(q.completionTokens !== undefined && { completionTokens: q.completionTokens }),
  }))
  if (i.stream) {
    rows.push({
      name: 'streamed request',
      passed: i.stream.ttftMs !== undefined,
      ...(i.stream.ttftMs !== undefined && { ttftMs: i.stream.ttftMs }),
      ...(i.stream.itlMs !== undefined && { itlMs: i.stream.itlMs }),
      completionTokens: i.stream.completionTokens,
      ...(i.stream.tokensPerSecond !== undefined && { tokensPerSecond: i.stream.tokensPerSecond }),
    })
  }
  if (i.burst) {
    rows.push({
      name: `burst of ${i.burst.requests}`,
      passed: i.burst.p95Ms !== undefined,
      ...(i.burst.p95Ms !== undefined && { p95Ms: i.burst.p95Ms }),
      ...(i.burst.tokensPerSecond !== undefined && { tokensPerSecond: i.burst.tokensPerSecond }),
    })
  } else if (i.p95Ms !== undefined) {
    const n = i.requests.filter((q) => q.ok).length
    rows.push({ name: `p95 over ${n} request${n === 1 ? '' : 's'}`, passed: true, p95Ms: i.p95Ms })
  }
  return rows
}

/**
 * Node rows as the smoke test sees the cluster: the Ray identity is the address of the Ray node
 * holding the node's placement-group bundles (the cluster proof); vLLM's own IP is not read here.
 */
export function smokeNodeRows(manifest: Manifest, proof: ClusterProof | undefined, findings: readonly Finding[]): SummaryNode[] {
  return manifest.nodes.map((node) => {
    const serving = proof?.serving.find((s) => s.node === node.name || s.ip === node.fabricIp)
    const port = node.ssh.port ?? manifest.ssh.port
    const codes = [...new Set(findings.filter((f) => f.node === node.name && f.severity !== 'info').map((f) => f.code))]
    const base = proof?.group
      ? serving?.alive
        ? `in the process group (${serving.bundles} rank${serving.bundles === 1 ? '' : 's'})`
        : 'not in the process group'
      : !proof?.placementGroup
        ? 'placement group not read'
        : serving
          ? `serving ${serving.bundles} bundle${serving.bundles === 1 ? '' : 's'}${serving.alive ? '' : ' (Ray node dead)'}`
          : node.gpus > 0
            ? 'serving no bundle'
            : 'no GPUs'
    return {
      name: node.name,
      role: node.role,
      sshAddress: port !== 22 ? `${node.ssh.host}:${port}` : node.ssh.host,
      fabricIp: node.fabricIp,
      ...(serving && !proof?.group && { rayIdentity: serving.ip, rayMatchesFabric: serving.ip === node.fabricIp }),
      ...(proof?.group && nativeOf(manifest, node, serving?.alive)),
      state: [base, ...codes].join(' · '),
    }
  })
}
