/** SSE parsing and vLLM's response bodies, on captures from the lab's stand-in. */
import { describe, expect, it } from 'vitest'
import { parseAnswer, parseErrorBody, parseModels, parseStreamChunk, parseVersion } from '../../src/smoke/openai.js'
import { createSseParser } from '../../src/smoke/sse.js'
import { httpFixture } from './fixtures/read.js'

const dataOf = (body: string, pieces: (s: string) => string[]) => {
  const p = createSseParser()
  const events = pieces(body).flatMap((c) => p.push(Buffer.from(c)))
  return [...events, ...p.end().events].map((e) => e.data)
}

describe('SSE parsing', () => {
  const body = httpFixture('completion-stream.http').body
  const whole = dataOf(body, (s) => [s])

  it('a captured stream gives one event per data line, ending in [DONE]', () => {
    expect(whole.length).toBe(11) // 8 tokens, the finish chunk, the usage chunk, [DONE]
    expect(whole.at(-1)).toBe('[DONE]')
  })

  it('the same events however the bytes are split across TCP chunks (every split point, and byte by byte)', () => {
    for (let at = 1; at < body.length; at += 7) expect(dataOf(body, (s) => [s.slice(0, at), s.slice(at)])).toEqual(whole)
    expect(dataOf(body, (s) => [...s])).toEqual(whole)
  })

  it('CRLF and lone CR line endings, with a CRLF pair split between two chunks', () => {
    const crlf = body.replace(/\n/g, '\r\n')
    expect(dataOf(crlf, (s) => [s])).toEqual(whole)
    const cut = crlf.indexOf('\r\n') + 1
    expect(dataOf(crlf, (s) => [s.slice(0, cut), s.slice(cut)])).toEqual(whole)
    expect(dataOf(body.replace(/\n/g, '\r'), (s) => [s])).toEqual(whole)
  })

  it('a multi-byte character split between chunks survives; comments and multi-line data follow the standard', () => {
    const text = Buffer.from(': keep-alive\ndata: {"t":"héllo"}\ndata: second\n\n')
    const p = createSseParser()
    const cut = text.indexOf(0xc3) + 1
    const events = [...p.push(text.subarray(0, cut)), ...p.push(text.subarray(cut))]
    expect(events).toEqual([{ event: 'message', data: '{"t":"héllo"}\nsecond' }])
  })

  it('an event the stream cut off before its blank line is reported as unterminated, not delivered', () => {
    const p = createSseParser()
    expect(p.push('data: {"a":1}\n\ndata: {"b"')).toHaveLength(1)
    expect(p.end()).toEqual({ events: [], unterminated: 'data: {"b"' })
  })
})

describe("vLLM's bodies", () => {
  it('models, version, completion and chat from the lab', () => {
    expect(parseModels(httpFixture('models.http').body)).toEqual({ ok: true, value: ['tiny-random'] })
    expect(parseVersion(httpFixture('version.http').body)).toMatchObject({ ok: true, value: expect.stringMatching(/^0\.\d+/) })
    const c = parseAnswer(httpFixture('completion.http').body, false)
    expect(c).toMatchObject({ ok: true, value: { model: 'tiny-random', finishReason: 'length', usage: { completionTokens: 8 } } })
    const chat = parseAnswer(httpFixture('chat.http').body, true)
    expect(chat.ok && chat.value.text.length).toBeGreaterThan(0)
    expect(parseAnswer(httpFixture('chat.http').body, false)).toMatchObject({
      ok: false,
      problem: { message: expect.stringMatching(/choices\[0\]\.text is missing/) },
    })
  })

  it('stream chunks: text deltas, the finish reason, the usage chunk, [DONE]', () => {
    for (const [file, chat] of [
      ['completion-stream.http', false],
      ['chat-stream.http', true],
    ] as const) {
      const chunks = dataOf(httpFixture(file).body, (s) => [s]).map((d) => parseStreamChunk(d, chat))
      expect(chunks.every((c) => c.ok)).toBe(true)
      const values = chunks.map((c) => (c.ok ? c.value : undefined))
      expect(values.filter((v) => v?.kind === 'delta' && v.text !== '')).toHaveLength(8)
      expect(values.some((v) => v?.kind === 'delta' && v.finishReason === 'length')).toBe(true)
      expect(values.find((v) => v?.kind === 'delta' && v.usage)).toMatchObject({ usage: { completionTokens: 8 } })
      expect(values.at(-1)).toEqual({ kind: 'done' })
    }
  })

  it("both of vLLM's error shapes, the API-key shape and FastAPI's, and bodies with none", () => {
    expect(parseErrorBody(httpFixture('error-model.http').body)).toEqual({
      message: 'The model `no-such-model` does not exist.',
      type: 'NotFoundError',
      param: 'model',
      code: 404,
      shape: 'nested',
    })
    expect(parseErrorBody(httpFixture('error-maxtokens.http').body)).toMatchObject({ type: 'BadRequestError', param: 'max_tokens', shape: 'nested' })
    // vLLM <= 0.9 (flat ErrorResponse)
    expect(parseErrorBody('{"object":"error","message":"The model `x` does not exist.","type":"NotFoundError","param":null,"code":404}')).toEqual({
      message: 'The model `x` does not exist.',
      type: 'NotFoundError',
      code: 404,
      shape: 'flat',
    })
    expect(parseErrorBody('{"error":"Unauthorized"}')).toEqual({ message: 'Unauthorized', shape: 'plain' })
    expect(parseErrorBody('{"detail":"Not Found"}')).toEqual({ message: 'Not Found', shape: 'detail' })
    expect(parseErrorBody('<html>502 Bad Gateway</html>')).toEqual({ message: '<html>502 Bad Gateway</html>', shape: 'none' })
  })

  it('malformed JSON is a problem value naming what came back', () => {
    expect(parseAnswer('{"id": "cmpl-1", "choices": [', false)).toMatchObject({ ok: false, problem: { message: expect.stringMatching(/^not JSON .*cmpl-1/) } })
  })
})
