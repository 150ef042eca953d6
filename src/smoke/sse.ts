/**
 * Server-sent events, as the HTML standard defines the stream: lines end in CRLF, LF or CR; a
 * blank line ends an event; `data:` lines are joined with newlines; `:` lines are comments.
 * Bytes arrive in arbitrary TCP chunks, so a line, a CRLF pair or a UTF-8 character may be split
 * across two pushes: the parser keeps what it has not finished. Pure.
 */

export interface SseEvent {
  /** `event:` field, `message` when absent. */
  readonly event: string
  readonly data: string
  readonly id?: string
}

export interface SseParser {
  /** Feed the next chunk; returns the events it completed. */
  push(chunk: string | Uint8Array): SseEvent[]
  /** The stream ended: an event without its closing blank line is discarded, as the standard says. */
  end(): { readonly events: SseEvent[]; readonly unterminated: string }
}

export function createSseParser(): SseParser {
  const decoder = new TextDecoder('utf-8')
  let buffer = ''
  /** The last chunk ended in CR: an LF at the start of the next one belongs to it. */
  let pendingCr = false
  let data: string[] = []
  let event = ''
  let id: string | undefined
  let sawField = false

  const line = (text: string, out: SseEvent[]) => {
    if (text === '') {
      if (sawField && data.length > 0) out.push({ event: event || 'message', data: data.join('\n'), ...(id !== undefined && { id }) })
      data = []
      event = ''
      sawField = false
      return
    }
    if (text.startsWith(':')) return
    const colon = text.indexOf(':')
    const field = colon < 0 ? text : text.slice(0, colon)
    let value = colon < 0 ? '' : text.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    sawField = true
    if (field === 'data') data.push(value)
    else if (field === 'event') event = value
    else if (field === 'id' && !value.includes('\0')) id = value
  }

  const consume = (text: string): SseEvent[] => {
    const out: SseEvent[] = []
    if (pendingCr && text.startsWith('\n')) text = text.slice(1)
    pendingCr = false
    buffer += text
    let start = 0
    for (let i = 0; i < buffer.length; i++) {
      const c = buffer[i]
      if (c !== '\n' && c !== '\r') continue
      line(buffer.slice(start, i), out)
      if (c === '\r') {
        if (i + 1 === buffer.length) pendingCr = true
        else if (buffer[i + 1] === '\n') i++
      }
      start = i + 1
    }
    buffer = buffer.slice(start)
    return out
  }

  return {
    push: (chunk) => consume(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true })),
    end: () => {
      const events = consume(decoder.decode())
      const unterminated = [...data.map((d) => `data: ${d}`), buffer].filter((s) => s !== '').join('\n')
      return { events, unterminated }
    },
  }
}
