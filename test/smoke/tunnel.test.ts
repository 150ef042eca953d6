/**
 * The default reach: an SSH tunnel through the head (real OpenSSH on loopback) to the API on the
 * head's 127.0.0.1, no port opened. The head's commands (the watcher) run through the same sshd.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Manifest } from '../../src/manifest/schema.js'
import { runSmoke } from '../../src/smoke/gate.js'
import type { SshTransport } from '../../src/transport/ssh.js'
import { sshConnected } from '../support/ssh-connected.js'
import { pinsFromKnownHosts } from '../../src/transport/host-keys.js'
import type { Transport } from '../../src/transport/transport.js'
import { type LoopbackSshd, startLoopbackSshd } from '../support/sshd.js'
import { labLikeManifest } from './fixtures/manifest.js'
import { type FakeVllm, startFakeVllm } from './support/fake-vllm.js'

let sshd: LoopbackSshd
let ssh: SshTransport
let fake: FakeVllm

beforeAll(async () => {
  sshd = await startLoopbackSshd()
  ssh = await sshConnected({
    name: 'spark-a',
    host: '127.0.0.1',
    port: sshd.port,
    user: 'root',
    privateKey: sshd.clientKey,
    pins: pinsFromKnownHosts(sshd.knownHosts, '127.0.0.1', sshd.port),
    connectTimeoutMs: 10_000,
  })
  fake = await startFakeVllm({})
})
afterAll(async () => {
  await ssh?.close()
  await fake?.stop()
  await sshd?.stop()
})

/** Commands go to the fake head (its docker shim); TCP goes through the real SSH connection. */
let forwards: string[] = []
const head = (): Transport => ({
  label: fake.head.label,
  run: (c, o) => fake.head.run(c, o),
  forwardTcp: (h, p) => {
    forwards.push(`${h}:${p}`)
    return ssh.forwardTcp(h, p)
  },
  close: async () => {},
})

const manifest = (port: number): Manifest => {
  const m = labLikeManifest()
  return { ...m, vllm: { ...m.vllm, port }, smoke: { ...m.smoke, readyTimeoutSeconds: 20, requestTimeoutSeconds: 10, clusterProof: false } }
}

it('without smoke.url the requests, the stream and /metrics go through SSH direct-tcpip to 127.0.0.1:<vllm.port>', async () => {
  forwards = []
  const r = await runSmoke({ manifest: manifest(fake.port), transports: new Map([['spark-a', head()]]), env: {} })
  // One SSH channel per HTTP request: models, version, metrics, prompt, stream, metrics.
  expect(forwards).toEqual(Array(6).fill(`127.0.0.1:${fake.port}`))
  expect(r.report.inference!.requests).toHaveLength(2)
  expect(r.findings.filter((f) => f.severity === 'error')).toEqual([])
  expect(r.report.via).toBe(`SSH tunnel through spark-a to 127.0.0.1:${fake.port}`)
  expect(r.report.inference!.stream!.completionTokens).toBe(8)
  expect(r.report.inference!.metrics!.short).toEqual([])
})

it('a tunnel to a port nothing listens on: SMOKE_UNREACHABLE naming the port and the forwarding', async () => {
  const m = manifest(fake.port)
  // Readiness passes on the real port; the API is looked for on another one.
  const t: Transport = { ...head(), forwardTcp: (h) => ssh.forwardTcp(h, 1) }
  const r = await runSmoke({ manifest: m, transports: new Map([['spark-a', t]]), env: {} })
  expect(r.findings.map((f) => f.code)).toEqual(['SMOKE_UNREACHABLE'])
  expect(r.findings[0]!.message).toMatch(/GET \/v1\/models failed: cannot open the tunnel: spark-a cannot open a connection to 127\.0\.0\.1:1/)
})
