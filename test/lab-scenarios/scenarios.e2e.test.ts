/**
 * The preflight against the lab's real Ray: three launch scripts (healthy, the incident, the
 * incident's second bug) bring a two-node Ray cluster up over SSH; the live preflight must find
 * exactly the bug each one has, fast, before vLLM starts; and the vLLM stand-in then serves, or
 * hangs on the placement group exactly like the incident, which the log watcher catches.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { argv } from '../../src/command/shell.js'
import { type LabInfo, labUp, loadLabManifest, runLabScenario, serveLabScenario } from '../support/lab.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { diagnoseTask } from '../../src/tasks/diagnose-task.js'
import { preflightManifest } from '../../src/tasks/preflight.js'
import { LocalTransport } from '../../src/transport/local.js'
import { runAction } from '../support/action.js'

const progress = (m: string) => process.stderr.write(`[scenario] ${m}\n`)
let info: LabInfo
let manifest: Manifest
let credentials: { privateKey: string; knownHosts: string }

beforeAll(async () => {
  info = await labUp({ nodes: 2, onProgress: progress })
  manifest = (await loadLabManifest()).manifest
  credentials = { privateKey: readFileSync(info.sshKeyPath, 'utf8'), knownHosts: readFileSync(info.knownHostsPath, 'utf8') }
}, 900_000)

const ip = (name: string, net: 'mgmtIp' | 'fabricIp') => info.nodes.find((n) => n.name === name)![net]

describe('lab scenario: healthy', () => {
  it('Ray head on spark-a and a worker on spark-b form a 2-node cluster on the fabric IPs with 2 GPUs; the preflight finds nothing; vLLM serves', async () => {
    const r = await runLabScenario('healthy', { serve: true, serveDeadlineMs: 120_000, onProgress: progress })
    expect(r.execution.ok, JSON.stringify(r.execution.stoppedAt)).toBe(true)
    const pre = await preflightManifest(manifest, { credentials })
    const ray = pre.facts.ray!
    expect(ray.error).toBeUndefined()
    const alive = ray.nodes.filter((n) => n.alive)
    expect(alive.map((n) => n.address).sort()).toEqual([ip('spark-a', 'fabricIp'), ip('spark-b', 'fabricIp')].sort())
    expect(alive.find((n) => n.isHead)?.address).toBe(ip('spark-a', 'fabricIp'))
    expect(alive.reduce((s, n) => s + (n.resources['GPU'] ?? 0), 0)).toBe(2)
    expect(
      pre.findings.filter((f) => f.severity !== 'info'),
      JSON.stringify(pre.findings, null, 1),
    ).toEqual([])
    // The Action, as the runner starts it, passes too and leaves the facts bundle for an artifact.
    const action = runAction({ command: 'preflight', manifest: info.manifestPath, 'ssh-private-key': credentials.privateKey })
    expect(action.status, action.stdout).toBe(0)
    expect(action.outputs['result']).toBe('passed')
    const bundle = JSON.parse(readFileSync(action.outputs['facts-file']!, 'utf8')) as { nodes: { node: string; ok: boolean }[] }
    expect(bundle.nodes.map((n) => [n.node, n.ok])).toEqual([
      ['spark-a', true],
      ['spark-b', true],
    ])
    // vLLM (the stand-in) answered /health on the head; ask it for a completion from this machine.
    expect(r.vllm?.ready, r.vllm?.reason + '\n' + r.vllm?.logTail).toBe(true)
    const res = await new LocalTransport().run(
      argv(
        'curl',
        '-sS',
        '--max-time',
        '30',
        '-H',
        'Content-Type: application/json',
        '-d',
        JSON.stringify({ model: manifest.vllm.servedModelName, prompt: 'Hello lab', max_tokens: 8 }),
        `http://${ip('spark-a', 'mgmtIp')}:${manifest.vllm.port}/v1/completions`,
      ),
      { timeoutMs: 40_000 },
    )
    const body = JSON.parse(res.stdout) as { choices: { text: string }[]; usage: { completion_tokens: number } }
    expect(body.usage.completion_tokens).toBeGreaterThan(0)
    expect(body.choices[0]!.text.length).toBeGreaterThan(0)
  }, 600_000)
})

describe('lab scenario: seed-bug (the incident)', () => {
  // One seed-bug cluster for both tests, in their order: the preflight while only Ray runs, then
  // vLLM started on that same cluster.
  let started: Awaited<ReturnType<typeof runLabScenario>>
  beforeAll(async () => {
    started = await runLabScenario('seed-bug', { onProgress: progress })
  }, 600_000)

  // How fast the preflight is belongs to the benchmark (test/bench/rows/preflight.ts), not here.
  it('the preflight reports VLLM_PIN_NOT_IN_RAY once Ray is up, before vLLM starts, with both IPs as evidence', async () => {
    const r = started
    expect(r.execution.ok, JSON.stringify(r.execution.stoppedAt)).toBe(true)
    expect(r.vllm).toBeUndefined()
    const pre = await preflightManifest(manifest, { credentials })
    // Ray knows the head by its management IP (no --node-ip-address); vLLM pins the fabric IP.
    expect(pre.facts.ray!.nodes.find((n) => n.isHead)?.address).toBe(ip('spark-a', 'mgmtIp'))
    const pin = pre.findings.find((f) => f.code === 'VLLM_PIN_NOT_IN_RAY')
    expect(pin, JSON.stringify(pre.findings, null, 1)).toBeDefined()
    expect(pin!.severity).toBe('error')
    expect(pin!.node).toBe('spark-a')
    const evidence = Object.values(pin!.evidence).join(' | ')
    expect(evidence).toContain(ip('spark-a', 'mgmtIp'))
    expect(evidence).toContain(`node:${ip('spark-a', 'fabricIp')}`)
    expect(pre.findings.map((f) => f.code)).toContain('RAY_IDENTITY_NOT_FABRIC')
    // Offline diagnosis of the saved bundle reaches the same verdict as the live run.
    const dir = mkdtempSync(join(tmpdir(), 'vrd-facts-'))
    writeFileSync(join(dir, 'facts.json'), JSON.stringify(pre.facts))
    const offline = await diagnoseTask({ facts: join(dir, 'facts.json'), manifest: info.manifestPath })
    expect(offline.exitCode).toBe(1)
    const offlineCodes = (offline.json as { findings: { code: string; node: string | null }[] }).findings.map((f) => `${f.code}@${f.node}`).sort()
    expect(offlineCodes).toEqual(pre.findings.map((f) => `${f.code}@${f.node}`).sort())
    // The Action fails the job with one annotation per finding.
    const action = runAction({ command: 'preflight', manifest: info.manifestPath, 'ssh-private-key': credentials.privateKey })
    expect(action.status).toBe(1)
    const pinLine = `::error title=VLLM_PIN_NOT_IN_RAY on spark-a::vLLM on spark-a pins placement-group bundle 0 to node:${ip('spark-a', 'fabricIp')}`
    expect(
      action.stdout.split('\n').filter((l) => l.startsWith(pinLine)),
      action.stdout,
    ).toHaveLength(1)
    expect(action.summary).toContain('VLLM_PIN_NOT_IN_RAY')
  }, 600_000)

  it('vLLM then waits on the placement group naming the fabric IP, and the log watcher stops it in seconds', async () => {
    expect(started.execution.ok, JSON.stringify(started.execution.stoppedAt)).toBe(true)
    const r = { vllm: await serveLabScenario({ serveDeadlineMs: 120_000, onProgress: progress }) }
    expect(r.vllm?.started).toBe(true)
    expect(r.vllm?.ready).toBe(false)
    const pending = r.vllm!.findings.find((f) => f.code === 'PLACEMENT_GROUP_PENDING')
    expect(pending, r.vllm!.reason + '\n' + r.vllm!.logTail).toBeDefined()
    expect(JSON.stringify(pending!.evidence)).toContain(`node:${ip('spark-a', 'fabricIp')}`)
    // Whichever speaks first: Ray's autoscaler (as in the incident) or vLLM's own wait message.
    const fabric = ip('spark-a', 'fabricIp').replace(/\./g, '\\.')
    expect(r.vllm!.logTail).toMatch(
      new RegExp(
        `No available node types can fulfill resource request \\{[^}]*'node:${fabric}': 0\\.001|Waiting for creating a placement group of specs for \\d+ seconds\\. specs=\\[\\{[^}]*'node:${fabric}'`,
      ),
    )
    // The watcher stopped on the finding, not at its deadline (let alone vLLM's 1800 s wait).
    expect(r.vllm!.reason).toMatch(/^PLACEMENT_GROUP_PENDING after /)
    // A preflight of the hung cluster also shows Ray's own pending demand (from `ray status`) next to its nodes.
    const pre = await preflightManifest(manifest, { credentials })
    expect(
      pre.facts.ray?.pendingDemands?.some((d) => d[`node:${ip('spark-a', 'fabricIp')}`] !== undefined),
      JSON.stringify(pre.facts.ray),
    ).toBe(true)
    const demand = pre.findings.find((f) => f.code === 'PLACEMENT_GROUP_PENDING')
    expect(demand, JSON.stringify(pre.findings, null, 1)).toBeDefined()
    expect(demand!.severity).toBe('error')
  }, 600_000)
})

describe("lab scenario: worker-override (the incident's second bug)", () => {
  it('the preflight reports VLLM_HOST_IP_OVERRIDE on the worker', async () => {
    const r = await runLabScenario('worker-override', { onProgress: progress })
    expect(r.execution.ok, JSON.stringify(r.execution.stoppedAt)).toBe(true)
    const pre = await preflightManifest(manifest, { credentials })
    const override = pre.findings.find((f) => f.code === 'VLLM_HOST_IP_OVERRIDE')
    expect(override, JSON.stringify(pre.findings, null, 1)).toBeDefined()
    expect(override!.node).toBe('spark-b')
    expect(Object.values(override!.evidence).join(' | ')).toContain(ip('spark-b', 'mgmtIp'))
    expect(pre.findings.find((f) => f.code === 'VLLM_PIN_NOT_IN_RAY')).toBeUndefined()
  }, 600_000)
})

afterAll(async () => {
  // Leave the lab up (other test files and people reuse it); stop the scenario containers.
  const { labTransports } = await import('../support/lab.js')
  const ts = await labTransports(manifest).catch(() => new Map())
  await Promise.all(
    [...ts.values()].map(async (t) => {
      await t.run(argv('docker', 'rm', '-f', manifest.container.name), { timeoutMs: 60_000 })
      await t.close()
    }),
  )
}, 120_000)
