/**
 * The weights core: the manifest and its identity, a node's listing compared with it (ok, missing,
 * truncated, corrupted), the sends planned from that, and the node-side scripts run for real on
 * this machine (sh + coreutils, as on a node): a listing of a real directory, a receive that is
 * cut and resumed, a receive of wrong bytes.
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { type Argv, argv, render } from '../../src/command/shell.js'
import { compareNode, describeNode, parseListing } from '../../src/deploy/weights/compare.js'
import type { HubPlanner } from '../../src/deploy/weights/delivery.js'
import { discardDownloaded } from '../../src/deploy/weights/hub.js'
import { parseHubDownload } from '../../src/deploy/weights/hub-listing.js'
import { parseWeightsManifest, weightsIdentity, weightsManifest, weightsManifestText } from '../../src/deploy/weights/weights-manifest.js'
import {
  SHARE_FABRIC_BELOW_BYTES,
  type StreamPlan,
  type WeightsStream,
  mayShareFabric,
  planStreams,
  sharedFabric,
  spreadFiles,
} from '../../src/deploy/weights/streams.js'
import { parseStreamOutput } from '../../src/deploy/weights/stream-output.js'
import { withModel } from '../../src/deploy/weights/weights-plan.js'
import { parseManifest } from '../../src/manifest/load-manifest.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { type StreamFile, WEIGHTS_VERIFIED_FILE, listWeights, receiveWeightsStream, sendWeightsStreamToWorker } from '../../src/plan/weights-commands.js'
import { NODE_SHA256_SH } from '../../src/plan/node-sha256.js'
import { DEFAULT_FABRIC_CIPHERS } from '../../src/plan/relay-commands.js'
import { LocalTransport } from '../../src/transport/local.js'
import type { RunResult } from '../../src/transport/transport.js'
import { HASHERS, onPath, pathFor } from '../support/node-hashers.js'

/** Bytes a plan moves over the runner's link and over the fabric (a stream passed on counts once per worker). */
const sendBytes = (plan: StreamPlan) => {
  const streams = [...plan.first, ...plan.after]
  const bytes = (s: (typeof streams)[number]) => s.files.reduce((n, c) => n + c.file.size - c.resumeFrom, 0)
  return {
    runner: streams.filter((s) => s.from === 'runner').reduce((n, s) => n + bytes(s), 0),
    fabric: streams.reduce((n, s) => n + (s.from === 'runner' ? s.forward.length : 1) * bytes(s), 0),
  }
}
const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex')
const A = Buffer.from('a'.repeat(1000))
const B = Buffer.from('config {"x": 1}\n')
const ref = weightsManifest([
  { path: 'model-00001.safetensors', size: A.length, sha256: sha(A) },
  { path: 'config.json', size: B.length, sha256: sha(B) },
])

const example = readFileSync('src/manifest/examples/dgx-spark-pair.yml', 'utf8')
const withModelSection = (section: string): { manifest?: Manifest; errors: readonly { message: string }[] } =>
  parseManifest(`${example}\nmodel:\n${section}`, 'm.yml')

describe('the weights manifest', () => {
  it('has one identity whatever the order of its files, and another when a byte changes', () => {
    const reversed = weightsManifest([...ref.files].reverse())
    expect(weightsIdentity(reversed)).toBe(weightsIdentity(ref))
    const other = weightsManifest([ref.files[0]!, { ...ref.files[1]!, sha256: sha('other') }])
    expect(weightsIdentity(other)).not.toBe(weightsIdentity(ref))
    expect(weightsIdentity(ref)).toMatch(/^sha256:[0-9a-f]{64}$/)
  })

  it('reads back what it wrote, and refuses paths that escape, odd names, bad sizes and hashes', () => {
    const back = parseWeightsManifest(weightsManifestText(ref), 'weights.json')
    expect(back).toEqual({ ok: true, value: ref })
    const bad = (files: unknown) => parseWeightsManifest(JSON.stringify({ version: 1, files }), 'weights.json')
    const f = { path: 'a', size: 1, sha256: sha('x') }
    for (const [files, why] of [
      [[{ ...f, path: '../etc/passwd' }], 'an empty, . or .. part'],
      [[{ ...f, path: '/abs' }], 'an absolute path'],
      [[{ ...f, path: 'a\nb' }], 'control character'],
      [[{ ...f, path: 'x.partial' }], '.partial'],
      [[{ ...f, path: 'a/.cache/b' }], 'hidden name'],
      [[{ ...f, size: -1 }], 'byte count'],
      [[{ ...f, sha256: 'ABC' }], 'hex digits'],
      [[f, f], 'listed twice'],
    ] as const) {
      const r = bad(files)
      expect(r.ok).toBe(false)
      if (!r.ok) {
        expect(r.problem.code).toBe('WEIGHTS_MANIFEST_INVALID')
        expect(r.problem.message).toContain(why)
      }
    }
    expect(parseWeightsManifest('{', 'w.json').ok).toBe(false)
  })
})

describe('a node compared with the manifest', () => {
  const listing = (lines: string[]) => {
    const r = parseListing([...lines, 'end', ''].join('\n'), 'spark-b')
    if (!r.ok) throw new Error(r.problem.message)
    return r.value
  }
  it('all files present and matching: nothing to send', () => {
    const n = compareNode(
      'spark-b',
      ref,
      listing([`file\t${A.length}\t${sha(A)}\tmodel-00001.safetensors`, `file\t${B.length}\t${sha(B)}\tconfig.json`, 'free\t999']),
    )
    expect(n.bad).toEqual([])
    expect(n.bytesNeeded).toBe(0)
    expect(n.freeBytes).toBe(999)
  })
  it('missing, truncated with a .partial to resume, corrupted: each named, only their bytes needed', () => {
    const n = compareNode('spark-b', ref, listing([`partial\t400\tmodel-00001.safetensors`, `file\t${B.length}\t${sha('bad')}\tconfig.json`]))
    expect(n.checks.map((c) => [c.file.path, c.status, c.resumeFrom])).toEqual([
      ['config.json', 'corrupted', 0],
      ['model-00001.safetensors', 'truncated', 400],
    ])
    expect(n.bytesNeeded).toBe(A.length - 400 + B.length)
    expect(describeNode(n)).toBe('1 truncated, 1 corrupted (config.json, model-00001.safetensors)')
    const none = compareNode('spark-b', ref, listing([]))
    expect(none.checks.every((c) => c.status === 'missing')).toBe(true)
    const short = compareNode('spark-b', ref, listing([`file\t10\t${sha('x')}\tmodel-00001.safetensors`]))
    expect(short.checks[1]!.status).toBe('truncated')
  })
  it('a listing cut before its end record is an error, not an empty node', () => {
    const r = parseListing(`file\t1\t${sha('x')}\ta\n`, 'spark-b')
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.problem.code).toBe('WEIGHTS_LISTING_FAILED')
  })
})

