/**
 * The native multi-node identity checks (src/preflight/checks/native-identity.ts), from two sources
 * of facts: the probe's own in-container program run against real processes whose argv and
 * environment are a `vllm serve` launch's (in a PID namespace of their own, so nothing else on the
 * machine is read), and the spark-pair bundle of the README's incident with the process facts added
 * by hand. `diagnose --facts` runs them from a bundle file.
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { networkInterfaces, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Expectation } from '../../../src/manifest/expectation.js'
import { type ContainerFacts, ContainerFactsSchema, type FactsBundle, type VllmProcess } from '../../../src/preflight/facts.js'
import { nativeLaunchOf } from '../../../src/preflight/native-launch.js'
import { CONTAINER_PY, ENV_OF_INTEREST } from '../../../src/probe/node-probe.js'
import { diagnoseTask } from '../../../src/tasks/diagnose-task.js'
import { expectation, healthyFacts, withNode } from '../fixtures/facts.js'
import { check, codes } from './helpers.js'

const NATIVE = /^(MASTER_|RENDEZVOUS_|NATIVE_|VLLM_HOST_IP_OVERRIDE|SOCKET_IFNAME)/
const nativeCodes = (facts: FactsBundle, e: Expectation | null = expectation) => codes(facts, e).filter((c) => NATIVE.test(c))

describe('reading the native flags as vLLM does', () => {
  it.each([
    [
      ['vllm', 'serve', 'm', '--nnodes', '2', '--node-rank', '1', '--master-addr', '10.0.0.1', '--headless'],
      { nnodes: 2, nodeRank: 1, masterAddr: '10.0.0.1', headless: true },
    ],
    [
      ['/usr/bin/python3', '/usr/local/bin/vllm', 'serve', 'm', '--nnodes=2', '--node_rank=1', '--master_addr=10.0.0.1'],
      { nnodes: 2, nodeRank: 1, masterAddr: '10.0.0.1' },
    ],
    [['python3', '-m', 'vllm.entrypoints.cli.main', 'serve', 'm', '-n', '2', '-r1', '--master-port', '29600'], { nnodes: 2, nodeRank: 1, masterPort: 29600 }],
    [['python', '-m', 'vllm.entrypoints.openai.api_server', '--model', 'm', '-n2', '--nnodes', '3'], { nnodes: 3, nodeRank: 0, masterAddr: '127.0.0.1' }],
  ])('%j', (argv, want) => {
    expect(nativeLaunchOf(argv)).toMatchObject(want)
  })

  it('a one-node serve, and commands that are no vllm serve, are not the native mode', () => {
    expect(nativeLaunchOf(['vllm', 'serve', 'm', '-tp', '2'])).toBeUndefined()
    expect(nativeLaunchOf(['ray', 'start', '--head', '--nnodes', '2'])).toBeUndefined()
    expect(nativeLaunchOf(['bash', '-c', 'vllm serve m --nnodes 2'])).toBeUndefined()
  })
})

/** This machine's own non-loopback IPv4 address: the "head's fabric IP" the real processes connect to. */
const ownIp = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal)?.address

const listen = (host: string): Promise<Server> =>
  new Promise((res) => {
    const s = createServer((c) => c.destroy())
    s.listen(0, host, () => res(s))
  })
const portOf = (s: Server): number => (s.address() as { port: number }).port

