/**
 * `image.distribution: relay` on the lab: an image, first removed from both nodes, goes
 * runner → head once; the head lands it in a file and copies the same stream into a file on the
 * worker over the fabric, each verified, then both nodes `docker load -i` their file at once (and,
 * with `landing: false`, the streamed way: the head copies the stream into the worker's docker load
 * while it loads it itself). The runner must send exactly one `docker save` archive's bytes
 * (compared with `docker save IMG | wc -c` here), both nodes must end on the runner's image ID, and
 * no landed file may be left on any node, also after a failure or a cancel. Then `skip`: a node
 * that already holds the image gets nothing.
 *
 * The relay's mechanics (save, stream, tee, load, IDs) do not depend on what the image holds, so
 * those tests move a small image of two layers of random bytes built here; the last one (a deploy
 * cancelled mid-transfer) and its clean-up relay move the whole stand-in image, as a deploy does.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { argv, pipe } from '../../src/command/shell.js'
import { relayImage } from '../../src/deploy/relay-transfer.js'
import { runnerArchiveName } from '../../src/deploy/runner-archive.js'
import { landingDir } from '../../src/plan/image-landing-commands.js'
import { dockerBinary, labPaths, labTransports, labUp, loadLabManifest, resolveLabDir } from '../support/lab.js'
import { dockerCommands } from '../../src/lab/docker-commands.js'
import { LABEL } from '../../src/lab/layout.js'
import { deployTask } from '../../src/tasks/deploy-task.js'
import { deployLockDir } from '../../src/plan/lock-commands.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { LocalTransport } from '../../src/transport/local.js'
import type { Transport } from '../../src/transport/transport.js'

/** The stand-in image, as a deploy with `image.distribution: load` moves it. */
const STANDIN = 'vrd-lab/vllm-standin:latest'
/** The relay tests' image: two layers of random bytes (a fresh ID every run), labelled as the lab's. */
const IMAGE = 'vrd-lab/relay-test:latest'
let manifest: Manifest
let manifestPath: string
let transports: Map<string, Transport>
let runnerId: string
let archiveBytes: number
const local = new LocalTransport()
const progress = (m: string) => process.stderr.write(`[relay] ${m}\n`)

async function removeImage(t: Transport, image = IMAGE) {
  if (image === STANDIN) await t.run(argv('docker', 'rm', '-f', manifest.container.name), { timeoutMs: 60_000 })
  await t.run(argv('docker', 'image', 'rm', '-f', image), { timeoutMs: 60_000 })
  const gone = await t.run(argv('docker', 'image', 'inspect', image), { timeoutMs: 30_000 })
  expect(gone.code, `${image} still on ${t.label}`).not.toBe(0)
}

/** Builds IMAGE on this machine: FROM scratch, two COPY layers of random bytes (8 and 4 MiB). */
async function buildRelayImage() {
  const ctx = mkdtempSync(join(tmpdir(), 'vrd-relay-image-'))
  try {
    writeFileSync(join(ctx, 'a.bin'), randomBytes(8 << 20))
    writeFileSync(join(ctx, 'b.bin'), randomBytes(4 << 20))
    writeFileSync(join(ctx, 'Dockerfile'), 'FROM scratch\nCOPY a.bin /a.bin\nCOPY b.bin /b.bin\n')
    const built = await local.run(
      dockerCommands(dockerBinary()).build({ tag: IMAGE, context: ctx, dockerfile: join(ctx, 'Dockerfile'), labels: { [LABEL]: '1' } }),
      { timeoutMs: 300_000 },
    )
    expect(built.code, built.stderr).toBe(0)
  } finally {
    rmSync(ctx, { recursive: true, force: true })
  }
}

/** No archive left in the landing directory of any node (it may not exist at all). */
async function expectNoLandedFile() {
  for (const t of transports.values()) {
    const ls = await t.run(argv('sh', '-c', 'ls -A "$1" 2>/dev/null || true', 'sh', landingDir(manifest)), { timeoutMs: 30_000 })
    expect(ls.stdout.trim(), t.label).toBe('')
  }
}

