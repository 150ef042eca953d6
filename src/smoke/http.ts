/**
 * The smoke test's HTTP client: plain node:http/https, one connection per request. The connection
 * is either a TCP socket to a URL or a stream handed in by `connect` (an SSH channel to
 * 127.0.0.1:<port> on the head, so no port is opened anywhere). The API key goes only into the
 * Authorization header; nothing here logs.
 */
import http from 'node:http'
import https from 'node:https'
import type { Duplex } from 'node:stream'
import { fail, ok, type Problem, type Result } from '../result/result.js'

/** A whole answer, whatever its status. */
export interface HttpAnswer {
  readonly status: number
  readonly contentType: string
  readonly body: string
  readonly ms: number
}

/** A streamed 2xx answer that ended whole (its body went to `onData`). */
export interface StreamAnswer {
  readonly status: number
  readonly complete: true
  readonly ms: number
}

/** No whole answer: the message says why (no tunnel, refused, cut, timed out); a non-2xx stream keeps its status and body. */
export interface HttpFailure extends Problem {
  readonly ms: number
  readonly status?: number
  readonly body?: string
}

export type HttpResult = Result<HttpAnswer, HttpFailure>
export type StreamResult = Result<StreamAnswer, HttpFailure>

/** How long the exchange took, answered or not. */
export const elapsedMs = (r: HttpResult | StreamResult): number => (r.ok ? r.value.ms : r.problem.ms)

const broke = (message: string, ms: number, more: { status?: number; body?: string } = {}) =>
  fail<HttpFailure>({ code: 'HTTP_EXCHANGE_FAILED', message, evidence: {}, fix: message, ms, ...more })

export interface SmokeHttp {
  /** Where requests go, for messages (no secrets). */
  readonly target: string
  request(method: 'GET' | 'POST', path: string, body?: unknown): Promise<HttpResult>
  /** POST and hand over the body as it arrives; `body` in the result is only set for non-2xx answers. */
  stream(path: string, body: unknown, onData: (chunk: Buffer, at: number) => void): Promise<StreamResult>
}

export interface HttpClientOptions {
  /** `http://127.0.0.1:8000` (tunnel: the head's view) or the manifest's smoke.url. */
  readonly baseUrl: string
  readonly target: string
  readonly timeoutMs: number
  readonly apiKey?: string
  /** A fresh stream per request instead of a TCP connection (the SSH tunnel). */
  readonly connect?: () => Promise<Result<Duplex>>
  /** Bytes of one whole body (a JSON answer, `/metrics`, an error body); default 32 MiB. */
  readonly maxBodyBytes?: number
  /** Bytes of one streamed answer (SSE); default 64 MiB. */
  readonly maxStreamBytes?: number
}

/**
 * Bodies from a server are bounded where they enter: past the limit the request is dropped and the
 * result says so (a /v1/models of gigabytes, an SSE stream without end, a /metrics of 20 M lines).
 */
export const MAX_BODY_BYTES = 32 * 1024 * 1024
export const MAX_STREAM_BYTES = 64 * 1024 * 1024

/** ssh2 channels are Duplex streams without the socket methods node:http calls. */
function asSocket(stream: Duplex): Duplex {
  const s = stream as Duplex & Record<string, unknown>
  for (const m of ['setTimeout', 'setNoDelay', 'setKeepAlive', 'ref', 'unref']) if (typeof s[m] !== 'function') s[m] = () => s
  return s
}

const why = (err: Error & { code?: string }): string =>
  err.code ? `${err.code}${err.message && !err.message.includes(err.code) ? ` (${err.message})` : ''}` : err.message

export function createHttpClient(opts: HttpClientOptions): SmokeHttp {
  const base = new URL(opts.baseUrl)
  const lib = base.protocol === 'https:' ? https : http
  const prefix = base.pathname.replace(/\/+$/, '')

  const send = async (
    method: 'GET' | 'POST',
    path: string,
    body: unknown,
    onData?: (chunk: Buffer, at: number) => void,
  ): Promise<HttpResult | StreamResult> => {
    const started = Date.now()
    const ms = () => Date.now() - started
    let socket: Duplex | undefined
    if (opts.connect) {
      const opened = await opts.connect()
      if (!opened.ok) return broke(`cannot open the tunnel: ${opened.problem.message}`, ms())
      socket = asSocket(opened.value)
    }
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body))
    return new Promise((resolve) => {
      let settled = false
      const done = (r: HttpResult | StreamResult) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        resolve(r)
      }
      const req = lib.request(
        {
          protocol: base.protocol,
          hostname: base.hostname,
          port: base.port || (base.protocol === 'https:' ? 443 : 80),
          method,
          path: `${prefix}${path}`,
          headers: {
            accept: onData ? 'text/event-stream' : 'application/json',
            connection: 'close',
            ...(payload && { 'content-type': 'application/json', 'content-length': String(payload.length) }),
            ...(opts.apiKey && { authorization: `Bearer ${opts.apiKey}` }),
          },
          // With an agent, node:http ignores createConnection: only agent-less requests use the tunnel.
          ...(socket ? { createConnection: () => socket as never } : { agent: false }),
        },
        (res) => {
          const status = res.statusCode ?? 0
          const streaming = onData !== undefined && status >= 200 && status < 300
          const chunks: Buffer[] = []
          const limit = streaming ? (opts.maxStreamBytes ?? MAX_STREAM_BYTES) : (opts.maxBodyBytes ?? MAX_BODY_BYTES)
          let bytes = 0
          res.on('data', (c: Buffer) => {
            if (settled) return
            bytes += c.length
            if (bytes > limit) {
              done(broke(`the ${streaming ? 'streamed answer' : 'response body'} passed ${limit} bytes; cut there and the connection closed`, ms(), { status }))
              req.destroy()
              return
            }
            if (streaming) onData!(c, Date.now())
            else chunks.push(c)
          })
          res.on('aborted', () => done(broke('the server closed the connection before the response ended', ms(), { status })))
          res.on('error', (err) => done(broke(`the response broke off: ${why(err)}`, ms(), { status })))
          res.on('end', () => {
            if (!res.complete) return done(broke('the server closed the connection before the response ended', ms(), { status }))
            const text = Buffer.concat(chunks).toString('utf8')
            if (streaming) done(ok({ status, complete: true as const, ms: ms() }))
            else done(ok({ status, contentType: String(res.headers['content-type'] ?? ''), body: text, ms: ms() }))
          })
        },
      )
      const timer = setTimeout(() => {
        done(broke(`no complete answer within ${Math.round(opts.timeoutMs / 1000)} s (smoke.requestTimeoutSeconds)`, ms()))
        req.destroy()
      }, opts.timeoutMs)
      req.on('error', (err) => done(broke(why(err), ms())))
      if (payload) req.end(payload)
      else req.end()
    })
  }

  return {
    target: opts.target,
    request: (method, path, body) => send(method, path, body) as Promise<HttpResult>,
    stream: async (path, body, onData) => {
      const r = await send('POST', path, body, onData)
      if (r.ok && 'contentType' in r.value) return broke(`HTTP ${r.value.status}`, r.value.ms, { status: r.value.status, body: r.value.body })
      return r as StreamResult
    },
  }
}
