/**
 * relayImage's steps and failure paths without Docker: the runner's `docker` is a program on
 * $VRD_DOCKER that answers `image inspect` and `save` the way the real one does (or fails as it
 * does), and every node is a recording transport that answers the head's load, fan-out and
 * pass-on and each node's `docker image inspect` from a script per test. The lab test
 * (relay.e2e) runs the same code with the real docker and ssh.
 */
import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { relayImage } from '../../src/deploy/relay-transfer.js'
import { runnerArchiveName } from '../../src/deploy/runner-archive.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { type Answer, RUNNER_DOCKER, recording } from './support/recording.js'
import { simManifest } from './support/sim-cluster.js'

const IMAGE = 'vrd/test:1'
const RUNNER_ID = `sha256:${'a'.repeat(64)}`
const OTHER_ID = `sha256:${'b'.repeat(64)}`

let dir: string
const saved = { ...process.env }

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'vrd-relay-'))
  const docker = join(dir, 'docker')
  writeFileSync(docker, RUNNER_DOCKER)
  chmodSync(docker, 0o755)
  process.env.VRD_DOCKER = docker
  process.env.STUB_IMAGE = IMAGE
})
afterAll(() => {
  process.env = saved
  rmSync(dir, { recursive: true, force: true })
})
beforeEach(() => {
  process.env.STUB_RUNNER_ID = RUNNER_ID
  process.env.STUB_SAVE_BYTES = '300000'
  delete process.env.STUB_SAVE_FAIL
})

const inspect = /docker image inspect/
/** The head's fan-out report lines (src/plan/relay-commands.ts). */
const fanOut = (lines: string[]) => `${lines.join('\n')}\nend\n`

/** A node that answers inspect with `id` (none: no such image) and `other` for any other command. */
const node =
  (id: string | undefined, other: Answer = () => ({})): Answer =>
  (c) =>
    inspect.test(c) ? (id ? { stdout: `${id}\n` } : { code: 1, stderr: 'Error: No such image' }) : other(c)

let m: Manifest
let worker: Manifest['nodes'][number]
beforeAll(() => {
  m = simManifest()
  worker = m.nodes.find((n) => n.role !== 'head')!
})

/** What a node answers to the landing's commands (src/plan/image-landing-commands.ts); anything else: `other`. */
const landing =
  (id: string | undefined, probe: string, onLanding: Answer, onLoad: Answer = () => ({}), other?: Answer): Answer =>
  (c) =>
    /df -Pk/.test(c) ? { stdout: probe } : /LANDPY/.test(c) ? onLanding(c) : /docker load -i/.test(c) ? onLoad(c) : node(id, other)(c)
const ROOM = 'free 10000000000\npython yes\n'
const kind = (c: string) =>
  /df -Pk/.test(c)
    ? 'probe'
    : /LANDPY/.test(c)
      ? 'land'
      : /docker load -i/.test(c)
        ? 'load -i'
        : /^rm -f .*image-landing/.test(c)
          ? 'remove'
          : inspect.test(c)
            ? 'inspect'
            : c