/**
 * Polls `probe` (a shell test, `$1` = arg) on a node until it succeeds, then cancels at once and
 * reports when: the cancel waits for the event it needs (bytes flowing), never for a fixed time.
 * Stops, with `onCancel` uncalled (which the test's assertions then report), once the work under
 * test has returned (`stop()`) or after 120 s.
 */
function cancelWhen(t: Transport, probe: string, arg: string, cancel: AbortController, onCancel: (at: number) => void) {
  let finished = false
  const watch = (async () => {
    const deadline = Date.now() + 120_000
    while (!finished && Date.now() < deadline && !cancel.signal.aborted) {
      const r = await t.run(argv('sh', '-c', probe, 'sh', arg), { timeoutMs: 30_000 })
      if (r.code === 0 && !finished) {
        onCancel(Date.now())
        cancel.abort()
        return
      }
      await new Promise((wake) => setTimeout(wake, 50))
    }
  })()
  /** Call once the work under test has returned: a watch still polling stops (the cancel came too late). */
  return {
    stop: () => {
      finished = true
      return watch
    },
  }
}

beforeAll(async () => {
  await labUp({ nodes: 2, onProgress: progress })
  ;({ manifest, path: manifestPath } = await loadLabManifest())
  manifest = { ...manifest, image: { ...manifest.image, ref: IMAGE, distribution: 'relay' } }
  transports = await labTransports(manifest)
  process.env.VRD_DOCKER = dockerBinary()
  await buildRelayImage()
  const id = await local.run(argv(dockerBinary(), 'image', 'inspect', '--format', '{{.Id}}', IMAGE), { timeoutMs: 30_000 })
  expect(id.code, id.stderr).toBe(0)
  runnerId = id.stdout.trim()
  const wc = await local.run(pipe(argv(dockerBinary(), 'save', IMAGE), argv('wc', '-c')), { timeoutMs: 300_000 })
  archiveBytes = Number(wc.stdout.trim())
  expect(archiveBytes).toBeGreaterThan(1_000_000)
}, 900_000)

afterAll(async () => {
  for (const t of transports?.values() ?? []) {
    await t.run(argv('docker', 'image', 'rm', '-f', IMAGE), { timeoutMs: 60_000 })
    await t.close()
  }
  await local.run(argv(dockerBinary(), 'image', 'rm', '-f', IMAGE), { timeoutMs: 60_000 })
})

it("the runner sends the image once; the head copies the stream on over the fabric as it loads it; both nodes end on the runner's image ID", async () => {
  for (const t of transports.values()) await removeImage(t)
  const lines: string[] = []
  const r = await relayImage(manifest, IMAGE, transports, {
    landing: true,
    onProgress: (m) => {
      lines.push(m)
      progress(m)
    },
  })
  expect(r.findings).toEqual([])
  expect(r.ok).toBe(true)
  expect(r.bytesSent).toBe(archiveBytes)
  expect(Object.fromEntries(r.imageIds)).toEqual(Object.fromEntries(manifest.nodes.map((n) => [n.name, runnerId])))
  // Read back independently of relayImage.
  for (const t of transports.values()) {
    const id = await t.run(argv('docker', 'image', 'inspect', '--format', '{{.Id}}', IMAGE), { timeoutMs: 30_000 })
    expect(id.stdout.trim(), t.label).toBe(runnerId)
  }
  expect(lines.join('\n')).toContain(`runner → spark-a → spark-b (${manifest.nodes[1]!.fabricIp}) over the fabric, landed first`)
  expect(lines.join('\n')).toMatch(/spark-b: docker load -i from the landed file done/)
  await expectNoLandedFile()
}, 900_000)

