/**
 * The release's image against each node's CPU (src/preflight/checks/image-platform.ts, wired into the image gate): an
 * image built for linux/amd64 — what a GitHub-hosted x86_64 runner builds by default — cannot run on an arm64 DGX Spark.
 * `load`/`relay` are refused before a byte is sent; a node's own copy (a `pull` of a single-platform image of another
 * architecture succeeds with a warning) after delivery. And the same family read from a pasted log.
 */
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { imageGate } from '../../src/deploy/image-gate.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { imageArchOfMachine, imagePlatformFindings, parseImageIdentity } from '../../src/preflight/checks/image-platform.js'
import { scanLog } from '../../src/preflight/signatures.js'
import { inspectingNode } from './support/inspect-node.js'
import { simManifest } from './support/sim-cluster.js'

const ID = `sha256:${'c'.repeat(64)}`

describe('reading an image identity and a node CPU', () => {
  it('parses "<id> <os>/<arch>", an ID alone, and nothing', () => {
    expect(parseImageIdentity(`${ID} linux/arm64\n`)).toEqual({ id: ID, platform: 'linux/arm64' })
    expect(parseImageIdentity(`${ID}\n`)).toEqual({ id: ID })
    expect(parseImageIdentity('  \n')).toBeUndefined()
  })
  it("maps uname -m to the images' architecture names", () => {
    expect(['aarch64', 'arm64', 'x86_64', 'amd64', 'armv7l', 'ppc64le'].map(imageArchOfMachine)).toEqual(['arm64', 'arm64', 'amd64', 'amd64', 'arm', 'ppc64le'])
  })
})

describe('IMAGE_PLATFORM_MISMATCH from the facts', () => {
  const nodes = [
    { node: 'spark-a', machine: 'aarch64' },
    { node: 'spark-b', machine: 'aarch64' },
  ]
  it("this machine's amd64 copy against two arm64 Sparks: one error per node, with the fix for an x86_64 runner", () => {
    const f = imagePlatformFindings('ghcr.io/acme/vllm:1', { node: null, platform: 'linux/amd64' }, nodes)
    expect(f.map((x) => [x.code, x.severity, x.node])).toEqual([
      ['IMAGE_PLATFORM_MISMATCH', 'error', 'spark-a'],
      ['IMAGE_PLATFORM_MISMATCH', 'error', 'spark-b'],
    ])
    expect(f[0]!.evidence).toMatchObject({ 'image platform': 'linux/amd64', 'spark-a CPU': 'aarch64 (linux/arm64)' })
    expect(f[0]!.fix).toContain('--platform linux/arm64')
  })
  it("a node's own copy is judged against that node only", () => {
    expect(imagePlatformFindings('i', { node: 'spark-b', platform: 'linux/amd64' }, nodes).map((x) => x.node)).toEqual(['spark-b'])
  })
  it('near misses: the same architecture, a node whose facts lack uname -m, a platform without an architecture', () => {
    expect(imagePlatformFindings('i', { node: null, platform: 'linux/arm64' }, nodes)).toEqual([])
    expect(imagePlatformFindings('i', { node: null, platform: 'linux/amd64' }, [{ node: 'old-bundle' }])).toEqual([])
    expect(imagePlatformFindings('i', { node: null, platform: 'linux' }, nodes)).toEqual([])
  })
})

const node = inspectingNode
const withDistribution = (distribution: Manifest['image']['distribution']): Manifest => {
  const m = simManifest()
  return { ...m, image: { ...m.image, distribution } }
}
const arm64 = (m: Manifest) => m.nodes.map((n) => ({ node: n.name, machine: 'aarch64' }))

describe('the image gate with the nodes’ CPUs', () => {
  it('`load` of an amd64 image to arm64 nodes stops before anything is sent: each node only read once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vrd-fake-docker-'))
    const fake = join(dir, 'docker')
    writeFileSync(fake, `#!/bin/sh\necho "${ID} linux/amd64"\n`)
    chmodSync(fake, 0o755)
    const saved = process.env.VRD_DOCKER
    process.env.VRD_DOCKER = fake
    try {
      const m = withDistribution('load')
      const log: string[] = []
      const transports = new Map(m.nodes.map((n) => [n.name, node(n.name, () => undefined, log)] as const))
      const r = await imageGate(m, m.image.ref, transports, { manifestPath: 'm.yml', nodeMachines: arm64(m) })
      expect(r.ok).toBe(false)
      expect(r.bytesSent).toBe(0)
      expect(new Set(r.findings.map((f) => f.code))).toEqual(new Set(['IMAGE_PLATFORM_MISMATCH']))
      expect(r.findings.map((f) => f.node)).toEqual(m.nodes.map((n) => n.name))
      expect(log.every((l) => l.includes('docker image inspect'))).toBe(true)
      expect(log).toHaveLength(m.nodes.length)
    } finally {
      if (saved === undefined) delete process.env.VRD_DOCKER
      else process.env.VRD_DOCKER = saved
    }
  })
  it("a node's pulled copy of another architecture fails the gate after delivery; the same image for the nodes' CPU passes", async () => {
    const m = withDistribution('preloaded')
    const log: string[] = []
    const amd = new Map(m.nodes.map((n) => [n.name, node(n.name, () => `${ID} linux/amd64`, log)] as const))
    const bad = await imageGate(m, m.image.ref, amd, { manifestPath: 'm.yml', nodeMachines: arm64(m) })
    expect(bad.ok).toBe(false)
    expect(bad.findings.map((f) => [f.code, f.node])).toEqual(m.nodes.map((n) => ['IMAGE_PLATFORM_MISMATCH', n.name]))
    const arm = new Map(m.nodes.map((n) => [n.name, node(n.name, () => `${ID} linux/arm64`, log)] as const))
    const good = await imageGate(m, m.image.ref, arm, { manifestPath: 'm.yml', nodeMachines: arm64(m) })
    expect(good.ok && good.value).toBe(ID)
  })
})

describe('IMAGE_PLATFORM_MISMATCH from a log', () => {
  const codes = (t: string) => scanLog(`${t}\n`, 'paste').map((f) => `${f.severity}:${f.code}`)
  it("docker's run warning and its pull's refusal (moby, distribution), with both platforms", () => {
    const warn = scanLog(
      "WARNING: The requested image's platform (linux/amd64) does not match the detected host platform (linux/arm64/v8) and no specific platform was requested\nexec /usr/bin/python3: exec format error\n",
      'paste',
    )
    const f = warn.find((x) => x.code === 'IMAGE_PLATFORM_MISMATCH')
    expect(f?.severity).toBe('error')
    expect(f?.evidence).toMatchObject({ 'Image platform': 'linux/amd64', 'Node platform': 'linux/arm64/v8' })
    expect(f?.fix).toContain('--platform linux/arm64')
    expect(codes('docker: no matching manifest for linux/arm64/v8 in the manifest list entries.')).toContain('error:IMAGE_PLATFORM_MISMATCH')
  })
  it('an exec format error alone: unrecognised, with the platform hint beside it', () => {
    const found = codes('exec /usr/local/bin/vllm: exec format error')
    expect(found).toContain('error:UNRECOGNISED_FAILURE')
    expect(found).toContain('warning:IMAGE_PLATFORM_MISMATCH')
  })
  it("near miss: docker pulling the node's own platform says nothing of the kind", () => {
    expect(codes('latest: Pulling from vllm/vllm-openai\nDigest: sha256:0123\nStatus: Downloaded newer image for vllm/vllm-openai:latest')).toEqual([])
  })
})
