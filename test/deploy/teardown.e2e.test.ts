import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { argv } from '../../src/command/shell.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { type DeployTaskOptions, deployTask } from '../../src/tasks/deploy-task.js'
import type { Transport } from '../../src/transport/transport.js'
import { leaveLabNodes, manifestVariant, openLab } from './support/lab-nodes.js'

let manifest: Manifest
let transports: Map<string, Transport>
let creds: DeployTaskOptions['credentials']
let path: string
const log: string[] = []
const progress = (m: string) => {
  log.push(m)
  process.stderr.write(`[teardown-e2e] ${m}\n`)
}
const deploy = (release: string, extra: Partial<DeployTaskOptions> = {}) =>
  deployTask(path, { credentials: creds, env: process.env, onProgress: progress, release, force: true, ...extra })
const worker = () => transports.get('spark-b')!
const sh = async (t: Transport, script: string) => (await t.run(argv('sh', '-c', script), { timeoutMs: 60_000 })).stdout.trim()
/** The PIDs on the worker whose environment carries VRD_RELEASE=<release>. */
const marked = async (release: string) =>
  (await sh(worker(), `grep -lz '^VRD_RELEASE=${release}$' /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3 || true`)).split('\n').filter(Boolean)

beforeAll(async () => {
  const lab = await openLab(progress)
  creds = lab.creds
  path = manifestVariant(lab.path, 'teardown-e2e', (doc) => doc.setIn(['deploy', 'teardownTimeoutSeconds'], 8))
  manifest = lab.manifest
  transports = lab.transports
}, 900_000)

afterAll(async () => {
  await sh(worker(), "pkill -f 'vrd-supervisor' || true").catch(() => {})
  await leaveLabNodes(transports, manifest)
}, 120_000)

describe.sequential('stop-previous on the lab', () => {
  it("a worker process of the old release that outlived its container is killed by the next deploy's teardown", async () => {
    expect((await deploy('t1')).exitCode).toBe(0)
    // The survivor: outside the container, with t1's marker, as vllm#55510's workers outlive a kill.
    await sh(worker(), `setsid env VRD_RELEASE=t1 VRD_CLUSTER=${manifest.cluster} sleep 1000 </dev/null >/dev/null 2>&1 &`)
    const [pid] = await marked('t1')
    expect(pid).toMatch(/^\d+$/)
    const o = await deploy('t2')
    expect(o.exitCode, o.text).toBe(0)
    expect(log.join('\n')).toMatch(new RegExp(`teardown on spark-b: release t1; killed 1 leftover process\\(es\\): ${pid} sleep 1000`))
    expect(await marked('t1')).toEqual([])
  }, 900_000)

  it('one a supervisor keeps restarting blocks the launch with its PID and command; nothing of t3 starts', async () => {
    // A supervisor (no marker itself, so never killed) that starts t2's worker again each time it dies.
    await sh(
      worker(),
      `setsid sh -c 'while :; do VRD_RELEASE=t2 VRD_CLUSTER=${manifest.cluster} sleep 1000 & wait $!; done' vrd-supervisor </dev/null >/dev/null 2>&1 &`,
    )
    const o = await deploy('t3', { onFailure: 'stop' })
    expect(o.exitCode).toBe(1)
    const r = o.json as { failure?: { stage: string }; findings: { code: string; node: string; evidence: Record<string, string> }[] }
    expect(r.failure?.stage).toBe('stop-previous')
    const f = r.findings.find((x) => x.code === 'PREVIOUS_RELEASE_NOT_GONE')!
    expect(f.node).toBe('spark-b')
    expect(Object.entries(f.evidence).some(([k, v]) => /^pid \d+$/.test(k) && v.startsWith('sleep 1000 (release t2'))).toBe(true)
    // t3 was never launched: no container of it on any node.
    for (const t of transports.values()) expect(await sh(t, 'docker ps -aq --filter label=io.vllm-ray-deploy.release=t3')).toBe('')
  }, 900_000)
})