it("streamed (no landing): the head copies the stream into the worker's docker load as it loads it itself", async () => {
  for (const t of transports.values()) await removeImage(t)
  const lines: string[] = []
  const r = await relayImage(manifest, IMAGE, transports, { landing: false, onProgress: (m) => lines.push(m) })
  expect(r.findings).toEqual([])
  expect(r.bytesSent).toBe(archiveBytes)
  expect(Object.fromEntries(r.imageIds)).toEqual(Object.fromEntries(manifest.nodes.map((n) => [n.name, runnerId])))
  expect(lines.join('\n')).toMatch(/spark-a → spark-b: loaded from the same stream/)
}, 900_000)

it("the runner's archive kept (archiveDir): the second relay to cold nodes sends the kept file, runs no docker save, and both nodes end on the runner's image ID", async () => {
  const cache = mkdtempSync(join(tmpdir(), 'vrd-relay-archive-'))
  try {
    for (const t of transports.values()) await removeImage(t)
    const first = await relayImage(manifest, IMAGE, transports, { landing: false, archiveDir: cache })
    expect(first.findings).toEqual([])
    const kept = join(cache, runnerArchiveName(runnerId, IMAGE))
    expect(readFileSync(kept).length).toBe(archiveBytes)
    for (const t of transports.values()) await removeImage(t)
    const lines: string[] = []
    // A docker that fails every save: the kept archive must be what is sent.
    const runnerDocker = process.env.VRD_DOCKER
    const docker = join(cache, 'docker-no-save')
    writeFileSync(docker, `#!/bin/sh\n[ "$1" = save ] && { echo 'save must not run' >&2; exit 1; }\nexec ${dockerBinary()} "$@"\n`, { mode: 0o755 })
    process.env.VRD_DOCKER = docker
    try {
      const again = await relayImage(manifest, IMAGE, transports, { landing: false, archiveDir: cache, onProgress: (m) => lines.push(m) })
      expect(again.findings).toEqual([])
      expect(again.bytesSent).toBe(archiveBytes)
      expect(Object.fromEntries(again.imageIds)).toEqual(Object.fromEntries(manifest.nodes.map((n) => [n.name, runnerId])))
    } finally {
      if (runnerDocker === undefined) delete process.env.VRD_DOCKER
      else process.env.VRD_DOCKER = runnerDocker
    }
    expect(lines.join('\n')).toContain(`from ${kept} (no docker save)`)
  } finally {
    rmSync(cache, { recursive: true, force: true })
  }
}, 900_000)

it('a landing cancelled mid-stream leaves no file and no receiver on any node, and no image', async () => {
  for (const t of transports.values()) await removeImage(t, STANDIN)
  const cancel = new AbortController()
  let abortedAt = 0
  let watching: ReturnType<typeof cancelWhen> | undefined
  const worker = transports.get(manifest.nodes.find((n) => n.role === 'worker')!.name)!
  const r = await relayImage(manifest, STANDIN, transports, {
    landing: true,
    signal: cancel.signal,
    onProgress: (m) => {
      progress(m)
      // Cancel once bytes have reached the last hop: the worker's landed file has grown.
      if (!watching && /landed first/.test(m))
        watching = cancelWhen(worker, 'find "$1" -type f -size +0 2>/dev/null | grep -q .', landingDir(manifest), cancel, (at) => {
          abortedAt = at
        })
    },
  })
  await watching?.stop()
  expect(abortedAt).toBeGreaterThan(0)
  expect(r.ok).toBe(false)
  await expectNoLandedFile()
  for (const t of transports.values()) {
    const left = await t.run(argv('sh', '-c', 'pgrep -af "[p]ython3 -c import hashlib" || true'), { timeoutMs: 30_000 })
    expect(left.stdout.trim(), t.label).toBe('')
    expect((await t.run(argv('docker', 'image', 'inspect', STANDIN), { timeoutMs: 30_000 })).code, t.label).not.toBe(0)
  }
  // Leave the lab with the stand-in on every node, as other tests expect.
  expect((await relayImage(manifest, STANDIN, transports, { landing: true })).ok).toBe(true)
  await expectNoLandedFile()
}, 900_000)

