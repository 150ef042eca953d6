/**
 * Rows 2, 3 and 4: the deploy command on the lab.
 * - 4: image delivery through the deploy's own image gate (src/deploy/image-gate.ts) with
 *   `image.distribution` pull, load and relay, every node cold first, against the naive
 *   baseline and the ideal (delivery.ts);
 * - 2: a cold deploy (image absent, forced new release) against an unchanged redeploy, the
 *   vLLM start-up stage (model load) excluded, with the image bytes the runner sent in each;
 * - 3: a forced deploy (image already on every node) to 1, 2 and 4 lab nodes.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { parseDocument } from 'yaml'
import { imageGate } from '../../../src/deploy/image-gate.js'
import type { RolloutStage } from '../../../src/deploy/rollout.js'
import { labTransports, labUp } from '../../support/lab.js'
import type { Manifest } from '../../../src/manifest/schema.js'
import { deployTask } from '../../../src/tasks/deploy-task.js'
import { log, timed } from '../measure.js'
import { type Row, median, samples } from '../table.js'
import type { DeliveryYardsticks } from './delivery.js'
import { coldNode } from './delivery.js'
import { type BenchLab, benchLab } from './lab-context.js'
import { type RoundTrips, countingConnect, nodeCpuReader, setNodeCpus, tripsText } from '../node-load.js'

type Distribution = Manifest['image']['distribution']

/** The lab's manifest file with another image ref and distribution, in a temp dir. */
function manifestVariant(lab: BenchLab, dir: string, ref: string, distribution: Distribution): string {
  const doc = parseDocument(readFileSync(lab.info.manifestPath, 'utf8'))
  doc.setIn(['image', 'ref'], ref)
  doc.setIn(['image', 'distribution'], distribution)
  const path = join(dir, `manifest-${distribution}.yml`)
  writeFileSync(path, doc.toString())
  return path
}

/** Which ref each distribution delivers: the registry's for pull, this machine's local tag for load and relay. */
const refFor = (lab: BenchLab, d: Distribution): string => (d === 'pull' ? lab.info.workloadImage.ref : lab.info.workloadImage.localRef)

/**
 * Relay keeps the runner's `docker save` archive for the next relay of the same image
 * (src/deploy/runner-archive.ts, under $XDG_CACHE_HOME): `fn` runs with a cache of its own, empty at
 * the start, so a cold delivery is cold on the runner too, and no archive outlives the row.
 */
async function withEmptyArchiveCache<T>(fn: () => Promise<T>): Promise<T> {
  const before = process.env.XDG_CACHE_HOME
  const dir = mkdtempSync(join(tmpdir(), 'vrd-bench-cache-'))
  process.env.XDG_CACHE_HOME = dir
  try {
    return await fn()
  } finally {
    if (before === undefined) delete process.env.XDG_CACHE_HOME
    else process.env.XDG_CACHE_HOME = before
    rmSync(dir, { recursive: true, force: true })
  }
}

export const imageDeliveryRows = (lab: BenchLab, y: DeliveryYardsticks): Promise<Row[]> => withEmptyArchiveCache(() => deliveryRows(lab, y))

