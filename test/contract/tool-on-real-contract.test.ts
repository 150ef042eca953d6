/**
 * The tool's readers held to real vLLM, release by release (src/command/vllm-contract/vllm-<V>.json,
 * extracted from the wheels): the smoke's body parsers on bodies that carry only the fields vLLM's
 * protocol models define, its metrics reader on the metric names and labels vLLM registers, the
 * `vllm serve` flags the tool passes against the release's parser, the variables it sets against
 * vllm/envs.py, and the log signatures on lines rendered from vLLM's own format strings. A name the
 * tool relies on that a release lacks fails here, naming the release.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parseManifest } from '../../src/manifest/load-manifest.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { nodeEnv, vllmServeArgv } from '../../src/plan/node-commands.js'
import { scanLog } from '../../src/preflight/signatures.js'
import { GENERATION_TOKENS, PROMPT_TOKENS, REQUEST_SUCCESS, parseMetrics, vllmCounters } from '../../src/smoke/metrics.js'
import { parseAnswer, parseErrorBody, parseModels, parseStreamChunk, parseVersion } from '../../src/smoke/openai.js'
import { KNOWN_GAPS, NEEDED_WORDINGS, VLLM_CONTRACTS, type VllmContract, render } from './support.js'

/** A body of protocol model `cls` with exactly the fields release `c` defines: `values` where given, null otherwise. */
function body(c: VllmContract, cls: string, values: Record<string, unknown>): Record<string, unknown> {
  const model = c.protocol[cls]
  if (!model?.file) throw new Error(`vLLM ${c.vllm} has no ${cls} (protocol model not found in the wheel)`)
  const fields = Object.keys(model.fields)
  const out: Record<string, unknown> = Object.fromEntries(fields.map((f) => [f, null]))
  for (const [k, v] of Object.entries(values)) if (fields.includes(k)) out[k] = v
  return out
}

const usage = (c: VllmContract) => body(c, 'UsageInfo', { prompt_tokens: 3, completion_tokens: 5, total_tokens: 8 })

