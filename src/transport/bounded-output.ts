import { StringDecoder } from 'node:string_decoder'

/**
 * Bytes from a node are bounded where they enter: every command's stdout and stderr pass through
 * one of these. It keeps at most `limit` bytes (decoded as UTF-8 across chunk borders) and counts
 * the rest; once over, `over` is true and the caller stops the command, so a `holder.json` linked
 * to `/dev/zero` costs `limit` bytes of memory, never gigabytes.
 */
export const DEFAULT_OUTPUT_LIMIT_BYTES = 8 * 1024 * 1024

export class BoundedOutput {
  private readonly decoder = new StringDecoder('utf8')
  private kept = ''
  private keptBytes = 0
  private seen = 0

  constructor(
    readonly name: 'stdout' | 'stderr',
    readonly limit: number = DEFAULT_OUTPUT_LIMIT_BYTES,
  ) {}

  /** Take one chunk; returns the part that was kept (for live callbacks), '' once over the limit. */
  push(chunk: Buffer | string): string {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk
    this.seen += buf.length
    const room = this.limit - this.keptBytes
    if (room <= 0) return ''
    const part = buf.length <= room ? buf : buf.subarray(0, room)
    this.keptBytes += part.length
    const text = this.decoder.write(part)
    this.kept += text
    return text
  }

  /** More bytes arrived than the limit allows. */
  get over(): boolean {
    return this.seen > this.limit
  }

  get bytesSeen(): number {
    return this.seen
  }

  /** The kept text; when cut, it ends with a line that says so. */
  text(): string {
    const rest = this.decoder.end()
    this.kept += rest
    return this.over ? `${this.kept}${this.kept.endsWith('\n') ? '' : '\n'}${cutNote(this)}\n` : this.kept
  }
}

/** What a cut says: how much came, what was kept, and that the command was stopped. */
export function cutNote(o: { readonly name: string; readonly limit: number; readonly bytesSeen: number }): string {
  return `[${o.name} cut: more than ${o.limit} bytes (${o.bytesSeen} read); the command was stopped]`
}
