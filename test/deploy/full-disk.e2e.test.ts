/**
 * A full disk on the lab (#24): release r1 deployed and serving; then the worker's release state
 * directory (/var/lib/vllm-ray-deploy, where releases, the lock and the audit log land) is put on a
 * 16 MiB tmpfs inside its node container, with what was there copied in, and filled to the last
 * byte. A deploy of r2 (one container variable added, so a new release to write) stops at the host checks with DISK_SPACE_LOW naming that node and the
 * figures, before anything changes: r1's containers keep running (start time unchanged), `current`
 * still names r1, and r1 still answers. The tmpfs is removed afterwards, whether the test passed or not.
 */
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { argv } from '../../src/command/shell.js'
import type { RolloutReport } from '../../src/deploy/rollout-types.js'
import { dockerBinary, labPaths, labTransports, labUp, loadLabManifest, resolveLabDir } from '../support/lab.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { NODE_STATE_DIR } from '../../src/plan/node-commands.js'
import { clusterStateDir } from '../../src/plan/release-commands.js'
import { type DeployTaskOptions, deployTask } from '../../src/tasks/deploy-task.js'
import { LocalTransport } from '../../src/transport/local.js'
import type { Transport } from '../../src/transport/transport.js'
import { leaveLabNodes, manifestVariant, resetLabNodes } from './support/lab-nodes.js'

let manifest: Manifest
let manifestPath: string
/** The lab's manifest with one container variable added: r2 differs from r1, so it would write a new release. */
let changedPath: string
let transports: Map<string, Transport>
let creds: DeployTaskOptions['credentials']
let containerOf: ((node: string) => string) | undefined
const local = new LocalTransport()
const progress = (m: string) => process.stderr.write(`[full-disk-e2e] ${m}\n`)

const run = async (t: Transport, ...args: string[]) => (await t.run(argv(...args), { timeoutMs: 60_000 })).stdout.trim()
const head = () => transports.get('spark-a')!
const currents = () => Promise.all([...transports.values()].map((t) => run(t, 'readlink', `${clusterStateDir(manifest)}/current`)))
const started = () =>
  Promise.all(
    [...transports.values()].map((t) => run(t, 'docker', 'inspect', '--format', '{{.Id}} {{.State.StartedAt}} {{.State.Running}}', manifest.container.name)),
  )
async function completion(): Promise<string> {
  const body = JSON.stringify({ model: manifest.vllm.servedModelName, prompt: 'Say hello', max_tokens: 4 })
  const url = `http://127.0.0.1:${manifest.vllm.port}/v1/completions`
  const out = await run(head(), 'curl', '--silent', '--fail', '--max-time', '30', '-H', 'Content-Type: application/json', '--data', body, url)
  return (JSON.parse(out) as { choices: { text: string }[] }).choices[0]!.text
}

/** A shell script run as root inside a lab node's container (docker exec from this machine). */
async function inNode(node: string, script: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  if (!containerOf) throw new Error('the lab is not up')
  return local.run(argv(dockerBinary(), 'exec', containerOf(node), 'sh', '-c', script), { timeoutMs: 60_000 })
}

const FULL = 'spark-b'
const COPY = '/tmp/vrd-full-disk-copy'
/** The state directory on a 16 MiB tmpfs holding a copy of what was there, then filled until the write fails (ENOSPC). */
const FILL = [
  'set -e',
  `d=${NODE_STATE_DIR}`,
  'mkdir -p "$d"',
  `rm -rf ${COPY}; cp -a "$d" ${COPY}`,
  'mount -t tmpfs -o size=16m vrd-full-disk "$d"',
  `cp -a ${COPY}/. "$d"/`,
  'dd if=/dev/zero of="$d/.vrd-full-disk-fill" bs=64k 2>/dev/null || true',
  'df -B1 --output=size,avail "$d" | tail -n 1',
].join('\n')
/** Undo FILL: unmount (lazily if something holds it) and drop the copy; the directory underneath was never touched. */
const RESTORE = [
  `d=${NODE_STATE_DIR}`,
  'while mountpoint -q "$d"; do umount "$d" || umount -l "$d"; done',
  `rm -rf ${COPY}`,
  'mountpoint -q "$d" && exit 1 || exit 0',
].join('\n')

