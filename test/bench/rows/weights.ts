/**
 * Row 7: the weights stage on the lab (src/deploy/weights/transfer.ts, as the deploy runs it), a
 * model directory of random bytes on this machine (the runner), every node cold first:
 * - relay against each: the bytes over the runner's link and the time, to 2 nodes;
 * - a redeploy with every file present (0 bytes moved) against the cold relay: ≤ 10%;
 * - the link with 1, 2 and 4 raw streams (`cat > /dev/null` over this tool's SSH transport, the
 *   same connection the stage uses), and the cold relay with `model.streams` 1, 2 and 4 against its
 *   bytes (runner leg + fabric leg) at the rate of the same number of raw streams, interleaved
 *   round by round (goal ≤ 1.25×); the note gives where the stage's time went (from its progress
 *   lines), its CPU on each node container (cgroup) and on the runner, and one OpenSSH stream
 *   head → worker over the fabric;
 * - beside it (not instead), the same with raw streams that also write: `cat > <file>` on the head,
 *   in the model's file system, as the stage's receiver must (7-stage-N-disk).
 */
import { randomBytes } from 'node:crypto'
import { createReadStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadavg } from 'node:os'
import { performance } from 'node:perf_hooks'
import { argv, pipe, toFile } from '../../../src/command/shell.js'
import { deliverWeights } from '../../../src/deploy/weights/transfer.js'
import { labTransports } from '../../support/lab.js'
import type { Manifest, ManifestNode } from '../../../src/manifest/schema.js'
import { RELAY_SSH_OPTIONS, fabricSshTarget } from '../../../src/plan/relay-commands.js'
import { log, timed } from '../measure.js'
import { nodeCpuReader } from '../node-load.js'
import { type Row, median, samples } from '../table.js'
import type { BenchLab } from './lab-context.js'

const MODEL_PATH = '/var/lib/vrd/models/bench'
/** Sharded like a real checkpoint (equal safetensors shards and a small config), 160 MB as before. */
const FILES: readonly [string, number][] = [
  ['config.json', 2_000],
  ...[1, 2, 3, 4].map((i): [string, number] => [`model-0000${i}-of-00004.safetensors`, 40_000_000]),
]
/** What each raw stream of the link measurement sends (not part of the model). */
const LINK_BYTES = 96_000_000