async function deliveryRows(lab: BenchLab, y: DeliveryYardsticks): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'vrd-bench-delivery-'))
  const transports = await labTransports(lab.manifest, lab.info.dir)
  const results: { d: Distribution | 'relay-cached'; ms: number; bytesSent: number }[] = []
  try {
    // VRD_BENCH_DELIVERIES=relay measures only those (the table rows of the others are left out).
    const wanted = process.env.VRD_BENCH_DELIVERIES?.split(',').map((x) => x.trim())
    for (const d of (['pull', 'load', 'relay'] as const).filter((x) => !wanted || wanted.includes(x))) {
      const path = manifestVariant(lab, dir, refFor(lab, d), d)
      const m: Manifest = { ...lab.manifest, image: { ...lab.manifest.image, ref: refFor(lab, d), distribution: d } }
      for (const n of m.nodes) await coldNode(lab, n, y.imageId)
      const { ms, value } = await timed(() => imageGate(m, refFor(lab, d), transports, { manifestPath: path }))
      if (!value.ok) throw new Error(`${d}: ${value.findings.map((f) => `${f.code}: ${f.message}`).join('; ')}`)
      results.push({ d, ms, bytesSent: value.bytesSent })
      log(`row 4: ${d} to ${m.nodes.length} cold nodes in ${Math.round(ms)} ms, ${value.bytesSent} bytes from the runner`)
      if (d !== 'relay') continue
      // Again to cold nodes, the runner now holding the archive the first relay kept: no docker save.
      for (const n of m.nodes) await coldNode(lab, n, y.imageId)
      const again = await timed(() => imageGate(m, refFor(lab, d), transports, { manifestPath: path }))
      if (!again.value.ok) throw new Error(`relay, cached: ${again.value.findings.map((f) => `${f.code}: ${f.message}`).join('; ')}`)
      results.push({ d: 'relay-cached', ms: again.ms, bytesSent: again.value.bytesSent })
      log(`row 4: relay again (the runner's archive kept) to ${m.nodes.length} cold nodes in ${Math.round(again.ms)} ms`)
    }
  } finally {
    await Promise.all([...transports.values()].map((t) => t.close()))
    rmSync(dir, { recursive: true, force: true })
  }
  const n = lab.manifest.nodes.length
  const naive = samples('ms', y.naiveMs)
  const p = y.pinned ? '4p' : '4'
  const where = y.pinned ? ', a core per node' : ''
  const rows: Row[] = results.map((r) => ({
    id: `${p}-${r.d}`,
    figure:
      r.d === 'relay-cached'
        ? `image delivery \`relay\` to ${n} cold nodes again, the runner holding the archive the first relay kept (no docker save; deploy's image gate${where}; ${(r.bytesSent / 1e6).toFixed(0)} MB from the runner)`
        : `image delivery \`${r.d}\` to ${n} cold nodes (deploy's image gate${where}; ${(r.d === 'relay' ? 'docker save, the archive kept on the runner; ' : '') + (r.bytesSent / 1e6).toFixed(0)} MB from the runner)`,
    value: samples('ms', [r.ms]),
    baselineLabel: `naive \`docker save | ssh | docker load\`, nodes in turn`,
    baseline: naive,
    goal: r.d === 'relay' ? { kind: 'speedupMin', limit: 2 } : { kind: 'none' },
  }))
  const cached = results.find((r) => r.d === 'relay-cached')
  if (cached)
    rows.push({
      id: `${p}-relay-cached-floor-topology`,
      figure: `image delivery \`relay\` to ${n} cold nodes again, the runner's archive kept${where}`,
      value: samples('ms', [cached.ms]),
      baselineLabel:
        "relay's shape with raw streams (the archive read from a file on the runner, as here): runner → head `tee` → /dev/null and → ssh → each worker's /dev/null, + every node's docker load at once",
      baseline: samples('ms', [median(y.topologyMs) + median(y.allLoadsMs)]),
      goal: { kind: 'none' },
    })
  const relay = results.find((r) => r.d === 'relay')
  if (!relay) return rows
  const linkMs = (y.archiveBytes / 1e6 / median(y.linkMBps)) * 1000
  rows.push(
    {
      id: `${p}-relay-ideal`,
      figure: `image delivery \`relay\` to ${n} cold nodes${where}`,
      value: samples('ms', [relay.ms]),
      baselineLabel: 'ideal: bytes ÷ link rate + one docker load',
      baseline: samples('ms', [y.idealMs]),
      goal: { kind: 'ratioMax', limit: 1.5 },
    },
    {
      id: `${p}-relay-leg`,
      figure: `image delivery \`relay\` to ${n} cold nodes${where}`,
      value: samples('ms', [relay.ms]),
      baselineLabel: "the slowest node's own streamed load (its naive leg, median)",
      baseline: samples('ms', [Math.max(...Object.values(y.legMs).map((v) => median(v)))]),
      goal: { kind: 'none' },
      note: `relay runs every node's load at once, so its bound is the slowest node's streamed load; the naive baseline is the sum of the legs, so for ${n} nodes relay can be at most ${n}× faster, exactly ${n}× only with equal legs and no cost of its own`,
    },
    {
      id: `${p}-relay-floor`,
      figure: `image delivery \`relay\` to ${n} cold nodes${where}`,
      value: samples('ms', [relay.ms]),
      baselineLabel: "this machine's floor: bytes ÷ link rate + every node's docker load at once",
      baseline: samples('ms', [linkMs + median(y.allLoadsMs)]),
      goal: { kind: 'ratioMax', limit: 1.2 },
      note: "leaves out relay's second hop (the head's tee, its ssh to each worker, each worker's sshd): see -floor-topology",
    },
    {
      id: `${p}-relay-floor-topology`,
      figure: `image delivery \`relay\` to ${n} cold nodes${where}`,
      value: samples('ms', [relay.ms]),
      baselineLabel: "relay's shape with raw streams: runner → head `tee` → /dev/null and → ssh → each worker's /dev/null, + every node's docker load at once",
      baseline: samples('ms', [median(y.topologyMs) + median(y.allLoadsMs)]),
      goal: { kind: 'ratioMax', limit: 1.2 },
    },
  )
  return rows
}

