/**
 * `image.distribution: relay`. The runner streams `docker save` once into the head, which loads
 * it and, from the same bytes at the same time, into every worker over the fabric
 * (src/plan/relay-commands.ts): the image crosses the runner's link once and all loads overlap.
 * A head that already holds the image passes it on to the workers that lack it. Nodes in `skip` (they already hold the exact image ID)
 * are left alone. The bytes the runner sends are counted. At the end every node's image ID is
 * read back: each ends on the runner's image ID or with an IMAGE_MISMATCH finding.
 */
import { Transform } from 'node:stream'
import { argv } from '../command/shell.js'
import type { Manifest, ManifestNode } from '../manifest/schema.js'
import { headOf, inspectImage, loadImage } from '../plan/node-commands.js'
import { parseRelayFanOut, relayFanOut, relayToWorker } from '../plan/relay-commands.js'
import type { Finding } from '../preflight/finding.js'
import { LocalTransport } from '../transport/local.js'
import { type RunResult, type Transport, outcome } from '../transport/transport.js'

/** `docker` of this machine (the runner), as for `load` (`$VRD_DOCKER` overrides). */
const runnerDocker = (): string => process.env.VRD_DOCKER || 'docker'

const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`
const rate = (n: number, ms: number) => (ms > 0 ? `${((n * 8) / (ms / 1000) / 1e6).toFixed(0)} Mbit/s` : '')
const tail = (r: RunResult) => (r.stderr || r.stdout).trim().slice(-400) || '(no output)'
const shortId = (id: string) => id.replace(/^sha256:/, '').slice(0, 12)

function transferFailed(node: string | null, message: string, evidence: Record<string, string>, fix: string): Finding {
  return { code: 'IMAGE_TRANSFER_FAILED', severity: 'error', node, message, evidence, fix }
}

async function imageIdOn(t: Transport, image: string): Promise<string | undefined> {
  const r = await t.run(inspectImage(image), { timeoutMs: 60_000 })
  const id = r.stdout.trim()
  return r.code === 0 && /^sha256:[0-9a-f]{64}$/.test(id) ? id : undefined
}

export async function relayImage(
  m: Manifest,
  image: string,
  transports: ReadonlyMap<string, Transport>,
  opts: { onProgress?: (m: string) => void; skip?: ReadonlySet<string>; signal?: AbortSignal; runnerId?: string },
): Promise<{ ok: boolean; bytesSent: number; imageIds: ReadonlyMap<string, string>; findings: Finding[] }> {
  const say = (s: string) => opts.onProgress?.(`relay: ${s}`)
  const skip = opts.skip ?? new Set<string>()
  const timeoutMs = m.ssh.commandTimeoutSeconds * 1000
  const head = headOf(m)
  const workers = m.nodes.filter((n) => n.role !== 'head')
  const findings: Finding[] = []
  const imageIds = new Map<string, string>()
  let bytesSent = 0
  const done = () => ({ ok: !findings.some((f) => f.severity === 'error'), bytesSent, imageIds, findings })

  // The image gate has already read the runner's image ID; a direct caller has it read here.
  const present = opts.runnerId
    ? undefined
    : await new LocalTransport().run(argv(runnerDocker(), 'image', 'inspect', '--format', '{{.Id}}', image), { timeoutMs: 30_000 })
  const runnerId = opts.runnerId ?? present?.stdout.trim() ?? ''
  if (present && (present.code !== 0 || !runnerId.startsWith('sha256:'))) {
    findings.push(
      transferFailed(
        null,
        `Image ${image} is not in this machine's docker, so there is nothing to relay.`,
        { Image: image, 'docker image inspect': tail(present) },
        `Build or pull ${image} on the runner before the deploy, or use image.distribution: pull.`,
      ),
    )
    return done()
  }
  const headT = transports.get(head.name)
  if (!headT) {
    findings.push(
      transferFailed(
        head.name,
        `No connection to the head ${head.name}, which relays the image.`,
        { Image: image },
        `Make ${head.name} reachable over SSH, then deploy again.`,
      ),
    )
    return done()
  }

  const toRelay = workers.filter((w) => !skip.has(w.name))
  const workerFailed = (w: ManifestNode, command: string, result: string) =>
    findings.push(
      transferFailed(
        w.name,
        `${head.name} could not pass ${image} on to ${w.name} over the fabric.`,
        { Command: command, Result: result },
        `Check SSH from ${head.name} to ${w.fabricIp} without a prompt (the host checks report RELAY_SSH_FAILED) and docker with free space on ${w.name}, then deploy again.`,
      ),
    )

  // 1. runner → head, once; the head loads it and, from the same bytes at the same time, feeds
  //    every worker that lacks it over the fabric (relayFanOut).
  const fedByHead = new Set<string>()
  if (skip.has(head.name)) {
    say(`${head.name} already holds ${shortId(runnerId)}; nothing sent from the runner`)
  } else {
    const names = toRelay.map((w) => `${w.name} (${w.fabricIp})`).join(', ')
    say(
      toRelay.length > 0
        ? `runner → ${head.name} → ${names} over the fabric, all at once: docker save ${image} | docker load`
        : `runner → ${head.name}: docker save ${image} | docker load`,
    )
    const started = Date.now()
    const save = new LocalTransport().stream(argv(runnerDocker(), 'save', image))
    const counter = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        bytesSent += chunk.length
        cb(null, chunk)
      },
    })
    let saveEnded = false
    void save.done.then(() => (saveEnded = true))
    save.stdout.pipe(counter)
    const load = await headT.run(toRelay.length > 0 ? relayFanOut(m, toRelay) : loadImage(), {
      stdin: counter,
      timeoutMs,
      ...(opts.signal && { signal: opts.signal }),
    })
    const report = toRelay.length > 0 ? parseRelayFanOut(load.stdout) : undefined
    const headCode = report ? (report.head?.code ?? null) : load.code
    // A load that ended early leaves docker save blocked on a full pipe: close it so save ends too.
    const killed = load.code !== 0 && !saveEnded
    if (killed) save.stdout.destroy()
    const saved = await save.done
    const secs = ((Date.now() - started) / 1000).toFixed(1)
    // A failed save is the cause when it failed by itself (the loads then read a cut archive).
    if (saved.code !== 0 && !killed) {
      findings.push(
        transferFailed(
          head.name,
          `docker save ${image} on the runner failed, so ${head.name} did not get the image.`,
          { 'docker save': `${outcome(saved)}: ${tail(saved)}` },
          `Check the runner's docker and free space, then deploy again.`,
        ),
      )
    } else {
      if (headCode !== 0) {
        const why = report?.head
          ? `exit ${report.head.code}: ${report.head.log.join('\n').slice(-400) || '(no output)'}`
          : `${outcome(load)}: ${report?.error ?? tail(load)}`
        findings.push(
          transferFailed(
            head.name,
            `docker load on ${head.name} failed while the runner streamed ${image} to it.`,
            { 'docker load': why, 'Bytes sent': String(bytesSent) },
            `Check docker and the free space under docker's data root on ${head.name} (the host checks report DISK_SPACE_LOW), then deploy again.`,
          ),
        )
      } else {
        say(`runner → ${head.name}: ${mb(bytesSent)} in ${secs} s (${rate(bytesSent, Date.now() - started)})`)
      }
      for (const w of toRelay) {
        fedByHead.add(w.name)
        const r = report?.workers.get(w.fabricIp)
        if (r?.code === 0) say(`${head.name} → ${w.name}: loaded from the same stream, done in ${secs} s`)
        else
          workerFailed(
            w,
            `the runner's stream, copied on ${head.name} into ssh ${w.fabricIp} docker load`,
            r
              ? `exit ${r.code ?? '?'}: ${r.log.join('\n').slice(-400) || '(no output)'}`
              : `no result for ${w.fabricIp} from the head (${outcome(load)}: ${report?.error ?? tail(load)})`,
          )
      }
    }
  }
  const headId = await imageIdOn(headT, image)
  if (headId) imageIds.set(head.name, headId)

  // 2. a head that already held the image passes it on to the workers that lack it, in parallel;
  //    only from an exact copy.
  const fromHead = toRelay.filter((w) => !fedByHead.has(w.name))
  if (headId === runnerId && fromHead.length > 0) {
    await Promise.all(
      fromHead.map(async (w) => {
        const started = Date.now()
        say(`${head.name} → ${w.name} over the fabric (${w.fabricIp})`)
        const r = await headT.run(relayToWorker(m, w, image), { timeoutMs, ...(opts.signal && { signal: opts.signal }) })
        if (r.code !== 0) workerFailed(w, `docker save ${image} | ssh ${w.fabricIp} docker load (on ${head.name})`, `${outcome(r)}: ${tail(r)}`)
        else say(`${head.name} → ${w.name}: done in ${((Date.now() - started) / 1000).toFixed(1)} s`)
      }),
    )
  } else if (fromHead.length > 0) {
    say(`${head.name} does not hold the runner's image ${shortId(runnerId)}; not passing it on`)
  }

  // 3. every node ends on the runner's image ID.
  await Promise.all(
    workers.map(async (w: ManifestNode) => {
      const t = transports.get(w.name)
      const id = t ? await imageIdOn(t, image) : undefined
      if (id) imageIds.set(w.name, id)
    }),
  )
  for (const n of m.nodes) {
    const id = imageIds.get(n.name)
    if (id === runnerId) continue
    findings.push({
      code: 'IMAGE_MISMATCH',
      severity: 'error',
      node: n.name,
      message: id ? `${n.name} holds a different image under ${image} than the runner sent.` : `${n.name} does not hold ${image} after the relay.`,
      evidence: { 'Runner image ID': runnerId, [`${n.name} image ID`]: id ?? (transports.has(n.name) ? '(not present)' : '(no connection)') },
      fix: `Get ${image} with ID ${shortId(runnerId)} onto ${n.name} (see the IMAGE_TRANSFER_FAILED finding, if any) and deploy again; check with docker image inspect --format '{{.Id}}' ${image}.`,
    })
  }
  return done()
}
