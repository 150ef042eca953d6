/** Metrics delta, latency figures, answer assertions and the cluster proof, over captured data. */
import { describe, expect, it } from 'vitest'
import { checkAnswer } from '../../src/smoke/assertions.js'
import { type RayPlacementData, parseRayPlacement, proveCluster } from '../../src/smoke/cluster-proof.js'
import { burstFigures, percentile, streamFigures } from '../../src/smoke/latency.js'
import { metricsDelta, parseMetrics, vllmCounters } from '../../src/smoke/metrics.js'
import { parseAnswer } from '../../src/smoke/openai.js'
import { fixture, httpFixture } from './fixtures/read.js'
import { labLikeManifest } from './fixtures/manifest.js'

describe('metrics', () => {
  const before = vllmCounters(parseMetrics(fixture('metrics-before.txt')), 'tiny-random')!
  const after = vllmCounters(parseMetrics(fixture('metrics-after.txt')), 'tiny-random')!

  it("vLLM's counters grew by exactly the four answers captured between the two scrapes (errors do not count)", () => {
    const answers = ['completion.http', 'chat.http'].map((f) => parseAnswer(httpFixture(f).body, f.startsWith('chat')))
    const usage = answers.map((a) => (a.ok ? a.value.usage! : undefined)!)
    // The two streamed requests of the capture asked the same prompts with the same max_tokens.
    const expected = {
      requests: 4,
      generationTokens: 2 * usage.reduce((s, u) => s + u.completionTokens, 0),
      promptTokens: 2 * usage.reduce((s, u) => s + u.promptTokens, 0),
    }
    const d = metricsDelta(before, after, expected)
    expect(d.seen).toEqual(expected)
    expect(d.short).toEqual([])
  })

  it('fewer than the smoke produced is reported per counter; other traffic on top is fine', () => {
    expect(metricsDelta(before, after, { requests: 5, generationTokens: 10, promptTokens: 1 }).short).toEqual(['requests'])
    expect(metricsDelta(before, before, { requests: 1, generationTokens: 8, promptTokens: 2 }).short).toEqual(['requests', 'generationTokens', 'promptTokens'])
  })

  it('another model name, or a text without vLLM counters', () => {
    expect(vllmCounters(parseMetrics(fixture('metrics-after.txt')), 'other')).toEqual({ requests: 0, generationTokens: 0, promptTokens: 0 })
    expect(vllmCounters(parseMetrics('# HELP up\nup 1\n'), 'tiny-random')).toBeUndefined()
  })
})

describe('latency figures', () => {
  it('nearest-rank percentiles', () => {
    const v = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100]
    expect([percentile(v, 50), percentile(v, 95), percentile([7], 95), percentile([], 50)]).toEqual([50, 100, 7, undefined])
  })
  it('TTFT, ITL and decode speed of a stream; aggregate tokens/s of a burst', () => {
    expect(streamFigures({ sentAt: 1000, tokenTimes: [1100, 1120, 1150, 1170], endedAt: 1180, completionTokens: 4 })).toEqual({
      ttftMs: 100,
      itlMs: (20 + 30 + 20) / 3,
      tpotMs: 70 / 3,
      tokensPerSecond: 3000 / 70,
    })
    expect(streamFigures({ sentAt: 0, tokenTimes: [], endedAt: 5, completionTokens: 0 })).toEqual({
      ttftMs: undefined,
      itlMs: undefined,
      tpotMs: undefined,
      tokensPerSecond: undefined,
    })
    expect(burstFigures([100, 200, 300, 400], 64, 500)).toEqual({ requests: 4, p50Ms: 200, p95Ms: 400, tokensPerSecond: 128 })
  })
})

describe('answer assertions', () => {
  const answer = parseAnswer(httpFixture('completion.http').body, false)
  const a = answer.ok ? answer.value : undefined!
  const check = (expect_: Record<string, unknown>, maxTokens = 8, ans = a) =>
    checkAnswer({ prompt: 'Say hello', maxTokens, chat: false, expect: expect_ }, maxTokens, ans, 'prompt 1 (completion)', 'tiny-random').map(
      (f) => `${f.code}: ${f.message}`,
    )

  it('the captured answer passes contains/regex/minimum/finish reason that hold', () => {
    expect(check({ contains: 'people', regex: '^ \\w+', minCompletionTokens: 8, finishReason: 'length' })).toEqual([])
  })
  it('each failed expectation says what was wanted', () => {
    expect(check({ contains: 'Paris', regex: '^\\d', minCompletionTokens: 9, finishReason: 'stop' })).toEqual([
      'SMOKE_ASSERTION_FAILED: prompt 1 (completion): the answer does not contain "Paris".',
      'SMOKE_ASSERTION_FAILED: prompt 1 (completion): the answer does not match /^\\d/.',
      'SMOKE_ASSERTION_FAILED: prompt 1 (completion): finish_reason is length, expected stop.',
      'SMOKE_ASSERTION_FAILED: prompt 1 (completion): 8 completion tokens, expected at least 9.',
    ])
  })
  it('empty answers, a wrong model and usage that disagrees with the answer', () => {
    expect(check({}, 8, { ...a, text: '  ', model: 'other' }).map((s) => s.split(':')[0])).toEqual(['SMOKE_MODEL_MISSING', 'SMOKE_EMPTY_COMPLETION'])
    expect(check({}, 16)).toEqual([
      'SMOKE_USAGE_INCONSISTENT: prompt 1 (completion): usage does not agree with the answer (finish_reason length with completion_tokens 8 ≠ max_tokens 16).',
    ])
    expect(check({}, 8, { ...a, usage: { promptTokens: 2, completionTokens: 8, totalTokens: 11 } })[0]).toMatch(
      /total_tokens 11 ≠ prompt_tokens 2 \+ completion_tokens 8/,
    )
  })
})