it('skip: a head that already holds the image gets nothing from the runner, and still relays to a worker that lacks it', async () => {
  const worker = manifest.nodes.find((n) => n.role === 'worker')!
  await removeImage(transports.get(worker.name)!)
  const head = manifest.nodes.find((n) => n.role === 'head')!
  const r = await relayImage(manifest, IMAGE, transports, { skip: new Set([head.name]), onProgress: progress })
  expect(r.findings).toEqual([])
  expect(r.bytesSent).toBe(0)
  expect(r.imageIds.get(worker.name)).toBe(runnerId)
  // Every node skipped: nothing moves, and the IDs are still checked.
  const none = await relayImage(manifest, IMAGE, transports, { skip: new Set(manifest.nodes.map((n) => n.name)) })
  expect(none).toMatchObject({ ok: true, bytesSent: 0, findings: [] })
}, 900_000)

it('a head that cannot SSH to the worker over the fabric: the host checks say so first, the relay ends with IMAGE_TRANSFER_FAILED and IMAGE_MISMATCH', async () => {
  const { hostChecks } = await import('../../src/deploy/host-checks.js')
  const worker = manifest.nodes.find((n) => n.role === 'worker')!
  const head = manifest.nodes.find((n) => n.role === 'head')!
  // The transports stay open on port 22; only the head's ssh to the worker's fabric IP goes to port 1.
  const wrong: Manifest = { ...manifest, nodes: manifest.nodes.map((n) => (n.name === worker.name ? { ...n, ssh: { ...n.ssh, port: 1 } } : n)) }
  const checks = await hostChecks(wrong, transports, { relay: true })
  expect(checks.map((f) => `${f.code}@${f.node}`)).toEqual([`RELAY_SSH_FAILED@${head.name}`])
  expect(checks[0]!.evidence['Output']).toMatch(/port 1: Connection refused/)
  await removeImage(transports.get(worker.name)!)
  const r = await relayImage(wrong, IMAGE, transports, { skip: new Set([head.name]) })
  expect(r.ok).toBe(false)
  expect(r.findings.map((f) => `${f.code}@${f.node}`)).toEqual([`IMAGE_TRANSFER_FAILED@${worker.name}`, `IMAGE_MISMATCH@${worker.name}`])
  expect(r.findings[0]!.evidence['Result']).toMatch(/Connection refused/)
}, 900_000)

it("the fan-out to a worker the head cannot reach: the head still loads the runner's stream; the worker ends with IMAGE_TRANSFER_FAILED and IMAGE_MISMATCH", async () => {
  const worker = manifest.nodes.find((n) => n.role === 'worker')!
  const head = manifest.nodes.find((n) => n.role === 'head')!
  const wrong: Manifest = { ...manifest, nodes: manifest.nodes.map((n) => (n.name === worker.name ? { ...n, ssh: { ...n.ssh, port: 1 } } : n)) }
  for (const t of transports.values()) await removeImage(t)
  const r = await relayImage(wrong, IMAGE, transports, { onProgress: progress, landing: true })
  expect(r.ok).toBe(false)
  expect(r.bytesSent).toBe(archiveBytes)
  expect(r.imageIds.get(head.name)).toBe(runnerId)
  expect(r.findings.map((f) => `${f.code}@${f.node}`)).toEqual([`IMAGE_TRANSFER_FAILED@${worker.name}`, `IMAGE_MISMATCH@${worker.name}`])
  expect(r.findings[0]!.evidence['Result']).toMatch(/^exit 255: .*port 1: Connection refused/s)
  await expectNoLandedFile()
}, 900_000)

it('a worker skipped although it lacks the image ends with IMAGE_MISMATCH', async () => {
  const worker = manifest.nodes.find((n) => n.role === 'worker')!
  await removeImage(transports.get(worker.name)!)
  const r = await relayImage(manifest, IMAGE, transports, { skip: new Set(manifest.nodes.map((n) => n.name)) })
  expect(r.ok).toBe(false)
  expect(r.findings.map((f) => `${f.code}@${f.node}`)).toEqual([`IMAGE_MISMATCH@${worker.name}`])
  expect(r.findings[0]!.evidence).toMatchObject({ 'Runner image ID': runnerId, [`${worker.name} image ID`]: '(not present)' })
  // A relay that skips only the head heals it.
  const again = await relayImage(manifest, IMAGE, transports, { skip: new Set(manifest.nodes.filter((n) => n.role === 'head').map((n) => n.name)) })
  expect(again.ok).toBe(true)
}, 900_000)