describe('relayImage landed first (image.relayLanding): every node writes its own verified file, then every docker load -i at once', () => {
  it('the manifest decides by default: off, the stream; on, the landing', async () => {
    const answers = {
      'spark-a': landing(
        RUNNER_ID,
        ROOM,
        () => ({ stdout: fanOut(['relay\thead\t0', `relay\t${worker.fabricIp}\t0`]) }),
        undefined,
        () => ({
          stdout: fanOut(['relay\thead\t0', `relay\t${worker.fabricIp}\t0`]),
        }),
      ),
      'spark-b': landing(RUNNER_ID, ROOM, () => ({})),
    }
    const off = recording(answers)
    expect((await relayImage(m, IMAGE, off.transports, {})).ok).toBe(true)
    expect(off.calls.map((c) => kind(c.command))).not.toContain('land')
    const on = recording(answers)
    expect((await relayImage({ ...m, image: { ...m.image, relayLanding: true } }, IMAGE, on.transports, {})).ok).toBe(true)
    expect(on.calls.map((c) => kind(c.command))).toContain('land')
  })

  it('probes both nodes, lands through the head, loads both at once and removes the file on both after', async () => {
    const { transports, calls } = recording({
      'spark-a': landing(RUNNER_ID, ROOM, () => ({ stdout: fanOut(['relay\thead\t0', `relay\t${worker.fabricIp}\t0`]) })),
      'spark-b': landing(RUNNER_ID, ROOM, () => ({ code: 99 })),
    })
    const progress: string[] = []
    const r = await relayImage(m, IMAGE, transports, { onProgress: (s) => progress.push(s), landing: true })
    expect(r.findings).toEqual([])
    expect(r.ok).toBe(true)
    expect(r.bytesSent).toBe(300000)
    expect(calls.map((c) => `${c.node} ${kind(c.command)}`)).toEqual([
      'spark-a probe',
      'spark-b probe',
      'spark-a land',
      'spark-a load -i',
      'spark-b load -i',
      'spark-a remove',
      'spark-b remove',
      'spark-a inspect',
      'spark-b inspect',
    ])
    // The frames: every byte of the archive, plus 5 bytes per frame and the 41-byte end mark.
    expect(calls.find((c) => kind(c.command) === 'land')!.stdinBytes).toBeGreaterThan(300000 + 41)
    expect(progress[0]).toMatch(/^relay: runner → spark-a → spark-b \(.*\) over the fabric, landed first/)
  })

  it('a worker short of space: a DISK_SPACE_LOW warning, and the relay streams into every docker load instead', async () => {
    const streamed = () => ({ stdout: fanOut(['relay\thead\t0', `relay\t${worker.fabricIp}\t0`]) })
    const { transports, calls } = recording({
      'spark-a': landing(RUNNER_ID, ROOM, () => ({}), undefined, streamed),
      'spark-b': landing(RUNNER_ID, 'free 1000\npython yes\n', () => ({})),
    })
    const progress: string[] = []
    const r = await relayImage(m, IMAGE, transports, { onProgress: (s) => progress.push(s), landing: true })
    expect(r.findings).toMatchObject([
      {
        code: 'DISK_SPACE_LOW',
        severity: 'warning',
        node: 'spark-b',
        evidence: { Landing: expect.stringMatching(/^0 MB free under .*image-landing, the archive needs 67 MB$/) },
      },
    ])
    expect(r.ok).toBe(true)
    expect(progress[0]).toMatch(/^relay: warning: not landing the archive first, streaming it into docker load instead: spark-b: 0 MB free/)
    expect(progress[1]).toMatch(/all at once: docker save .* \| docker load$/)
    expect(calls.map((c) => kind(c.command))).not.toContain('land')
  })

  it('a worker whose landing fails: IMAGE_TRANSFER_FAILED for it, the head still loads its file, and both files are removed', async () => {
    const { transports, calls } = recording({
      'spark-a': landing(RUNNER_ID, ROOM, () => ({
        code: 1,
        stdout: fanOut([
          'relay\thead\t0',
          `relay\t${worker.fabricIp}\t1`,
          `log\t${worker.fabricIp}\tlanding x: write failed: [Errno 28] No space left on device`,
        ]),
      })),
      'spark-b': landing(undefined, ROOM, () => ({})),
    })
    const r = await relayImage(m, IMAGE, transports, { landing: true })
    expect(r.findings.map((f) => `${f.code}@${f.node}`)).toEqual(['IMAGE_TRANSFER_FAILED@spark-b', 'IMAGE_MISMATCH@spark-b'])
    expect(r.findings[0]!.evidence['Result']).toMatch(/^exit 1: landing x: write failed: \[Errno 28\] No space left on device$/)
    expect(calls.map((c) => `${c.node} ${kind(c.command)}`).filter((k) => /load -i|remove/.test(k))).toEqual([
      'spark-a load -i',
      'spark-a remove',
      'spark-b remove',
    ])
  })

  it('cancelled during the landing: no load runs, and the file is removed on every node all the same', async () => {
    const cancel = new AbortController()
    const { transports, calls } = recording({
      'spark-a': landing(RUNNER_ID, ROOM, () => {
        cancel.abort()
        return { code: null, cancelled: true }
      }),
      'spark-b': landing(undefined, ROOM, () => ({})),
    })
    const r = await relayImage(m, IMAGE, transports, { signal: cancel.signal, landing: true })
    expect(r.ok).toBe(false)
    expect(calls.map((c) => `${c.node} ${kind(c.command)}`).filter((k) => /load -i|remove/.test(k))).toEqual(['spark-a remove', 'spark-b remove'])
  })
})