describe('the manifest section and the release it runs', () => {
  it('is validated: exactly one source, an absolute path, relay by default', () => {
    const good = withModelSection('  path: /var/lib/vrd/models/qwen\n  source:\n    runner: { dir: ./weights }\n')
    expect(good.errors).toEqual([])
    expect(good.manifest!.model!.distribution).toBe('relay')
    expect(
      withModelSection('  path: relative/dir\n  source:\n    nodes: {}\n')
        .errors.map((e) => e.message)
        .join(),
    ).toMatch(/absolute directory/)
    expect(
      withModelSection('  path: /m\n  source: { nodes: {}, runner: { dir: x } }\n')
        .errors.map((e) => e.message)
        .join(),
    ).toMatch(/exactly one source/)
    expect(
      withModelSection('  path: /m\n  source: { hub: { repo: not-a-repo, revision: main } }\n')
        .errors.map((e) => e.message)
        .join(),
    ).toMatch(/Hugging Face repository/)
    expect(withModelSection('  path: /m\n  source: { nodes: {} }\n  distribution: torrent\n').errors.length).toBeGreaterThan(0)
  })
  it('a plain http:// hub endpoint is refused at its place unless allowInsecure says so; https:// needs nothing', () => {
    const hub = (extra: string) => withModelSection(`  path: /m\n  source:\n    hub: { repo: org/m, revision: main, ${extra} }\n`)
    const plain = hub('endpoint: "http://10.0.0.5:8080"')
    expect(plain.manifest).toBeUndefined()
    expect(plain.errors).toHaveLength(1)
    expect(plain.errors[0]).toMatchObject({ path: ['model', 'source', 'hub', 'endpoint'] })
    expect(plain.errors[0]!.message).toMatch(/"http:\/\/10\.0\.0\.5:8080" is plain http.*allowInsecure: true/)
    expect(hub('endpoint: "HTTP://10.0.0.5:8080"').errors).toHaveLength(1)
    expect(hub('endpoint: "http://10.0.0.5:8080", allowInsecure: false').errors).toHaveLength(1)
    expect(hub('endpoint: "http://10.0.0.5:8080", allowInsecure: true').errors).toEqual([])
    expect(hub('endpoint: "https://hf-mirror.example.com"').errors).toEqual([])
  })
  it('mounts the path read-only, serves the path with the hub offline, keeps the served name', () => {
    const m = withModelSection('  path: /var/lib/vrd/models/qwen\n  source: { nodes: {} }\n').manifest!
    const e = withModel(m)
    expect(e.container.volumes).toContain('/var/lib/vrd/models/qwen:/var/lib/vrd/models/qwen:ro')
    expect(e.container.env.HF_HUB_OFFLINE).toBe('1')
    expect(e.vllm.model).toBe('/var/lib/vrd/models/qwen')
    expect(e.vllm.servedModelName).toBe(m.vllm.servedModelName ?? m.vllm.model)
    expect(withModel(withModel(m))).toEqual(e)
    const plain = parseManifest(example, 'm.yml').manifest!
    expect(withModel(plain)).toBe(plain)
  })
  it('plans streams: relay crosses the runner link once and passes the stream on; each sends every node from the runner', () => {
    const m = withModelSection('  path: /m\n  source: { runner: { dir: w } }\n').manifest!
    const [head, worker] = [m.nodes.find((n) => n.role === 'head')!.name, m.nodes.find((n) => n.role === 'worker')!.name]
    const empty = { files: new Map(), partials: new Map() }
    const nodes = new Map([head, worker].map((n) => [n, compareNode(n, ref, empty)]))
    const relay = planStreams(m, 'runner', 'relay', nodes, 4)
    // Cold: the runner's stream to the head (the small config.json rides with the shard), passed on to the worker; nothing after.
    expect(relay.first.map((s) => [s.to, s.from, s.files.map((c) => c.file.path), s.forward])).toEqual([
      [head, 'runner', ['config.json', 'model-00001.safetensors'], [worker]],
    ])
    expect(relay.after).toEqual([])
    expect(sendBytes(relay)).toEqual({ runner: A.length + B.length, fabric: A.length + B.length })
    // One stream: every file in it, in the manifest's order.
    expect(planStreams(m, 'runner', 'relay', nodes, 1).first.map((s) => s.files.length)).toEqual([2])
    expect(sendBytes(planStreams(m, 'runner', 'each', nodes, 2))).toEqual({ runner: 2 * (A.length + B.length), fabric: 0 })
    expect(planStreams(m, 'runner', 'each', nodes, 2).first.map((s) => s.to)).toEqual([head, worker])
    expect(planStreams(m, 'nodes', 'each', nodes, 4)).toEqual({ first: [], after: [], shareFabric: [] })
    const hub = planStreams(m, 'hub', 'relay', nodes, 4)
    expect(hub.first).toEqual([])
    expect(hub.after.every((s) => s.to === worker && s.from === 'head' && s.forward.length === 0)).toBe(true)
  })
  it('plans streams: a worker that lacks other files (or from another offset) is fed from the head afterwards, not passed on', () => {
    const m = withModelSection('  path: /m\n  source: { runner: { dir: w } }\n').manifest!
    const [head, worker] = [m.nodes.find((n) => n.role === 'head')!.name, m.nodes.find((n) => n.role === 'worker')!.name]
    const bigPath = ref.files.find((f) => f.size === A.length)!.path
    const headL = { files: new Map(), partials: new Map([[bigPath, 100]]) }
    const workerL = { files: new Map(), partials: new Map([[bigPath, 300]]) }
    const nodes = new Map([
      [head, compareNode(head, ref, headL)],
      [worker, compareNode(worker, ref, workerL)],
    ])
    const p = planStreams(m, 'runner', 'relay', nodes, 1)
    expect(p.first).toHaveLength(1)
    expect(p.first[0]!.forward).toEqual([])
    expect(p.after.map((s) => [s.to, s.from, s.files.map((c) => [c.file.path, c.resumeFrom])])).toEqual([
      [
        worker,
        'head',
        [
          ['config.json', 0],
          [bigPath, 300],
        ],
      ],
    ])
    expect(sendBytes(p)).toEqual({ runner: A.length - 100 + B.length, fabric: A.length - 300 + B.length })
  })
  it("a worker's fabric streams share one connection when a wave has two or more of them, each short of a connection's worth", () => {
    const c = (path: string, size: number) => ({ file: { path, size, sha256: sha(path) }, status: 'missing' as const, resumeFrom: 0 })
    const stream = (to: string, from: 'runner' | 'head', size: number, forward: string[] = []): WeightsStream => ({
      to,
      from,
      files: [c(`f${size}`, size)],
      forward,
    })
    const small = SHARE_FABRIC_BELOW_BYTES / 4
    // Passed on by two runner streams to the head: shared; by one: its own connection, as before.
    expect(sharedFabric(['w1', 'w2'], [stream('h', 'runner', small, ['w1', 'w2']), stream('h', 'runner', small, ['w1'])], [])).toEqual(['w1'])
    // From the head's copy afterwards, two streams to w2.
    expect(sharedFabric(['w1', 'w2'], [], [stream('w2', 'head', small), stream('w2', 'head', small), stream('w1', 'head', small)])).toEqual(['w2'])
    // Streams big enough to repay a connection each keep their own (they encrypt on as many cores).
    const big = SHARE_FABRIC_BELOW_BYTES * 2
    expect(sharedFabric(['w1'], [stream('h', 'runner', big, ['w1']), stream('h', 'runner', big, ['w1'])], [])).toEqual([])
    // Through planStreams: 4 streams of a small model to a cold worker share; one stream does not.
    const m = withModelSection('  path: /m\n  source: { runner: { dir: w } }\n').manifest!
    const [head, worker] = [m.nodes.find((n) => n.role === 'head')!.name, m.nodes.find((n) => n.role === 'worker')!.name]
    const shards = weightsManifest([1, 2, 3, 4].map((i) => ({ path: `s${i}`, size: 1000, sha256: sha(`s${i}`) })))
    const empty = { files: new Map(), partials: new Map() }
    const cold = new Map([head, worker].map((n) => [n, compareNode(n, shards, empty)]))
    expect(planStreams(m, 'runner', 'relay', cold, 4).shareFabric).toEqual([worker])
    expect(planStreams(m, 'runner', 'relay', cold, 1).shareFabric).toEqual([])
    expect(planStreams(m, 'runner', 'each', cold, 4).shareFabric).toEqual([])
  })
  it('before the listing, the manifest alone says which workers the streams may share a connection to (opened while the nodes are listed)', () => {
    const m = (section: string) => withModelSection(`  path: /m\n  source: { runner: { dir: w } }\n${section}`).manifest!
    const four = m('  streams: 4\n')
    const workers = four.nodes.filter((n) => n.role === 'worker').map((n) => n.name)
    expect(workers.length).toBeGreaterThan(0)
    expect(mayShareFabric(four, four.model!)).toEqual(workers)
    // A small runner model over 4 streams: shared; one whose cold streams would each carry a connection's worth: not.
    expect(mayShareFabric(four, four.model!, 4 * SHARE_FABRIC_BELOW_BYTES - 1)).toEqual(workers)
    expect(mayShareFabric(four, four.model!, 4 * SHARE_FABRIC_BELOW_BYTES)).toEqual([])
    // One stream (the default), or every node fed by the runner: no fabric stream to share.
    const one = m('')
    expect(mayShareFabric(one, one.model!)).toEqual([])
    const each = m('  streams: 4\n  distribution: each\n')
    expect(mayShareFabric(each, each.model!)).toEqual([])
    // The guess covers what the plan shares for a cold copy (4 small shards over 4 streams).
    const [head, worker] = [four.nodes.find((n) => n.role === 'head')!.name, workers[0]!]
    const shards = weightsManifest([1, 2, 3, 4].map((i) => ({ path: `s${i}`, size: 1000, sha256: sha(`s${i}`) })))
    const empty = { files: new Map(), partials: new Map() }
    const cold = new Map([head, worker].map((n) => [n, compareNode(n, shards, empty)]))
    expect(mayShareFabric(four, four.model!, 4000)).toEqual(expect.arrayContaining([...planStreams(four, 'runner', 'relay', cold, 4).shareFabric]))
  })
  it('spreads files over streams by bytes, largest first, none empty', () => {
    const f = (path: string, size: number, resumeFrom = 0) => ({ file: { path, size, sha256: sha(path) }, status: 'missing' as const, resumeFrom })
    const files = [f('a', 10), f('b', 96), f('c', 64), f('d', 40, 30), f('e', 30)]
    const by = (n: number) => spreadFiles(files, n).map((g) => g.map((c) => c.file.path).join(''))
    // 210 bytes to send (d resumes at 30): with 2 streams a file of 27 or more to send may open one (b, c, e), with 3 one of 18 or more.
    expect(by(1)).toEqual(['abcde'])
    expect(by(2)).toEqual(['bd', 'ace'])
    expect(by(3)).toEqual(['b', 'c', 'ade'])
    // With 8, a file of 7 or more bytes to send: all five.
    expect(by(8)).toEqual(['b', 'c', 'e', 'a', 'd'])
    // A tiny file rides with a large one instead of opening a stream (and an SSH connection) of its own.
    expect(spreadFiles([f('config.json', 2), f('s1', 1000), f('s2', 1000)], 4).map((g) => g.map((c) => c.file.path))).toEqual([['config.json', 's1'], ['s2']])
    expect(spreadFiles([], 4)).toEqual([])
  })
  it("the head's stream to a worker goes through the fabric IP with the relay's SSH options, one connection for all its files", () => {
    const m = withModelSection('  path: /m\n  source: { runner: { dir: w } }\n').manifest!
    const worker = m.nodes.find((n) => n.role === 'worker')!
    const files = ref.files.map((f) => ({ ...f, offset: f.size === A.length ? 7 : 0 }))
    const send = sendWeightsStreamToWorker(m, '/m', worker, files).argv
    const ciphers = DEFAULT_FABRIC_CIPHERS.join(',')
    // bash -c SCRIPT bash dir ciphers up-file (none) port user ip, the ssh options counted, the worker's receiver, the files.
    expect(send.slice(4, 11)).toEqual(['/m', ciphers, '', String(worker.ssh.port ?? m.ssh.port), worker.ssh.user ?? m.ssh.user, worker.fabricIp, '6'])
    expect(send.slice(11, 17)).toEqual(['-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=yes', '-o', 'ConnectTimeout=10'])
    expect(send[17]).toBe(render(receiveWeightsStream(m, '/m', files)))
    expect(send.slice(18)).toEqual(['config.json', String(B.length), sha(B), '0', 'model-00001.safetensors', String(A.length), sha(A), '7'])
    expect(send[2]).toContain('| fssh "$e" "${opts[@]}" -p "$port" -l "$user" "$ip" "$remote"')
    // The receiver's argv: the ciphers, the workers it passes the stream on to as "port user ip", the ssh options counted, then the files.
    const recv = receiveWeightsStream(m, '/m', files, [worker]).argv
    expect(recv.slice(0, 2)).toEqual(['bash', '-c'])
    expect(recv.slice(4, 11)).toEqual(['/m', ciphers, '', '1', String(worker.ssh.port ?? m.ssh.port), worker.ssh.user ?? m.ssh.user, worker.fabricIp])
    expect(recv[11]).toBe('6')
    // Sharing a connection: the file its open writes once the masters are up, which the stream's ssh waits for.
    expect(receiveWeightsStream(m, '/m', files, [worker], '/tmp/vrd-fabric-x').argv[6]).toBe('/tmp/vrd-fabric-x.up')
    expect(sendWeightsStreamToWorker(m, '/m', worker, files, '/tmp/vrd-fabric-x').argv[6]).toBe('/tmp/vrd-fabric-x.up')
    expect(recv.slice(-8)).toEqual(['config.json', String(B.length), sha(B), '0', 'model-00001.safetensors', String(A.length), sha(A), '7'])
    expect(receiveWeightsStream(m, '/m', files).argv.slice(4, 8)).toEqual(['/m', ciphers, '', '0'])
    // ssh.fabricCiphers overrides the preference; a name that is no cipher name is refused at its place.
    const own = { ...m, ssh: { ...m.ssh, fabricCiphers: ['aes256-gcm@openssh.com', 'aes256-ctr'] } }
    expect(receiveWeightsStream(own, '/m', files, [worker]).argv[5]).toBe('aes256-gcm@openssh.com,aes256-ctr')
    expect(sendWeightsStreamToWorker(own, '/m', worker, files).argv[5]).toBe('aes256-gcm@openssh.com,aes256-ctr')
    const bad = parseManifest(example.replace(/^ssh:\n/m, "ssh:\n  fabricCiphers: ['aes128-gcm; rm -rf /']\n"), 'm.yml')
    expect(bad.errors.map((e) => e.message).join('\n')).toContain('an OpenSSH cipher name')
  })
  it("reads the receiver's records: its own, each worker's passed on, and a stream cut before its end", () => {
    const s = sha('x')
    const out = parseStreamOutput(
      [
        `ok\ta.bin\t10\t${s}`,
        'short\tb.bin\t3',
        `bad\tc.bin\t4\t${s}\t${sha('y')}`,
        'fail\td.bin\tcannot write /m/d.bin.partial',
        'fwd\t10.0.0.2\t0',
        `at\t10.0.0.2\tok\ta.bin\t10\t${s}`,
        'fwd\t10.0.0.3\t255',
        'log\t10.0.0.3\tConnection refused',
        'end',
        '',
      ].join('\n'),
    )
    expect([...out.files].map(([p, r]) => [p, r.status, r.got])).toEqual([
      ['a.bin', 'ok', 10],
      ['b.bin', 'short', 3],
      ['c.bin', 'bad', 4],
      ['d.bin', 'fail', 0],
    ])
    expect(out.files.get('c.bin')!.detail).toContain('removed')
    expect(out.forwarded).toEqual(
      new Map([
        ['10.0.0.2', 0],
        ['10.0.0.3', 255],
      ]),
    )
    expect(out.at.get('10.0.0.2')!.get('a.bin')!.status).toBe('ok')
    expect(out.logs.get('10.0.0.3')).toEqual(['Connection refused'])
    expect(out.complete).toBe(true)
    expect(parseStreamOutput(`ok\ta.bin\t10\t${s}\n`).complete).toBe(false)
  })
})