it('a deploy cancelled mid-transfer (image.distribution: load) stops at once: cancelled at the image stage, no node holds the image, no docker save left running', async () => {
  for (const t of transports.values()) await removeImage(t, STANDIN)
  const dir = mkdtempSync(join(tmpdir(), 'vrd-cancel-'))
  const path = join(dir, 'load.yml')
  const text = readFileSync(manifestPath, 'utf8')
    .replace(/^( {2}ref: ).*$/m, `$1${STANDIN}`)
    .replace(/^( {2}distribution: ).*$/m, '$1load')
  expect(text).toContain(`ref: ${STANDIN}\n  distribution: load`)
  writeFileSync(path, text)
  const paths = labPaths(resolveLabDir())
  const cancel = new AbortController()
  const lines: string[] = []
  let abortedAt = 0
  let watching: ReturnType<typeof cancelWhen> | undefined
  const headT = transports.get(manifest.nodes.find((n) => n.role === 'head')!.name)!
  const o = await deployTask(path, {
    release: 'cancel-1',
    credentials: { privateKey: readFileSync(paths.sshKey, 'utf8'), knownHosts: readFileSync(paths.knownHosts, 'utf8') },
    env: process.env,
    signal: cancel.signal,
    onProgress: (m) => {
      lines.push(m)
      progress(m)
      // Cancel while the archive streams: once spark-a's docker load has started reading it.
      if (!watching && /image: \[spark-a\] docker save/.test(m))
        watching = cancelWhen(headT, 'pgrep -f "[d]ocker load" >/dev/null', '', cancel, (at) => {
          abortedAt = at
        })
    },
  })
  await watching?.stop()
  expect(abortedAt).toBeGreaterThan(0)
  expect(o.exitCode, o.text).toBe(130)
  const r = o.json as { result: string; changed: boolean; failure: { stage: string; reason: string } }
  expect(r).toMatchObject({ result: 'cancelled', changed: false, failure: { stage: 'image' } })
  expect(r.failure.reason).toMatch(/cancelled during the image transfer/)
  // A cancel is a cancel: no activate, prune or on-failure rollback ran, and the lock is released.
  expect(lines.some((l) => /(^|\] )(activate|prune|rollback): /.test(l))).toBe(false)
  expect((o.json as { rolledBack: boolean }).rolledBack).toBe(false)
  const head = transports.get(manifest.nodes.find((n) => n.role === 'head')!.name)!
  expect((await head.run(argv('test', '-e', deployLockDir(manifest)), { timeoutMs: 30_000 })).code).not.toBe(0)
  // The load was cut, not finished: the nodes have no such image.
  for (const t of transports.values()) expect((await t.run(argv('docker', 'image', 'inspect', STANDIN), { timeoutMs: 30_000 })).code, t.label).not.toBe(0)
  // The runner's docker save streams ended with the loads they fed. Other labs on this machine may
  // run their own, so only a save whose parent streams to one of this lab's nodes counts.
  const saves = await local.run(
    argv('sh', '-c', 'for p in $(pgrep -f "[d]ocker save $1"); do tr "\\0" " " </proc/$(ps -o ppid= -p "$p" | tr -d " ")/cmdline; echo; done', 'sh', STANDIN),
    { timeoutMs: 10_000 },
  )
  const ours = saves.stdout.split('\n').filter((l) => manifest.nodes.some((n) => l.split(' ').includes(n.ssh.host)))
  expect(ours).toEqual([])
  // Leave the lab with the image on every node, as other tests expect after a load.
  expect((await relayImage(manifest, STANDIN, transports, {})).ok).toBe(true)
}, 900_000)