interface DeployRun {
  readonly result: string
  readonly totalMs: number
  /** Total minus the vLLM start-up stage (the model load). */
  readonly withoutModelMs: number
  readonly bytesSent: number
  readonly stages: Readonly<Record<string, number>>
  /** This process's CPU time (user + system) over the deploy: the tool's own work, ssh2's crypto included. */
  readonly cpuMs: number
  /** Time in no stage at all: connecting to the nodes, the manifest, the report, closing. */
  readonly outsideMs: number
  /** The commands sent to each node per stage, and those sent one after the other. */
  readonly trips: RoundTrips
  /** Each node's CPU time (its container's cgroup) per stage, ms, when measured; stages that overlap count it in both. */
  readonly nodeCpu?: Readonly<Record<string, Readonly<Record<string, number>>>>
  /** Each node's CPU time over the whole deploy, ms, when measured. */
  readonly nodeCpuTotal?: Readonly<Record<string, number>>
}

/** Milliseconds of [start, end) intervals covered by none of them. */
const uncovered = (totalMs: number, spans: readonly (readonly [number, number])[]): number => {
  let covered = 0
  let reach = 0
  for (const [a, b] of [...spans].sort((x, y) => x[0] - y[0])) {
    const from = Math.max(a, reach)
    if (b > from) covered += b - from
    reach = Math.max(reach, b)
  }
  return totalMs - covered
}

/**
 * The stages that wait for the containers' own start-up, not for this tool: Ray's head and workers
 * starting (start.sh: `docker run`, `ray start`), Ray registering every node, vLLM loading the model.
 */
const CONTAINER_START_UP: readonly string[] = ['ray-head', 'ray-workers', 'ray-cluster', 'vllm']

/** A deploy's time minus its containers' start-up: the tool's own share (its CPU and its waits on the nodes' commands). */
export const toolShareMs = (r: DeployRun): number => r.totalMs - CONTAINER_START_UP.reduce((s, k) => s + (r.stages[k] ?? 0), 0)

/** Per node, b − a. */
const minus = (b: Map<string, number>, a: Map<string, number>): Record<string, number> => Object.fromEntries([...b].map(([k, v]) => [k, v - (a.get(k) ?? v)]))

async function deployOnce(lab: BenchLab, path: string, opts: { force?: boolean; release: string; nodeCpu?: () => Map<string, number> }): Promise<DeployRun> {
  const open = new Map<RolloutStage, number>()
  const stages: Record<string, number> = {}
  const spans: [number, number][] = []
  // The stage a command is charged to: the last one that started and has not ended.
  const live: string[] = []
  const { connect, trips } = countingConnect(lab.credentials, () => live[live.length - 1] ?? '(no stage)')
  const cpuAt = new Map<string, Map<string, number>>()
  const nodeCpu: Record<string, Record<string, number>> = {}
  const nodeCpuStart = opts.nodeCpu?.()
  let vllmClosed = false
  const started = performance.now()
  const cpu = process.cpuUsage()
  const out = await deployTask(path, {
    credentials: lab.credentials,
    connect,
    env: process.env,
    release: opts.release,
    ...(opts.force && { force: true }),
    onStage: (stage, event) => {
      if (event === 'start') {
        live.push(stage)
        if (opts.nodeCpu) cpuAt.set(stage, opts.nodeCpu())
      } else {
        const i = live.lastIndexOf(stage)
        if (i >= 0) live.splice(i, 1)
        const from = cpuAt.get(stage)
        if (opts.nodeCpu && from) {
          const d = minus(opts.nodeCpu(), from)
          nodeCpu[stage] = Object.fromEntries(Object.entries(d).map(([k, v]) => [k, v + (nodeCpu[stage]?.[k] ?? 0)]))
        }
      }
      // vLLM's start-up: the serve stage reports only its phase (the vllm serve command); its
      // start-up watcher (until /health answers, the model load) runs after it in no phase, up to
      // the next stage. So `vllm` is counted from its start to whatever stage starts next.
      if (event === 'start' && open.has('vllm') && stage !== 'vllm' && stages.vllm !== undefined && !vllmClosed) {
        const from = open.get('vllm')!
        stages.vllm = performance.now() - from
        spans.push([from - started, performance.now() - started])
        vllmClosed = true
      }
      if (event === 'start') open.set(stage, performance.now())
      else if (stage === 'vllm')
        stages.vllm = 0 // closed when the next stage starts
      else {
        const from = open.get(stage) ?? performance.now()
        stages[stage] = (stages[stage] ?? 0) + performance.now() - from
        spans.push([from - started, performance.now() - started])
      }
    },
  })
  const totalMs = performance.now() - started
  const used = process.cpuUsage(cpu)
  const json = out.json as { result?: string; image?: { bytesSent: number } }
  if (out.exitCode !== 0) throw new Error(`deploy ${opts.release} failed: ${out.headline}`)
  return {
    result: json.result ?? '?',
    totalMs,
    withoutModelMs: totalMs - (stages.vllm ?? 0),
    bytesSent: json.image?.bytesSent ?? 0,
    stages,
    cpuMs: (used.user + used.system) / 1000,
    outsideMs: uncovered(totalMs, spans),
    trips,
    ...(opts.nodeCpu && nodeCpuStart && { nodeCpu, nodeCpuTotal: minus(opts.nodeCpu(), nodeCpuStart) }),
  }
}

