/**
 * The OpenAI-compatible bodies vLLM sends, read defensively: every body comes from outside, so a
 * wrong shape is a value (a `Parsed<T>` whose Problem says what is wrong), never an exception. Pure.
 *
 * vLLM's two error shapes:
 * - current (ErrorResponse with ErrorInfo, vLLM >= 0.10): `{"error": {"message", "type", "param", "code"}}`
 * - older (flat ErrorResponse, vLLM <= 0.9): `{"object": "error", "message", "type", "param", "code"}`
 * plus what sits in front of the engine: `{"error": "Unauthorized"}` (--api-key) and FastAPI's
 * `{"detail": "Not Found"}`.
 */

import { fail, ok, type Parsed, problem } from '../result/result.js'

/** A body of the wrong shape: its message says what is wrong (the smoke test puts it in its finding). */
const bad = (message: string) => fail(problem('SMOKE_BAD_RESPONSE', message))
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const preview = (text: string): string => (text.length > 120 ? `${text.slice(0, 120)}…` : text)

export function parseJson(text: string): Parsed<unknown> {
  try {
    return ok(JSON.parse(text))
  } catch (err) {
    return bad(`not JSON (${(err as Error).message}): ${JSON.stringify(preview(text))}`)
  }
}

export interface ApiError {
  readonly message: string
  readonly type?: string
  readonly param?: string
  readonly code?: number | string
  /** Which of the shapes above it came in. */
  readonly shape: 'nested' | 'flat' | 'plain' | 'detail' | 'none'
}

/** The error an HTTP error response carries, in whichever shape; `shape: 'none'` when it has none. */
export function parseErrorBody(text: string): ApiError {
  const j = parseJson(text)
  if (j.ok && isObject(j.value)) {
    const b = j.value
    const str = (v: unknown) => (typeof v === 'string' ? v : undefined)
    const code = (v: unknown) => (typeof v === 'number' || typeof v === 'string' ? v : undefined)
    const extra = (o: Record<string, unknown>) => {
      const type = str(o.type)
      const param = str(o.param)
      const c = code(o.code)
      return { ...(type && { type }), ...(param && { param }), ...(c !== undefined && { code: c }) }
    }
    if (isObject(b.error) && typeof b.error.message === 'string') return { message: b.error.message, ...extra(b.error), shape: 'nested' }
    if (typeof b.error === 'string') return { message: b.error, shape: 'plain' }
    if (typeof b.message === 'string' && (b.object === 'error' || 'type' in b)) return { message: b.message, ...extra(b), shape: 'flat' }
    if (b.detail !== undefined) return { message: typeof b.detail === 'string' ? b.detail : JSON.stringify(b.detail), shape: 'detail' }
  }
  return { message: text.trim() === '' ? '(empty body)' : preview(text.trim()), shape: 'none' }
}

export function describeApiError(status: number, e: ApiError): string {
  const kind = [e.type, e.param && `param ${e.param}`].filter(Boolean).join(', ')
  return `HTTP ${status}${kind ? ` (${kind})` : ''}: ${e.message}`
}

export interface Usage {
  readonly promptTokens: number
  readonly completionTokens: number
  readonly totalTokens: number
}

export interface Answer {
  readonly model: string
  readonly text: string
  readonly finishReason: string | null
  readonly usage?: Usage
}

function parseUsage(u: unknown): Parsed<Usage | undefined> {
  if (u === undefined || u === null) return ok(undefined)
  if (!isObject(u)) return bad('"usage" is not an object')
  const n = (k: string) => (typeof u[k] === 'number' && Number.isInteger(u[k]) && (u[k] as number) >= 0 ? (u[k] as number) : undefined)
  const p = n('prompt_tokens')
  const c = n('completion_tokens')
  const t = n('total_tokens')
  if (p === undefined || c === undefined || t === undefined)
    return bad(`"usage" lacks whole-number prompt_tokens/completion_tokens/total_tokens: ${JSON.stringify(u)}`)
  return ok({ promptTokens: p, completionTokens: c, totalTokens: t })
}

/** The model list of `GET /v1/models`: the ids. */
export function parseModels(text: string): Parsed<string[]> {
  const j = parseJson(text)
  if (!j.ok) return j
  if (!isObject(j.value) || !Array.isArray(j.value.data)) return bad('expected {"object": "list", "data": [...]}')
  const ids = j.value.data.map((m) => (isObject(m) && typeof m.id === 'string' ? m.id : undefined))
  if (ids.some((id) => id === undefined)) return bad('a model entry has no string "id"')
  return ok(ids as string[])
}

/** `GET /version`: `{"version": "0.17.0"}`. */
export function parseVersion(text: string): Parsed<string> {
  const j = parseJson(text)
  if (!j.ok) return j
  return isObject(j.value) && typeof j.value.version === 'string' ? ok(j.value.version) : bad('expected {"version": "..."}')
}

/** A non-streamed `/v1/completions` or `/v1/chat/completions` response: its first choice. */
export function parseAnswer(text: string, chat: boolean): Parsed<Answer> {
  const j = parseJson(text)
  if (!j.ok) return j
  const b = j.value
  if (!isObject(b)) return bad('the body is not a JSON object')
  if (!Array.isArray(b.choices) || b.choices.length === 0) return bad(`no "choices" in ${JSON.stringify(preview(text))}`)
  const c = b.choices[0]
  if (!isObject(c)) return bad('choices[0] is not an object')
  let answer: string | undefined
  if (chat) {
    const msg = c.message
    if (isObject(msg)) answer = typeof msg.content === 'string' ? msg.content : msg.content === null ? '' : undefined
    if (answer === undefined) return bad('choices[0].message.content is missing (expected a chat completion)')
  } else {
    if (typeof c.text !== 'string') return bad('choices[0].text is missing (expected a text completion)')
    answer = c.text
  }
  const usage = parseUsage(b.usage)
  if (!usage.ok) return usage
  const finishReason = typeof c.finish_reason === 'string' ? c.finish_reason : null
  return ok({ model: typeof b.model === 'string' ? b.model : '', text: answer, finishReason, ...(usage.value && { usage: usage.value }) })
}

/** One SSE `data:` payload of a streamed response. */
export type StreamChunk =
  | { readonly kind: 'done' }
  | { readonly kind: 'delta'; readonly text: string; readonly finishReason: string | null; readonly usage?: Usage }
  | { readonly kind: 'error'; readonly error: ApiError }

export function parseStreamChunk(data: string, chat: boolean): Parsed<StreamChunk> {
  if (data.trim() === '[DONE]') return ok({ kind: 'done' })
  const j = parseJson(data)
  if (!j.ok) return j
  const b = j.value
  if (!isObject(b)) return bad('an SSE data payload is not a JSON object')
  if (b.error !== undefined || b.object === 'error') return ok({ kind: 'error', error: parseErrorBody(data) })
  const usage = parseUsage(b.usage)
  if (!usage.ok) return usage
  if (!Array.isArray(b.choices)) return bad(`an SSE chunk has no "choices": ${JSON.stringify(preview(data))}`)
  const c = b.choices[0]
  let text = ''
  let finishReason: string | null = null
  if (isObject(c)) {
    if (chat) {
      if (isObject(c.delta) && typeof c.delta.content === 'string') text = c.delta.content
    } else if (typeof c.text === 'string') text = c.text
    if (typeof c.finish_reason === 'string') finishReason = c.finish_reason
  }
  return ok({ kind: 'delta', text, finishReason, ...(usage.value && { usage: usage.value }) })
}
