/**
 * The head's fan-out script (src/plan/relay-commands.ts) run by the real `sh`, `tee`, `mkfifo`
 * of this machine, with `docker` and `ssh` replaced on PATH by programs that store what they read
 * (or fail the way the real ones do). The input is 6 MB, far more than a pipe holds, so a target
 * that stops reading early really happens mid-stream. The lab test (relay.e2e) runs it with the
 * real docker and ssh.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseManifest } from '../../src/manifest/load-manifest.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { parseRelayFanOut, relayFanOut, relayToWorker } from '../../src/plan/relay-commands.js'
import { pathFor } from '../support/node-hashers.js'

let dir: string
let bin: string
let manifest: Manifest
const input = randomBytes(6 * 1024 * 1024)

const DOCKER = `#!/bin/sh
if [ "$1" = save ]; then
  [ -z "\${STUB_SAVE_FAIL:-}" ] || { head -c 1000 "$STUB_IN"; echo 'Error response from daemon: reference does not exist' >&2; exit 1; }
  exec cat "$STUB_IN"
fi
[ "$1" = load ] || { echo "stub docker: unexpected $*" >&2; exit 99; }
if [ "\${STUB_HEAD_FAIL:-}" = 1 ]; then
  head -c 70000 >/dev/null
  echo 'Error processing tar file(exit status 1): unexpected EOF' >&2
  exit 1
fi
cat >"$STUB_OUT/head"
date +%s%N >"$STUB_OUT/head.done"
echo 'Loaded image: vrd/test:1'
`

// \`ssh -Q cipher\` lists two ciphers. Otherwise the last three words are: <host> docker load; every word is recorded.
const SSH = `#!/bin/sh
[ "$1" = -Q ] && { printf '%s\\n' aes128-ctr aes128-gcm@openssh.com; exit 0; }
printf '%s\\n' "$@" >"$STUB_OUT/argv.$(eval echo \\\${$(($# - 2))})"
eval host=\\\${$(($# - 2))}
case " \${STUB_SSH_FAIL:-} " in *" $host "*)
  echo "ssh: connect to host $host port 22: Connection refused" >&2
  exit 255
esac
case " \${STUB_LOAD_FAIL:-} " in *" $host "*)
  head -c 200000 >/dev/null
  echo 'Error response from daemon: no space left on device' >&2
  exit 1
esac
case " \${STUB_SLOW:-} " in *" $host "*)
  sleep 2
  date +%s%N >"$STUB_OUT/start.$host"
esac
cat >"$STUB_OUT/$host"
echo 'Loaded image: vrd/test:1'
`

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'vrd-fan-out-'))
  bin = join(dir, 'bin')
  mkdirSync(bin)
  for (const [name, text] of [
    ['docker', DOCKER],
    ['ssh', SSH],
  ] as const) {
    const p = join(bin, name)
    writeFileSync(p, text, { flag: 'w' })
    chmodSync(p, 0o755)
  }
  const text = readFileSync('src/manifest/examples/dgx-spark-pair.yml', 'utf8').replace('distribution: pull', 'distribution: relay')
  const parsed = parseManifest(text, 'm.yml')
  expect(parsed.errors).toEqual([])
  const base = parsed.manifest!
  const worker = base.nodes.find((n) => n.role === 'worker')!
  // Three workers: the example's, and two more with their own SSH user and port.
  manifest = {
    ...base,
    nodes: [
      ...base.nodes,
      { ...worker, name: 'spark-c', fabricIp: '192.168.200.14', ssh: { ...worker.ssh, host: '10.0.0.14', user: 'ops', port: 2222 } },
      { ...worker, name: 'spark-d', fabricIp: '192.168.200.15', ssh: { ...worker.ssh, host: '10.0.0.15' } },
    ],
  }
}, 30_000)

afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** PATH for the fan's two ways: Python's queues where python3 works, else `tee` (a python3 that exits 127 as a missing one). */
const FANS = ['python3', 'tee (no python3)'] as const
const fanPath = (fan: (typeof FANS)[number]) => (fan === 'python3' ? `${bin}:${process.env.PATH}` : `${bin}:${pathFor('openssl')}`)

