/**
 * Network probes from this machine to the lab's own addresses (mgmt IPs, 127.0.0.1). Nothing
 * here is ever aimed anywhere else.
 */
import { connect } from 'node:net'

/** The SSH identification line a server sends first (`SSH-2.0-OpenSSH_9.2p1 ...`), or undefined. */
export function sshBanner(host: string, port = 22, timeoutMs = 2_000): Promise<string | undefined> {
  return new Promise((resolve) => {
    let buf = ''
    const socket = connect({ host, port })
    const done = (v: string | undefined) => {
      clearTimeout(timer)
      socket.destroy()
      resolve(v)
    }
    const timer = setTimeout(() => done(undefined), timeoutMs)
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => {
      buf += chunk
      const nl = buf.indexOf('\n')
      if (nl >= 0) done(buf.startsWith('SSH-') ? buf.slice(0, nl).trim() : undefined)
    })
    socket.on('error', () => done(undefined))
    socket.on('close', () => done(undefined))
  })
}

/** HTTP status of a GET/HEAD to a loopback URL, or undefined when nothing answered. */
export async function httpStatus(
  url: string,
  init: { method?: 'GET' | 'HEAD'; headers?: Record<string, string> } = {},
  timeoutMs = 3_000,
): Promise<{ status: number; headers: Headers } | undefined> {
  // A ref'd timer, not AbortSignal.timeout (whose timer is unref'd): while the request is pending
  // the process stays alive until the deadline, whatever undici does with its socket.
  const abort = new AbortController()
  const timer = setTimeout(() => abort.abort(), timeoutMs)
  try {
    const r = await fetch(url, { method: init.method ?? 'GET', headers: init.headers ?? {}, signal: abort.signal })
    await r.arrayBuffer().catch(() => undefined)
    return { status: r.status, headers: r.headers }
  } catch {
    return undefined
  } finally {
    clearTimeout(timer)
  }
}

/** Poll `check` every `intervalMs` until it returns a value or `timeoutMs` passes. */
export async function waitFor<T>(check: () => Promise<T | undefined>, timeoutMs: number, intervalMs = 100): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const v = await check()
    if (v !== undefined) return v
    if (Date.now() > deadline) return undefined
    await new Promise((r) => setTimeout(r, intervalMs))
  }
}