/** `stage N ms` per node (the mean over the nodes) for the stages of the tool's share. */
const nodeCpuText = (r: DeployRun): string => {
  const mean = (x: Readonly<Record<string, number>>) => Object.values(x).reduce((a, b) => a + b, 0) / Math.max(1, Object.keys(x).length)
  const per = Object.entries(r.nodeCpu ?? {})
    .filter(([s]) => !CONTAINER_START_UP.includes(s))
    .map(([s, x]) => `${s} ${Math.round(mean(x))}`)
  return `${per.join(', ')}; whole deploy ${Math.round(mean(r.nodeCpuTotal ?? {}))} ms`
}

const stageText = (s: Readonly<Record<string, number>>): string =>
  Object.entries(s)
    .filter(([, ms]) => ms >= 50)
    .map(([k, ms]) => `${k} ${(ms / 1000).toFixed(1)} s`)
    .join(', ')

export const redeployRow = (lab: BenchLab, y: DeliveryYardsticks): Promise<Row> => withEmptyArchiveCache(() => redeploy(lab, y))

async function redeploy(lab: BenchLab, y: DeliveryYardsticks): Promise<Row> {
  const dir = mkdtempSync(join(tmpdir(), 'vrd-bench-deploy-'))
  try {
    const path = manifestVariant(lab, dir, lab.info.workloadImage.localRef, 'relay')
    for (const n of lab.manifest.nodes) await coldNode(lab, n, y.imageId)
    const release = `bench-${Date.now().toString(36)}`
    const cold = await deployOnce(lab, path, { force: true, release })
    log(`row 2: cold deploy ${cold.result} in ${Math.round(cold.totalMs)} ms (${stageText(cold.stages)}), ${cold.bytesSent} bytes`)
    const again = await deployOnce(lab, path, { release })
    log(`row 2: redeploy ${again.result} in ${Math.round(again.totalMs)} ms (${stageText(again.stages)}), ${again.bytesSent} bytes`)
    if (again.result !== 'unchanged') throw new Error(`the redeploy of the same release was "${again.result}", not unchanged`)
    return {
      id: '2',
      figure: `unchanged redeploy (${again.bytesSent} image bytes moved)`,
      value: samples('ms', [again.withoutModelMs]),
      baselineLabel: `cold deploy, model load excluded (${(cold.bytesSent / 1e6).toFixed(0)} MB moved, relay)`,
      baseline: samples('ms', [cold.withoutModelMs]),
      goal: { kind: 'ratioMax', limit: 0.1 },
      note: `bytes: ${again.bytesSent} in the redeploy (goal 0), ${cold.bytesSent} in the cold deploy; cold stages: ${stageText(cold.stages)}; redeploy stages: ${stageText(again.stages)}`,
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Every lab node's CPU quota for rows 3-quota (cores; VRD_BENCH_NODE_CPUS, default 0.4: 4 nodes fit this machine's 2 cores). */
const nodeCpus = (): number => Number(process.env.VRD_BENCH_NODE_CPUS ?? '0.4')

const runLine = (n: number, how: string, run: DeployRun): string =>
  `row 3: ${n} node(s)${how}: ${Math.round(run.withoutModelMs)} ms without the model load, tool's share ${Math.round(toolShareMs(run))} ms, CPU ${Math.round(run.cpuMs)} ms, in no stage ${Math.round(run.outsideMs)} ms (${stageText(run.stages)}); node CPU per node, ms: ${nodeCpuText(run)}; commands per node sent/serial: ${tripsText(run.trips)}`

/**
 * Row 3, and 3-tool: the same deploys with the containers' start-up taken out (the tool's share:
 * total minus the Ray start-up stages and vLLM's), its CPU time beside. 3-quota and 3-quota-tool:
 * the same timed deploy again with every node container held to the same CPU quota for every
 * node count (separate machines of equal size). Changes the lab's node count; the caller restores
 * it. `VRD_BENCH_FANOUT=1,4` picks the node counts.
 */
export async function fanOutRow(lab0: BenchLab, counts: readonly number[] = (process.env.VRD_BENCH_FANOUT ?? '1,2,4').split(',').map(Number)): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'vrd-bench-fanout-'))
  const byCount = new Map<number, DeployRun>()
  const quotaByCount = new Map<number, DeployRun>()
  const cpus = nodeCpus()
  try {
    for (const n of counts) {
      log(`row 3: lab with ${n} node(s)`)
      const info = await labUp({ dir: lab0.info.dir, nodes: n, onProgress: (m) => log(`lab: ${m}`) })
      const lab = await benchLab(info)
      const containers = info.nodes.map((x) => x.container)
      const nodeCpu = nodeCpuReader(info.nodes)
      const path = manifestVariant(lab, dir, lab.info.workloadImage.localRef, 'relay')
      // Untimed: put the image and a first release on every node, so the timed deploy moves no image.
      await deployOnce(lab, path, { force: true, release: `bench-fan-${n}-warm` })
      const run = await deployOnce(lab, path, { force: true, release: `bench-fan-${n}`, nodeCpu })
      log(runLine(n, '', run))
      byCount.set(n, run)
      try {
        setNodeCpus(containers, cpus)
        const q = await deployOnce(lab, path, { force: true, release: `bench-fan-${n}-q`, nodeCpu })
        log(runLine(n, `, ${cpus} cores each`, q))
        quotaByCount.set(n, q)
      } finally {
        setNodeCpus(containers, undefined)
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  const most = counts[counts.length - 1]!
  const share = (r: DeployRun) =>
    `${(toolShareMs(r) / 1000).toFixed(1)} s (CPU ${(r.cpuMs / 1000).toFixed(1)} s, in no stage ${(r.outsideMs / 1000).toFixed(1)} s)`
  const rowsOf = (runs: Map<number, DeployRun>, id: string, how: string): Row[] => {
    const one = runs.get(counts[0]!)!
    return [
      {
        id,
        figure: `fan-out: forced deploy to ${most} lab nodes (image present, model load excluded${how})`,
        value: samples('ms', [runs.get(most)!.withoutModelMs]),
        baselineLabel: `the same to ${counts[0]} node`,
        baseline: samples('ms', [one.withoutModelMs]),
        goal: { kind: 'ratioMax', limit: 1.3 },
        note: counts.map((n) => `${n} node(s): ${(runs.get(n)!.withoutModelMs / 1000).toFixed(1)} s (${stageText(runs.get(n)!.stages)})`).join('; '),
      },
      {
        id: `${id}-tool`,
        figure: `fan-out, the tool's share: the deploy to ${most} lab nodes without the containers' start-up (${CONTAINER_START_UP.join(', ')}${how})`,
        value: samples('ms', [toolShareMs(runs.get(most)!)]),
        baselineLabel: `the same to ${counts[0]} node`,
        baseline: samples('ms', [toolShareMs(one)]),
        goal: { kind: 'ratioMax', limit: 1.3 },
        note: `tool's share (and this process's CPU time over the whole deploy): ${counts.map((n) => `${n} node(s) ${share(runs.get(n)!)}`).join('; ')}; each node's CPU per stage, ms (mean over the nodes): ${counts.map((n) => `${n} node(s): ${nodeCpuText(runs.get(n)!)}`).join(' | ')}; commands per node per stage, sent/one after the other: ${counts.map((n) => `${n} node(s): ${tripsText(runs.get(n)!.trips)}`).join(' | ')}`,
      },
    ]
  }
  return [...rowsOf(byCount, '3', ''), ...rowsOf(quotaByCount, '3-quota', `; every node held to ${cpus} cores, for every node count`)]
}