describe.each(HASHERS)('the node-side scripts, run here for real, hashing with %s', (hasher) => {
  const path = pathFor(hasher)
  const real = new LocalTransport()
  const local = { run: (cmd: Argv, opts: Parameters<LocalTransport['run']>[1]) => real.run(onPath(cmd, path), opts) }

  it(`picks ${hasher} when the hashers before it are missing`, async () => {
    const r = await local.run(argv('sh', '-c', `${NODE_SHA256_SH}pick_hasher; printf '%s ' "$hasher"; printf abc | sha | cut -c1-64`), { timeoutMs: 30_000 })
    expect(r.stdout.trim()).toBe(`${hasher} ${sha('abc')}`)
  })

  /** One file's stream: its bytes from `offset`, then the sender's SHA-256 (`trailer`, by default the right one). */
  const m = withModelSection('  path: /m\n  source: { runner: { dir: w } }\n').manifest!
  const receive = (dir: string, file: (typeof ref.files)[number], offset: number, bytes: Buffer, trailer?: string) => {
    const full = file.path.startsWith('model') ? A : B
    const f: StreamFile = { ...file, offset }
    return local.run(receiveWeightsStream(m, dir, [f]), { timeoutMs: 30_000, stdin: Readable.from([bytes, Buffer.from(trailer ?? sha(full))]) })
  }
  const list = async (dir: string) => {
    const r = await local.run(listWeights(dir), { timeoutMs: 30_000 })
    const l = parseListing(r.stdout, 'here')
    if (!l.ok) throw new Error(`${l.problem.message}: ${r.stderr}`)
    return l.value
  }

  it('a missing directory lists as all missing, with the free bytes of its parent', async () => {
    const l = await list(join(mkdtempSync(join(tmpdir(), 'vrd-w-')), 'not', 'there'))
    expect(l.files.size).toBe(0)
    expect(l.freeBytes).toBeGreaterThan(0)
  })

  it('a cut transfer keeps its .partial, the next one resumes from it, the listing then matches', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vrd-w-'))
    const big = ref.files.find((f) => f.path.startsWith('model'))!
    const cut = await local.run(
      receiveWeightsStream(m, dir, [
        { ...big, offset: 0 },
        { ...ref.files.find((f) => f.path === 'config.json')!, offset: 0 },
      ]),
      {
        timeoutMs: 30_000,
        stdin: Readable.from([A.subarray(0, 300)]),
      },
    )
    expect(cut.stdout).toBe(`short\t${big.path}\t300\nshort\tconfig.json\t0\nend\n`)
    expect(existsSync(join(dir, 'config.json.partial'))).toBe(false)
    let l = await list(dir)
    expect(compareNode('here', ref, l).checks.find((c) => c.file === big)).toMatchObject({ status: 'truncated', resumeFrom: 300 })
    expect((await receive(dir, big, 300, A.subarray(300))).stdout).toBe(`ok\t${big.path}\t${A.length - 300}\t${sha(A)}\nend\n`)
    expect((await receive(dir, ref.files[0]!, 0, B)).code).toBe(0)
    l = await list(dir)
    expect(compareNode('here', ref, l).bad).toEqual([])
    expect(existsSync(join(dir, `${big.path}.partial`))).toBe(false)
    expect(existsSync(join(dir, WEIGHTS_VERIFIED_FILE))).toBe(true)
  })

  it('a wrong stream is refused and removed, whichever hash disagrees; a resend from a stale offset is refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vrd-w-'))
    const config = ref.files.find((f) => f.path === 'config.json')!
    // Bytes that are not the manifest's, with the sender's hash of what it sent: refused by the manifest's hash.
    const wrong = Buffer.from('x'.repeat(B.length))
    expect((await receive(dir, config, 0, wrong, sha(wrong))).stdout).toMatch(/^bad\tconfig.json\t16\t/)
    // The right bytes with another sender's hash (the bytes changed in flight): refused too.
    expect((await receive(dir, config, 0, B, sha('other'))).stdout).toMatch(/^bad\tconfig.json\t16\t/)
    // No manifest hash yet (-): the sender's hash decides.
    const unknown = { ...config, sha256: '-' }
    expect((await receive(dir, unknown, 0, wrong, sha(B))).stdout).toMatch(/^bad\t/)
    expect(existsSync(join(dir, 'config.json'))).toBe(false)
    expect(existsSync(join(dir, 'config.json.partial'))).toBe(false)
    expect((await receive(dir, config, 5, B.subarray(5))).stdout).toMatch(/^fail\tconfig.json\t.*holds 0 bytes but the sender starts at 5/)
    expect((await receive(dir, unknown, 0, B, sha(B))).stdout).toBe(`ok\tconfig.json\t16\t${sha(B)}\nend\n`)
  })

  it('the hash computed in flight is the verification: the listing after a receive reads no byte again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vrd-w-'))
    const big = ref.files.find((f) => f.path.startsWith('model'))!
    expect((await receive(dir, big, 0, A)).stdout).toMatch(/^ok\t/)
    const record = readFileSync(join(dir, WEIGHTS_VERIFIED_FILE), 'utf8')
    const st = statSync(join(dir, big.path))
    expect(record).toMatch(new RegExp(`^${A.length} \\d+\\.\\d{9} \\d+\\.\\d{9} ${st.ino}\t${sha(A)}\t${big.path}\n$`))
    // The listing takes the receiver's hash from its record (proof: a record that lies is believed while the file is unchanged) ...
    writeFileSync(join(dir, WEIGHTS_VERIFIED_FILE), record.replace(sha(A), sha('lie')))
    expect((await list(dir)).files.get(big.path)!.sha256).toBe(sha('lie'))
    // ... and a file written since is hashed again.
    writeFileSync(join(dir, big.path), A)
    expect((await list(dir)).files.get(big.path)!.sha256).toBe(sha(A))
  })

  it('a file changed after its verification is hashed again (the record does not hide it)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vrd-w-'))
    mkdirSync(join(dir, '.cache', 'huggingface'), { recursive: true })
    writeFileSync(join(dir, '.cache', 'huggingface', 'x.metadata'), 'hub client state')
    writeFileSync(join(dir, 'config.json'), B)
    const listed = await list(dir)
    expect([...listed.files.keys()]).toEqual(['config.json'])
    expect(compareNode('here', ref, listed).checks[0]!.status).toBe('ok')
    const before = statSync(join(dir, 'config.json')).ctimeMs
    writeFileSync(join(dir, 'config.json'), Buffer.from(B.toString().toUpperCase()))
    expect(statSync(join(dir, 'config.json')).ctimeMs).toBeGreaterThanOrEqual(before)
    expect(compareNode('here', ref, await list(dir)).checks[0]!.status).toBe('corrupted')
  })
})

