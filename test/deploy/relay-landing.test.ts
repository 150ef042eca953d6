/**
 * Relay landed first (src/plan/image-landing-commands.ts, src/deploy/relay-landing.ts), run by the
 * real `sh`, `mkfifo` and `python3` of this machine, with `ssh` replaced on PATH by a program that
 * runs the worker's remote command line here, its file put under the test's directory per host.
 * The runner's frames come from landingFramer itself. The input is 6 MB, far more than a pipe
 * holds, so a cut or a kill really happens mid-stream. The lab test (relay.e2e) runs it with the real
 * docker and ssh.
 */
import { spawn } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { landingFramer } from '../../src/deploy/relay-landing.js'
import { parseManifest } from '../../src/manifest/load-manifest.js'
import type { Manifest } from '../../src/manifest/schema.js'
import {
  LANDING_PROBE_SCRIPT,
  landFanOut,
  landedArchive,
  landingDir,
  landingNeeds,
  landingRefused,
  loadLanded,
  parseLandingProbe,
} from '../../src/plan/image-landing-commands.js'
import { parseRelayFanOut } from '../../src/plan/relay-commands.js'
import { render } from '../../src/command/shell.js'

let dir: string
let bin: string
let manifest: Manifest
const input = randomBytes(6 * 1024 * 1024)

// `ssh -Q cipher` lists two ciphers. Otherwise the last word is the worker's remote line (python3 -c
// LAND_PY FILE): run here with python3 writing $STUB_OUT/land.<host> instead of FILE.
const SSH = `#!/bin/sh
[ "$1" = -Q ] && { printf '%s\\n' aes128-ctr aes128-gcm@openssh.com; exit 0; }
eval host=\\\${$(($# - 1))}
eval remote=\\\${$#}
case " \${STUB_SSH_FAIL:-} " in *" $host "*)
  echo "ssh: connect to host $host port 22: Connection refused" >&2
  exit 255
esac
python3() { command python3 "$1" "$2" "$STUB_OUT/land.$host"; }
eval "$remote"
`

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'vrd-landing-'))
  bin = join(dir, 'bin')
  mkdirSync(bin)
  writeFileSync(join(bin, 'ssh'), SSH)
  chmodSync(join(bin, 'ssh'), 0o755)
  const text = readFileSync('src/manifest/examples/dgx-spark-pair.yml', 'utf8').replace('distribution: pull', 'distribution: relay')
  const parsed = parseManifest(text, 'm.yml')
  expect(parsed.errors).toEqual([])
  const base = parsed.manifest!
  const worker = base.nodes.find((n) => n.role === 'worker')!
  manifest = { ...base, nodes: [...base.nodes, { ...worker, name: 'spark-c', fabricIp: '192.168.200.14', ssh: { ...worker.ssh, host: '10.0.0.14' } }] }
}, 30_000)

afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The runner's frames of `data` (landingFramer), whole. */
async function framed(data: Buffer): Promise<Buffer> {
  const f = landingFramer()
  const parts: Buffer[] = []
  f.stream.on('data', (c: Buffer) => parts.push(c))
  const ended = new Promise((r) => f.stream.on('end', r))
  Readable.from([data.subarray(0, 1 << 20), data.subarray(1 << 20)]).pipe(f.stream)
  await ended
  expect(f.bytes()).toBe(data.length)
  return Buffer.concat(parts)
}

/**
 * The head's landing fan-out to `workers` workers, fed `stdin`; `kill`: SIGTERM to its process group
 * once that many bytes are written (the cancel's signal), the rest never sent.
 */
async function land(workers: number, stdin: Buffer, env: Record<string, string> = {}, kill?: number) {
  const out = mkdtempSync(join(dir, 'out-'))
  const file = join(out, 'head.tar')
  const cmd = landFanOut(manifest, manifest.nodes.filter((n) => n.role !== 'head').slice(0, workers), file)
  const p = spawn(cmd.argv[0]!, cmd.argv.slice(1), {
    env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, STUB_OUT: out, TMPDIR: dir, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  })
  let stdout = ''
  let stderr = ''
  p.stdout.on('data', (c) => (stdout += c))
  p.stderr.on('data', (c) => (stderr += c))
  p.stdin.on('error', () => {})
  if (kill === undefined) p.stdin.end(stdin)
  else
    p.stdin.write(stdin.subarray(0, kill), async () => {
      // Mid-stream is when the head's receiver has its file open: wait for that event, not for a fixed time.
      while (!existsSync(join(out, 'head.tar')) && p.exitCode === null) await new Promise((r) => setTimeout(r, 20))
      if (p.exitCode === null) process.kill(-p.pid!, 'SIGTERM')
    })
  const code = await new Promise<number | null>((resolve) => p.on('close', resolve))
  const got = (name: string) => (existsSync(join(out, name)) ? readFileSync(join(out, name)) : undefined)
  return { code, stdout, stderr, report: parseRelayFanOut(stdout), got, out, left: () => readdirSync(out) }
}

