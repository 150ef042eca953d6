/**
 * The fabric test in a rollout's report: one line for the text report and the Action's output, one
 * short table (or one line when it did not run) for the job summary. Every figure is a rank's own
 * result (src/deploy/stages/fabric-test.ts): the path that ran and the bytes it moved, never the size
 * the plan asked for. Pure.
 */
import type { FabricTestRank, FabricTestReport } from '../deploy/rollout-types.js'
import { mib } from '../probe/collective-program.js'
import { escapeMarkdown as md } from './escape.js'

const UNKNOWN = '—'
const msText = (r: FabricTestRank): string => (r.msPerAllReduce === undefined ? UNKNOWN : `${r.msPerAllReduce.toFixed(1)} ms`)
const busText = (r: FabricTestRank): string => (r.busGBps === undefined ? UNKNOWN : `${r.busGBps.toFixed(2)} GB/s`)
const pathText = (r: FabricTestRank): string => `${r.path ?? UNKNOWN}${r.ncclNetwork ? `, NCCL network ${r.ncclNetwork}` : ''}`

/** `fabric test: passed: spark-a rank 0 stdlib TCP ring, 4 MiB, 10.0 ms per all-reduce, bus 0.40 GB/s; …` */
export function fabricTestLine(f: FabricTestReport): string {
  if (!('ranks' in f)) return `fabric test: ${f.status} (${f.reason})`
  const rank = (r: FabricTestRank) =>
    r.ok
      ? `${r.node} rank ${r.rank} ${pathText(r)}, ${r.bytes === undefined ? 'size not reported' : mib(r.bytes)}, ${msText(r)} per all-reduce, bus ${busText(r)}`
      : `${r.node} rank ${r.rank} FAILED ${r.error ?? ''}`.trimEnd()
  return `fabric test: ${f.status}: ${f.ranks.map(rank).join('; ')}`
}

/** The job summary's section: a heading and one row per node rank, or one line saying why it did not run. */
export function fabricTestMarkdown(f: FabricTestReport): string {
  if (!('ranks' in f)) return `**Fabric test:** ${f.status} (${md(f.reason)}).\n`
  const rows = f.ranks.map((r) =>
    r.ok
      ? `| ${md(r.node)} | ${r.rank} | ✅ ${md(pathText(r))} | ${r.bytes === undefined ? UNKNOWN : mib(r.bytes)} | ${msText(r)} | ${busText(r)} |`
      : `| ${md(r.node)} | ${r.rank} | ❌ ${md(r.error ?? 'failed')} | ${UNKNOWN} | ${UNKNOWN} | ${UNKNOWN} |`,
  )
  return [
    `#### Fabric test: ${f.status}`,
    '',
    '| Node | Rank | Path | All-reduced | Per all-reduce | Bus bandwidth |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n')
}

/** The Action's `fabric-test` output: passed | failed | disabled | skipped, empty when it did not come up. */
export const fabricTestOutput = (f: FabricTestReport | undefined): string => f?.status ?? ''
