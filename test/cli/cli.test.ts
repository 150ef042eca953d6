import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { main } from '../../src/cli/cli-main.js'
import type { ManifestNode } from '../../src/manifest/schema.js'
import { nodeFactsFromProbe } from '../../src/preflight/gather/gather.js'

const EXAMPLE = 'src/manifest/examples/dgx-spark-pair.yml'

async function cli(...args: string[]) {
  let out = ''
  let err = ''
  const code = await main(args, { out: (s) => (out += s), err: (s) => (err += s), env: {} })
  return { code, out, err }
}

describe('vllm-ray-deploy validate', () => {
  it('accepts the seed cluster example', async () => {
    const r = await cli('validate', '--manifest', EXAMPLE)
    expect(r.code).toBe(0)
    expect(r.out).toMatch(/is valid: cluster spark-pair, 2 nodes \(head spark-a\), 2 GPUs, TP=2 PP=1/)
  })

  it('reports three independent mistakes, each located, in one run, and exits 1', async () => {
    const r = await cli('validate', '--manifest', 'test/fixtures/three-mistakes.yml', '--json')
    expect(r.code).toBe(1)
    const { errors } = JSON.parse(r.out) as { errors: { line: number; col: number; path: string; message: string }[] }
    const where = errors.map((e) => `${e.line}:${e.col} ${e.path}`)
    expect(where).toEqual(['10:5 nodes[0].fabricIP', '15:15 nodes[1].fabricIp', '22:9 vllm.port'])
    expect(errors[0]!.message).toMatch(/did you mean "fabricIp"/)
    expect(errors[1]!.message).toMatch(/192\.168\.200\.0\/24/)
  })

  it('prints file:line:col in human output', async () => {
    const r = await cli('validate', '--manifest', 'test/fixtures/three-mistakes.yml')
    expect(r.out).toContain('test/fixtures/three-mistakes.yml:10:5:')
    expect(r.out).toContain('test/fixtures/three-mistakes.yml:22:9:')
  })

  it('says what is wrong, without a stack trace, for a missing file or a missing flag', async () => {
    const missing = await cli('validate', '--manifest', 'no/such.yml')
    expect(missing.code).toBe(1)
    expect(missing.out).toMatch(/no\/such\.yml:1:1/)
    expect(missing.out + missing.err).not.toMatch(/\n\s+at /)
    const noFlag = await cli('validate')
    expect(noFlag.code).toBe(2)
    expect(noFlag.err).toMatch(/--manifest is required/)
    const unknown = await cli('validate', '--manfest', 'x')
    expect(unknown.code).toBe(2)
    expect(unknown.err).toMatch(/Unknown option '--manfest'/)
    const noKey = await cli('deploy', '--manifest', EXAMPLE)
    expect(noKey.code).toBe(2)
    expect(noKey.err).toMatch(/deploy needs an SSH private key/)
  })
})