describe("the seed cluster's manifest", () => {
  it('uses the weights stage for Qwen3.5-122B-A10B-FP8 from the hub, relayed, and plan shows its commands', async () => {
    const { planRollout } = await import('../../src/deploy/rollout-plan.js')
    const seed = parseManifest(readFileSync('.github/vllm-ray-deploy.yml', 'utf8'), '.github/vllm-ray-deploy.yml')
    expect(seed.errors).toEqual([])
    const m = seed.manifest!
    expect(m.model?.source.hub?.repo).toBe('Qwen/Qwen3.5-122B-A10B-FP8')
    expect(m.model?.distribution).toBe('relay')
    const p = planRollout(m, { release: 'r1' })
    const names = p.phases.map((x) => x.name)
    expect(names.indexOf('weights')).toBe(names.indexOf('image-contents') + 1)
    expect(names.indexOf('weights')).toBeLessThan(names.indexOf('stop-previous'))
    const steps = p.phases.find((x) => x.name === 'weights')!.steps
    expect(steps.map((s) => s.id)).toEqual(
      expect.arrayContaining(['spark-a/weights-list', 'spark-b/weights-list', 'spark-a/weights-to-spark-b', 'spark-b/weights-verify']),
    )
    expect(steps.find((s) => s.id === 'spark-a/weights-to-spark-b')!.command).toContain('192.168.200.13')
    const serve = p.phases.flatMap((x) => x.steps).find((s) => s.action === 'vllm-serve')!
    expect(serve.runs!.command).toContain(m.model!.path)
    expect(serve.runs!.command).toContain('--served-model-name qwen3.5-122b')
    const start = p.phases.flatMap((x) => x.steps).find((s) => s.action === 'ray-start')!
    expect(start.runs!.command).toContain(`${m.model!.path}:${m.model!.path}:ro`)
    expect(start.runs!.command).toContain('HF_HUB_OFFLINE=1')
  })
})

