/**
 * The start-up memory watchdog (issue 38): the sample parser on real /proc captures, the floor and the
 * pressure limit, which nodes it watches, its finding, and the guard around the `vllm` stage: the first
 * node under its floor ends the start-up wait, kills the engine on every node and names the phase.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { type Cmd, render } from '../../src/command/shell.js'
import { guardMemory } from '../../src/deploy/memory-guard.js'
import { planRollout } from '../../src/deploy/rollout-plan.js'
import { parseManifest } from '../../src/manifest/load-manifest.js'
import type { Manifest } from '../../src/manifest/schema.js'
import type { FactsBundle } from '../../src/preflight/facts.js'
import { renderPlanText } from '../../src/report/plan-report.js'
import { parseMemorySample } from '../../src/preflight/memory/memory-sample.js'
import { floorBytesFor, judgeSample, memoryFloorFinding, phaseAt, watchedNodes } from '../../src/preflight/memory/memory-watchdog.js'
import { startupTimelineFor } from '../../src/preflight/startup-report.js'
import type { RunOptions, RunResult, Transport } from '../../src/transport/transport.js'

const fixture = (name: string) => readFileSync(`test/preflight/fixtures/memory/${name}`, 'utf8')
const base = parseManifest(readFileSync('src/manifest/examples/dgx-spark-pair.yml', 'utf8'), 'm.yml').manifest!
const withWatchdog = (w: Partial<Manifest['deploy']['memoryWatchdog']>): Manifest => ({
  ...base,
  deploy: { ...base.deploy, memoryWatchdog: { ...base.deploy.memoryWatchdog, ...w } },
})
const KB = 1024
const GIB = 1024 ** 3

describe('one sample: cat /proc/meminfo /proc/pressure/memory', () => {
  it('a real 6.18 kernel without swap, PSI idle', () => {
    const text = fixture('meminfo-x86-24g-noswap.txt') + fixture('psi-idle.txt')
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)![1]) * KB
    const s = parseMemorySample(text)
    expect(s).toEqual({
      ok: true,
      value: { totalBytes: kb('MemTotal'), availableBytes: kb('MemAvailable'), swapTotalBytes: 0, swapFreeBytes: 0, pressure: { someAvg10: 0, fullAvg10: 0 } },
    })
  })

  it('a Debian 11 host with swap (gosigar#55) and a thrashing PSI (procfs#40)', () => {
    const s = parseMemorySample(fixture('meminfo-debian11-swap.txt') + fixture('psi-thrashing.txt'))
    expect(s.ok && s.value).toEqual({
      totalBytes: 16311120 * KB,
      availableBytes: 15174668 * KB,
      swapTotalBytes: 999420 * KB,
      swapFreeBytes: 999420 * KB,
      pressure: { someAvg10: 70.24, fullAvg10: 57.59 },
    })
  })

  it('a kernel without PSI: cat prints meminfo only (its error goes to stderr); no pressure, still a sample', () => {
    const s = parseMemorySample(fixture('meminfo-debian11-swap.txt'))
    expect(s.ok && s.value.pressure).toBeUndefined()
    expect(s.ok && s.value.availableBytes).toBe(15174668 * KB)
  })

  it('a 3.10 kernel without MemAvailable, an empty read, garbage, available over total: a reason, never a throw', () => {
    const cases: [string, RegExp][] = [
      [fixture('meminfo-3.10-no-memavailable.txt'), /no MemAvailable line .*3\.14/],
      ['', /no MemTotal line.*\(nothing\)/],
      ['\u0000\u0001binary\nMemTotal: lots kB\n', /no MemTotal line/],
      ['MemTotal: 100 kB\nMemAvailable: 200 kB\n', /MemAvailable 204800 B against MemTotal 102400 B/],
      ['MemTotal: 0 kB\nMemAvailable: 0 kB\n', /against MemTotal 0 B/],
    ]
    for (const [text, why] of cases) {
      const s = parseMemorySample(text)
      expect(s.ok, text).toBe(false)
      if (!s.ok) {
        expect(s.problem.code).toBe('MEMORY_SAMPLE_UNREADABLE')
        expect(s.problem.message).toMatch(why)
      }
    }
  })

  it('PSI lines of another shape or out of range leave the pressure out; the first of a repeated line counts', () => {
    const mem = fixture('meminfo-debian11-swap.txt')
    const garbled = parseMemorySample(`${mem}some avg10=abc avg60=0 avg300=0 total=1\n`)
    expect(garbled.ok && garbled.value).toMatchObject({ availableBytes: 15174668 * KB })
    expect(garbled.ok && garbled.value.pressure).toBeUndefined()
    const odd = parseMemorySample(`${mem}some avg10=101.00 avg60=0.00 avg300=0.00 total=1\nfull avg10=1.00 avg60=0.00 avg300=0.00 total=1\n`)
    expect(odd.ok && odd.value.pressure).toBeUndefined()
    const someOnly = parseMemorySample(`${mem}some avg10=3.50 avg60=0.00 avg300=0.00 total=9\n`)
    expect(someOnly.ok && someOnly.value.pressure).toEqual({ someAvg10: 3.5 })
    const twice = parseMemorySample(`MemTotal: 100 kB\nMemTotal: 1 kB\nMemAvailable: 50 kB\n`)
    expect(twice.ok && twice.value.totalBytes).toBe(100 * KB)
  })
})

describe('the floor and the pressure limit', () => {
  const s = base.deploy.memoryWatchdog
  it('defaults: on where the facts say unified memory, 5 % of MemTotal, full avg10 at most 60 %, every 2 s', () => {
    expect(s).toEqual({ enabled: 'auto', floorPercent: 5, pressureFullAvg10Max: 60, intervalSeconds: 2 })
    expect(floorBytesFor(s, 100 * GIB)).toBe(5 * GIB)
  })

  it('floorBytes and floorPercent: the higher counts; floorPercent 0 leaves floorBytes', () => {
    expect(floorBytesFor({ ...s, floorBytes: 8 * GIB }, 100 * GIB)).toBe(8 * GIB)
    expect(floorBytesFor({ ...s, floorBytes: 1 * GIB }, 100 * GIB)).toBe(5 * GIB)
    expect(floorBytesFor({ ...s, floorBytes: 1 * GIB, floorPercent: 0 }, 100 * GIB)).toBe(1 * GIB)
  })

  it('under the floor: a floor breach; over the pressure limit with room left: a pressure breach; else none', () => {
    const sample = { totalBytes: 100 * GIB, availableBytes: 6 * GIB, swapTotalBytes: 0, swapFreeBytes: 0 }
    expect(judgeSample(s, sample)).toBeUndefined()
    expect(judgeSample(s, { ...sample, availableBytes: 4 * GIB })).toMatchObject({ kind: 'floor', floorBytes: 5 * GIB })
    const thrash = parseMemorySample(fixture('meminfo-debian11-swap.txt') + fixture('psi-thrashing.txt'))
    // procfs#40's thrashing host: full avg10 57.59, under the default 60 and over a limit of 50.
    expect(thrash.ok && judgeSample(s, thrash.value)).toBeUndefined()
    expect(thrash.ok && judgeSample({ ...s, pressureFullAvg10Max: 50 }, thrash.value)).toMatchObject({ kind: 'pressure' })
  })
})

describe('which nodes it watches', () => {
  const facts = (unified: Record<string, boolean | undefined>) =>
    ({ nodes: Object.entries(unified).map(([node, u]) => ({ node, host: u === undefined ? {} : { unifiedMemory: u } })) }) as unknown as FactsBundle
  it('auto: the nodes whose facts say unified memory (GB10); on: all; off: none', () => {
    expect(watchedNodes(base, facts({ 'spark-a': true, 'spark-b': true }))).toEqual(['spark-a', 'spark-b'])
    expect(watchedNodes(base, facts({ 'spark-a': false, 'spark-b': undefined }))).toEqual([])
    expect(watchedNodes(base, undefined)).toEqual([])
    expect(watchedNodes(withWatchdog({ enabled: 'on' }), undefined)).toEqual(['spark-a', 'spark-b'])
    expect(watchedNodes(withWatchdog({ enabled: 'off' }), facts({ 'spark-a': true }))).toEqual([])
  })
})

describe('the phase at the breach and the finding', () => {
  it('the phase the node is in, from the timeline; before any line; after ready', () => {
    const t = startupTimelineFor(base)
    expect(phaseAt(t.view().find((n) => n.node === 'spark-b'))).toBe('the start before its first phase line (container, Ray, the vLLM process)')
    t.push('spark-b', 'INFO 12-05 16:49:37 [gpu_model_runner.py:2000] Starting to load model /models/qwen...\n', Date.now())
    expect(phaseAt(t.view().find((n) => n.node === 'spark-b'))).toBe('weights loading')
    t.ready(Date.now())
    expect(phaseAt(t.view().find((n) => n.node === 'spark-b'))).toBe('serving (after the start)')
  })

  it('MEMORY_FLOOR_REACHED names the node, the phase, every figure and the fit arithmetic to lower', () => {
    const sample = parseMemorySample(fixture('meminfo-debian11-swap.txt') + fixture('psi-thrashing.txt'))
    if (!sample.ok) throw new Error('fixture')
    const low = { ...sample.value, availableBytes: 512 * 1024 ** 2 }
    const f = memoryFloorFinding(base, { node: 'spark-b', seconds: 41, breach: judgeSample(base.deploy.memoryWatchdog, low)! }, 'weights loading', [
      'spark-a',
      'spark-b',
    ])
    expect(f).toMatchObject({ code: 'MEMORY_FLOOR_REACHED', severity: 'error', node: 'spark-b' })
    expect(f.message).toBe(
      "spark-b had 0.50 GiB available, under the floor of 0.78 GiB during weights loading, 41 s into vLLM's start: the watchdog stopped vllm-ray on spark-a, spark-b before the host could wedge.",
    )
    expect(f.evidence).toMatchObject({
      phase: 'weights loading',
      MemAvailable: '0.50 GiB',
      MemTotal: '15.56 GiB',
      swap: '0.95 GiB free of 0.95 GiB',
      'PSI memory': 'some avg10=70.24 full avg10=57.59',
      'engine stopped on': 'spark-a, spark-b',
    })
    expect(f.evidence.floor).toContain('5 % of MemTotal')
    expect(f.fix).toMatch(/--max-model-len.*kvCacheMemoryBytes.*--gpu-memory-utilization.*vllm-ray-deploy plan/s)
  })
})

/** Nodes whose memory reads come from `meminfo(node, read)`; every command recorded. */
function fakeNodes(meminfo: (node: string, read: number) => string, hangs?: string) {
  const ran: { node: string; command: string }[] = []
  const reads = new Map<string, number>()
  const transports = new Map<string, Transport>()
  for (const n of base.nodes) {
    transports.set(n.name, {
      label: n.name,
      async run(cmd: Cmd, opts: RunOptions): Promise<RunResult> {
        const command = render(cmd)
        ran.push({ node: n.name, command })
        const cancelled: RunResult = { code: null, signal: null, stdout: '', stderr: '', durationMs: 0, timedOut: false, cancelled: true }
        // A node that does not answer until the run is cancelled (a host slow under memory pressure).
        if (n.name === hangs && command.startsWith('cat ')) await new Promise((resolve) => opts.signal?.addEventListener('abort', resolve, { once: true }))
        if (opts.signal?.aborted) return cancelled
        const read = (reads.get(n.name) ?? 0) + 1
        if (command.startsWith('cat ')) reads.set(n.name, read)
        const stdout = command.startsWith('cat ') ? meminfo(n.name, read) : ''
        return { code: 0, signal: null, stdout, stderr: '', durationMs: 1, timedOut: false }
      },
      async close() {},
    })
  }
  return { transports, ran }
}