beforeAll(async () => {
  const info = await labUp({ nodes: 2, onProgress: progress })
  containerOf = (node) => info.nodes.find((n) => n.name === node)!.container
  // A run killed mid-test may have left the fault in place.
  await inNode(FULL, RESTORE)
  const lab = await loadLabManifest()
  const paths = labPaths(resolveLabDir())
  creds = { privateKey: readFileSync(paths.sshKey, 'utf8'), knownHosts: readFileSync(paths.knownHosts, 'utf8') }
  manifest = lab.manifest
  manifestPath = lab.path
  changedPath = manifestVariant(lab.path, 'full-disk', (doc) =>
    doc.setIn(['container', 'env'], doc.createNode({ ...manifest.container.env, VRD_FULL_DISK_TEST: 'r2' })),
  )
  transports = await labTransports(manifest)
  await resetLabNodes(transports, manifest, clusterStateDir(manifest))
}, 900_000)

afterAll(async () => {
  if (containerOf) expect((await inNode(FULL, RESTORE)).code, 'the full-disk fault is removed').toBe(0)
  await leaveLabNodes(transports, manifest)
}, 120_000)

describe.sequential('a full disk on the lab', () => {
  it('r1 deploys and serves', async () => {
    const o = await deployTask(manifestPath, { credentials: creds, env: process.env, release: 'r1', onProgress: progress })
    expect(o.exitCode, o.text).toBe(0)
    expect((o.json as RolloutReport).result).toBe('deployed')
  }, 600_000)

  it("the worker's state directory full: the deploy stops at the host checks with DISK_SPACE_LOW on that node, r1 untouched and serving", async () => {
    const before = { started: await started(), current: await currents() }
    expect(before.started.every((s) => s.endsWith(' true'))).toBe(true)
    const filled = await inNode(FULL, FILL)
    try {
      expect(filled.code, filled.stderr).toBe(0)
      const [size, avail] = filled.stdout.trim().split(/\s+/).map(Number)
      progress(`${FULL}: ${NODE_STATE_DIR} on tmpfs, size ${size} bytes, ${avail} bytes free`)
      expect(avail).toBeLessThan(64 * 1024)
      const stages: string[] = []
      const o = await deployTask(changedPath, {
        credentials: creds,
        env: process.env,
        release: 'r2',
        onProgress: progress,
        onStage: (stage, event) => {
          if (event === 'start') stages.push(stage)
        },
      })
      const r = o.json as RolloutReport
      expect(o.exitCode, o.text).toBe(1)
      expect(r).toMatchObject({ result: 'failed', changed: false, rolledBack: false, failure: { stage: 'host-checks' } })
      const low = r.findings.filter((f) => f.code === 'DISK_SPACE_LOW')
      expect(
        low.map((f) => f.node),
        o.text,
      ).toEqual([FULL])
      expect(low[0]!.evidence).toMatchObject({
        'release state directory': clusterStateDir(manifest),
        'Filesystem size': '16.0 MiB (16777216 bytes)',
        'Needs at least': '64.0 MiB (67108864 bytes)',
      })
      expect(low[0]!.evidence['Free']).toContain(`(${avail} bytes)`)
      expect(o.text).toContain('DISK_SPACE_LOW')
      // Nothing after the state and host checks ran, and r1 is as it was.
      for (const later of ['image', 'image-contents', 'fingerprint', 'release-files', 'stop-previous', 'ray-head', 'vllm', 'on-failure'])
        expect(stages.includes(later), `${later} ran: ${stages.join(', ')}`).toBe(false)
      expect(await started()).toEqual(before.started)
      expect(await currents()).toEqual(before.current)
      expect((await completion()).length).toBeGreaterThan(0)
    } finally {
      const restored = await inNode(FULL, RESTORE)
      expect(restored.code, `restore: ${restored.stderr}`).toBe(0)
    }
    // With the room back, the same node passes the host checks again (the fault was the only cause).
    const again = await inNode(FULL, `df -B1 --output=avail ${NODE_STATE_DIR} | tail -n 1`)
    expect(Number(again.stdout.trim())).toBeGreaterThan(64 * 1024 * 1024)
  }, 600_000)
})