describe('vllm-ray-deploy plan', () => {
  it('--json lists both nodes with their ordered commands, as deploy runs them; the head starts with --head, the worker joins the head fabric IP', async () => {
    const r = await cli('plan', '--manifest', EXAMPLE, '--json')
    expect(r.code).toBe(0)
    type Step = { action: string; command: string; runs?: { command: string } }
    const plan = JSON.parse(r.out) as { nodes: { name: string; steps: Step[] }[]; phases: { name: string }[] }
    expect(plan.phases.map((p) => p.name)).toEqual([
      'image',
      'image-contents',
      'fabric-test',
      'fit',
      'release-files',
      'stop-previous',
      'ray-head',
      'ray-workers',
      'ray-cluster',
      'preflight',
      'vllm',
      'smoke',
    ])
    const [a, b] = plan.nodes
    expect(a!.name).toBe('spark-a')
    expect(a!.steps.map((s) => s.action)).toEqual([
      'image',
      'image-contents',
      'fabric-test',
      'release-files',
      'secret-env',
      'verify-stopped',
      'ray-start',
      'ray-ready',
      'ray-cluster',
      'facts',
      'vllm-serve',
    ])
    expect(b!.steps.map((s) => s.action)).toEqual(['image', 'fabric-test', 'release-files', 'secret-env', 'verify-stopped', 'ray-start', 'facts'])
    const headStart = a!.steps.find((s) => s.action === 'ray-start')!
    expect(headStart.command).toBe('sh /var/lib/vllm-ray-deploy/spark-pair/releases/manual/start.sh')
    expect(headStart.runs!.command).toContain('--head --port=6379')
    expect(headStart.runs!.command).toContain('--node-ip-address=192.168.200.12')
    expect(headStart.runs!.command).toContain('--env VLLM_HOST_IP=192.168.200.12')
    const workerStart = b!.steps.find((s) => s.action === 'ray-start')!.runs!.command
    expect(workerStart).toContain('--address=192.168.200.12:6379 --node-ip-address=192.168.200.13')
    expect(workerStart).toContain('--env VLLM_HOST_IP=192.168.200.13')
  })

  it('is deterministic', async () => {
    expect((await cli('plan', '--manifest', EXAMPLE, '--json')).out).toBe((await cli('plan', '--manifest', EXAMPLE, '--json')).out)
  })

  it('keeps hostile values exact through quoting: the rendered command, run by a real shell, passes the same argv', async () => {
    const hostile = ['it\'s "quoted"', '$(touch /tmp/vrd-pwned)', '`id`', 'a; rm -rf /', 'two\nlines', 'with space']
    const text = readFileSync(EXAMPLE, 'utf8')
      .replace('args: ["--max-model-len", "32768", "--gpu-memory-utilization", "0.85"]', `args: ${JSON.stringify(hostile)}`)
      .replace('NCCL_IB_HCA: rocep1s0f1', `NCCL_IB_HCA: ${JSON.stringify('$(reboot); `x`')}`)
    expect(text).toContain('$(touch')
    const dir = mkdtempSync(join(tmpdir(), 'vrd-plan-'))
    const file = join(dir, 'm.yml')
    writeFileSync(file, text)
    const r = await cli('plan', '--manifest', file, '--json')
    expect(r.err).toBe('')
    expect(r.code).toBe(0)
    type Runs = { command: string; cmd: { argv: string[] } }
    const plan = JSON.parse(r.out) as { nodes: { steps: { action: string; runs?: Runs }[] }[] }
    for (const action of ['vllm-serve', 'ray-start']) {
      // What the release's start.sh / serve.sh runs.
      const runs = plan.nodes[0]!.steps.find((s) => s.action === action)!.runs!
      // Stand a function in for docker that prints each argument it receives, NUL-terminated.
      const got = execFileSync('bash', ['-c', `docker() { printf '%s\\0' "$@"; }; ${runs.command}`], { encoding: 'utf8' })
      expect(got.split('\0').slice(0, -1)).toEqual(runs.cmd.argv.slice(1))
    }
    const serve = plan.nodes[0]!.steps.find((s) => s.action === 'vllm-serve')!.runs!
    expect(serve.cmd.argv.slice(-hostile.length)).toEqual(hostile)
    expect(() => readFileSync('/tmp/vrd-pwned')).toThrow()
  })
})

