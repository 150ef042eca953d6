import { describe, expect, it } from 'vitest'
import { assembleOfflineFacts, diagnose, sortFindings } from '../../src/preflight/offline-diagnosis.js'
import type { Finding } from '../../src/preflight/finding.js'
import { expectation, healthyFacts, seedBugFacts } from './fixtures/facts.js'
import { readFixture } from './fixtures/read.js'

const tag = (f: Finding): string => `${f.severity} ${f.code}${f.node ? `@${f.node}` : ''}`

describe('assembleOfflineFacts', () => {
  it('builds a bundle from pasted ray.nodes() and ray status: nodes from one, totals and demands from the other', () => {
    const facts = assembleOfflineFacts({
      rayNodesText: readFixture('ray/ray-nodes-seed-repr.txt'),
      rayStatusText: readFixture('ray/status-seed-pending.txt'),
      assembledAt: '2026-07-01T10:15:00.000Z',
    })
    expect(facts).toMatchObject({ schemaVersion: 1, gatheredAt: '2026-07-01T10:15:00.000Z', nodes: [] })
    expect(facts.ray?.source).toBe('ray.nodes() Python repr + ray status (no node addresses: ray status lists node ids or types only)')
    expect(facts.ray?.nodes.map((n) => n.address)).toEqual(['10.1.230.180', '10.1.230.181', '10.1.230.181'])
    expect(facts.ray?.totals?.['GPU']).toBe(2)
    expect(facts.ray?.pendingDemands).toHaveLength(2)
  })

  it("lets a pasted node list replace the bundle's own Ray view, keeping the node facts", () => {
    const facts = assembleOfflineFacts({ facts: healthyFacts, rayNodesText: readFixture('ray/seed-ray-nodes.txt') })
    expect(facts.nodes).toBe(healthyFacts.nodes)
    expect(facts.ray?.nodes.map((n) => n.address)).toEqual(['10.1.230.180'])
  })

  it('keeps the bundle as it is when nothing is pasted', () => {
    expect(assembleOfflineFacts({ facts: seedBugFacts })).toEqual(seedBugFacts)
  })

  it('reports an unreadable node paste rather than falling back to the bundle silently', () => {
    const facts = assembleOfflineFacts({ facts: healthyFacts, rayNodesText: 'Traceback (most recent call last):' })
    expect(facts.ray?.error).toContain('could not read Ray nodes')
  })

  it('uses ray status alone when that is all there is', () => {
    expect(assembleOfflineFacts({ rayStatusText: readFixture('ray/status-rllm-35.txt') }).ray?.totals?.['GPU']).toBe(1)
  })
})