export async function weightsRows(lab: BenchLab): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'vrd-bench-weights-'))
  const src = join(dir, 'model')
  mkdirSync(src)
  for (const [name, size] of FILES) writeFileSync(join(src, name), randomBytes(size))
  const linkFile = join(dir, 'link.bin')
  writeFileSync(linkFile, randomBytes(LINK_BYTES))
  const total = FILES.reduce((n, [, s]) => n + s, 0)
  const transports = await labTransports(lab.manifest, lab.info.dir)
  const env = { ...process.env, XDG_CACHE_HOME: join(dir, 'cache') }
  const cold = async () => {
    for (const t of transports.values()) await t.run(argv('rm', '-rf', MODEL_PATH), { timeoutMs: 60_000 })
  }
  const deliver = async (distribution: 'relay' | 'each', streams?: number, lines?: [number, string][]) => {
    const m: Manifest = { ...lab.manifest, model: { path: MODEL_PATH, source: { runner: { dir: src } }, distribution, ...(streams && { streams }) } }
    const t0 = performance.now()
    const onProgress = (l: string) => {
      lines?.push([performance.now() - t0, l])
      log(`row 7: ${l}`)
    }
    const { ms, value } = await timed(() => deliverWeights({ m, transports, env, onProgress }))
    if (!value.ok) throw new Error(`${distribution}: ${value.problem?.message}`)
    return { ms, report: value.report }
  }
  try {
    await cold()
    const relay = await deliver('relay')
    const again = await deliver('relay')
    if (again.report.bytesMoved.runner + again.report.bytesMoved.fabric !== 0) throw new Error('the redeploy moved weight bytes')
    await cold()
    const each = await deliver('each')
    const head = transports.get(lab.manifest.nodes[0]!.name)!
    // The link: N streams of the same file into cat > /dev/null on the head at once, over this tool's SSH transport.
    const link = async (n: number) => {
      const t = await timed(() =>
        Promise.all(Array.from({ length: n }, () => head.run(toFile(argv('cat'), '/dev/null'), { stdin: createReadStream(linkFile), timeoutMs: 600_000 }))),
      )
      if (t.value.some((r) => r.code !== 0)) throw new Error(`a raw stream failed: ${t.value.map((r) => r.stderr).join(' ')}`)
      return (n * LINK_BYTES) / 1e6 / (t.ms / 1000)
    }
    // The same, each stream writing a file beside the model (the receiver's disk work, without its hash or rename).
    const linkDisk = async (n: number) => {
      const files = Array.from({ length: n }, (_, i) => `${MODEL_PATH}.link-${i}`)
      await head.run(argv('mkdir', '-p', MODEL_PATH.replace(/\/[^/]+$/, '')), { timeoutMs: 60_000 })
      const t = await timed(() => Promise.all(files.map((f) => head.run(toFile(argv('cat'), f), { stdin: createReadStream(linkFile), timeoutMs: 600_000 }))))
      await head.run(argv('rm', '-f', ...files), { timeoutMs: 60_000 })
      if (t.value.some((r) => r.code !== 0)) throw new Error(`a raw stream to a file failed: ${t.value.map((r) => r.stderr).join(' ')}`)
      return (n * LINK_BYTES) / 1e6 / (t.ms / 1000)
    }
    const STREAMS = [1, 2, 4] as const
    const ROUNDS = 3
    const rates = new Map<number, number[]>(STREAMS.map((n) => [n, []]))
    const diskRates = new Map<number, number[]>(STREAMS.map((n) => [n, []]))
    const stages = new Map<number, number[]>(STREAMS.map((n) => [n, []]))
    const phases = new Map<number, Phases[]>(STREAMS.map((n) => [n, []]))
    // Each stage's CPU: every node container's (its cgroup) and this process's (the runner's ssh2 and hashing).
    const cpus = new Map<number, Map<string, number>[]>(STREAMS.map((n) => [n, []]))
    const nodeCpu = nodeCpuReader(lab.info.nodes)
    const cpuNow = () => new Map([...nodeCpu(), ['runner', (process.cpuUsage().user + process.cpuUsage().system) / 1000]])
    const loads: number[] = []
    for (let round = 0; round < ROUNDS; round++)
      for (const n of STREAMS) {
        loads.push(loadavg()[0]!)
        rates.get(n)!.push(await link(n))
        diskRates.get(n)!.push(await linkDisk(n))
        await cold()
        const lines: [number, string][] = []
        const c0 = cpuNow()
        const r = await deliver('relay', n, lines)
        const c1 = cpuNow()
        cpus.get(n)!.push(new Map([...c1].map(([k, v]) => [k, v - (c0.get(k) ?? 0)])))
        stages.get(n)!.push(r.ms)
        phases.get(n)!.push(phasesOf(lines, r.ms))
      }
    // One OpenSSH stream from the head to the worker over the fabric, from the head's copy (present after the last relay).
    const worker = lab.manifest.nodes[1]
    let fabric = ''
    if (worker) {
      const t = await timed(() => head.run(relayRawStream(lab.manifest, worker, `${MODEL_PATH}/${FILES[1]![0]}`), { timeoutMs: 600_000 }))
      fabric =
        t.value.code === 0
          ? `; one OpenSSH stream head → worker over the fabric (\`cat shard | ssh worker cat >/dev/null\`): ${(FILES[1]![1] / 1e6 / (t.ms / 1000)).toFixed(0)} MB/s`
          : ''
    }
    const n = lab.manifest.nodes.length
    const mbps = (xs: readonly number[]) => samples('MB/s', xs)
    log(`row 7: relay ${Math.round(relay.ms)} ms, each ${Math.round(each.ms)} ms, redeploy ${Math.round(again.ms)} ms${fabric}`)
    const loadNote = `load average ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} during the rounds`
    return [
      {
        id: '7-bytes',
        figure: `model bytes over the runner's link, \`relay\` to ${n} cold nodes (${(total / 1e6).toFixed(0)} MB model)`,
        value: samples('bytes', [relay.report.bytesMoved.runner]),
        baselineLabel: '`each`: the runner sends every node its own copy',
        baseline: samples('bytes', [each.report.bytesMoved.runner]),
        goal: { kind: 'ratioMax', limit: 1 / n + 0.01 },
      },
      {
        id: '7-time',
        figure: `weights to ${n} cold nodes by \`relay\` (runner → head, passed on to the worker over the fabric as it arrives)`,
        value: samples('ms', [relay.ms]),
        baselineLabel: '`each`: runner → every node',
        baseline: samples('ms', [each.ms]),
        goal: { kind: 'none' },
        note: 'on the lab the fabric and the runner link are the same loopback bridge on one machine, so relay saves the runner link bytes, not time; on the seed cluster the fabric is 200 Gb/s and the runner link far slower',
      },
      {
        id: '7-redeploy',
        figure: `weights stage with every file present on ${n} nodes (0 bytes moved; hashes from the nodes' .vrd-verified and the runner's cache)`,
        value: samples('ms', [again.ms]),
        baselineLabel: 'the cold relay',
        baseline: samples('ms', [relay.ms]),
        goal: { kind: 'ratioMax', limit: 0.1 },
      },
      ...STREAMS.filter((k) => k > 1).map(
        (k): Row => ({
          id: `7-link-${k}`,
          figure: `the link: ${k} raw SSH streams at once (${k} × ${(LINK_BYTES / 1e6).toFixed(0)} MB into \`cat > /dev/null\` on the head, one connection)`,
          value: mbps(rates.get(k)!),
          baselineLabel: 'one raw stream',
          baseline: mbps(rates.get(1)!),
          goal: { kind: 'none' },
          note: `rounds interleaved with the stage rows; ${loadNote}${fabric}`,
        }),
      ),
      ...STREAMS.map(
        (k): Row => ({
          id: `7-stage-${k}`,
          figure: `weights \`relay\` to ${n} cold nodes with \`model.streams: ${k}\`, the whole stage (hash, list, streams, verify)`,
          value: samples('ms', stages.get(k)!),
          baselineLabel: `its bytes (runner leg + fabric leg, ${((2 * total) / 1e6).toFixed(0)} MB) at the rate of ${k} raw stream${k > 1 ? 's' : ''} (${median(rates.get(k)!).toFixed(0)} MB/s), same round`,
          baseline: samples(
            'ms',
            rates.get(k)!.map((r) => ((2 * total) / 1e6 / r) * 1000),
          ),
          goal: { kind: 'ratioMax', limit: 1.25 },
          note: `where the time went (medians): ${describePhases(phases.get(k)!)}; CPU per stage (medians): ${describeCpu(cpus.get(k)!)}; ${loadNote}`,
        }),
      ),
      ...STREAMS.map(
        (k): Row => ({
          id: `7-stage-${k}-disk`,
          figure: `weights \`relay\` to ${n} cold nodes with \`model.streams: ${k}\`, the whole stage`,
          value: samples('ms', stages.get(k)!),
          baselineLabel: `its bytes at the rate of ${k} raw stream${k > 1 ? 's' : ''} that write a file on the head (\`cat > file\`, ${median(diskRates.get(k)!).toFixed(0)} MB/s), same round`,
          baseline: samples(
            'ms',
            diskRates.get(k)!.map((r) => ((2 * total) / 1e6 / r) * 1000),
          ),
          goal: { kind: 'none' },
          note: `beside 7-stage-${k} (the issue's yardstick, raw streams into /dev/null, ${median(rates.get(k)!).toFixed(0)} MB/s): the receiver must write every byte, the raw link need not; ${loadNote}`,
        }),
      ),
    ]
  } finally {
    await cold()
    await Promise.all([...transports.values()].map((t) => t.close()))
    rmSync(dir, { recursive: true, force: true })
  }
}

