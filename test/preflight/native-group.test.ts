/** The native process group as the nodes show it: the socket reader on real sockets, the judgement on polls. */
import { execFile, spawn } from 'node:child_process'
import { once } from 'node:events'
import { type AddressInfo, createConnection, createServer } from 'node:net'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { type NodePoll, SOCKETS_PY, judgeGroup, parseNodePoll } from '../../src/preflight/native-group.js'

const run = promisify(execFile)

describe('the master-port socket reader (/proc/net/tcp), on real sockets of this machine', () => {
  it('sees the listener, each accepted connection from its address, and the client side', async () => {
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
    expect(after.peers).toEqual(['127.0.0.1'])
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