describe('relayImage: the runner streams once into the head, which feeds every worker', () => {
  it('relays through the fan-out, counts the bytes sent and ends with every node on the runner image ID', async () => {
    const { transports, calls } = recording({
      'spark-a': node(RUNNER_ID, () => ({ stdout: fanOut(['relay\thead\t0', `relay\t${worker.fabricIp}\t0`]) })),
      'spark-b': node(RUNNER_ID),
    })
    const progress: string[] = []
    const r = await relayImage(m, IMAGE, transports, { onProgress: (s) => progress.push(s), landing: false })
    expect(r.findings).toEqual([])
    expect(r.ok).toBe(true)
    expect(r.bytesSent).toBe(300000)
    expect(Object.fromEntries(r.imageIds)).toEqual({ 'spark-a': RUNNER_ID, 'spark-b': RUNNER_ID })
    const load = calls.find((c) => c.node === 'spark-a' && !inspect.test(c.command))!
    expect(load.stdinBytes).toBe(300000)
    expect(load.command).toContain(worker.fabricIp)
    expect(progress[0]).toBe(`relay: runner → spark-a → spark-b (${worker.fabricIp}) over the fabric, all at once: docker save ${IMAGE} | docker load`)
    expect(progress).toContainEqual(expect.stringMatching(/^relay: spark-a → spark-b: loaded from the same stream/))
  })

  it('with every worker skipped, the head runs a plain docker load, not the fan-out', async () => {
    const { transports, calls } = recording({ 'spark-a': node(RUNNER_ID), 'spark-b': node(RUNNER_ID) })
    const r = await relayImage(m, IMAGE, transports, { skip: new Set(['spark-b']), runnerId: RUNNER_ID, landing: false })
    expect(r.ok).toBe(true)
    const load = calls.find((c) => c.node === 'spark-a' && !inspect.test(c.command))!
    expect(load.command).toMatch(/docker load/)
    expect(load.command).not.toContain(worker.fabricIp)
  })

  it('a runner without the image: IMAGE_TRANSFER_FAILED with what docker said, and no node is touched', async () => {
    delete process.env.STUB_RUNNER_ID
    const { transports, calls } = recording({ 'spark-a': node(RUNNER_ID), 'spark-b': node(RUNNER_ID) })
    const r = await relayImage(m, IMAGE, transports, {})
    expect(r.ok).toBe(false)
    expect(r.findings).toMatchObject([
      { code: 'IMAGE_TRANSFER_FAILED', node: null, evidence: { Image: IMAGE, 'docker image inspect': expect.stringContaining('No such image') } },
    ])
    expect(calls).toEqual([])
  })

  it('no connection to the head: IMAGE_TRANSFER_FAILED on the head', async () => {
    const { transports, calls } = recording({ 'spark-b': node(RUNNER_ID) })
    const r = await relayImage(m, IMAGE, transports, { runnerId: RUNNER_ID })
    expect(r.findings).toMatchObject([
      { code: 'IMAGE_TRANSFER_FAILED', node: 'spark-a', message: expect.stringContaining('No connection to the head spark-a') },
    ])
    expect(calls).toEqual([])
  })

  it("a save that fails by itself is the cause: one finding for the runner's save, none for the loads; each node then lacks the image", async () => {
    process.env.STUB_SAVE_FAIL = 'Error response from daemon: write /var/lib/docker/tmp: no space left on device'
    const { transports } = recording({
      'spark-a': node(undefined, () => ({ code: 1, stdout: fanOut(['relay\thead\t1', 'log\thead\tunexpected EOF', `relay\t${worker.fabricIp}\t1`]) })),
      'spark-b': node(undefined),
    })
    const progress: string[] = []
    const r = await relayImage(m, IMAGE, transports, { runnerId: RUNNER_ID, onProgress: (s) => progress.push(s) })
    expect(r.findings.map((f) => [f.code, f.node])).toEqual([
      ['IMAGE_TRANSFER_FAILED', 'spark-a'],
      ['IMAGE_MISMATCH', 'spark-a'],
      ['IMAGE_MISMATCH', 'spark-b'],
    ])
    expect(r.findings[0]!.message).toMatch(/^docker save .* on the runner failed/)
    expect(r.findings[0]!.evidence['docker save']).toMatch(/^exit 1: .*no space left on device/)
    expect(r.findings[1]!.evidence['spark-a image ID']).toBe('(not present)')
    // The head does not hold the image, so nothing is passed on from it.
    expect(progress).toContain(`relay: spark-a does not hold the runner's image ${'a'.repeat(12)}; not passing it on`)
  })

  it("a head load that fails: the head's log is the evidence, and a worker the fan-out did not report gets its own finding", async () => {
    const report = fanOut(['relay\thead\t1', 'log\thead\tno space left on device'])
    const { transports } = recording({
      'spark-a': node(undefined, () => ({ code: 1, stdout: report })),
      'spark-b': node(undefined),
    })
    const r = await relayImage(m, IMAGE, transports, { runnerId: RUNNER_ID })
    const [headLoad, workerLoad] = r.findings
    expect(headLoad).toMatchObject({
      code: 'IMAGE_TRANSFER_FAILED',
      node: 'spark-a',
      evidence: { 'docker load': 'exit 1: no space left on device', 'Bytes sent': '300000' },
    })
    expect(workerLoad).toMatchObject({ code: 'IMAGE_TRANSFER_FAILED', node: 'spark-b' })
    // No line for the worker: the evidence is how the head's command ended and what it printed.
    expect(workerLoad!.evidence.Result).toBe(`no result for ${worker.fabricIp} from the head (exit 1: ${report.trim()})`)
  })

  it("a worker whose load fails in the fan-out gets IMAGE_TRANSFER_FAILED with its exit code and log; the head's load stands", async () => {
    const { transports } = recording({
      'spark-a': node(RUNNER_ID, () => ({
        stdout: fanOut(['relay\thead\t0', `relay\t${worker.fabricIp}\t255`, `log\t${worker.fabricIp}\tConnection refused`]),
      })),
      'spark-b': node(undefined),
    })
    const r = await relayImage(m, IMAGE, transports, { runnerId: RUNNER_ID })
    expect(r.findings.map((f) => [f.code, f.node])).toEqual([
      ['IMAGE_TRANSFER_FAILED', 'spark-b'],
      ['IMAGE_MISMATCH', 'spark-b'],
    ])
    expect(r.findings[0]!.evidence).toEqual({
      Command: `the runner's stream, copied on spark-a into ssh ${worker.fabricIp} docker load`,
      Result: 'exit 255: Connection refused',
    })
    expect(r.imageIds.get('spark-a')).toBe(RUNNER_ID)
  })

  it("a load that stops reading early ends the runner's save too, and the save is not blamed", async () => {
    process.env.STUB_SAVE_BYTES = String(8 * 1024 * 1024) // far more than a pipe holds: save blocks until it is closed
    const { transports, calls } = recording({
      'spark-a': node(undefined, () => ({ code: 1, stderr: 'unexpected EOF', read: 100_000 })),
      'spark-b': node(RUNNER_ID),
    })
    const r = await relayImage(m, IMAGE, transports, { runnerId: RUNNER_ID, skip: new Set(['spark-b']) })
    expect(r.findings.map((f) => [f.code, f.node])).toEqual([
      ['IMAGE_TRANSFER_FAILED', 'spark-a'],
      ['IMAGE_MISMATCH', 'spark-a'],
    ])
    expect(r.findings[0]!.message).toMatch(/^docker load on spark-a failed/)
    expect(r.findings[0]!.evidence['docker load']).toBe('exit 1: unexpected EOF')
    expect(calls.find((c) => !inspect.test(c.command))!.stdinBytes).toBeLessThan(8 * 1024 * 1024)
  })
})