/** On the head: a file into `cat > /dev/null` on the worker over the fabric, through OpenSSH with the relay's options. */
function relayRawStream(m: Manifest, worker: ManifestNode, file: string) {
  const t = fabricSshTarget(m, worker)
  return pipe(argv('cat', file), argv('ssh', ...RELAY_SSH_OPTIONS, '-p', String(t.port), '-l', t.user, t.ip, 'cat > /dev/null'))
}

/** Where one stage's time went, from the times of its progress lines (ms from its start). */
interface Phases {
  readonly hash: number
  readonly list: number
  /** From the listing to the first stream's start: the plan, and the shared fabric connection when it is opened only then. */
  readonly start: number
  /** From the first stream's start to the first file verified, and on to the last. */
  readonly firstFile: number
  readonly lastFile: number
  readonly verify: number
}

function phasesOf(lines: readonly [number, string][], total: number): Phases {
  const at = (re: RegExp) => lines.find(([, l]) => re.test(l))?.[0]
  const hashed = at(/^\d+ files, /) ?? 0
  const listed = at(/^\[[^\]]+\] (\d+ (ok|missing|truncated|corrupted)|no files)/) ?? hashed
  const started = at(/ to send(, resuming at [^)]*)?( \(passed on|$)/) ?? listed
  const verified = /verified as it arrived|failed after/
  const firstFile = at(verified) ?? started
  const lastFile = [...lines].reverse().find(([, l]) => verified.test(l))?.[0] ?? started
  return {
    hash: hashed,
    list: listed - hashed,
    start: started - listed,
    firstFile: firstFile - started,
    lastFile: lastFile - firstFile,
    verify: total - lastFile,
  }
}

function describePhases(ps: readonly Phases[]): string {
  const m = (k: keyof Phases) => `${(median(ps.map((p) => p[k])) / 1000).toFixed(2)} s`
  return `runner hash ${m('hash')}, listing ${m('list')}, listing → first stream ${m('start')}, streams (→ first file verified ${m('firstFile')}, → last ${m('lastFile')}), verify (listing again, no re-read) ${m('verify')}`
}

/** Each stage's CPU by node container and the runner, medians over the rounds. */
function describeCpu(rounds: readonly Map<string, number>[]): string {
  const keys = [...(rounds[0]?.keys() ?? [])]
  return keys.map((k) => `${k} ${(median(rounds.map((r) => r.get(k) ?? 0)) / 1000).toFixed(2)} s`).join(', ')
}
