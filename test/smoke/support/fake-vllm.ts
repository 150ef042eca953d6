/**
 * A misbehaving vLLM, owned by the tests: real HTTP on 127.0.0.1, answering in the shapes captured
 * from the lab's stand-in (test/smoke/fixtures), with one knob per failure the smoke test must
 * name. It also plays the head node for the start-up watcher: a `docker` shim on PATH answers the
 * watcher's `docker top` (is "vllm serve" alive) and `docker exec ... tail -c +N <log>` (the log
 * this server writes), so the watcher's real poll script runs unchanged.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync, appendFileSync } from 'node:fs'
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http'
import { createServer as netServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Cmd } from '../../../src/command/shell.js'
import { LocalTransport } from '../../../src/transport/local.js'
import type { RunOptions, Transport } from '../../../src/transport/transport.js'

export interface FakeBehaviour {
  /** Health: 200 after this many ms from start (before: the port refuses connections). */
  readyAfterMs?: number
  /** /health answers 503 forever. */
  health503?: boolean
  /** /v1/models lists this instead of the served name. */
  listedModel?: string
  /** Completion bodies are cut JSON. */
  malformedJson?: boolean
  /** Completions return empty text. */
  emptyText?: boolean
  /** The stream sends two events, then the connection is destroyed. */
  dropMidStream?: boolean
  /** The stream's bytes go out in small pieces with CRLF line endings, split inside events and CRLF pairs. */
  splitStream?: boolean
  /** Require this API key (401 {"error": "Unauthorized"} otherwise). */
  apiKey?: string
  /** Log lines written when the server starts. */
  logLines?: string[]
  /**
   * No `vllm serve` in the container: it ran and `exited` (its log is there), it `never-started`
   * (the container runs, no log), or there is `no-container` at all.
   */
  serve?: 'exited' | 'never-started' | 'no-container'
}

export interface FakeVllm {
  readonly port: number
  readonly url: string
  /** A transport that runs commands on this machine with the docker shim first on PATH. */
  readonly head: Transport
  /** The environment the docker shim needs (for an sshd session: SetEnv). */
  readonly shimEnv: Readonly<Record<string, string>>
  /** Authorization headers seen on /v1 requests. */
  readonly authSeen: string[]
  log(line: string): void
  stop(): Promise<void>
}

const SHIM = `#!/bin/sh
# docker, as the start-up watcher uses it, for a fake head node (see fake-vllm.ts)
case "$1" in
  top) [ -f "$FAKE_VLLM_DIR/container" ] || exit 1; [ -f "$FAKE_VLLM_DIR/alive" ] && printf 'PID ARGS\\n4242 vllm serve fake\\n'; exit 0 ;;
  inspect) [ -f "$FAKE_VLLM_DIR/container" ] && echo true && exit 0; echo "Error: No such object" >&2; exit 1 ;;
  exec) [ -f "$FAKE_VLLM_DIR/container" ] || exit 1; shift 2
    [ "$1" = tail ] && exec tail "$2" "$3" "$FAKE_VLLM_DIR/log"
    [ "$1" = test ] && exec test "$2" "$FAKE_VLLM_DIR/log"; exit 1 ;;
esac
exit 1
`

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = netServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
  })
}