describe('relayImage: a head that already holds the image passes it on', () => {
  it('the head skipped and holding the exact image: docker save | ssh to each worker that lacks it, nothing sent from the runner', async () => {
    const { transports, calls } = recording({ 'spark-a': node(RUNNER_ID), 'spark-b': node(RUNNER_ID) })
    const progress: string[] = []
    const r = await relayImage(m, IMAGE, transports, { runnerId: RUNNER_ID, skip: new Set(['spark-a']), onProgress: (s) => progress.push(s) })
    expect(r.ok).toBe(true)
    expect(r.bytesSent).toBe(0)
    const passOn = calls.filter((c) => c.node === 'spark-a' && !inspect.test(c.command))
    expect(passOn.map((c) => c.command)).toEqual([
      expect.stringMatching(
        new RegExp(
          `docker save "\\$img".* \\| fssh .* docker load\n.*' sh [a-z0-9@.,-]+ ${IMAGE.replace(/[./]/g, '\\$&')} -o .* ${worker.fabricIp.replace(/\./g, '\\.')}$`,
          's',
        ),
      ),
    ])
    expect(progress[0]).toBe(`relay: spark-a already holds ${'a'.repeat(12)}; nothing sent from the runner`)
  })

  it('a pass-on that fails: IMAGE_TRANSFER_FAILED naming the command on the head, then IMAGE_MISMATCH for the worker', async () => {
    const { transports } = recording({
      'spark-a': node(RUNNER_ID, () => ({ code: 255, stderr: 'Host key verification failed.' })),
      'spark-b': node(undefined),
    })
    const r = await relayImage(m, IMAGE, transports, { runnerId: RUNNER_ID, skip: new Set(['spark-a']) })
    expect(r.findings.map((f) => [f.code, f.node])).toEqual([
      ['IMAGE_TRANSFER_FAILED', 'spark-b'],
      ['IMAGE_MISMATCH', 'spark-b'],
    ])
    expect(r.findings[0]!.evidence).toEqual({
      Command: `docker save ${IMAGE} | ssh ${worker.fabricIp} docker load (on spark-a)`,
      Result: 'exit 255: Host key verification failed.',
    })
  })

  it('a head holding a different image under the name passes nothing on; both nodes are IMAGE_MISMATCH, one different, one absent', async () => {
    const { transports, calls } = recording({ 'spark-a': node(OTHER_ID), 'spark-b': node(undefined) })
    const r = await relayImage(m, IMAGE, transports, { runnerId: RUNNER_ID, skip: new Set(['spark-a']) })
    expect(calls.every((c) => inspect.test(c.command))).toBe(true)
    expect(r.findings).toMatchObject([
      { code: 'IMAGE_MISMATCH', node: 'spark-a', message: expect.stringContaining('holds a different image'), evidence: { 'spark-a image ID': OTHER_ID } },
      { code: 'IMAGE_MISMATCH', node: 'spark-b', message: expect.stringContaining('does not hold'), evidence: { 'spark-b image ID': '(not present)' } },
    ])
  })

  it('a worker without a connection is IMAGE_MISMATCH with (no connection)', async () => {
    const { transports } = recording({ 'spark-a': node(RUNNER_ID) })
    const r = await relayImage(m, IMAGE, transports, { runnerId: RUNNER_ID, skip: new Set(['spark-a', 'spark-b']) })
    expect(r.findings).toMatchObject([{ code: 'IMAGE_MISMATCH', node: 'spark-b', evidence: { 'spark-b image ID': '(no connection)' } }])
  })
})