describe('vllm-ray-deploy diagnose', () => {
  it('--facts runs every check whose facts the bundle holds: host facts from the lab probe, one MTU changed, no manifest needed', async () => {
    const capture = (role: string) => JSON.stringify(JSON.parse(readFileSync(`test/deploy/fixtures/host-probe-${role}-healthy.json`, 'utf8')))
    const node = (name: string, role: 'head' | 'worker') =>
      ({ name, role, ssh: { host: name, hostKeys: [] }, fabricIp: '', gpus: 1 }) as unknown as ManifestNode
    const a = nodeFactsFromProbe(node('spark-a', 'head'), capture('head')).facts
    const b = nodeFactsFromProbe(node('spark-b', 'worker'), capture('worker')).facts
    const b1400 = { ...b, interfaces: b.interfaces.map((i) => (i.name === 'enp1s0f0np0' ? { ...i, mtu: 1400 } : i)) }
    const dir = mkdtempSync(join(tmpdir(), 'vrd-facts-'))
    const file = join(dir, 'facts.json')
    writeFileSync(file, JSON.stringify({ schemaVersion: 1, gatheredAt: '2026-12-04T10:00:00Z', nodes: [a, b1400] }))
    const r = await cli('diagnose', '--facts', file, '--json')
    expect(r.code).toBe(1)
    const { findings } = JSON.parse(r.out) as { findings: { code: string; node: string | null; evidence: Record<string, string> }[] }
    expect(findings.map((f) => `${f.code}@${f.node}`)).toEqual(['FABRIC_MTU_MISMATCH@spark-b'])
    expect(findings[0]!.evidence).toEqual({ 'spark-a MTU': 'enp1s0f0np0 1500', 'spark-b MTU': 'enp1s0f0np0 1400' })
    writeFileSync(file, JSON.stringify({ schemaVersion: 1, gatheredAt: '2026-12-04T10:00:00Z', nodes: [a, b] }))
    expect((await cli('diagnose', '--facts', file)).code).toBe(0)
  })

  it('refuses a malformed facts bundle with exit 2, naming the field (a node without interfaces)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vrd-facts-'))
    const file = join(dir, 'facts.json')
    writeFileSync(file, JSON.stringify({ schemaVersion: 1, gatheredAt: '2026-07-01T10:15:00Z', nodes: [{ node: 'spark-a', ok: true, peers: [], gpus: [] }] }))
    const r = await cli('diagnose', '--facts', file)
    expect(r.code).toBe(2)
    expect(r.err).toMatch(/is not a vllm-ray-deploy facts bundle: nodes\[0\]\.interfaces: /)
    expect(r.err).not.toMatch(/internal error/)
    writeFileSync(file, JSON.stringify({ schemaVersion: 2, gatheredAt: 'x', nodes: [] }))
    expect((await cli('diagnose', '--facts', file)).err).toMatch(/schemaVersion: this tool reads facts bundles of schemaVersion 1, got 2/)
  })

  it("accepts the seeds' own ray.nodes() line format and names the requested IP from the log, next to Ray's", async () => {
    const r = await cli(
      'diagnose',
      '--ray-nodes',
      'test/preflight/fixtures/ray/seed-ray-nodes.txt',
      '--log',
      'test/preflight/fixtures/logs/seed-autoscaler.txt',
      '--json',
    )
    expect(r.code).toBe(1)
    const { findings } = JSON.parse(r.out) as { findings: { code: string; severity: string; evidence: Record<string, string>; fix: string }[] }
    const pending = findings.find((f) => f.code === 'PLACEMENT_GROUP_PENDING')!
    expect(pending.severity).toBe('error')
    const evidence = Object.values(pending.evidence).join(' | ')
    expect(evidence).toContain('node:192.168.200.12')
    expect(evidence).toContain('10.1.230.180')
    expect(pending.fix).toMatch(/--node-ip-address=192\.168\.200\.12|VLLM_HOST_IP/)
  })

  it('diagnose --log names the families of a pasted start-up log with their values (NCCL versions that differ, a wrapped free-memory error)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vrd-cli-log-'))
    const file = join(dir, 'startup.log')
    writeFileSync(
      file,
      'worker-2:88:88 [0] NCCL INFO init.cc:642 NCCL WARN Mismatched NCCL version detected : rank 1 version 22703 rank 0 version 22807\nValueError: Free memory on device cuda:0 (20.5/119.7 GiB) on startup is less\nthan desired GPU memory utilization (0.9, 107.73 GiB).\n',
    )
    const r = await cli('diagnose', '--log', file, '--json')
    expect(r.code).toBe(1)
    const { findings } = JSON.parse(r.out) as { findings: { code: string; evidence: Record<string, string> }[] }
    expect(findings.find((f) => f.code === 'VERSION_SKEW')?.evidence).toMatchObject({ 'NCCL of rank 1': '2.27.3', 'NCCL of rank 0': '2.28.7' })
    expect(findings.find((f) => f.code === 'GPU_OUT_OF_MEMORY')?.evidence['Free at start-up']).toBe('20.5 GiB of 119.7 GiB')
    expect(findings.map((f) => f.code)).not.toContain('UNRECOGNISED_FAILURE')
  })

  it("reads ray status (pending demand) and, with the seeds' node list beside it, fails on the pinned IP", async () => {
    const status = await cli('diagnose', '--ray-status', 'test/preflight/fixtures/ray/status-seed-pending.txt', '--manifest', EXAMPLE, '--json')
    const only = (JSON.parse(status.out) as { findings: { code: string; severity: string }[] }).findings
    // ray status alone lists no addresses: a warning that says what to compare.
    expect(only.find((f) => f.code === 'PLACEMENT_GROUP_PENDING')?.severity).toBe('warning')
    const both = await cli(
      'diagnose',
      '--ray-status',
      'test/preflight/fixtures/ray/status-seed-pending.txt',
      '--ray-nodes',
      'test/preflight/fixtures/ray/seed-ray-nodes.txt',
      '--manifest',
      EXAMPLE,
      '--json',
    )
    expect(both.code).toBe(1)
    const codes = (JSON.parse(both.out) as { findings: { code: string; severity: string }[] }).findings.filter((f) => f.severity === 'error').map((f) => f.code)
    expect(codes).toContain('PLACEMENT_GROUP_PENDING')
    expect(codes).toContain('RAY_IDENTITY_NOT_FABRIC')
  })

  it('human output: a table, then one fix line per finding', async () => {
    const r = await cli(
      'diagnose',
      '--ray-nodes',
      'test/preflight/fixtures/ray/seed-ray-nodes.txt',
      '--log',
      'test/preflight/fixtures/logs/seed-autoscaler.txt',
    )
    expect(r.out.split('\n')[0]).toMatch(/^CODE\s+SEVERITY\s+NODE\s+MESSAGE$/)
    const findings = (r.out.match(/^[A-Z_]+ +(error|warning|info) /gm) ?? []).length
    expect((r.out.match(/^ {2}fix: /gm) ?? []).length).toBe(findings)
  })

  it('needs an input and says which', async () => {
    const r = await cli('diagnose')
    expect(r.code).toBe(2)
    expect(r.err).toMatch(/needs at least one of --facts, --ray-nodes/)
  })
})