describe("the runner's directory", () => {
  it('hashes every file once; unchanged files come from the cache, a changed one is read again', async () => {
    const { hashRunnerDir } = await import('../../src/deploy/weights/transfer.js')
    const dir = mkdtempSync(join(tmpdir(), 'vrd-w-'))
    const cache = join(mkdtempSync(join(tmpdir(), 'vrd-wc-')), 'sub', 'c.json')
    mkdirSync(join(dir, 'sub'))
    writeFileSync(join(dir, 'config.json'), B)
    writeFileSync(join(dir, 'sub', 'w.safetensors'), A)
    writeFileSync(join(dir, '.hidden'), 'x')
    const first = await hashRunnerDir(dir, cache)
    expect(first).toEqual({ ok: true, value: weightsManifest([ref.files[0]!, { ...ref.files[1]!, path: 'sub/w.safetensors' }]) })
    expect(existsSync(cache)).toBe(true)
    // A cache entry that lies about an unchanged file is used (that is what it is for) ...
    const entries = JSON.parse(readFileSync(cache, 'utf8')) as Record<string, { key: string; sha256: string }>
    writeFileSync(cache, JSON.stringify({ ...entries, 'config.json': { ...entries['config.json']!, sha256: sha('cached') } }))
    const cached = await hashRunnerDir(dir, cache)
    expect(cached.ok && cached.value.files[0]!.sha256).toBe(sha('cached'))
    // ... and a file written since is read again.
    writeFileSync(join(dir, 'config.json'), B)
    const again = await hashRunnerDir(dir, cache)
    expect(again.ok && again.value.files[0]!.sha256).toBe(sha(B))
    const bad = await hashRunnerDir(join(dir, 'nope'))
    expect(bad.ok).toBe(false)
  })
})

