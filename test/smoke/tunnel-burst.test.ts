/**
 * The smoke's own tunnel carries what OpenSSH carries (issue 33): a burst of concurrent requests
 * through the built-in SSH tunnel (one direct-tcpip channel per request over one connection to a
 * real sshd) to an HTTP server on the far side, with no failure.
 *
 * What reset the audit's bursts was not the tunnel: the lab's stand-in vLLM listened with Python
 * socketserver's backlog of 5, so a burst overflowed its accept queue (100 plain loopback requests
 * to such a server: 10 reset, the slowest answered after 54 s). vLLM listens with uvicorn's 2048;
 * the stand-in and the server here now do too.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHttpClient } from '../../src/smoke/http.js'
import { pinsFromKnownHosts } from '../../src/transport/host-keys.js'
import type { SshTransport } from '../../src/transport/ssh.js'
import { sshConnected } from '../support/ssh-connected.js'
import { type LoopbackSshd, startLoopbackSshd } from '../support/sshd.js'

let sshd: LoopbackSshd
let t: SshTransport
let server: ChildProcess
let port: number

/** A ThreadingHTTPServer as the lab's stand-in vLLM runs (Python's, HTTP/1.1, a small JSON answer after a short think). */
const SERVER = String.raw`
import json, sys, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def do_POST(self):
        n = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(n)
        time.sleep(0.05)
        out = json.dumps({"echo": len(body), "text": "x" * 2000}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)
# uvicorn's default listen backlog, which vLLM's API server keeps (Python's socketserver default is 5).
ThreadingHTTPServer.request_queue_size = 2048
s = ThreadingHTTPServer(("127.0.0.1", 0), H)
s.daemon_threads = True
print(s.server_address[1], flush=True)
s.serve_forever()
`

beforeAll(async () => {
  sshd = await startLoopbackSshd()
  t = await sshConnected({
    name: 'loop',
    host: '127.0.0.1',
    port: sshd.port,
    user: 'root',
    privateKey: sshd.clientKey,
    pins: pinsFromKnownHosts(sshd.knownHosts, '127.0.0.1', sshd.port),
    connectTimeoutMs: 10_000,
  })
  server = spawn('python3', ['-c', SERVER], { stdio: ['ignore', 'pipe', 'inherit'] })
  port = await new Promise<number>((resolve) => createInterface({ input: server.stdout! }).once('line', (l) => resolve(Number(l))))
}, 60_000)
afterAll(async () => {
  server?.kill()
  await t?.close()
  await sshd?.stop()
})

describe('the built-in SSH tunnel under a burst', () => {
  it('100 concurrent requests, 5 times: every one answered', async () => {
    const client = createHttpClient({ baseUrl: `http://127.0.0.1:${port}`, target: 'loop', timeoutMs: 60_000, connect: () => t.forwardTcp('127.0.0.1', port) })
    const failures: string[] = []
    for (let run = 0; run < 5; run++) {
      const rs = await Promise.all(Array.from({ length: 100 }, (_, i) => client.request('POST', '/v1/completions', { prompt: `p${i}`, max_tokens: 8 })))
      for (const r of rs) if (!r.ok || r.value.status !== 200) failures.push(r.ok ? `HTTP ${r.value.status}` : r.problem.message)
    }
    expect(failures).toEqual([])
  }, 300_000)
})
