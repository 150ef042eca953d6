/**
 * Issue 24 item 6: every HTTP body and stream from the server is bounded where it enters. A hostile
 * server answers without end through three doors of the smoke client: a JSON body (`/v1/models`), a
 * text body (`/metrics`, 20 M lines), and a streamed answer (SSE without end), plus the error body of
 * a stream. Each ends with a result that says it was cut, and the connection is closed.
 */
import { createServer, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHttpClient } from '../../src/smoke/http.js'

const LIMIT = 1024 * 1024
let server: Server
let base: string
const closed: string[] = []

/** Write `piece` until the client goes away. */
function endless(res: ServerResponse, piece: string, path: string): void {
  const write = () => {
    while (!res.destroyed && res.write(piece)) {}
    if (!res.destroyed) res.once('drain', write)
  }
  res.on('close', () => closed.push(path))
  write()
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = req.url ?? ''
    if (path === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' })
      endless(res, '{"object":"list","data":[' + '{"id":"m","object":"model"},'.repeat(1000), path)
    } else if (path === '/metrics') {
      res.writeHead(200, { 'content-type': 'text/plain' })
      endless(res, 'vllm:prompt_tokens_total{model_name="m"} 1\n'.repeat(1000), path)
    } else if (path === '/v1/chat/completions') {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      endless(res, 'data: {"choices":[{"delta":{"content":"x"}}]}\n\n'.repeat(100), path)
    } else {
      res.writeHead(500, { 'content-type': 'text/plain' })
      endless(res, 'error '.repeat(1000), path)
    }
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((r) => server.close(r))
})

const client = () => createHttpClient({ baseUrl: base, target: 'hostile', timeoutMs: 600_000, maxBodyBytes: LIMIT, maxStreamBytes: LIMIT })

describe('the smoke client bounds what a server sends', () => {
  for (const path of ['/v1/models', '/metrics']) {
    it(`${path}: a body without end is cut at the limit, the result says so`, async () => {
      const r = await client().request('GET', path)
      expect(r).toMatchObject({ ok: false, problem: { message: `the response body passed ${LIMIT} bytes; cut there and the connection closed` } })
    })
  }

  it('an SSE stream without end is cut at the limit; what was handed on stays under it', async () => {
    let seen = 0
    const r = await client().stream('/v1/chat/completions', { stream: true }, (c) => (seen += c.length))
    expect(r).toMatchObject({ ok: false, problem: { message: `the streamed answer passed ${LIMIT} bytes; cut there and the connection closed` } })
    expect(seen).toBeLessThanOrEqual(LIMIT)
  })

  it("a stream's error body without end is cut too", async () => {
    const r = await client().stream('/v1/completions', {}, () => {})
    expect(r).toMatchObject({ ok: false, problem: { message: expect.stringMatching(/response body passed/) } })
  })

  it('the server sees every such connection closed', async () => {
    await new Promise<void>((resolve) => {
      const check = () => (closed.length >= 4 ? resolve() : setImmediate(check))
      check()
    })
    expect(new Set(closed)).toEqual(new Set(['/v1/models', '/metrics', '/v1/chat/completions', '/v1/completions']))
  })
})