describe.each(VLLM_CONTRACTS.map((c) => [c.vllm, c] as const))('vLLM %s', (version, c) => {
  it('every protocol model the smoke reads was found in the wheel', () => {
    const missing = Object.entries(c.protocol)
      .filter(([, m]) => m.file === null)
      .map(([name]) => name)
    expect(missing, `vLLM ${version} lacks these protocol models`).toEqual([])
    expect(c.unparsed_files, `vLLM ${version}: files the extractor could not parse`).toEqual([])
  })

  it('serves every route the tool requests, with its method; /version answers {"version": ...}', () => {
    const wanted: [string, string][] = [
      ['/health', 'GET'],
      ['/version', 'GET'],
      ['/metrics', 'GET'],
      ['/v1/models', 'GET'],
      ['/v1/completions', 'POST'],
      ['/v1/chat/completions', 'POST'],
    ]
    for (const [path, method] of wanted) expect(c.routes[path]?.methods, `vLLM ${version} has no ${method} ${path}`).toContain(method)
    expect(c.routes['/version']?.json_keys).toEqual(['version'])
    expect(parseVersion(JSON.stringify({ version }))).toEqual({ ok: true, value: version })
  })

  it('the smoke reads GET /v1/models, completions and chat completions in its field names', () => {
    const models = body(c, 'ModelList', { object: 'list', data: [body(c, 'ModelCard', { id: 'toy', object: 'model' })] })
    expect(parseModels(JSON.stringify(models)), `vLLM ${version} /v1/models`).toEqual({ ok: true, value: ['toy'] })

    const completion = body(c, 'CompletionResponse', {
      model: 'toy',
      choices: [body(c, 'CompletionResponseChoice', { index: 0, text: ' hello', finish_reason: 'length' })],
      usage: usage(c),
    })
    expect(parseAnswer(JSON.stringify(completion), false), `vLLM ${version} completion`).toEqual({
      ok: true,
      value: { model: 'toy', text: ' hello', finishReason: 'length', usage: { promptTokens: 3, completionTokens: 5, totalTokens: 8 } },
    })

    const chat = body(c, 'ChatCompletionResponse', {
      model: 'toy',
      choices: [
        body(c, 'ChatCompletionResponseChoice', { index: 0, message: body(c, 'ChatMessage', { role: 'assistant', content: 'hi' }), finish_reason: 'stop' }),
      ],
      usage: usage(c),
    })
    const answer = parseAnswer(JSON.stringify(chat), true)
    expect(answer.ok && answer.value.text, `vLLM ${version} chat completion`).toBe('hi')
  })

  it('the smoke reads streamed chunks and the usage chunk (stream_options.include_usage)', () => {
    expect(Object.keys(c.protocol.StreamOptions?.fields ?? {}), `vLLM ${version} StreamOptions`).toContain('include_usage')
    const textChunk = body(c, 'CompletionStreamResponse', { choices: [body(c, 'CompletionResponseStreamChoice', { index: 0, text: ' a' })] })
    const chatChunk = body(c, 'ChatCompletionStreamResponse', {
      choices: [body(c, 'ChatCompletionResponseStreamChoice', { index: 0, delta: body(c, 'DeltaMessage', { content: ' b' }), finish_reason: 'stop' })],
    })
    const usageChunk = body(c, 'ChatCompletionStreamResponse', { choices: [], usage: usage(c) })
    expect(parseStreamChunk(JSON.stringify(textChunk), false)).toMatchObject({ ok: true, value: { kind: 'delta', text: ' a' } })
    expect(parseStreamChunk(JSON.stringify(chatChunk), true)).toMatchObject({ ok: true, value: { kind: 'delta', text: ' b', finishReason: 'stop' } })
    expect(parseStreamChunk(JSON.stringify(usageChunk), true)).toMatchObject({ ok: true, value: { usage: { totalTokens: 8 } } })
  })

  it('the smoke reads the error body', () => {
    const err = body(c, 'ErrorResponse', { error: body(c, 'ErrorInfo', { message: 'too long', type: 'BadRequestError', param: 'max_tokens', code: 400 }) })
    expect(parseErrorBody(JSON.stringify(err)), `vLLM ${version} ErrorResponse`).toEqual({
      message: 'too long',
      type: 'BadRequestError',
      param: 'max_tokens',
      code: 400,
      shape: 'nested',
    })
  })

  it("the smoke's counters are registered, shown by default, labelled model_name (and finished_reason)", () => {
    for (const name of [REQUEST_SUCCESS, GENERATION_TOKENS, PROMPT_TOKENS]) {
      const m = c.metrics.metrics[name]
      expect(m, `vLLM ${version} registers no ${name}`).toBeDefined()
      expect(m?.hidden, `vLLM ${version} hides ${name}`).toBe(false)
      expect(m?.labels, `vLLM ${version} ${name} labels`).toContain('model_name')
    }
    expect(c.metrics.metrics[REQUEST_SUCCESS]?.labels).toContain('finished_reason')
    // An exposition rendered from the registrations, one series per finished_reason: the reader counts served ones only.
    const labelled = (name: string, extra = '') => `${name}{model_name="toy",engine="0"${extra}} 2`
    const text = [
      ...c.metrics.finish_reasons.map((r) => labelled(REQUEST_SUCCESS, `,finished_reason="${r}"`)),
      labelled(GENERATION_TOKENS),
      labelled(PROMPT_TOKENS),
    ].join('\n')
    const served = c.metrics.finish_reasons.filter((r) => r !== 'abort' && r !== 'error').length
    expect(vllmCounters(parseMetrics(text), 'toy'), `vLLM ${version}`).toEqual({ requests: 2 * served, generationTokens: 2, promptTokens: 2 })
  })

  it('every `vllm serve` flag the tool passes exists (ray and mp launches), and both executor backends', () => {
    for (const m of [RAY, MP]) {
      const flags = vllmServeArgv(m).filter((w) => w.startsWith('-'))
      const missing = flags.filter((f) => !c.flags.flags.includes(f))
      expect(missing, `vLLM ${version}'s vllm serve lacks flags the tool passes (${m.vllm.executorBackend})`).toEqual([])
    }
    const workerFlags = vllmServeArgv(MP, MP.nodes[1]!).filter((w) => w.startsWith('-'))
    expect(workerFlags.filter((f) => !c.flags.flags.includes(f))).toEqual([])
    expect(c.flags.executor_backends).toEqual(expect.arrayContaining(['ray', 'mp']))
  })

  it('every vLLM variable the tool sets exists in vllm/envs.py', () => {
    const set = Object.keys(nodeEnv(RAY, RAY.nodes[0]!)).filter((k) => k.startsWith('VLLM_'))
    expect(set).toContain('VLLM_HOST_IP')
    for (const name of set) expect(c.envs.envs[name]?.present, `vLLM ${version} has no ${name}`).toBe(true)
  })

  it.each(NEEDED_WORDINGS.map((w) => [w.id, w] as const))('the wording %s is there where needed, and its lines give the finding', (id, w) => {
    const formats = (c.logs[id] ?? []).filter(w.pick ?? (() => true))
    if (!w.needed(c)) {
      // Not needed in this release (e.g. the classic executor's checks after it was removed): nothing to match.
      return
    }
    expect(formats.length, `vLLM ${version} has no "${id}" message the tool's ${w.code} rule matches`).toBeGreaterThan(0)
    for (const f of formats) {
      const line = `(EngineCore_DP0 pid=1) ERROR 12-05 10:00:00 [${f.file.split('/').pop()}:1] ${render(f.format, w.args)}`
      const codes = scanLog(line, 'rendered').map((x) => x.code)
      const gap = KNOWN_GAPS.find((g) => g.vllm === version && g.id === id && f.format.includes(g.contains))
      if (gap) expect(codes, `known gap now matched: remove it from KNOWN_GAPS (${gap.why})`).not.toContain(w.code)
      else expect(codes, `vLLM ${version} ${f.file} (${f.function}): ${line}`).toContain(w.code)
    }
  })
})

const example = readFileSync(new URL('../../src/manifest/examples/dgx-spark-pair.yml', import.meta.url), 'utf8')
const RAY: Manifest = {
  ...parseManifest(example, 'dgx-spark-pair.yml').manifest!,
  vllm: { ...parseManifest(example, 'x.yml').manifest!.vllm, executorBackend: 'ray' },
}
const MP: Manifest = { ...RAY, ray: RAY.ray, vllm: { ...RAY.vllm, executorBackend: 'mp' } }