describe("the runner's archive kept for the next relay (image.runnerArchiveCache, src/deploy/runner-archive.ts)", () => {
  let cache: string
  beforeEach(() => {
    cache = mkdtempSync(join(tmpdir(), 'vrd-archive-'))
  })
  afterAll(() => rmSync(cache, { recursive: true, force: true }))
  /** Head and worker both load the stream and then hold `id`. */
  const loads = (id = RUNNER_ID) =>
    recording({ 'spark-a': node(id, () => ({ stdout: fanOut(['relay\thead\t0', `relay\t${worker.fabricIp}\t0`]) })), 'spark-b': node(id) })
  const files = () => readdirSync(cache).sort()

  it('the first relay writes the archive as it streams it; the next relay of the same image sends that file and runs no docker save', async () => {
    const first = loads()
    const r1 = await relayImage(m, IMAGE, first.transports, { runnerId: RUNNER_ID, archiveDir: cache })
    expect(r1.findings).toEqual([])
    expect(r1.bytesSent).toBe(300000)
    expect(files()).toEqual([runnerArchiveName(RUNNER_ID, IMAGE)])
    expect(statSync(join(cache, runnerArchiveName(RUNNER_ID, IMAGE))).size).toBe(300000)
    // A save now would fail: the second relay must not run one.
    process.env.STUB_SAVE_FAIL = 'the cache was not used'
    const second = loads()
    const progress: string[] = []
    const r2 = await relayImage(m, IMAGE, second.transports, { runnerId: RUNNER_ID, archiveDir: cache, onProgress: (s) => progress.push(s) })
    expect(r2.findings).toEqual([])
    expect(r2.bytesSent).toBe(300000)
    expect(second.calls.find((c) => c.node === 'spark-a' && !inspect.test(c.command))?.stdinBytes).toBe(300000)
    expect(progress).toContain(`relay: the runner's archive of ${'a'.repeat(12)} from ${join(cache, runnerArchiveName(RUNNER_ID, IMAGE))} (no docker save)`)
  })

  it('the archive is named by image ID and ref (the archive names its tag): another ref of the same ID runs docker save', async () => {
    expect(runnerArchiveName(RUNNER_ID, IMAGE)).not.toBe(runnerArchiveName(RUNNER_ID, 'vrd/test:2'))
    expect(runnerArchiveName(RUNNER_ID, IMAGE)).toMatch(/^a{64}-[0-9a-f]{12}\.tar$/)
  })

  it('a save that fails leaves no archive and no partial file', async () => {
    process.env.STUB_SAVE_FAIL = 'Error response from daemon: no space left on device'
    const r = await relayImage(m, IMAGE, loads().transports, { runnerId: RUNNER_ID, archiveDir: cache })
    expect(r.findings[0]).toMatchObject({ code: 'IMAGE_TRANSFER_FAILED', message: expect.stringMatching(/^docker save/) })
    expect(files()).toEqual([])
  })

  it('a relay that fails with the cached archive removes it, so the next one saves again', async () => {
    expect((await relayImage(m, IMAGE, loads().transports, { runnerId: RUNNER_ID, archiveDir: cache })).ok).toBe(true)
    expect(files()).toHaveLength(1)
    // The nodes end on another image ID: the relay fails (IMAGE_MISMATCH), the archive it sent is dropped.
    const r = await relayImage(m, IMAGE, loads(OTHER_ID).transports, { runnerId: RUNNER_ID, archiveDir: cache })
    expect(r.ok).toBe(false)
    expect(files()).toEqual([])
  })

  it('without the room (the image and a tenth more, and 2 GiB left over) nothing is written, and the relay streams as before', async () => {
    process.env.STUB_IMAGE_SIZE = String(10 ** 15)
    try {
      const r = await relayImage(m, IMAGE, loads().transports, { runnerId: RUNNER_ID, archiveDir: cache })
      expect(r.findings).toEqual([])
      expect(r.bytesSent).toBe(300000)
      expect(files()).toEqual([])
    } finally {
      delete process.env.STUB_IMAGE_SIZE
    }
  })

  it('one archive is kept: the newest; another image replaces it', async () => {
    expect((await relayImage(m, IMAGE, loads().transports, { runnerId: RUNNER_ID, archiveDir: cache })).ok).toBe(true)
    process.env.STUB_RUNNER_ID = OTHER_ID
    expect((await relayImage(m, IMAGE, loads(OTHER_ID).transports, { runnerId: OTHER_ID, archiveDir: cache })).ok).toBe(true)
    expect(files()).toEqual([runnerArchiveName(OTHER_ID, IMAGE)])
  })

  it('a load that stops reading early: the cut archive is not kept', async () => {
    process.env.STUB_SAVE_BYTES = String(8 * 1024 * 1024)
    const { transports } = recording({ 'spark-a': node(undefined, () => ({ code: 1, read: 65536, stderr: 'load failed' })), 'spark-b': node(undefined) })
    const r = await relayImage(m, IMAGE, transports, { runnerId: RUNNER_ID, skip: new Set(['spark-b']), archiveDir: cache })
    expect(r.ok).toBe(false)
    expect(files()).toEqual([])
  })

  it('without archiveDir (image.runnerArchiveCache: false) nothing is written and every relay saves', async () => {
    expect(m.image.runnerArchiveCache).toBe(true)
    const r = await relayImage(m, IMAGE, loads().transports, { runnerId: RUNNER_ID })
    expect(r.findings).toEqual([])
    expect(files()).toEqual([])
  })
})