describe('deliverWeights on two nodes that are directories of this machine', () => {
  const MODEL = '/vrd-model-path-that-is-rewritten'
  /** A node: every command runs here with model.path rewritten to its own directory; `free` optionally faked. */
  const nodeAt = (dir: string, free?: number) => {
    const local = new LocalTransport()
    return {
      label: dir,
      async run(cmd: Parameters<LocalTransport['run']>[0], opts: Parameters<LocalTransport['run']>[1]) {
        const r = await local.run(argv('sh', '-c', render(cmd).replaceAll(MODEL, dir)), opts)
        return free === undefined ? r : { ...r, stdout: r.stdout.replace(/^free\t\d+$/m, `free\t${free}`) }
      },
      close: async () => {},
    }
  }
  const setup = (source: string, distribution: 'each' | 'relay', free?: number) => {
    const m0 = withModelSection(`  path: ${MODEL}\n  source: ${source}\n  distribution: ${distribution}\n`).manifest!
    const dirs = m0.nodes.map(() => mkdtempSync(join(tmpdir(), 'vrd-node-')))
    const transports = new Map(m0.nodes.map((n, i) => [n.name, nodeAt(dirs[i]!, free)]))
    return { m: m0, dirs, transports }
  }
  const runner = () => {
    const dir = mkdtempSync(join(tmpdir(), 'vrd-runner-'))
    writeFileSync(join(dir, 'config.json'), B)
    writeFileSync(join(dir, 'model-00001.safetensors'), A)
    return dir
  }
  const env = () => ({ XDG_CACHE_HOME: mkdtempSync(join(tmpdir(), 'vrd-cache-')) })

  it('runner + each: every node gets every file from the runner; the next run moves 0 bytes', async () => {
    const { deliverWeights } = await import('../../src/deploy/weights/transfer.js')
    const src = runner()
    const { m, dirs, transports } = setup(`{ runner: { dir: ${src} } }`, 'each')
    const first = await deliverWeights({ m, transports, env: env(), onProgress: () => {} })
    expect(first.ok, first.ok ? '' : first.problem.message).toBe(true)
    expect(first.report.bytesMoved).toEqual({ runner: 2 * (A.length + B.length), fabric: 0 })
    expect(first.report.identity).toBe(weightsIdentity(ref))
    for (const d of dirs) expect(readFileSync(join(d, 'model-00001.safetensors'))).toEqual(A)
    const again = await deliverWeights({ m, transports, env: env(), onProgress: () => {} })
    expect(again.report.bytesMoved).toEqual({ runner: 0, fabric: 0 })
    expect(again.report.filesSkipped).toBe(4)
  })

  it('hashes while sending: no runner file is read before the send unless a node holds one of its size; the cache then knows them all', async () => {
    const { deliverWeights, runnerHashCacheFile } = await import('../../src/deploy/weights/transfer.js')
    const src = runner()
    const { m, dirs, transports } = setup(`{ runner: { dir: ${src} } }`, 'each')
    // The head holds a wrong config.json of the right size: it is hashed on the runner before the send, and replaced.
    writeFileSync(join(dirs[0]!, 'config.json'), Buffer.from('x'.repeat(B.length)))
    const e = env()
    const lines: string[] = []
    const first = await deliverWeights({ m, transports, env: e, onProgress: (l) => lines.push(l) })
    expect(first.ok, first.ok ? '' : first.problem.message).toBe(true)
    expect(lines).toContain('2 files, 1016 bytes, 2 not hashed yet')
    expect(lines.some((l) => l.startsWith(`[${m.nodes[0]!.name}] 1 missing, 1 corrupted (`))).toBe(true)
    expect(first.report.identity).toBe(weightsIdentity(ref))
    for (const d of dirs) expect(readFileSync(join(d, 'config.json'))).toEqual(B)
    const cache = JSON.parse(readFileSync(runnerHashCacheFile(src, e), 'utf8')) as Record<string, { sha256: string }>
    expect(Object.fromEntries(Object.entries(cache).map(([k, v]) => [k, v.sha256]))).toEqual({ 'config.json': sha(B), 'model-00001.safetensors': sha(A) })
    lines.length = 0
    const again = await deliverWeights({ m, transports, env: e, onProgress: (l) => lines.push(l) })
    expect(again.report.bytesMoved).toEqual({ runner: 0, fabric: 0 })
    expect(lines.some((l) => l.startsWith('2 files, 1016 bytes, identity sha256:'))).toBe(true)
  })

  it('not enough free space for the bytes to move: DISK_SPACE_LOW on each node, nothing moved', async () => {
    const { deliverWeights } = await import('../../src/deploy/weights/transfer.js')
    const { m, dirs, transports } = setup(`{ runner: { dir: ${runner()} } }`, 'each', 10)
    const out = await deliverWeights({ m, transports, env: env(), onProgress: () => {} })
    expect(out.ok).toBe(false)
    expect(out.ok ? undefined : out.problem.code).toBe('DISK_SPACE_LOW')
    expect(out.findings.map((f) => [f.code, f.node])).toEqual(m.nodes.map((n) => ['DISK_SPACE_LOW', n.name]))
    expect(out.report.bytesMoved).toEqual({ runner: 0, fabric: 0 })
    for (const d of dirs) expect(existsSync(join(d, 'config.json'))).toBe(false)
  })

  it("relay over 4 streams: the head opens the workers' shared fabric connection while the nodes are listed, and closes it when the stage stops before its streams", async () => {
    const { deliverWeights } = await import('../../src/deploy/weights/transfer.js')
    const m = withModelSection(`  path: ${MODEL}\n  source: { runner: { dir: ${runner()} } }\n  distribution: relay\n  streams: 4\n`).manifest!
    const head = m.nodes.find((n) => n.role === 'head')!
    const workers = m.nodes.filter((n) => n.role === 'worker')
    const events: string[] = []
    const answered = (stdout: string): RunResult => ({ code: 0, signal: null, stdout, stderr: '', durationMs: 1, timedOut: false })
    // Every node a directory here with 10 bytes free (DISK_SPACE_LOW: the stage stops after the listing); the head's ssh to the workers answered here, never run.
    const transports = new Map(
      m.nodes.map((n) => {
        const node = nodeAt(mkdtempSync(join(tmpdir(), 'vrd-node-')), 10)
        return [
          n.name,
          {
            ...node,
            async run(cmd: Parameters<LocalTransport['run']>[0], opts: Parameters<LocalTransport['run']>[1]): Promise<RunResult> {
              const text = render(cmd)
              const path = /ControlPath=("?)(\/tmp\/vrd-fabric-[0-9a-f]+)/.exec(text)?.[2] ?? text.match(/\/tmp\/vrd-fabric-[0-9a-f]+/)?.[0]
              if (text.includes('ControlMaster=yes')) {
                events.push(`open ${n.name} ${path}`)
                return answered(workers.map((w) => `share\t${w.fabricIp}\t0\n`).join(''))
              }
              if (text.includes('-O exit')) {
                events.push(`close ${n.name} ${path}`)
                return answered('')
              }
              const r = await node.run(cmd, opts)
              if (/^free\t/m.test(r.stdout)) events.push(`listed ${n.name}`)
              return r
            },
          },
        ]
      }),
    )
    const out = await deliverWeights({ m, transports, env: env(), onProgress: () => {} })
    expect(out.ok ? undefined : out.problem.code).toBe('DISK_SPACE_LOW')
    const open = events.findIndex((e) => e.startsWith('open '))
    expect(events[open]).toMatch(new RegExp(`^open ${head.name} /tmp/vrd-fabric-`))
    // Issued before any listing had come back, not after them.
    expect(open).toBeLessThan(events.findIndex((e) => e.startsWith('listed ')))
    expect(events.filter((e) => e.startsWith('listed '))).toHaveLength(m.nodes.length)
    // Closed once, on the head, at the path it was opened under: nothing of the stage outlives it.
    expect(events.filter((e) => e.startsWith('close '))).toEqual([events[open]!.replace(/^open/, 'close')])
    expect(events.at(-1)).toMatch(/^close /)
  })

  it("nodes + each: the head's copy is the reference; a worker that differs is WEIGHTS_MISMATCH naming the file", async () => {
    const { deliverWeights } = await import('../../src/deploy/weights/transfer.js')
    const { m, dirs, transports } = setup('{ nodes: {} }', 'each')
    for (const [i, d] of dirs.entries()) {
      writeFileSync(join(d, 'config.json'), B)
      writeFileSync(join(d, 'model-00001.safetensors'), i === 0 ? A : Buffer.from('b'.repeat(A.length)))
    }
    const out = await deliverWeights({ m, transports, env: env(), onProgress: () => {} })
    expect(out.ok).toBe(false)
    const f = out.findings.find((x) => x.code === 'WEIGHTS_MISMATCH')!
    expect(f.node).toBe(m.nodes[1]!.name)
    expect(f.message).toContain('1 corrupted (model-00001.safetensors)')
    expect(f.fix).toContain('relay')
    expect(out.report.bytesMoved).toEqual({ runner: 0, fabric: 0 })
  })
})

describe("a hub source: what a node downloaded is checked against the hub's own digests", () => {
  const MODEL = '/vrd-hub-model-path-that-is-rewritten'
  const COMMIT = 'e92c2e196f8b7634f3585a96b83bbf0bf41c09ea'
  const gitBlob = (b: Buffer) =>
    createHash('sha1')
      .update(Buffer.concat([Buffer.from(`blob ${b.length}\0`), b]))
      .digest('hex')
  const nodeAt = (dir: string) => {
    const local = new LocalTransport()
    return {
      label: dir,
      run: (cmd: Parameters<LocalTransport['run']>[0], opts: Parameters<LocalTransport['run']>[1]) =>
        local.run(argv('sh', '-c', render(cmd).replaceAll(MODEL, dir)), opts),
      close: async () => {},
    }
  }
  /**
   * A stand-in for the download step: it writes what a mirror "served" and prints the listing the
   * real step prints (the hub's digests, the node's git blob id of a file kept in git).
   */
  const hub =
    (served: { shard: Buffer; config: Buffer }): HubPlanner =>
    (_m, node, dir) => {
      const input = { repo: 'org/model', revision: COMMIT, dest: dir, image: 'img' }
      const line = JSON.stringify({
        'vrd-hub': 1,
        commit: COMMIT,
        client: 'test',
        fetched: ['config.json', 'model-00001.safetensors'],
        files: [
          {
            path: 'config.json',
            size: B.length,
            blobId: gitBlob(B),
            lfs: false,
            sha256: null,
            localSize: served.config.length,
            localBlobId: gitBlob(served.config),
          },
          {
            path: 'model-00001.safetensors',
            size: A.length,
            blobId: gitBlob(Buffer.from('pointer')),
            lfs: true,
            sha256: sha(A),
            localSize: served.shard.length,
            localBlobId: null,
          },
        ],
      })
      return [
        {
          cmd: argv(
            'sh',
            '-c',
            'mkdir -p "$1" && printf %s "$2" > "$1/model-00001.safetensors" && printf %s "$3" > "$1/config.json" && printf "%s\\n" "$4"',
            'sh',
            dir,
            served.shard.toString(),
            served.config.toString(),
            line,
          ),
          read: (r) => parseHubDownload(input, { node: node.name, code: r.code, stdout: r.stdout, stderr: r.stderr }),
          discard: (paths) => discardDownloaded(dir, paths),
        },
      ]
    }
  const setup = (served: { shard: Buffer; config: Buffer }, distribution: 'each' | 'relay' = 'relay') => {
    const m = withModelSection(`  path: ${MODEL}\n  source: { hub: { repo: org/model, revision: ${COMMIT} } }\n  distribution: ${distribution}\n`).manifest!
    const dirs = m.nodes.map(() => mkdtempSync(join(tmpdir(), 'vrd-hub-node-')))
    const transports = new Map(m.nodes.map((n, i) => [n.name, nodeAt(dirs[i]!)]))
    return { m, dirs, transports, hub: hub(served) }
  }
  const flipped = Buffer.from(A.map((b) => b ^ 1))

  it("the hub's bytes on every node (distribution: each): every node verified, each against the hub", async () => {
    const { deliverWeights } = await import('../../src/deploy/weights/transfer.js')
    const { m, dirs, transports, hub: h } = setup({ shard: A, config: B }, 'each')
    const said: string[] = []
    const out = await deliverWeights({ m, transports, env: {}, onProgress: (l) => said.push(l), hub: h })
    expect(out.ok, out.ok ? '' : out.problem.message).toBe(true)
    for (const d of dirs) expect(readFileSync(join(d, 'model-00001.safetensors'))).toEqual(A)
    for (const n of m.nodes) expect(said).toContain(`[${n.name}] every file matches the hub's digests (2 files; 1 by SHA-256, the rest by git blob id)`)
    // What each node just downloaded is counted as downloaded, not as files it already held.
    expect(out.report).toMatchObject({ filesDownloaded: 4, filesSkipped: 0 })
    for (const n of out.report.nodes) expect(n).toMatchObject({ filesDownloaded: 2, filesSkipped: 0, filesSent: 0 })
  })

  it('an LFS file of the right size and the wrong bytes: WEIGHTS_DIGEST_MISMATCH with both digests, removed, nothing sent', async () => {
    const { deliverWeights } = await import('../../src/deploy/weights/transfer.js')
    const { m, dirs, transports, hub: h } = setup({ shard: flipped, config: B })
    const out = await deliverWeights({ m, transports, env: {}, onProgress: () => {}, hub: h })
    expect(out.ok).toBe(false)
    expect(out.ok ? undefined : out.problem.code).toBe('WEIGHTS_DIGEST_MISMATCH')
    const f = out.findings.find((x) => x.code === 'WEIGHTS_DIGEST_MISMATCH')!
    expect(f.node).toBe(m.nodes[0]!.name)
    expect(f.evidence['model-00001.safetensors']).toBe(`hub sha256 ${sha(A)}, ${m.nodes[0]!.name} has sha256 ${sha(flipped)}`)
    expect(existsSync(join(dirs[0]!, 'model-00001.safetensors'))).toBe(false)
    expect(existsSync(join(dirs[0]!, 'config.json'))).toBe(true)
    expect(existsSync(join(dirs[1]!, 'model-00001.safetensors'))).toBe(false)
    expect(out.report.bytesMoved).toEqual({ runner: 0, fabric: 0 })
  })

  it('a file kept in git with the wrong bytes: WEIGHTS_DIGEST_MISMATCH by git blob id, removed', async () => {
    const { deliverWeights } = await import('../../src/deploy/weights/transfer.js')
    const bad = Buffer.from(B.map((b) => b ^ 1))
    const { m, dirs, transports, hub: h } = setup({ shard: A, config: bad })
    const out = await deliverWeights({ m, transports, env: {}, onProgress: () => {}, hub: h })
    expect(out.ok ? undefined : out.problem.code).toBe('WEIGHTS_DIGEST_MISMATCH')
    expect(out.ok ? undefined : out.problem.message).toContain(
      `config.json on ${m.nodes[0]!.name} is not the file the hub lists: its git blob id is ${gitBlob(bad)}, the hub's is ${gitBlob(B)}`,
    )
    expect(out.findings.map((x) => [x.code, x.node])).toContainEqual(['WEIGHTS_DIGEST_MISMATCH', m.nodes[0]!.name])
    expect(existsSync(join(dirs[0]!, 'config.json'))).toBe(false)
  })
})

describe('runner paths stay inside their directory (issue 33)', () => {
  const MODEL = '/vrd-runner-model-path-that-is-rewritten'
  const nodeAt = (dir: string) => {
    const local = new LocalTransport()
    return {
      label: dir,
      run: (cmd: Parameters<LocalTransport['run']>[0], opts: Parameters<LocalTransport['run']>[1]) =>
        local.run(argv('sh', '-c', render(cmd).replaceAll(MODEL, dir)), opts),
      close: async () => {},
    }
  }
  const runnerWith = (make: (dir: string) => void) => {
    const dir = mkdtempSync(join(tmpdir(), 'vrd-runner-links-'))
    writeFileSync(join(dir, 'config.json'), B)
    make(dir)
    return dir
  }
  const deliver = async (src: string, onProgress: (l: string) => void = () => {}) => {
    const { deliverWeights } = await import('../../src/deploy/weights/transfer.js')
    const m = withModelSection(`  path: ${MODEL}\n  source: { runner: { dir: ${src} } }\n  distribution: each\n`).manifest!
    const dirs = m.nodes.map(() => mkdtempSync(join(tmpdir(), 'vrd-node-')))
    const transports = new Map(m.nodes.map((n, i) => [n.name, nodeAt(dirs[i]!)]))
    const out = await deliverWeights({ m, transports, env: { XDG_CACHE_HOME: mkdtempSync(join(tmpdir(), 'vrd-cache-')) }, onProgress })
    return { out, dirs }
  }

  it.each([
    [
      'a file elsewhere on the runner',
      () => {
        const elsewhere = join(mkdtempSync(join(tmpdir(), 'vrd-elsewhere-')), 'secret.txt')
        writeFileSync(elsewhere, 'not a model file')
        return elsewhere
      },
    ],
    ['/proc/self/environ', () => '/proc/self/environ'],
  ])('a link to %s is refused before anything is sent, naming the link and where it leads', async (_what, target) => {
    const t = target()
    const src = runnerWith((dir) => symlinkSync(t, join(dir, 'model-00001.safetensors')))
    const { out, dirs } = await deliver(src)
    expect(out.ok).toBe(false)
    expect(out.ok ? undefined : out.problem.code).toBe('WEIGHTS_SOURCE_INVALID')
    expect(out.ok ? undefined : out.problem.message).toContain(
      `model-00001.safetensors links out of the directory (to ${t === '/proc/self/environ' ? '/proc/' : t}`,
    )
    expect(out.ok ? undefined : out.problem.fix).toMatch(/cp -L/)
    for (const d of dirs) expect(existsSync(join(d, 'model-00001.safetensors'))).toBe(false)
    expect(out.report.bytesMoved.runner).toBe(0)
  })

  it('a link to a directory is never followed (it could loop)', async () => {
    const src = runnerWith((dir) => symlinkSync(dir, join(dir, 'loop')))
    const { out } = await deliver(src)
    expect(out.ok ? undefined : out.problem.message).toContain('loop is a link to a directory, which is never followed')
  })

  it("a Hugging Face cache snapshot (files linked to its repository's blobs) is read through its links", async () => {
    const repo = join(mkdtempSync(join(tmpdir(), 'vrd-hf-cache-')), 'models--org--model')
    const snapshot = join(repo, 'snapshots', 'e92c2e196f8b7634f3585a96b83bbf0bf41c09ea')
    mkdirSync(join(repo, 'blobs'), { recursive: true })
    mkdirSync(snapshot, { recursive: true })
    writeFileSync(join(repo, 'blobs', sha(A)), A)
    symlinkSync(`../../blobs/${sha(A)}`, join(snapshot, 'model-00001.safetensors'))
    const { out, dirs } = await deliver(snapshot)
    expect(out.ok, out.ok ? '' : out.problem.message).toBe(true)
    for (const d of dirs) expect(readFileSync(join(d, 'model-00001.safetensors'))).toEqual(A)
  })

  it.each([
    ['removed', (f: string) => unlinkSync(f), /it is gone \(removed after it was hashed\)/],
    ['grown', (f: string) => writeFileSync(f, Buffer.concat([A, A])), /it is 2000 bytes now; it was 1000 bytes when it was hashed/],
    [
      'swapped for a link out of the directory',
      (f: string) => {
        unlinkSync(f)
        symlinkSync('/proc/self/environ', f)
      },
      /links out of the directory/,
    ],
  ])('a file %s between the hash and its send: a finding with the reason, no crash, nothing of it sent', async (_what, change, why) => {
    const src = runnerWith((dir) => writeFileSync(join(dir, 'model-00001.safetensors'), A))
    let changed = false
    const { out, dirs } = await deliver(src, (line) => {
      // The send's first line for the shard: the file is checked and opened right after it.
      if (!changed && /runner → .* model-00001\.safetensors: missing/.test(line)) {
        changed = true
        change(join(src, 'model-00001.safetensors'))
      }
    })
    expect(changed).toBe(true)
    expect(out.ok).toBe(false)
    const mismatch = out.findings.find((f) => f.code === 'WEIGHTS_MISMATCH')
    expect(mismatch?.fix).toMatch(why)
    for (const d of dirs) expect(existsSync(join(d, 'model-00001.safetensors'))).toBe(false)
  })
})