describe.skipIf(!ownIp)('from the probe run against real processes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vrd-native-'))
  const fake = join(dir, 'vllm')
  let store: Server
  let closedPort: number
  beforeAll(async () => {
    // A `vllm` that says it is up and waits: its argv and environment are what the probe reads.
    writeFileSync(fake, `#!/usr/bin/env python3\nimport os, sys, time\nopen(os.environ["READY"], "w").close()\ntime.sleep(60)\n`)
    chmodSync(fake, 0o755)
    store = await listen(ownIp!)
    const closed = await listen(ownIp!)
    closedPort = portOf(closed)
    await new Promise((r) => closed.close(r))
  })
  afterAll(() => new Promise((r) => store.close(r)))

  /** The container program's answer while `vllm serve ARGS` runs with ENV, in a PID namespace of its own. */
  function probe(args: readonly string[], env: Record<string, string> = {}): ContainerFacts {
    const ready = join(dir, `ready-${Math.random().toString(36).slice(2)}`)
    const program = `ENV_NAMES = ${JSON.stringify(ENV_OF_INTEREST)}\n${CONTAINER_PY}`
    const prefix = Object.entries({ ...env, READY: ready }).map(([k, v]) => `${k}='${v}'`)
    const script = `${prefix.join(' ')} "$0" serve ${args.map((a) => `'${a}'`).join(' ')} & while [ ! -e '${ready}' ]; do sleep 0.02; done; python3 -c "$1"; kill $!`
    const out = execFileSync('unshare', ['--pid', '--fork', '--mount-proc', 'sh', '-c', script, fake, program], {
      encoding: 'utf8',
      env: { PATH: process.env['PATH'] ?? '' },
    })
    const inside = JSON.parse(out.trim().split('\n').pop()!) as Record<string, unknown>
    return ContainerFactsSchema.parse({ name: 'vllm-ray', running: true, env: {}, ...inside })
  }

  const e: Expectation = { ...expectation, nodes: [{ ...expectation.nodes[0]!, fabricIp: ownIp! }, expectation.nodes[1]!] }
  const { ray: _ray, ...withoutRay } = healthyFacts
  const pair = (head: ContainerFacts, worker: ContainerFacts): FactsBundle =>
    withNode(
      withNode(withoutRay, 'spark-a', (n) => ({ ...n, container: head })),
      'spark-b',
      (n) => ({ ...n, container: worker }),
    )
  const FABRIC = { NCCL_SOCKET_IFNAME: 'enp1s0f1np1', GLOO_SOCKET_IFNAME: 'enp1s0f1np1' }
  const head = (extra: string[] = [], env: Record<string, string> = FABRIC) =>
    probe(['m', '--nnodes', '2', '--node-rank', '0', '--master-addr', ownIp!, '--master-port', String(portOf(store)), ...extra], env)
  const worker = (extra: string[] = [], env: Record<string, string> = FABRIC) =>
    probe(['m', '--nnodes', '2', '--node-rank', '1', '--master-addr', ownIp!, '--master-port', String(portOf(store)), '--headless', ...extra], env)

  it("the probe prints the serving process's argv, its own environment (not the container's) and a connect to its master", () => {
    const c = head([], { VLLM_HOST_IP: ownIp!, NCCL_SOCKET_IFNAME: 'enp1s0f1np1', UNRELATED: 'x' })
    const p = c.vllmProcess as VllmProcess
    expect(p.argv.slice(1, 3)).toEqual([fake, 'serve'])
    expect(p.env).toEqual({ VLLM_HOST_IP: ownIp, NCCL_SOCKET_IFNAME: 'enp1s0f1np1' })
    expect(p.master).toEqual({ ip: ownIp, port: portOf(store), state: 'open' })
    expect(c).toMatchObject({ vllmIp: ownIp, vllmIpSource: 'VLLM_HOST_IP' })
  })

  it('secret-bearing flags leave the node redacted', () => {
    const p = head(['--api-key', 'sk-live-123', '--hf-token=hf_abc', '--tokenizer', 'Qwen/Qwen3']).vllmProcess!
    expect(p.argv.join(' ')).not.toMatch(/sk-live-123|hf_abc/)
    expect(p.argv.slice(-5)).toEqual(['--api-key', '<redacted>', '--hf-token=<redacted>', '--tokenizer', 'Qwen/Qwen3'])
  })

  it('a healthy pair has no native finding', () => {
    expect(nativeCodes(pair(head(), worker()), e)).toEqual([])
  })

  it('each mistake of the family is named, with the nodes and values compared', () => {
    expect(nativeCodes(pair(head(), worker(['--node-rank', '0'])), e)).toEqual(['NATIVE_RANK_DUPLICATE', 'NATIVE_RANK_GAP'])
    expect(nativeCodes(pair(head(), worker(['--nnodes', '3'])), e)).toEqual(['NATIVE_NNODES_MISMATCH@spark-b'])
    expect(nativeCodes(pair(head(), worker(['--master-addr', '127.0.0.1'])), e)).toEqual(['MASTER_ADDR_LOOPBACK@spark-b'])
    expect(nativeCodes(pair(head(), worker(['--master-port', String(closedPort)])), e)).toEqual(['MASTER_PORT_MISMATCH'])
    expect(nativeCodes(pair(head(), worker([], { ...FABRIC, VLLM_HOST_IP: '10.1.230.181' })), e)).toEqual(['VLLM_HOST_IP_OVERRIDE@spark-b'])
    const dup = check(pair(head(), worker(['--node-rank', '0'])), e).find((f) => f.code === 'NATIVE_RANK_DUPLICATE')!
    expect(dup.evidence).toMatchObject({ '--node-rank on spark-a': '0', '--node-rank on spark-b': '0 --headless' })
    expect(dup.fix).toBe('Give every node its own --node-rank: spark-a: --node-rank 0; spark-b: --node-rank 1 --headless.')
  })

  it("the socket interfaces the process was started with are the ones judged, whatever the container's env says", () => {
    const f = pair(
      head([], { NCCL_SOCKET_IFNAME: 'enp1s0f1np1', GLOO_SOCKET_IFNAME: 'enP7s7' }),
      worker([], { NCCL_SOCKET_IFNAME: 'enp1s0f1np1', GLOO_SOCKET_IFNAME: 'enp1s0f1np1' }),
    )
    expect(nativeCodes(f, e)).toEqual(['SOCKET_IFNAME_WRONG_SUBNET@spark-a'])
  })
})

