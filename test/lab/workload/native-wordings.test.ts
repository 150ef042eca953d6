/**
 * The stand-in's native multi-node failures, read by the log scanner: what the lab's vLLM prints
 * when a rendezvous never completes must be what diagnose and the start-up watcher recognise
 * (the wordings themselves come from torch/vLLM; see src/preflight/WORDINGS.md).
 */
import { spawnSync } from 'node:child_process'
import { createServer } from 'node:net'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { scanLog } from '../../../src/preflight/signatures.js'

const here = dirname(fileURLToPath(import.meta.url))
const standin = join(here, '..', '..', '..', 'src', 'lab', 'workload', 'vllm_standin')
const python = process.env.VLLM_STANDIN_PYTHON ?? 'python3'

async function freePort(): Promise<number> {
  return await new Promise((resolve) => {
    const srv = createServer()
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address()
      srv.close(() => resolve(typeof addr === 'object' && addr ? addr.port : 0))
    })
  })
}

function serve(args: string[]): string {
  const res = spawnSync(python, ['-m', 'vllm.entrypoints.cli.main', 'serve', '/models/toy', ...args], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { PATH: process.env.PATH ?? '', PYTHONPATH: standin, PYTHONUNBUFFERED: '1', VLLM_STANDIN_LOAD_DELAY_S: '0' },
  })
  if (res.error) throw res.error
  return `${res.stdout}${res.stderr}`
}

describe('stand-in native mode → log signatures', () => {
  it('a headless node whose master never answers: RENDEZVOUS_UNREACHABLE with the master address and port', async () => {
    const port = await freePort()
    const out = serve([
      '-tp',
      '2',
      '--nnodes',
      '2',
      '--node-rank',
      '1',
      '--headless',
      '--master-addr',
      '127.0.0.1',
      '--master-port',
      String(port),
      '--distributed-timeout-seconds',
      '1',
    ])
    const found = scanLog(out, 'standin').filter((f) => f.code === 'RENDEZVOUS_UNREACHABLE')
    expect(found.map((f) => [f.severity, f.evidence['Master address'], f.evidence['Master port']])).toEqual([['error', '127.0.0.1', String(port)]])
    expect(scanLog(out, 'standin').map((f) => f.code)).toContain('MASTER_ADDR_LOOPBACK')
  })
  it('a head whose other node never comes: RENDEZVOUS_RANKS_MISSING, 1 of 2', async () => {
    const out = serve([
      '-tp',
      '2',
      '--nnodes',
      '2',
      '--node-rank',
      '0',
      '--master-port',
      String(await freePort()),
      '--port',
      String(await freePort()),
      '--distributed-timeout-seconds',
      '1',
    ])
    const found = scanLog(out, 'standin').filter((f) => f.code === 'RENDEZVOUS_RANKS_MISSING')
    expect(found.map((f) => [f.evidence['Ranks joined'], f.evidence['World size the store waited for']])).toEqual([['1', '2']])
  })
})
