/**
 * The native-mode checks against the lab's vLLM stand-in (src/lab/workload/vllm_standin, which
 * follows vLLM's native multi-node code paths) running as two "nodes" on this machine, each in a
 * PID namespace of its own: the probe's in-container program is run inside each namespace, as
 * `docker exec` runs it in a node's container, and the checks name the mistake while the stand-in
 * still waits in its rendezvous (its timeout is set far beyond the test's).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { networkInterfaces, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { Expectation } from '../../../src/manifest/expectation.js'
import { type ContainerFacts, ContainerFactsSchema, type FactsBundle } from '../../../src/preflight/facts.js'
import { CONTAINER_PY, ENV_OF_INTEREST } from '../../../src/probe/node-probe.js'
import { expectation, healthyFacts, withNode } from '../fixtures/facts.js'
import { codes } from './helpers.js'

const ownIp = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal)?.address
const STANDIN = resolve(__dirname, '../../../src/lab/workload/vllm_standin')
const canUnshare = (() => {
  try {
    execFileSync('unshare', ['--pid', '--fork', '--mount-proc', 'true'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
})()

const dir = mkdtempSync(join(tmpdir(), 'vrd-standin-'))
const vllm = join(dir, 'vllm')
writeFileSync(
  vllm,
  `#!/usr/bin/env python3\nimport sys\nsys.path.insert(0, ${JSON.stringify(STANDIN)})\nfrom vllm.entrypoints.cli.main import main\nsys.exit(main())\n`,
)
chmodSync(vllm, 0o755)

const running: ChildProcess[] = []
afterEach(() => {
  for (const p of running.splice(0)) if (p.exitCode === null && p.pid) p.kill('SIGKILL')
})

/** `vllm serve ARGS` of the stand-in in its own PID namespace; resolves once its log shows `line`. */
function startNode(args: readonly string[], line: RegExp): Promise<{ nsPid: number }> {
  const p = spawn('unshare', ['--pid', '--fork', '--kill-child', '--mount-proc', vllm, 'serve', ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  running.push(p)
  return new Promise((res, rej) => {
    let log = ''
    let settled = false
    const seen = (chunk: Buffer) => {
      // Output keeps coming after the line was seen (and while afterEach kills the node): only the
      // first match counts, read while the process is surely there.
      if (settled) return
      log += chunk.toString()
      if (!line.test(log)) return
      settled = true
      try {
        // The namespace's first process (its PID 1) is unshare's one child.
        const child = Number(readFileSync(`/proc/${p.pid}/task/${p.pid}/children`, 'utf8').trim().split(/\s+/)[0])
        res({ nsPid: child })
      } catch (err) {
        rej(new Error(`the stand-in's namespace is gone right after ${line}: ${String(err)}: ${log.slice(-800)}`))
      }
    }
    p.stdout!.on('data', seen)
    p.stderr!.on('data', seen)
    p.on('exit', (code) => {
      if (settled) return
      settled = true
      rej(new Error(`the stand-in exited (${code}) before ${line}: ${log.slice(-800)}`))
    })
  })
}

/** The probe's container program, run inside the node's namespaces as `docker exec` runs it in a container. */
function probe(nsPid: number): ContainerFacts {
  const program = `ENV_NAMES = ${JSON.stringify(ENV_OF_INTEREST)}\n${CONTAINER_PY}`
  const out = execFileSync('nsenter', ['-t', String(nsPid), '-p', '-m', 'python3', '-c', program], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
  return ContainerFactsSchema.parse({ name: 'vllm-ray', running: true, env: {}, ...JSON.parse(out.trim().split('\n').pop()!) })
}

const { ray: _ray, ...withoutRay } = healthyFacts
const pair = (a: ContainerFacts, b: ContainerFacts): FactsBundle =>
  withNode(
    withNode(withoutRay, 'spark-a', (n) => ({ ...n, container: a })),
    'spark-b',
    (n) => ({ ...n, container: b }),
  )
const NATIVE = /^(MASTER_|RENDEZVOUS_|NATIVE_)/

describe.skipIf(!ownIp || !canUnshare)("the stand-in's native mode, probed while it waits in its rendezvous", () => {
  const port = 29_000 + (process.pid % 900)
  const common2 = ['toy', '-tp', '2', '--nnodes', '2', '--master-port', String(port + 10), '--distributed-timeout-seconds', '600']
  const e: Expectation = { ...expectation, nodes: [{ ...expectation.nodes[0]!, fabricIp: ownIp! }, expectation.nodes[1]!] }

  it('two workers started as node rank 1 of three: NATIVE_RANK_DUPLICATE and the gap at rank 2, within seconds', async () => {
    const three = ['toy', '-tp', '3', '--nnodes', '3', '--master-port', String(port), '--distributed-timeout-seconds', '600', '--master-addr', ownIp!]
    const t0 = Date.now()
    const head = await startNode([...three, '--port', String(port + 1), '--node-rank', '0'], /Initializing a V1 LLM engine/)
    const b = await startNode([...three, '--node-rank', '1', '--headless'], /headless/)
    const c = await startNode([...three, '--node-rank', '1', '--headless'], /headless/)
    const spark = healthyFacts.nodes[1]!
    const two = pair(probe(head.nsPid), probe(b.nsPid))
    const facts: FactsBundle = { ...two, nodes: [...two.nodes, { ...spark, node: 'spark-c', container: probe(c.nsPid) }] }
    const e3: Expectation = { ...e, nodes: [...e.nodes, { ...e.nodes[1]!, name: 'spark-c', fabricIp: '192.168.200.14' }] }
    expect(codes(facts, e3).filter((x) => NATIVE.test(x))).toEqual(['NATIVE_RANK_DUPLICATE', 'NATIVE_RANK_GAP'])
    console.log(`native stand-in, duplicate rank: named ${Date.now() - t0} ms after the head started (torch's timeout: 600 s)`)
  })

  it('the master address is not the fabric IP the manifest gives the head: MASTER_ADDR_NOT_FABRIC on both nodes', async () => {
    // The manifest says the head's fabric IP is another address; the nodes meet on this machine's own.
    const other: Expectation = { ...expectation, nodes: [{ ...expectation.nodes[0]!, fabricIp: '192.168.200.12' }, expectation.nodes[1]!] }
    const head = await startNode([...common2, '--port', String(port + 3), '--node-rank', '0', '--master-addr', ownIp!], /Initializing a V1 LLM engine/)
    // Probed once the worker has joined: the store is up (a probe before it listens reads `refused`).
    const worker = await startNode([...common2, '--node-rank', '1', '--headless', '--master-addr', ownIp!], /joined the process group/)
    const facts = pair(probe(head.nsPid), probe(worker.nsPid))
    expect(codes(facts, e).filter((c) => NATIVE.test(c))).toEqual([])
    expect(codes(facts, other).filter((c) => NATIVE.test(c))).toEqual(['MASTER_ADDR_NOT_FABRIC@spark-a', 'MASTER_ADDR_NOT_FABRIC@spark-b'])
  })
})