describe('the landing fan-out on the head', () => {
  it('the head and every worker write the whole archive to their own file, each verified against the runner’s SHA-256', async () => {
    const r = await land(2, await framed(input))
    expect(r.stderr).toBe('')
    expect(r.report).toEqual({
      head: { code: 0, log: [] },
      workers: new Map([
        ['192.168.200.13', { code: 0, log: [] }],
        ['192.168.200.14', { code: 0, log: [] }],
      ]),
      complete: true,
    })
    expect(r.code).toBe(0)
    for (const f of ['head.tar', 'land.192.168.200.13', 'land.192.168.200.14']) expect(r.got(f)?.equals(input), f).toBe(true)
  })

  it('no worker: the head alone lands it', async () => {
    const r = await land(0, await framed(input))
    expect(r.code).toBe(0)
    expect(r.report).toEqual({ head: { code: 0, log: [] }, workers: new Map(), complete: true })
    expect(r.got('head.tar')?.equals(input)).toBe(true)
  })

  it('a stream cut before its end mark (the runner stopped, a connection lost): every receiver removes its file', async () => {
    const whole = await framed(input)
    const r = await land(2, whole.subarray(0, whole.length - 1000))
    expect(r.code).toBe(1)
    expect(r.report.head?.code).toBe(1)
    expect(r.report.head?.log.join('\n')).toMatch(/the stream ended before its end mark: the transfer was cut/)
    expect([...r.report.workers.values()].map((w) => w.code)).toEqual([1, 1])
    expect(r.left()).toEqual([])
  })

  it('a wrong hash or size at the end: every receiver removes its file and says what it computed', async () => {
    const whole = Buffer.from(await framed(input))
    whole[whole.length - 20] = whole[whole.length - 20]! ^ 0xff // the end mark's SHA-256
    const r = await land(1, whole)
    expect(r.code).toBe(1)
    expect(r.report.head?.log.join('\n')).toMatch(new RegExp(`SHA-256 ${createHash('sha256').update(input).digest('hex')}, the sender sent [0-9a-f]{64}`))
    expect(r.report.workers.get('192.168.200.13')?.code).toBe(1)
    expect(r.left()).toEqual([])
  })

  it('a landing stopped by SIGTERM mid-stream (a cancel): no file is left on the head or a worker', async () => {
    const r = await land(2, await framed(input), {}, 3 << 20)
    expect(r.code).not.toBe(0)
    // A receiver the stub ssh forked as the group's signal went out is not in the group: it sees its stream end (no end mark) and
    // removes its file on its own, after the head has exited. Wait for that event, with a deadline, not for a fixed time.
    const deadline = Date.now() + 20_000
    while (r.left().length > 0 && Date.now() < deadline) await new Promise((done) => setTimeout(done, 50))
    expect(r.left()).toEqual([])
  })

  it('a worker the head cannot reach is reported; the head and the other worker still land every byte', async () => {
    const r = await land(2, await framed(input), { STUB_SSH_FAIL: '192.168.200.13' })
    expect(r.code).toBe(1)
    expect(r.report.head).toEqual({ code: 0, log: [] })
    expect(r.report.workers.get('192.168.200.13')).toEqual({ code: 255, log: ['ssh: connect to host 192.168.200.13 port 22: Connection refused'] })
    expect(r.got('head.tar')?.equals(input)).toBe(true)
    expect(r.got('land.192.168.200.14')?.equals(input)).toBe(true)
  })

  it('leaves no FIFO or log behind on the head', async () => {
    await land(2, await framed(input), { STUB_SSH_FAIL: '192.168.200.14' })
    expect(readdirSync(dir).filter((f) => f.startsWith('tmp.'))).toEqual([])
  })
})

describe('the space check and the commands', () => {
  it('the probe, run here: makes the directory, removes a leftover archive, says the free space and that python3 works', async () => {
    const d = join(dir, 'landing', 'x')
    mkdirSync(d, { recursive: true })
    writeFileSync(join(d, 'old.tar'), 'left by a killed landing')
    const p = spawn('sh', ['-c', LANDING_PROBE_SCRIPT, 'sh', d])
    let out = ''
    p.stdout.on('data', (c) => (out += c))
    expect(await new Promise((r) => p.on('close', r))).toBe(0)
    const probe = parseLandingProbe(out)
    expect(probe).toMatchObject({ dir: true, python: true })
    expect(probe.freeBytes).toBeGreaterThan(0)
    expect(existsSync(join(d, 'old.tar'))).toBe(false)
  })

  it('refuses a node without the room, without python3 or without the directory; accepts one with the room', () => {
    const need = landingNeeds(400e6)
    expect(need).toBe(440e6 + (64 << 20))
    const at = '/var/lib/vllm-ray-deploy/c/image-landing'
    expect(landingRefused({ dir: true, python: true, freeBytes: need }, need, at)).toBeUndefined()
    expect(landingRefused({ dir: true, python: true, freeBytes: need - 1 }, need, at)).toBe(`507 MB free under ${at}, the archive needs 507 MB`)
    expect(landingRefused({ dir: true, python: false, freeBytes: need }, need, at)).toMatch(/python3/)
    expect(landingRefused({ dir: false, python: false }, need, at)).toBe(`${at} cannot be made or written`)
    expect(landingRefused({ dir: true, python: true }, need, at)).toMatch(/could not be read/)
    expect(parseLandingProbe('nodir\n')).toEqual({ python: false, dir: false })
    expect(parseLandingProbe('free 123\npython no\n')).toEqual({ freeBytes: 123, python: false, dir: true })
  })

  it('the archive lands beside the release state, named by the image, and is removed by the load whatever it did', () => {
    expect(landingDir(manifest)).toBe(`/var/lib/vllm-ray-deploy/${manifest.cluster}/image-landing`)
    expect(landedArchive(manifest, 'vrd/test:1')).toMatch(new RegExp(`^${landingDir(manifest)}/[0-9a-f]{16}\\.tar$`))
    expect(landedArchive(manifest, 'vrd/test:1')).not.toBe(landedArchive(manifest, 'vrd/test:2'))
    expect(render(loadLanded('/x/a.tar'))).toBe(`sh -c 'docker load -i "$1"; rc=$?; rm -f "$1"; exit "$rc"' sh /x/a.tar`)
  })
})
