import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { argv } from '../../src/command/shell.js'
import type { RolloutReport } from '../../src/deploy/rollout-types.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { clusterStateDir } from '../../src/plan/release-commands.js'
import { type DeployTaskOptions, deployTask } from '../../src/tasks/deploy-task.js'
import type { Transport } from '../../src/transport/transport.js'
import { leaveLabNodes, manifestVariant, openLab } from './support/lab-nodes.js'

const GIB = 1024 ** 3
/** spark-b's budget: what it uses with m1 running, plus this. */
const FREE = 2 * GIB
/** What m2's stand-in worker takes while it loads (spark-b then has about FREE - LOAD left). */
const LOAD = 1.5 * GIB
const FLOOR = 1 * GIB

let manifest: Manifest
let transports: Map<string, Transport>
let creds: DeployTaskOptions['credentials']
let labPath: string
const log: string[] = []
const progress = (m: string) => {
  log.push(m)
  process.stderr.write(`[memory-watchdog-e2e] ${m}\n`)
}
const sh = async (t: Transport, ...args: string[]) => {
  const r = await t.run(argv(...args), { timeoutMs: 60_000 })
  return { code: r.code, out: `${r.stdout}${r.stderr}`.trim() }
}
const budget = (...args: string[]) => sh(transports.get('spark-b')!, 'sudo', '-n', '/usr/local/sbin/vrd-lab-memory', ...args)

/** The lab's manifest with the watchdog's floor at FLOOR, read every second, and the stand-in's load. */
function withWatchdog(env: Record<string, string>): string {
  return manifestVariant(labPath, 'memory-watchdog-e2e', (doc) => {
    doc.setIn(['deploy', 'memoryWatchdog'], doc.createNode({ floorBytes: FLOOR, intervalSeconds: 1 }))
    doc.setIn(['container', 'env'], doc.createNode({ ...manifest.container.env, ...env }))
  })
}

const deploy = (path: string, release: string) => deployTask(path, { credentials: creds, env: process.env, onProgress: progress, release, force: true })

beforeAll(async () => {
  const lab = await openLab(progress)
  creds = lab.creds
  manifest = lab.manifest
  labPath = lab.path
  transports = lab.transports
  await budget('clear')
}, 900_000)

afterAll(async () => {
  if (transports) await budget('clear').catch(() => {})
  await leaveLabNodes(transports, manifest, clusterStateDir(manifest))
}, 120_000)

describe.sequential('a node that runs short of memory while vLLM starts', () => {
  it("m1 deploys with the watchdog on (the lab's nodes are GB10s: unified memory)", async () => {
    const o = await deploy(withWatchdog({}), 'm1')
    expect(o.exitCode, o.text).toBe(0)
    expect(log.join('\n')).toMatch(/memory watchdog: spark-a, spark-b every 1 s \(MemAvailable floor the higher of 1\.00 GiB and 5 % of MemTotal/)
  }, 900_000)

  it('m2 loads more than spark-b can give: stopped in weights loading with the figures; the rollback starts m1 again', async () => {
    const limited = await budget('limit', String(FREE))
    expect(limited.code, limited.out).toBe(0)
    const o = await deploy(withWatchdog({ VLLM_STANDIN_LOAD_BYTES: String(LOAD), VLLM_STANDIN_LOAD_DELAY_S: '60' }), 'm2')
    const r = o.json as RolloutReport
    expect(o.exitCode, o.text).toBe(1)
    expect(r.failure?.stage, o.text).toBe('vllm')
    const f = r.findings.find((x) => x.code === 'MEMORY_FLOOR_REACHED')
    expect(f, o.text).toBeDefined()
    expect(f!.node).toBe('spark-b')
    expect(f!.evidence.phase).toBe('weights loading')
    expect(f!.evidence['engine stopped on']).toBe('spark-a, spark-b')
    const available = Number(/^([\d.]+) GiB$/.exec(f!.evidence.MemAvailable!)?.[1])
    // the evidence rounds to 0.01 GiB: a MemAvailable just under the floor (0.995–0.999 GiB) reads as the floor itself
    expect(available * GIB).toBeLessThanOrEqual(FLOOR)
    // The figures: spark-b's budget as its /proc/meminfo shows it, and this machine's kernel's PSI.
    expect(Number(/^([\d.]+) GiB$/.exec(f!.evidence.MemTotal!)?.[1]) * GIB).toBeGreaterThan(FREE)
    expect(f!.evidence.swap).toBe('none')
    expect(f!.evidence['PSI memory']).toMatch(/^some avg10=\d+\.\d\d full avg10=\d+\.\d\d$/)
    expect(f!.evidence.floor).toMatch(/^1\.00 GiB \(deploy\.memoryWatchdog:/)
    expect(f!.message).toMatch(/^spark-b had [\d.]+ GiB available, under the floor of 1\.00 GiB during weights loading/)
    // The rollback: m1 again, through every gate (its smoke included).
    expect(r.onFailure, o.text).toMatchObject({ action: 'rollback', ok: true, release: 'm1' })
    for (const t of transports.values()) {
      const running = await sh(t, 'docker', 'ps', '--filter', 'label=io.vllm-ray-deploy.release', '--format', '{{.Label "io.vllm-ray-deploy.release"}}')
      expect(running.out, t.label).toBe('m1')
    }
  }, 900_000)
})
