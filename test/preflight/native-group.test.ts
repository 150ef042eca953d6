/** The native process group as the nodes show it: the socket reader on real sockets, the judgement on polls. */
import { execFile, spawn } from 'node:child_process'
import { once } from 'node:events'
import { type AddressInfo, createConnection, createServer } from 'node:net'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { type NodePoll, SOCKETS_PY, judgeGroup, parseNodePoll } from '../../src/preflight/native-group.js'

const run = promisify(execFile)

describe('the master-port socket reader (/proc/net/tcp), on real sockets of this machine', () => {
  it("sees another program's listener and connections on the port, and does not take them for vLLM's store; the client side is seen", async () => {
    const server = createServer()
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    const port = (server.address() as AddressInfo).port
    // This listener is the test runner's, not vLLM's: seen, but not taken for the store.
    const before = parseNodePoll((await run('python3', ['-c', SOCKETS_PY, String(port)])).stdout)
    expect(before).toMatchObject({ listening: false, foreignListener: true, peers: [], clients: [] })
    const accepted = once(server, 'connection')
    const client = createConnection(port, '127.0.0.1')
    await once(client, 'connect')
    await accepted
    const after = parseNodePoll((await run('python3', ['-c', SOCKETS_PY, String(port)])).stdout)
    // The accepted connection is the test runner's too: not counted as a member of vLLM's store.
    expect(after.peers).toEqual([])
    expect(after.foreignListener).toBe(true)
    expect(after.clients).toEqual([{ to: '127.0.0.1', from: '127.0.0.1' }])
    client.destroy()
    server.close()
  })

  it("takes a listener for vLLM's store when its process's command line names vLLM", async () => {
    const py = 'import socket, sys, time\ns = socket.create_server(("127.0.0.1", 0))\nprint(s.getsockname()[1], flush=True)\ntime.sleep(60)'
    const child = spawn('python3', ['-c', py, 'vllm', 'serve', '--nnodes', '2'], { stdio: ['ignore', 'pipe', 'inherit'] })
    try {
      const [line] = (await once(child.stdout!, 'data')) as [Buffer]
      const port = line.toString().trim()
      const seen = parseNodePoll((await run('python3', ['-c', SOCKETS_PY, port])).stdout)
      expect(seen).toMatchObject({ listening: true, foreignListener: false })
    } finally {
      child.kill()
    }
  })
})

/** A free TCP port on 127.0.0.1. */
async function freePort(): Promise<number> {
  const s = createServer().listen(0, '127.0.0.1')
  await once(s, 'listening')
  const port = (s.address() as AddressInfo).port
  s.close()
  await once(s, 'close')
  return port
}

const STANDIN = fileURLToPath(new URL('../../src/lab/workload/vllm_standin', import.meta.url))

describe("the lab's vLLM stand-in in native mode, read as the watcher and the smoke proof read a node", () => {
  it('the head holds the headless node in its store; when that node dies, it is no longer in the group', async () => {
    const [store, api] = [await freePort(), await freePort()]
    const env = { ...process.env, PYTHONPATH: STANDIN, VLLM_STANDIN_LOAD_DELAY_S: '0' }
    const serve = (...extra: string[]) =>
      spawn(
        'python3',
        [
          '-m',
          'vllm.entrypoints.cli.main',
          'serve',
          '/models/toy',
          '--tensor-parallel-size',
          '2',
          '--distributed-executor-backend',
          'mp',
          '--nnodes',
          '2',
          '--master-addr',
          '127.0.0.1',
          '--master-port',
          String(store),
          '--port',
          String(api),
          ...extra,
        ],
        { env, stdio: 'ignore' },
      )
    const worker = serve('--node-rank', '1', '--headless')
    const head = serve('--node-rank', '0', '--host', '127.0.0.1')
    const read = async () => parseNodePoll(`@@serving\n${(await run('python3', ['-c', SOCKETS_PY, String(store)])).stdout}`)
    const group = async () => {
      const p = await read()
      return judgeGroup([
        { name: 'head', rank: 0, fabricIp: '127.0.0.2', poll: p },
        { name: 'worker', rank: 1, fabricIp: '127.0.0.1', poll: { ...p, listening: false } },
      ])
    }
    try {
      // Wait for the event: the head answers /health once every rank joined.
      for (;;) {
        const ok = await fetch(`http://127.0.0.1:${api}/health`).then(
          (r) => r.ok,
          () => false,
        )
        if (ok) break
        await new Promise((r) => setTimeout(r, 200))
      }
      const formed = await group()
      expect(formed).toMatchObject({ storeUp: true, formed: true })
      const exited = once(worker, 'exit')
      worker.kill('SIGKILL')
      await exited
      // The kernel closes a dead process's sockets at its exit.
      const after = await group()
      expect(after.formed).toBe(false)
      expect(after.members[1]).toMatchObject({ joined: false })
    } finally {
      worker.kill('SIGKILL')
      head.kill('SIGKILL')
    }
  })
})

const poll = (p: Partial<NodePoll>): NodePoll => ({
  serving: true,
  container: 'running',
  listening: false,
  foreignListener: false,
  peers: [],
  clients: [],
  log: '',
  ...p,
})
const HEAD = { name: 'spark-a', rank: 0, fabricIp: '192.168.200.12' }
const W1 = { name: 'spark-b', rank: 1, fabricIp: '192.168.200.13' }
const W2 = { name: 'spark-c', rank: 2, fabricIp: '192.168.200.14' }

describe('judging the group from every node', () => {
  it('formed when the head serves the store and every other node is connected to it from its fabric IP', () => {
    const g = judgeGroup([
      { ...HEAD, poll: poll({ listening: true, peers: ['192.168.200.13', '192.168.200.14'] }) },
      { ...W1, poll: poll({ clients: [{ to: HEAD.fabricIp, from: W1.fabricIp }] }) },
      { ...W2, poll: poll({ clients: [{ to: HEAD.fabricIp, from: W2.fabricIp }] }) },
    ])
    expect(g).toMatchObject({ storeUp: true, formed: true, strangers: [] })
  })

  it('a node connected from its management address is not in the group through the fabric, and says where it is connected', () => {
    const g = judgeGroup([
      { ...HEAD, poll: poll({ listening: true, peers: ['10.1.230.181'] }) },
      { ...W1, poll: poll({ clients: [{ to: '10.1.230.180', from: '10.1.230.181' }] }) },
    ])
    expect(g.formed).toBe(false)
    expect(g.strangers).toEqual(['10.1.230.181'])
    expect(g.members[1]).toMatchObject({ joined: false, elsewhere: ['10.1.230.181 -> 10.1.230.180'] })
  })

  it('a node whose vllm serve is gone, or whose head has no store, is not joined', () => {
    const g = judgeGroup([
      { ...HEAD, poll: poll({ listening: false }) },
      { ...W1, poll: poll({ serving: false, container: 'stopped' }) },
    ])
    expect(g.storeUp).toBe(false)
    expect(g.members.map((x) => [x.joined, x.serving, x.container])).toEqual([
      [false, true, 'running'],
      [false, false, 'stopped'],
    ])
  })

  it('reads flags and the log apart, and a failed exec as nothing seen', () => {
    const p = parseNodePoll('@@serving\n@@listen vllm\n@@peer 192.168.200.13\n@@log\nINFO x\n@@peer 1.2.3.4\n')
    expect(p).toMatchObject({ serving: true, listening: true, peers: ['192.168.200.13'], log: 'INFO x\n@@peer 1.2.3.4\n' })
    expect(parseNodePoll('')).toMatchObject({ serving: false, listening: false, peers: [], log: '' })
  })
})