const MODEL = 'tiny-random'
const WORDS = [' present', ' by', ' people', ' year', ' must', ' help', ' around', ' human']
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export async function startFakeVllm(b: FakeBehaviour = {}): Promise<FakeVllm> {
  const dir = mkdtempSync(join(tmpdir(), 'vrd-fake-vllm-'))
  writeFileSync(join(dir, 'docker'), SHIM)
  chmodSync(join(dir, 'docker'), 0o755)
  if (b.serve !== 'never-started' && b.serve !== 'no-container')
    writeFileSync(
      join(dir, 'log'),
      (b.logLines ?? ['(APIServer pid=4242) INFO 12-03 10:00:00 [api_server.py:1] vLLM API server version 0.17.0']).map((l) => `${l}\n`).join(''),
    )
  if (b.serve !== 'no-container') writeFileSync(join(dir, 'container'), '')
  if (b.serve === undefined) writeFileSync(join(dir, 'alive'), '')
  const port = await freePort()
  const counters = { requests: 0, generation: 0, prompt: 0 }
  const authSeen: string[] = []
  const started = Date.now()

  const json = (res: ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body)
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
    res.end(text)
  }
  const readBody = async (req: IncomingMessage) => {
    const parts: Buffer[] = []
    for await (const c of req) parts.push(c as Buffer)
    return JSON.parse(Buffer.concat(parts).toString() || '{}') as Record<string, unknown>
  }

  const server = createServer(async (req, res) => {
    const path = (req.url ?? '').split('?')[0]
    if (path === '/health') {
      res.writeHead(b.health503 || b.serve !== undefined ? 503 : 200, { 'content-length': 0 }).end()
      return
    }
    if (path!.startsWith('/v1')) {
      authSeen.push(req.headers.authorization ?? '')
      if (b.apiKey && req.headers.authorization !== `Bearer ${b.apiKey}`) return json(res, 401, { error: 'Unauthorized' })
    }
    if (path === '/version') return json(res, 200, { version: '0.17.0+fake' })
    if (path === '/metrics') {
      const l = `{model_name="${MODEL}",engine="0"}`
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' })
      res.end(
        `# TYPE vllm:request_success_total counter\nvllm:request_success_total{model_name="${MODEL}",engine="0",finished_reason="length"} ${counters.requests}.0\nvllm:generation_tokens_total${l} ${counters.generation}.0\nvllm:prompt_tokens_total${l} ${counters.prompt}.0\n`,
      )
      return
    }
    if (path === '/v1/models')
      return json(res, 200, { object: 'list', data: [{ id: b.listedModel ?? MODEL, object: 'model', owned_by: 'vllm', root: 'vrd-lab/tiny-random' }] })
    if (path !== '/v1/completions' && path !== '/v1/chat/completions') return json(res, 404, { detail: 'Not Found' })
    const body = await readBody(req)
    if (body.model !== MODEL)
      return json(res, 404, { error: { message: `The model \`${String(body.model)}\` does not exist.`, type: 'NotFoundError', param: 'model', code: 404 } })
    const chat = path === '/v1/chat/completions'
    const n = Math.min(Number(body.max_tokens ?? 16), WORDS.length)
    const words = b.emptyText ? [] : WORDS.slice(0, n)
    const completionTokens = b.emptyText ? 1 : n
    const finish = b.emptyText || n < Number(body.max_tokens ?? 16) ? 'stop' : 'length'
    const usage = { prompt_tokens: 2, completion_tokens: completionTokens, total_tokens: 2 + completionTokens }
    const count = () => {
      counters.requests++
      counters.generation += completionTokens
      counters.prompt += 2
    }
    if (!body.stream) {
      if (b.malformedJson) {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end('{"id":"cmpl-1","object":"text_completion","choices":[{"index":0,"text":" pres')
        return
      }
      count()
      const choice = chat
        ? { index: 0, message: { role: 'assistant', content: words.join('').trimStart() }, finish_reason: finish }
        : { index: 0, text: words.join(''), finish_reason: finish }
      return json(res, 200, { id: 'cmpl-1', object: chat ? 'chat.completion' : 'text_completion', model: MODEL, choices: [choice], usage })
    }
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' })
    res.flushHeaders()
    res.socket?.setNoDelay(true)
    const chunk = (c: object) => ({ id: 'cmpl-1', object: chat ? 'chat.completion.chunk' : 'text_completion', model: MODEL, ...c })
    const delta = (t: string, f: string | null) =>
      chunk({ choices: [chat ? { index: 0, delta: { content: t }, finish_reason: f } : { index: 0, text: t, finish_reason: f }] })
    const events = [...words.map((w) => delta(w, null)), delta('', finish), chunk({ choices: [], usage })].map((e) => `data: ${JSON.stringify(e)}\n\n`)
    events.push('data: [DONE]\n\n')
    for (const [i, e] of events.entries()) {
      if (b.dropMidStream && i === 2) {
        res.socket?.destroy()
        return
      }
      if (b.splitStream) {
        const crlf = e.replace(/\n/g, '\r\n')
        // Cut inside the JSON and between the CR and LF of the closing pair.
        for (const piece of [crlf.slice(0, 9), crlf.slice(9, crlf.length - 3), crlf.slice(crlf.length - 3, crlf.length - 1), crlf.slice(crlf.length - 1)]) {
          res.write(piece)
          await sleep(3)
        }
      } else {
        res.write(e)
        await sleep(2)
      }
    }
    count()
    res.end()
  })

  const listen = () => new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()))
  let listening: Promise<void>
  if (b.readyAfterMs) listening = sleep(b.readyAfterMs).then(listen)
  else listening = listen()
  await (b.readyAfterMs ? Promise.resolve() : listening)

  const local = new LocalTransport()
  const env = { FAKE_VLLM_DIR: dir, PATH: `${dir}:${process.env.PATH ?? ''}` }
  const head: Transport = {
    label: 'fake-head (this machine)',
    run: (cmd: Cmd, opts: RunOptions) => local.run(cmd.kind === 'argv' ? { ...cmd, env: { ...cmd.env, ...env } } : cmd, opts),
    close: async () => {},
  }
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    head,
    shimEnv: env,
    authSeen,
    log: (line) => appendFileSync(join(dir, 'log'), `${line}\n`),
    stop: async () => {
      await listening
      server.closeAllConnections()
      await new Promise((r) => server.close(r))
      rmSync(dir, { recursive: true, force: true })
      void started
    },
  }
}