describe('cluster proof', () => {
  const m = labLikeManifest()
  const healthy = parseRayPlacement(fixture('ray-pg.json')) as RayPlacementData
  const codes = (d: RayPlacementData, mm = m) => proveCluster(mm, d).findings.map((f) => `${f.code} ${f.node ?? '-'}`)
  const pg = Object.values(healthy.pgs)[0]!
  const withPg = (over: object) => ({ ...healthy, pgs: { [pg.placement_group_id]: { ...pg, ...over } } })

  it("the lab's healthy placement group: CREATED, 2 bundles, one on each node at its fabric IP", () => {
    const p = proveCluster(m, healthy)
    expect(p.findings).toEqual([])
    expect(p.placementGroup).toMatchObject({ state: 'CREATED', bundles: 2 })
    expect(p.serving.map((s) => `${s.node} ${s.ip} ${s.bundles}`).sort()).toEqual(['spark-a 172.30.200.12 1', 'spark-b 172.30.200.13 1'])
  })

  it("a worker's Ray gone: the group reschedules and the worker is named as missing", () => {
    const b = healthy.nodes.find((n) => n.NodeManagerAddress === '172.30.200.13')!
    const dead = {
      ...withPg({ state: 'RESCHEDULING', bundles_to_node_id: { '0': pg.bundles_to_node_id!['0'] } }),
      nodes: healthy.nodes.map((n) => (n === b ? { ...n, Alive: false } : n)),
    }
    expect(codes(dead)).toEqual(['SMOKE_PLACEMENT_GROUP_NOT_CREATED -', 'SMOKE_SERVING_NODE_MISSING spark-b'])
    const stillListed = { ...withPg({}), nodes: dead.nodes }
    expect(codes(stillListed)).toEqual(['SMOKE_BUNDLE_NODE_DEAD spark-b', 'SMOKE_SERVING_NODE_MISSING spark-b'])
  })

  it('serving from one node only, too few bundles, Ray under the management IP, no group at all', () => {
    const oneNode = withPg({ bundles: { '0': pg.bundles['0'] }, bundles_to_node_id: { '0': pg.bundles_to_node_id!['0'] } })
    expect(codes(oneNode)).toEqual(['SMOKE_BUNDLE_COUNT -', 'SMOKE_SERVING_NODE_MISSING spark-b'])
    const mgmt = { ...healthy, nodes: healthy.nodes.map((n) => (n.NodeManagerAddress === '172.30.200.12' ? { ...n, NodeManagerAddress: '172.30.230.12' } : n)) }
    expect(codes(mgmt)).toEqual(['SMOKE_BUNDLE_OFF_FABRIC -', 'SMOKE_SERVING_NODE_MISSING spark-a'])
    expect(codes({ ...withPg({ state: 'REMOVED' }) })).toEqual(['SMOKE_PLACEMENT_GROUP_MISSING -'])
    // A manifest that wants TP 1 on two 2-GPU nodes: the running group has other sizes.
    expect(codes(healthy, { ...m, vllm: { ...m.vllm, tensorParallelSize: 1 }, nodes: m.nodes.map((n) => ({ ...n, gpus: 2 })) })).toEqual([
      'SMOKE_BUNDLE_COUNT -',
    ])
  })

  it('both bundles on one 1-GPU node: SMOKE_BUNDLES_OVERPACKED on it, and the other node is named as missing', () => {
    const onA = pg.bundles_to_node_id!['0']!
    expect(codes(withPg({ bundles_to_node_id: { '0': onA, '1': onA } }))).toEqual(['SMOKE_BUNDLES_OVERPACKED spark-a', 'SMOKE_SERVING_NODE_MISSING spark-b'])
  })

  it('no group left after vLLM gave up, with a worker dead in Ray: the worker is named', () => {
    const gone = { pgs: {}, nodes: healthy.nodes.map((n) => (n.NodeManagerAddress === '172.30.200.13' ? { ...n, Alive: false } : n)) }
    expect(codes(gone)).toEqual(['SMOKE_PLACEMENT_GROUP_MISSING -', 'SMOKE_SERVING_NODE_MISSING spark-b'])
  })

  it('output that is not the query JSON is a problem string', () => {
    expect(parseRayPlacement('Traceback ...\nConnectionError: could not connect')).toMatch(/printed no JSON/)
  })
})