async function fanOut(workers: number, env: Record<string, string> = {}, fan: (typeof FANS)[number] = 'python3') {
  const out = mkdtempSync(join(dir, 'out-'))
  const cmd = relayFanOut(manifest, manifest.nodes.filter((n) => n.role !== 'head').slice(0, workers))
  const p = spawn(cmd.argv[0]!, cmd.argv.slice(1), {
    env: { ...process.env, PATH: fanPath(fan), STUB_OUT: out, TMPDIR: dir, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  p.stdout.on('data', (c) => (stdout += c))
  p.stderr.on('data', (c) => (stderr += c))
  p.stdin.on('error', () => {}) // a fan-out whose every target failed closes its stdin
  p.stdin.end(input)
  const code = await new Promise<number | null>((resolve) => p.on('close', resolve))
  const got = (name: string) => (existsSync(join(out, name)) ? readFileSync(join(out, name)) : undefined)
  return { code, stdout, stderr, report: parseRelayFanOut(stdout), got, out }
}

describe.each(FANS)('the fan through %s', (fan) => {
  it('every target reads the whole stream: the head docker load and each worker over ssh, with its own port and user', async () => {
    const r = await fanOut(3, {}, fan)
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.report).toEqual({
      head: { code: 0, log: [] },
      workers: new Map([
        ['192.168.200.13', { code: 0, log: [] }],
        ['192.168.200.14', { code: 0, log: [] }],
        ['192.168.200.15', { code: 0, log: [] }],
      ]),
      complete: true,
    })
    for (const t of ['head', '192.168.200.13', '192.168.200.14', '192.168.200.15']) expect(r.got(t)?.equals(input), t).toBe(true)
    expect(r.got('argv.192.168.200.14')!.toString().trim().split('\n')).toEqual([
      '-c',
      'aes128-gcm@openssh.com,aes128-ctr',
      '-o',
      'BatchMode=yes',
      '-o',
      'StrictHostKeyChecking=yes',
      '-o',
      'ConnectTimeout=10',
      '-p',
      '2222',
      '-l',
      'ops',
      '192.168.200.14',
      'docker',
      'load',
    ])
    expect(r.got('argv.192.168.200.13')!.toString()).toContain('-p\n22\n-l\nroot\n192.168.200.13\n')
  })

  it('a worker whose SSH fails is reported with its output; the head and the other workers still get every byte', async () => {
    const r = await fanOut(3, { STUB_SSH_FAIL: '192.168.200.14' }, fan)
    expect(r.code).toBe(1)
    expect(r.report.complete).toBe(true)
    expect(r.report.head).toEqual({ code: 0, log: [] })
    expect(r.report.workers.get('192.168.200.14')).toEqual({ code: 255, log: ['ssh: connect to host 192.168.200.14 port 22: Connection refused'] })
    expect(r.report.workers.get('192.168.200.13')?.code).toBe(0)
    expect(r.report.workers.get('192.168.200.15')?.code).toBe(0)
    expect(r.got('head')?.equals(input)).toBe(true)
    expect(r.got('192.168.200.13')?.equals(input)).toBe(true)
    expect(r.got('192.168.200.15')?.equals(input)).toBe(true)
  })

  it("a worker's docker load that fails mid-stream, and a head's load that fails mid-stream, do not cut the others off", async () => {
    const w = await fanOut(2, { STUB_LOAD_FAIL: '192.168.200.13' }, fan)
    expect(w.code).toBe(1)
    expect(w.report.workers.get('192.168.200.13')).toEqual({ code: 1, log: ['Error response from daemon: no space left on device'] })
    expect(w.report.workers.get('192.168.200.14')?.code).toBe(0)
    expect(w.got('head')?.equals(input)).toBe(true)
    expect(w.got('192.168.200.14')?.equals(input)).toBe(true)

    const h = await fanOut(2, { STUB_HEAD_FAIL: '1' }, fan)
    expect(h.code).toBe(1)
    expect(h.report.head).toEqual({ code: 1, log: ['Error processing tar file(exit status 1): unexpected EOF'] })
    expect([...h.report.workers.values()].map((x) => x.code)).toEqual([0, 0])
    expect(h.got('192.168.200.13')?.equals(input)).toBe(true)
    expect(h.got('192.168.200.14')?.equals(input)).toBe(true)
  })

  it('every target failing ends the fan-out instead of hanging; no worker: a plain load', async () => {
    const all = await fanOut(1, { STUB_HEAD_FAIL: '1', STUB_SSH_FAIL: '192.168.200.13' }, fan)
    expect(all.code).not.toBe(0)
    expect(all.report.head?.code).toBe(1)
    expect(all.report.workers.get('192.168.200.13')?.code).toBe(255)

    const none = await fanOut(0, {}, fan)
    expect(none.code).toBe(0)
    expect(none.report).toEqual({ head: { code: 0, log: [] }, workers: new Map(), complete: true })
    expect(none.got('head')?.equals(input)).toBe(true)
  })

  it('the fan-out leaves no FIFO or log behind on the head', async () => {
    await fanOut(2, { STUB_SSH_FAIL: '192.168.200.14' }, fan)
    expect(readdirSync(dir).filter((f) => f.startsWith('tmp.'))).toEqual([])
  })
})

it("a slow target does not hold the others back: the head's load ends before a worker that starts reading 2 s late reads a byte", async () => {
  const r = await fanOut(2, { STUB_SLOW: '192.168.200.13' })
  expect(r.code).toBe(0)
  for (const t of ['head', '192.168.200.13', '192.168.200.14']) expect(r.got(t)?.equals(input), t).toBe(true)
  // 6 MB is far more than a pipe holds: in lockstep (tee straight into each target) the head could not finish first.
  expect(BigInt(r.got('head.done')!.toString().trim())).toBeLessThan(BigInt(r.got('start.192.168.200.13')!.toString().trim()))
})

it('a tee without -p (busybox): the fan-out still delivers every byte to every target', async () => {
  const noP = join(dir, 'no-p')
  mkdirSync(noP, { recursive: true })
  const real = execFileSync('sh', ['-c', 'command -v tee'], { encoding: 'utf8' }).trim()
  writeFileSync(join(noP, 'tee'), `#!/bin/sh\nfor a do [ "$a" = -p ] && { echo "tee: unrecognized option: p" >&2; exit 1; }; done\nexec ${real} "$@"\n`)
  chmodSync(join(noP, 'tee'), 0o755)
  const r = await fanOut(2, { PATH: `${noP}:${fanPath('tee (no python3)')}` })
  expect(r.stderr).toBe('')
  expect(r.code).toBe(0)
  for (const t of ['head', '192.168.200.13', '192.168.200.14']) expect(r.got(t)?.equals(input), t).toBe(true)
})

it("a head that holds the image: docker save into one worker's docker load over the preferred cipher; a failed save fails it even though ssh ends well", async () => {
  const out = mkdtempSync(join(dir, 'out-'))
  writeFileSync(join(out, 'image.tar'), input)
  const w = manifest.nodes.find((n) => n.name === 'spark-c')!
  const run = (env: Record<string, string>) => {
    const cmd = relayToWorker(manifest, w, 'vrd/test:1')
    const r = spawnSync(cmd.argv[0]!, cmd.argv.slice(1), {
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, STUB_OUT: out, STUB_IN: join(out, 'image.tar'), TMPDIR: dir, ...env },
    })
    return { code: r.status, stderr: r.stderr.toString() }
  }
  expect(run({})).toEqual({ code: 0, stderr: '' })
  expect(readFileSync(join(out, w.fabricIp)).equals(input)).toBe(true)
  expect(
    readFileSync(join(out, `argv.${w.fabricIp}`), 'utf8')
      .split('\n')
      .slice(0, 2),
  ).toEqual(['-c', 'aes128-gcm@openssh.com,aes128-ctr'])
  const failed = run({ STUB_SAVE_FAIL: '1' })
  expect(failed.code).not.toBe(0)
  expect(failed.stderr).toContain('reference does not exist')
})

it('the parser: records only, a cut run is not complete, unknown lines are ignored', () => {
  expect(parseRelayFanOut('relay\thead\t0\nnoise\nrelay\t10.0.0.2\t?\nlog\t10.0.0.2\ta\tb\n')).toEqual({
    head: { code: 0, log: [] },
    workers: new Map([['10.0.0.2', { code: null, log: ['a b'] }]]),
    complete: false,
  })
  expect(parseRelayFanOut('error\tmktemp -d failed on the head\n')).toEqual({ workers: new Map(), error: 'mktemp -d failed on the head', complete: false })
})
