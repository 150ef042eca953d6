/**
 * Row 7: the weights stage on the lab (src/deploy/weights/transfer.ts, as the deploy runs it), a
 * model directory of random bytes on this machine (the runner), every node cold first:
 * - relay against each: the bytes over the runner's link and the time, to 2 nodes;
 * - a redeploy with every file present (0 bytes moved) against the cold relay: ≤ 10%;
 * - the cold relay against its bytes (runner leg + fabric leg) at the link's rate (`cat > /dev/null`
 *   over this tool's SSH transport). Measured 2026-12-04 on the lab: 7-bytes 0.500× (160 of 320 MB),
 *   7-redeploy 133 ms vs 11.31 s (0.012×), 7-time relay 11.31 s vs each 7.94 s, the link 78 MB/s.
 */
import { randomBytes } from 'node:crypto'
import { createReadStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { argv, toFile } from '../../../src/command/shell.js'
import { deliverWeights } from '../../../src/deploy/weights/transfer.js'
import { labTransports } from '../../support/lab.js'
import type { Manifest } from '../../../src/manifest/schema.js'
import { log, timed } from '../measure.js'
import { type Row, samples } from '../table.js'
import type { BenchLab } from './lab-context.js'

const MODEL_PATH = '/var/lib/vrd/models/bench'
const FILES: readonly [string, number][] = [
  ['config.json', 2_000],
  ['model-00001-of-00002.safetensors', 96_000_000],
  ['model-00002-of-00002.safetensors', 64_000_000],
]

export async function weightsRows(lab: BenchLab): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'vrd-bench-weights-'))
  const src = join(dir, 'model')
  mkdirSync(src)
  for (const [name, size] of FILES) writeFileSync(join(src, name), randomBytes(size))
  const total = FILES.reduce((n, [, s]) => n + s, 0)
  const transports = await labTransports(lab.manifest, lab.info.dir)
  const env = { ...process.env, XDG_CACHE_HOME: join(dir, 'cache') }
  const cold = async () => {
    for (const t of transports.values()) await t.run(argv('rm', '-rf', MODEL_PATH), { timeoutMs: 60_000 })
  }
  const deliver = async (distribution: 'relay' | 'each') => {
    const m: Manifest = { ...lab.manifest, model: { path: MODEL_PATH, source: { runner: { dir: src } }, distribution } }
    const { ms, value } = await timed(() => deliverWeights({ m, transports, env, onProgress: (l) => log(`row 7: ${l}`) }))
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
    // The link: the same bytes into cat > /dev/null on the head over this tool's SSH transport.
    const head = transports.get(lab.manifest.nodes[0]!.name)!
    const link = await timed(() => head.run(toFile(argv('cat'), '/dev/null'), { stdin: createReadStream(join(src, FILES[1]![0])), timeoutMs: 600_000 }))
    const linkMBps = FILES[1]![1] / 1e6 / (link.ms / 1000)
    const n = lab.manifest.nodes.length
    log(`row 7: relay ${Math.round(relay.ms)} ms, each ${Math.round(each.ms)} ms, redeploy ${Math.round(again.ms)} ms; link ${linkMBps.toFixed(0)} MB/s`)
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
        figure: `weights to ${n} cold nodes by \`relay\` (runner → head, head → worker over the fabric)`,
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
      {
        id: '7-fabric',
        figure: `weights \`relay\` to ${n} cold nodes, the whole stage (hash, list, runner leg, fabric leg, verify)`,
        value: samples('ms', [relay.ms]),
        baselineLabel: `the link: ${(FILES[1]![1] / 1e6).toFixed(0)} MB into \`cat > /dev/null\` over SSH, ${linkMBps.toFixed(0)} MB/s`,
        baseline: samples('ms', [((2 * total) / 1e6 / linkMBps) * 1000]),
        goal: { kind: 'none' },
        note: "baseline: the time the relay's bytes (runner leg + fabric leg) would take at the link rate",
      },
    ]
  } finally {
    await cold()
    await Promise.all([...transports.values()].map((t) => t.close()))
    rmSync(dir, { recursive: true, force: true })
  }
}