/** The incident's bundle as a native-mode deploy: process facts added to the spark pair. */
const proc = (argv: string, env: Record<string, string>, master?: VllmProcess['master']): VllmProcess => ({
  pid: 1,
  argv: ['/usr/bin/python3', '/usr/local/bin/vllm', 'serve', ...argv.split(' ')],
  env,
  ...(master ? { master } : {}),
})
const FABRIC_ENV = { NCCL_SOCKET_IFNAME: 'enp1s0f1np1', GLOO_SOCKET_IFNAME: 'enp1s0f1np1' }
function native(a: VllmProcess, b: VllmProcess): FactsBundle {
  const { ray: _ray, ...noRay } = healthyFacts
  const set = (p: VllmProcess) => (n: { container?: ContainerFacts }) => ({ ...n, container: { ...n.container!, env: { ...FABRIC_ENV }, vllmProcess: p } })
  return withNode(withNode(noRay, 'spark-a', set(a) as never), 'spark-b', set(b) as never)
}
const open = (ip: string) => ({ ip, port: 29501, state: 'open' as const })

describe('from the spark-pair bundle', () => {
  const healthy = native(
    proc('Qwen/Qwen3 -tp 2 --nnodes 2 --node-rank 0 --master-addr 192.168.200.12', FABRIC_ENV, open('192.168.200.12')),
    proc('Qwen/Qwen3 -tp 2 --nnodes 2 --node-rank 1 --master-addr 192.168.200.12 --headless', FABRIC_ENV, open('192.168.200.12')),
  )

  it('healthy: nothing', () => {
    expect(nativeCodes(healthy)).toEqual([])
  })

  it("the incident's analogue: the master address on the management network while NCCL/Gloo use the fabric", () => {
    const f = native(
      proc('Qwen/Qwen3 -tp 2 --nnodes 2 --node-rank 0 --master-addr 10.1.230.180', FABRIC_ENV, open('10.1.230.180')),
      proc('Qwen/Qwen3 -tp 2 --nnodes 2 --node-rank 1 --master-addr 10.1.230.180 --headless', FABRIC_ENV, {
        ip: '10.1.230.180',
        port: 29501,
        state: 'timeout',
        detail: 'no answer within 2 s',
      }),
    )
    expect(nativeCodes(f)).toEqual(['MASTER_ADDR_NOT_FABRIC@spark-a', 'MASTER_ADDR_NOT_FABRIC@spark-b', 'RENDEZVOUS_UNREACHABLE@spark-b'])
    const [a, , unreachable] = check(f).filter((x) => NATIVE.test(x.code))
    expect(a!.evidence).toMatchObject({
      '--master-addr on spark-a': '10.1.230.180',
      'Fabric IP of the head (spark-a)': '192.168.200.12',
      '10.1.230.180 is held by': 'enP7s7 on spark-a',
    })
    expect(a!.fix).toBe("On spark-a start vllm serve with --master-addr 192.168.200.12 (the head's fabric IP); every node must give the same value.")
    expect(unreachable!.fix).toBe("Start vllm serve on every node with --master-addr 192.168.200.12 (the head's fabric IP).")
  })

  it('a worker without --master-addr waits on itself (vLLM defaults to 127.0.0.1)', () => {
    const f = native(healthy.nodes[0]!.container!.vllmProcess!, proc('Qwen/Qwen3 -tp 2 --nnodes 2 --node-rank 1 --headless', FABRIC_ENV))
    const [l] = check(f).filter((x) => x.code === 'MASTER_ADDR_LOOPBACK')
    expect(l).toMatchObject({ node: 'spark-b', evidence: { '--master-addr on spark-b': "127.0.0.1 (not given: vLLM's default)" } })
  })

  it('a node that was never started: --nnodes 2 with one node running, a gap at rank 1', () => {
    const f = withNode(healthy, 'spark-b', (n) => ({ ...n, container: { ...n.container!, vllmProcess: undefined } as never }))
    expect(nativeCodes(f)).toEqual(['NATIVE_RANK_GAP', 'NATIVE_NNODES_MISMATCH@spark-a'])
    expect(check(f).find((x) => x.code === 'NATIVE_NNODES_MISMATCH')!.fix).toBe(
      'Start vllm serve on spark-b too, with --nnodes 2 everywhere (or drop the nodes from the manifest).',
    )
  })

  it("without a manifest, the master address is compared with the head's own addresses", () => {
    expect(nativeCodes(healthy, null)).toEqual([])
    const f = native(
      proc('m --nnodes 2 --node-rank 0 --master-addr 192.168.200.12', FABRIC_ENV),
      proc('m --nnodes 2 --node-rank 1 --master-addr 192.168.200.99 --headless', FABRIC_ENV),
    )
    expect(nativeCodes(f, null)).toEqual(['MASTER_ADDR_NOT_FABRIC@spark-b'])
  })

  it("a master address no host answers at: a netmask or the broadcast address is named as such, Debian's 127.0.1.1 as loopback, with or without a manifest", () => {
    const head = healthy.nodes[0]!.container!.vllmProcess!
    for (const [addr, code, phrase] of [
      ['255.255.255.0', 'MASTER_ADDR_NOT_FABRIC', 'a netmask'],
      ['255.255.255.255', 'MASTER_ADDR_NOT_FABRIC', 'the broadcast address'],
      ['127.0.1.1', 'MASTER_ADDR_LOOPBACK', 'spark-b itself'],
    ] as const) {
      const f = native(head, proc(`Qwen/Qwen3 -tp 2 --nnodes 2 --node-rank 1 --master-addr ${addr} --headless`, FABRIC_ENV))
      for (const m of [expectation, null] as const) {
        expect(nativeCodes(f, m), addr).toEqual([`${code}@spark-b`])
        expect(check(f, m).find((x) => x.code === code)!.message, addr).toContain(phrase)
      }
    }
  })

  it('a Ray-mode bundle (no native process) gets none of these', () => {
    expect(nativeCodes(healthyFacts).filter((c) => !c.startsWith('SOCKET'))).toEqual([])
  })

  it('diagnose --facts runs them from a bundle file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vrd-native-facts-'))
    const file = join(dir, 'facts.json')
    const f = native(
      proc('m --nnodes 2 --node-rank 0 --master-addr 192.168.200.12', FABRIC_ENV),
      proc('m --nnodes 2 --node-rank 0 --master-addr 192.168.200.12 --headless', FABRIC_ENV),
    )
    writeFileSync(file, JSON.stringify(f))
    const r = await diagnoseTask({ facts: file })
    const text = JSON.stringify(r)
    expect(text).toContain('NATIVE_RANK_DUPLICATE')
    expect(text).toContain('NATIVE_RANK_GAP')
  })
})
