/**
 * The whole smoke gate against servers these tests own (real HTTP on 127.0.0.1), each failing in
 * one way; the start-up watcher runs its real poll script on this machine (fake-vllm.ts).
 */
import { readFileSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import type { Manifest } from '../../src/manifest/schema.js'
import { runSmoke, runSmokeGate } from '../../src/smoke/gate.js'
import { labLikeManifest } from './fixtures/manifest.js'
import { type FakeBehaviour, type FakeVllm, startFakeVllm } from './support/fake-vllm.js'

let fake: FakeVllm | undefined
afterEach(async () => {
  await fake?.stop()
  fake = undefined
})

function manifestFor(f: FakeVllm, smoke: Record<string, unknown> = {}): Manifest {
  const m = labLikeManifest()
  return {
    ...m,
    vllm: { ...m.vllm, port: f.port },
    smoke: { ...m.smoke, url: f.url, readyTimeoutSeconds: 30, requestTimeoutSeconds: 10, clusterProof: false, metrics: true, ...smoke } as Manifest['smoke'],
  }
}

async function smoke(b: FakeBehaviour, smokeSettings: Record<string, unknown> = {}, env: NodeJS.ProcessEnv = {}) {
  const called = Date.now()
  fake = await startFakeVllm(b)
  // The fake's refusal window starts inside startFakeVllm: the smoke's own clock starts up to this much later.
  const startGapMs = Date.now() - called
  const progress: string[] = []
  const r = await runSmoke({
    manifest: manifestFor(fake, smokeSettings),
    transports: new Map([['spark-a', fake.head]]),
    env,
    onProgress: (m) => progress.push(m),
  })
  return { ...r, progress, startGapMs, codes: r.findings.filter((f) => f.severity === 'error').map((f) => f.code) }
}

describe('smoke gate against loopback servers', () => {
  it('a slow start (connection refused for 7.5 s) then ready: passes, with progress lines and the figures', async () => {
    const r = await smoke({ readyAfterMs: 7500 }, { burst: { requests: 4, maxTokens: 8 } })
    expect(r.codes).toEqual([])
    expect(r.ok).toBe(true)
    expect(r.report.readyAfterMs).toBeGreaterThanOrEqual(7500 - r.startGapMs)
    expect(r.progress.filter((p) => p.startsWith('waiting for'))).toEqual([
      expect.stringMatching(/waiting for vLLM on fake-head .*: \d+ s; last log line: .*vLLM API server version/),
    ])
    expect(r.outputs).toMatchObject({ verdict: 'passed', model: 'tiny-random' })
    for (const k of ['ttft-ms', 'itl-ms', 'tokens-per-second', 'p95-ms']) expect(Number(r.outputs[k]), k).toBeGreaterThan(0)
    // The fake counts exactly what it answered: 1 prompt + 1 stream + 4 burst.
    expect(r.report.inference!.metrics).toMatchObject({ seen: { requests: 6, generationTokens: 48, promptTokens: 12 }, short: [] })
    expect(r.text).toMatch(/time to first token +\d/)
    expect(r.summary).toMatch(/\| time to first token \| [\d.]+ ms \|/)
  })

  it('503 forever: fails at the deadline with SMOKE_NOT_READY and the last log line', async () => {
    const r = await smoke(
      { health503: true, logLines: ['INFO loading weights', 'INFO Loading safetensors checkpoint shards: 40% Completed | 2/5'] },
      { readyTimeoutSeconds: 4 },
    )
    expect(r.codes).toEqual(['SMOKE_NOT_READY'])
    const f = r.findings[0]!
    expect(f.message).toMatch(
      /did not answer GET \/health with 200 within 4 s .*Last log line: INFO Loading safetensors checkpoint shards: 40% Completed \| 2\/5/,
    )
    expect(f.fix).toMatch(/raise smoke.readyTimeoutSeconds/)
    expect(r.outputs.verdict).toBe('failed')
  })

  it('the placement-group wait in the log: PLACEMENT_GROUP_PENDING within seconds, long before the deadline', async () => {
    const wait = readFileSync('test/preflight/fixtures/logs/vllm-pg-wait-new.txt', 'utf8')
      .split('\n')
      .filter((l) => l.includes('Waiting for creating'))
    // The deadline is 1800 s; the test's own timeout (30 s) would end it long before.
    const r = await smoke({ health503: true, logLines: wait }, { readyTimeoutSeconds: 1800 })
    expect(r.codes).toContain('PLACEMENT_GROUP_PENDING')
    expect(r.findings.find((f) => f.code === 'PLACEMENT_GROUP_PENDING')!.fix).toMatch(/node-ip-address|VLLM_HOST_IP/)
  })

  it('a server that is up although its log once showed the placement-group wait: passes, the wait kept as a warning', async () => {
    const wait = readFileSync('test/preflight/fixtures/logs/vllm-pg-wait-new.txt', 'utf8')
      .split('\n')
      .filter((l) => l.includes('Waiting for creating'))
    const r = await smoke({ logLines: wait.slice(0, 1) })
    expect(r.codes).toEqual([])
    expect(r.findings.find((f) => f.code === 'PLACEMENT_GROUP_PENDING')).toMatchObject({
      severity: 'warning',
      message: expect.stringMatching(/^Before vLLM became ready, its log showed: /),
    })
  })

  it('malformed JSON: SMOKE_BAD_RESPONSE quoting what came back', async () => {
    const r = await smoke({ malformedJson: true })
    expect(r.codes).toEqual(['SMOKE_BAD_RESPONSE'])
    expect(r.findings[0]!.message).toMatch(/prompt 1 \(completion\): the response is not a valid completion: not JSON .*" pres/)
  })

  it('SSE events split across TCP chunks with CRLF line endings: the stream is read whole and passes', async () => {
    const r = await smoke({ splitStream: true })
    expect(r.codes).toEqual([])
    expect(r.report.inference!.stream).toMatchObject({ completionTokens: 8, text: WORDS_TEXT })
  })

  it('a wrong model name: SMOKE_MODEL_MISSING with what the server lists', async () => {
    const r = await smoke({ listedModel: 'Qwen/Qwen3-8B' })
    expect(r.codes).toEqual(['SMOKE_MODEL_MISSING'])
    expect(r.findings[0]!.message).toBe('The server lists "Qwen/Qwen3-8B", not "tiny-random".')
    expect(r.findings[0]!.fix).toMatch(/vllm.servedModelName/)
  })

  it('an empty completion: SMOKE_EMPTY_COMPLETION', async () => {
    const r = await smoke({ emptyText: true }, { stream: false })
    expect(r.codes).toEqual(['SMOKE_EMPTY_COMPLETION'])
    expect(r.findings[0]!.message).toMatch(/prompt 1 \(completion\) came back empty \(finish_reason stop, 1 completion tokens\)/)
  })

  it('the connection dropped mid-stream: SMOKE_STREAM_BROKEN, saying how far it got', async () => {
    const r = await smoke({ dropMidStream: true })
    expect(r.codes).toEqual(['SMOKE_STREAM_BROKEN'])
    expect(r.findings[0]!.message).toMatch(/streamed completion: .*after 2 chunk\(s\) with text and before data: \[DONE\]/)
  })

  it('an API key: sent as the Authorization header only, never in the report; missing → SMOKE_UNAUTHORIZED', async () => {
    const key = 'sk-test-9f8e7d6c5b4a'
    const ok = await smoke({ apiKey: key }, { apiKeySecret: 'VLLM_KEY' }, { VLLM_KEY: key })
    expect(ok.codes).toEqual([])
    expect(fake!.authSeen.every((a) => a === `Bearer ${key}`)).toBe(true)
    expect(JSON.stringify([ok.text, ok.summary, ok.json, ok.progress])).not.toContain(key)
    await fake!.stop()
    fake = undefined
    const refused = await smoke({ apiKey: key })
    expect(refused.codes).toEqual(['SMOKE_UNAUTHORIZED'])
    expect(refused.findings[0]!.message).toBe('GET /v1/models: HTTP 401: Unauthorized. The server wants an API key.')
  })

  it('runSmokeGate is the seam the deploy calls: the same result without the detail', async () => {
    fake = await startFakeVllm({})
    const r = await runSmokeGate({ manifest: manifestFor(fake), transports: new Map([['spark-a', fake.head]]), env: {} })
    expect(Object.keys(r).sort()).toEqual(['findings', 'ok', 'outputs', 'summary', 'text'])
    expect(r.ok).toBe(true)
    expect(r.outputs.verdict).toBe('passed')
  })
})

const WORDS_TEXT = ' present by people year must help around human'

describe('a server that is not running: whether it ever started is said as it is', () => {
  it.each([
    ['exited', 'SMOKE_SERVER_EXITED', /no longer running in \S+ on spark-a\. Last log line: .*vLLM API server version/],
    ['never-started', 'SMOKE_SERVER_NOT_STARTED', /^On spark-a, vllm serve never started in \S+: it is not running and \/tmp\/\S+ is empty or missing\.$/],
    ['no-container', 'SMOKE_SERVER_NOT_STARTED', /^On spark-a, vllm serve never started: there is no container \S+\.$/],
  ] as const)('%s: %s', async (serve, code, message) => {
    const r = await smoke({ serve }, { readyTimeoutSeconds: 20 })
    expect(r.codes).toEqual([code])
    expect(r.findings[0]!.message).toMatch(message)
    if (serve !== 'exited') expect(r.findings[0]!.message).not.toMatch(/no longer/)
  })
})