const meminfoWith = (availableKb: number) => `MemTotal: 16000000 kB\nMemAvailable: ${availableKb} kB\nSwapTotal: 0 kB\nSwapFree: 0 kB\n`

describe('the guard around the vllm stage', () => {
  it("spark-b falls under its floor on its second read: the start-up wait's signal aborts, the engine is killed on every node, the stop names the phase", async () => {
    const m = withWatchdog({ enabled: 'on', intervalSeconds: 1 })
    const { transports, ran } = fakeNodes((node, read) => meminfoWith(node === 'spark-b' && read >= 2 ? 100_000 : 8_000_000))
    const progress: string[] = []
    const guard = guardMemory({ m, facts: undefined, transports, progress: (x) => progress.push(x) })
    const timeline = startupTimelineFor(m)
    timeline.push('spark-b', 'INFO 12-05 16:49:37 [gpu_model_runner.py:2000] Starting to load model /models/qwen...\n', Date.now())
    // The event the stage waits on: the wait's signal aborted by the trip.
    await new Promise<void>((resolve) => guard.signal!.addEventListener('abort', () => resolve(), { once: true }))
    const out = await guard.settle(timeline)
    expect(out?.next).toBe('stop')
    expect(out?.next === 'stop' && out.problem.code).toBe('MEMORY_FLOOR_REACHED')
    expect(out?.findings?.[0]).toMatchObject({
      code: 'MEMORY_FLOOR_REACHED',
      node: 'spark-b',
      evidence: { phase: 'weights loading', MemAvailable: '0.10 GiB' },
    })
    expect(out?.findings?.map((f) => f.code)).toContain('STARTUP_TIMELINE')
    const kills = ran.filter((r) => r.command.startsWith('docker kill'))
    expect(kills).toEqual(m.nodes.map((n) => ({ node: n.name, command: `docker kill --signal KILL ${m.container.name}` })))
    expect(progress[0]).toMatch(/^memory watchdog: spark-a, spark-b every 1 s \(MemAvailable floor 5 % of MemTotal/)
    // One read per node per sample, nothing else until the trip.
    expect(ran.filter((r) => !r.command.startsWith('docker kill')).every((r) => r.command === 'cat /proc/meminfo /proc/pressure/memory')).toBe(true)
  })

  it('a node that does not answer never delays another: spark-b trips while spark-a still hangs on its first read', async () => {
    const m = withWatchdog({ enabled: 'on', intervalSeconds: 1 })
    const { transports } = fakeNodes(() => meminfoWith(100_000), 'spark-a')
    const guard = guardMemory({ m, facts: undefined, transports, progress: () => {} })
    await new Promise<void>((resolve) => guard.signal!.addEventListener('abort', () => resolve(), { once: true }))
    expect((await guard.settle(startupTimelineFor(m)))?.findings?.[0]).toMatchObject({ code: 'MEMORY_FLOOR_REACHED', node: 'spark-b' })
  })

  it('a start that ends first: settle ends the watch, kills nothing; an unreadable node is said once and skipped', async () => {
    const m = withWatchdog({ enabled: 'on', intervalSeconds: 1 })
    const { transports, ran } = fakeNodes((node) => (node === 'spark-a' ? 'garbage\n' : meminfoWith(8_000_000)))
    const progress: string[] = []
    const guard = guardMemory({ m, facts: undefined, transports, progress: (x) => progress.push(x) })
    // Wait for the unreadable node's line (the event), then end the start.
    await expect.poll(() => progress.some((p) => p.includes("cannot read spark-a's memory")), { interval: 20, timeout: 10_000 }).toBe(true)
    expect(await guard.settle(startupTimelineFor(m))).toBeUndefined()
    expect(guard.signal?.aborted).toBe(false)
    expect(ran.some((r) => r.command.startsWith('docker kill'))).toBe(false)
    expect(progress.filter((p) => p.includes('cannot read')).length).toBe(1)
  })

  it('nothing to watch (auto, no node with unified memory): the rollout signal as it is, no reads', async () => {
    const ac = new AbortController()
    const { transports, ran } = fakeNodes(() => meminfoWith(1))
    const guard = guardMemory({ m: base, facts: undefined, transports, signal: ac.signal, progress: () => {} })
    expect(guard.signal).toBe(ac.signal)
    expect(await guard.settle(startupTimelineFor(base))).toBeUndefined()
    expect(ran).toEqual([])
  })

  it('a cancelled rollout ends the watch without a trip', async () => {
    const ac = new AbortController()
    const m = withWatchdog({ enabled: 'on', intervalSeconds: 60 })
    const { transports } = fakeNodes(() => meminfoWith(8_000_000))
    const guard = guardMemory({ m, facts: undefined, transports, signal: ac.signal, progress: () => {} })
    ac.abort()
    expect(guard.signal?.aborted).toBe(true)
    expect(await guard.settle(startupTimelineFor(m))).toBeUndefined()
  })
})

describe('plan names the watchdog in the vllm phase', () => {
  const vllmPhase = (m: Manifest) => planRollout(m, { release: 'r1' }).phases.find((p) => p.name === 'vllm')!
  it('its command, which nodes, the floor, and what it does past it; nothing when off', () => {
    const text = renderPlanText(planRollout(base, { release: 'r1' }))
    expect(text).toContain(
      "memory watchdog until /health answers: every 2 s `cat /proc/meminfo /proc/pressure/memory` on each node whose host checks say its GPU shares the host's memory (GB10 / DGX Spark; fit.nodeMemory says unified); MemAvailable floor 5 % of MemTotal (6.08 GiB of fit.nodeMemory's 121.69 GiB); PSI memory full avg10 at most 60 %; past it: `docker kill --signal KILL vllm-ray` on every node and MEMORY_FLOOR_REACHED (then deploy.onFailure)",
    )
    expect(vllmPhase(withWatchdog({ enabled: 'on', floorBytes: 8 * GIB })).description).toContain(
      'on every node (spark-a, spark-b); MemAvailable floor the higher of 8.00 GiB and 5 % of MemTotal (8.00 GiB of fit.nodeMemory',
    )
    expect(vllmPhase(withWatchdog({ enabled: 'off' })).description).not.toContain('memory watchdog')
  })
})