describe('diagnose', () => {
  it('diagnoses the incident from what was pasted: the Ray line, the autoscaler log and the manifest', () => {
    const findings = diagnose({
      rayNodesText: readFixture('ray/seed-ray-nodes.txt'),
      logs: [{ source: 'spark-a:vllm-serve', text: readFixture('logs/seed-autoscaler.txt') }],
      expected: expectation,
    })
    expect(findings.map(tag)).toEqual([
      'error RAY_NODE_MISSING@spark-b',
      'error RAY_IDENTITY_NOT_FABRIC@spark-a',
      'error GPU_SHORTFALL',
      'error PLACEMENT_GROUP_PENDING',
    ])
    const pending = findings.find((f) => f.code === 'PLACEMENT_GROUP_PENDING')
    expect(pending?.evidence).toMatchObject({
      'Log line': 'spark-a:vllm-serve:6',
      'Placement group asks for': 'node:192.168.200.12',
      'Ray node addresses (NodeManagerAddress)': '10.1.230.180 (head)',
      'Ray node with that address': 'none',
    })
  })

  it('combines facts checks and log signatures, errors first', () => {
    const findings = diagnose({
      facts: seedBugFacts,
      expected: expectation,
      logs: [
        { source: 'spark-b:nccl', text: readFixture('logs/nccl-socket-spark.txt') },
        { source: 'spark-a:vllm', text: readFixture('logs/vllm-pg-timeout.txt') },
      ],
    })
    expect(findings.map(tag)).toEqual([
      'error RAY_IDENTITY_NOT_FABRIC@spark-a',
      'error RAY_IDENTITY_NOT_FABRIC@spark-b',
      'error VLLM_PIN_NOT_IN_RAY@spark-a',
      'error VLLM_HOST_IP_OVERRIDE@spark-b',
      'error PLACEMENT_GROUP_TIMEOUT',
      'error PLACEMENT_GROUP_TIMEOUT',
      'warning NCCL_SOCKET_FALLBACK',
    ])
  })

  it('reports a signature seen in several logs once, saying where else it appeared', () => {
    const text = readFixture('logs/gloo-vllm-5094.txt')
    const findings = diagnose({
      logs: [
        { source: 'spark-a', text },
        { source: 'spark-b', text },
      ],
    })
    expect(findings).toHaveLength(1)
    expect(findings[0]?.evidence['Log line']).toBe('spark-a:3')
    expect(findings[0]?.evidence['Also seen at']).toBe('spark-b:3')
  })

  it("names the node behind Ray's (pid=N, ip=X) log prefix when the facts know that IP", () => {
    const text =
      '(RayWorkerWrapper pid=1890, ip=192.168.200.13) RuntimeError: Gloo connectFullMesh failed with [../third_party/gloo/gloo/transport/tcp/pair.cc:144] no error\n'
    expect(diagnose({ facts: healthyFacts, logs: [{ source: 'ray', text }] }).map(tag)).toEqual(['error GLOO_LOOPBACK@spark-b'])
    expect(diagnose({ logs: [{ source: 'ray', text }] }).map(tag)).toEqual(['error GLOO_LOOPBACK@192.168.200.13'])
  })

  it('reports an unreadable Ray paste instead of guessing', () => {
    expect(diagnose({ rayNodesText: 'bash: ray: command not found' }).map(tag)).toEqual(['error RAY_UNAVAILABLE'])
  })

  it('finds nothing in a healthy cluster with a healthy log', () => {
    expect(diagnose({ facts: healthyFacts, expected: expectation, logs: [{ source: 'x', text: readFixture('logs/engine-near-miss.txt') }] })).toEqual([])
  })

  it("reads unified memory (GB10) failures from a node's kernel log and vLLM's start-up, errors first", () => {
    const findings = diagnose({
      logs: [
        { source: 'spark-b:dmesg', text: readFixture('logs/mem-nvrm-gb10-dgx-spark-playbooks-97.txt') + readFixture('logs/mem-oom-kill-lmcache-4759.txt') },
        { source: 'spark-a:vllm', text: readFixture('logs/mem-vllm-free-memory-gb10.txt') },
      ],
    })
    expect(findings.map(tag)).toEqual(['error OOM_KILLED', 'error GPU_OUT_OF_MEMORY', 'error GPU_OUT_OF_MEMORY', 'error ENGINE_DEAD', 'warning NVRM_NO_MEMORY'])
    expect(findings[0]?.evidence['Log line']).toBe('spark-b:dmesg:5')
  })

  it('never answers "No findings" for a crash no signature knows: one UNRECOGNISED_FAILURE per log, quoting it', () => {
    const crash = 'INFO starting\nTraceback (most recent call last):\n  File "x.py", line 1, in <module>\nKeyError: \'model_type\'\n'
    const findings = diagnose({ facts: healthyFacts, expected: expectation, logs: [{ source: 'spark-a:vllm', text: crash }] })
    expect(findings.map(tag)).toEqual(['error UNRECOGNISED_FAILURE'])
    expect(findings[0]?.evidence['Failure lines']).toContain("4: KeyError: 'model_type'")
  })

  it('finds nothing in nothing', () => {
    expect(diagnose({})).toEqual([])
  })
})

describe('sortFindings', () => {
  it('puts errors first, then warnings, then info, keeping order within each', () => {
    const f = (code: Finding['code'], severity: Finding['severity']): Finding => ({ code, severity, node: null, message: '', evidence: {}, fix: '' })
    const sorted = sortFindings([f('ENGINE_DEAD', 'info'), f('GLOO_LOOPBACK', 'warning'), f('UNIQUE_IP_ERROR', 'error'), f('DRIVER_NO_GPU', 'error')])
    expect(sorted.map((x) => x.code)).toEqual(['UNIQUE_IP_ERROR', 'DRIVER_NO_GPU', 'GLOO_LOOPBACK', 'ENGINE_DEAD'])
  })
})
