/**
 * The head's side of a relayed weights stream, run for real with this machine's bash, coreutils and
 * hashers, `ssh` replaced on PATH by a program that stores what it reads: the receiver passes the
 * whole stream on to a worker as it writes its own copy (with Python's one-process loop and with
 * the bash loop's `tee -p`), a worker that goes away mid-stream is dropped while the head's copy
 * completes, the head's copy to a worker sends exactly the bytes it lacks; and the fabric cipher
 * preference (src/plan/relay-commands.ts FABRIC_SSH_SH): only ciphers the head's ssh knows, in the
 * manifest's order, and ssh's own defaults again when the worker refuses them all.
 */
import { createHash, randomBytes } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { parseStreamOutput } from '../../src/deploy/weights/stream-output.js'
import { parseManifest } from '../../src/manifest/load-manifest.js'
import { type StreamFile, receiveWeightsStream, sendWeightsStreamToWorker } from '../../src/plan/weights-commands.js'
import { FABRIC_SHARE_PERSIST_SECONDS, closeFabricShare, openFabricShare, parseFabricShare, shareUpFile } from '../../src/plan/relay-commands.js'
import { LocalTransport } from '../../src/transport/local.js'
import { HASHERS, onPath, pathFor } from '../support/node-hashers.js'

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex')
const BIG = randomBytes(6 * 1024 * 1024) // far more than a pipe holds: a worker that stops early really stops mid-stream
const CONFIG = Buffer.from('{"architectures": ["X"]}\n')
const FILES: StreamFile[] = [
  { path: 'config.json', size: CONFIG.length, sha256: sha(CONFIG), offset: 0 },
  { path: 'model-00001-of-00001.safetensors', size: BIG.length, sha256: sha(BIG), offset: 0 },
]
const STREAM = Buffer.concat([CONFIG, Buffer.from(sha(CONFIG)), BIG, Buffer.from(sha(BIG))])

// `ssh -Q cipher` lists STUB_KNOWN; any other call stores its argv and stdin under $STUB_OUT/<n>.
// STUB_REFUSE: a call with -c fails as OpenSSH's kex does when the server accepts none of them.
// STUB_EARLY: read 100 kB, then fail as a receiver that went away.
const SSH = `#!/bin/sh
if [ "$1" = -Q ]; then printf '%s\\n' \${STUB_KNOWN}; exit 0; fi
n=$(mktemp "$STUB_OUT/call.XXXXXX")
printf '%s\\n' "$@" >"$n.argv"
if [ "$1" = -c ] && [ -n "\${STUB_REFUSE:-}" ]; then
  echo "Unable to negotiate with 192.168.200.13 port 22: no matching cipher found. Their offer: aes256-cbc" >&2
  exit 255
fi
if [ -n "\${STUB_EARLY:-}" ]; then head -c 100000 >"$n.in"; echo 'receiver gone' >&2; exit 1; fi
cat >"$n.in"
printf 'ok\\tstub\\t1\\t%s\\n' "$(printf x | sha256sum | cut -c1-64)"
`

const example = readFileSync('src/manifest/examples/dgx-spark-pair.yml', 'utf8').replace('distribution: pull', 'distribution: relay')
const m = parseManifest(example, 'm.yml').manifest!
const worker = m.nodes.find((n) => n.role === 'worker')!
const local = new LocalTransport()

function stubbed(hasher: (typeof HASHERS)[number], env: Record<string, string> = {}) {
  const root = mkdtempSync(join(tmpdir(), 'vrd-fwd-'))
  const bin = join(root, 'bin')
  const out = join(root, 'out')
  mkdirSync(bin)
  mkdirSync(out)
  writeFileSync(join(bin, 'ssh'), SSH)
  chmodSync(join(bin, 'ssh'), 0o755)
  const path = `${bin}:${pathFor(hasher)}`
  const calls = () =>
    readdirSync(out)
      .filter((f) => f.endsWith('.argv'))
      .map((f) => {
        const base = join(out, f.replace(/\.argv$/, ''))
        const input = readdirSync(out).includes(`${f.replace(/\.argv$/, '')}.in`) ? readFileSync(`${base}.in`) : undefined
        return { argv: readFileSync(join(out, f), 'utf8').trim().split('\n'), input }
      })
  const env0 = { STUB_OUT: out, STUB_KNOWN: 'aes128-ctr chacha20-poly1305@openssh.com aes128-gcm@openssh.com', ...env }
  const run = (cmd: Parameters<typeof onPath>[0], stdin?: Buffer) =>
    local.run({ ...onPath(cmd, path), env: { ...onPath(cmd, path).env, ...env0 } }, { timeoutMs: 60_000, ...(stdin && { stdin: Readable.from([stdin]) }) })
  return { root, calls, run }
}

describe.each(HASHERS)('a relayed weights stream on the head, hashing with %s', (hasher) => {
  it('the head writes and verifies its copy while the worker gets every byte of the stream, over the preferred cipher the head knows', async () => {
    const s = stubbed(hasher)
    const dir = join(s.root, 'model')
    const r = await s.run(receiveWeightsStream(m, dir, FILES, [worker]), STREAM)
    const out = parseStreamOutput(r.stdout)
    expect([...out.files].map(([p, f]) => [p, f.status, f.got])).toEqual([
      ['config.json', 'ok', CONFIG.length],
      ['model-00001-of-00001.safetensors', 'ok', BIG.length],
    ])
    expect(readFileSync(join(dir, 'model-00001-of-00001.safetensors')).equals(BIG)).toBe(true)
    expect(out.forwarded).toEqual(new Map([[worker.fabricIp, 0]]))
    expect(out.at.get(worker.fabricIp)?.get('stub')?.status).toBe('ok')
    expect(out.complete).toBe(true)
    const calls = s.calls()
    expect(calls).toHaveLength(1)
    // The manifest's order (AES-GCM first), only what this ssh knows.
    expect(calls[0]!.argv.slice(0, 2)).toEqual(['-c', 'aes128-gcm@openssh.com,chacha20-poly1305@openssh.com,aes128-ctr'])
    expect(calls[0]!.argv).toContain(worker.fabricIp)
    expect(calls[0]!.input!.equals(STREAM)).toBe(true)
  })

  it("a worker whose receiver goes away mid-stream is reported; the head's copy still completes", async () => {
    const s = stubbed(hasher, { STUB_EARLY: '1' })
    const dir = join(s.root, 'model')
    const r = await s.run(receiveWeightsStream(m, dir, FILES, [worker]), STREAM)
    const out = parseStreamOutput(r.stdout)
    expect([...out.files.values()].map((f) => f.status)).toEqual(['ok', 'ok'])
    expect(out.forwarded).toEqual(new Map([[worker.fabricIp, 1]]))
    expect(out.logs.get(worker.fabricIp)).toEqual(['receiver gone'])
  })
})

describe('the fabric cipher preference', () => {
  it('a worker that accepts none of the preferred ciphers: connected again with ssh defaults, the stream intact', async () => {
    const s = stubbed('python3', { STUB_REFUSE: '1' })
    const r = await s.run(receiveWeightsStream(m, join(s.root, 'model'), FILES, [worker]), STREAM)
    const out = parseStreamOutput(r.stdout)
    expect(out.forwarded).toEqual(new Map([[worker.fabricIp, 0]]))
    const calls = s.calls().sort((a, b) => (a.argv[0] === '-c' ? -1 : b.argv[0] === '-c' ? 1 : 0))
    expect(calls.map((c) => c.argv[0])).toEqual(['-c', '-o'])
    expect(calls[0]!.input).toBeUndefined()
    expect(calls[1]!.input!.equals(STREAM)).toBe(true)
  })

  it('an ssh that knows none of them (or no -Q): no -c at all; a failure that is not the cipher is not retried', async () => {
    const none = stubbed('python3', { STUB_KNOWN: 'aes256-cbc' })
    await none.run(receiveWeightsStream(m, join(none.root, 'model'), FILES, [worker]), STREAM)
    expect(none.calls().map((c) => c.argv[0])).toEqual(['-o'])
    const early = stubbed('python3', { STUB_EARLY: '1' })
    await early.run(receiveWeightsStream(m, join(early.root, 'model'), FILES, [worker]), STREAM)
    expect(early.calls().map((c) => c.argv[0])).toEqual(['-c'])
  })

  it("the head's copy to a worker: exactly the bytes it lacks from their offsets and each hash, falling back as the receiver does", async () => {
    for (const refuse of [false, true]) {
      const s = stubbed('python3', refuse ? { STUB_REFUSE: '1' } : {})
      const dir = join(s.root, 'model')
      mkdirSync(dir)
      writeFileSync(join(dir, FILES[0]!.path), CONFIG)
      writeFileSync(join(dir, FILES[1]!.path), BIG)
      const lacks = [FILES[0]!, { ...FILES[1]!, offset: 1000 }]
      const r = await s.run(sendWeightsStreamToWorker(m, dir, worker, lacks))
      expect(r.code).toBe(0)
      const sent = s.calls().find((c) => c.input)!
      expect(sent.argv[0]).toBe(refuse ? '-o' : '-c')
      expect(sent.input!.equals(Buffer.concat([CONFIG, Buffer.from(sha(CONFIG)), BIG.subarray(1000), Buffer.from(sha(BIG))]))).toBe(true)
      if (refuse) expect(r.stderr).toContain('no matching cipher')
    }
  })
})

describe('one fabric connection shared by the streams to a worker', () => {
  it("opens a master per worker in the background (ControlPersist bounds it), the streams' ssh joins it by its control path, closing sends -O exit", async () => {
    const s = stubbed('python3')
    const cp = join(s.root, 'vrd-fabric-abc')
    const other = { ...worker, name: 'spark-c', fabricIp: '192.168.200.14' }
    const r = await s.run(openFabricShare(m, [worker, other], cp))
    expect(r.code).toBe(0)
    expect(parseFabricShare(r.stdout)).toEqual(
      new Map([
        [worker.fabricIp, { code: 0, log: [] }],
        [other.fabricIp, { code: 0, log: [] }],
      ]),
    )
    const opens = s.calls().map((c) => c.argv)
    expect(opens).toHaveLength(2)
    for (const a of opens) {
      expect(a.slice(0, 2)).toEqual(['-c', 'aes128-gcm@openssh.com,chacha20-poly1305@openssh.com,aes128-ctr'])
      expect(a.join(' ')).toContain(`-o ControlMaster=yes -o ControlPath=${cp}-%C -o ControlPersist=${FABRIC_SHARE_PERSIST_SECONDS} -N -f -p 22 -l`)
    }
    expect(opens.map((a) => a.at(-1)).sort()).toEqual([worker.fabricIp, other.fabricIp].sort())
    // Once every master is up (or failed), the file the streams' ssh waits for.
    expect(existsSync(shareUpFile(cp))).toBe(true)
    // Each stream's ssh names the same path (per worker by %C) and never becomes a master itself.
    const fwd = stubbed('python3')
    await fwd.run(receiveWeightsStream(m, join(fwd.root, 'model'), FILES, [worker], cp), STREAM)
    expect(fwd.calls()[0]!.argv.join(' ')).toContain(`-o ControlPath=${cp}-%C -o ControlMaster=no`)
    const send = sendWeightsStreamToWorker(m, '/m', worker, FILES, cp).argv
    expect(send.join(' ')).toContain(`-o ControlPath=${cp}-%C -o ControlMaster=no`)
    const close = stubbed('python3')
    expect((await close.run(closeFabricShare(m, [worker], cp))).code).toBe(0)
    expect(close.calls().map((c) => c.argv)).toEqual([
      ['-o', `ControlPath=${cp}-%C`, '-O', 'exit', '-p', '22', '-l', worker.ssh.user ?? m.ssh.user, worker.fabricIp],
    ])
    expect(existsSync(shareUpFile(cp))).toBe(false)
  })

  it("a stream that starts before the shared connection is up: the head's copy goes on, its ssh to the worker waits for the up file", async () => {
    const s = stubbed('python3')
    const cp = join(s.root, 'vrd-fabric-late')
    const running = s.run(receiveWeightsStream(m, join(s.root, 'model'), FILES, [worker], cp), STREAM)
    await new Promise((r) => setTimeout(r, 400))
    expect(s.calls()).toEqual([])
    writeFileSync(shareUpFile(cp), '')
    const out = parseStreamOutput((await running).stdout)
    expect(out.forwarded).toEqual(new Map([[worker.fabricIp, 0]]))
    expect(s.calls()).toHaveLength(1)
    expect(s.calls()[0]!.input!.equals(STREAM)).toBe(true)
    expect(readFileSync(join(s.root, 'model', FILES[1]!.path)).equals(BIG)).toBe(true)
  })

  it('a master that cannot connect is reported with its reason (its streams then connect by themselves)', async () => {
    const s = stubbed('python3', { STUB_EARLY: '1' })
    const cp = join(s.root, 'vrd-fabric-abc')
    const r = await s.run(openFabricShare(m, [worker], cp))
    expect(parseFabricShare(r.stdout).get(worker.fabricIp)).toEqual({ code: 1, log: ['receiver gone'] })
    // The up file all the same: its streams do not wait out the bound.
    expect(existsSync(shareUpFile(cp))).toBe(true)
  })
})

describe('a python3 that cannot run the receiver', () => {
  it('one that fails before reading a byte: the bash loop receives the whole stream instead, passed on intact', async () => {
    const s = stubbed('python3')
    // Found first on PATH, it fails at start-up as a broken interpreter does (not 127: it exists).
    writeFileSync(join(s.root, 'bin', 'python3'), '#!/bin/sh\necho "Fatal Python error: init_fs_encoding" >&2\nexit 1\n')
    chmodSync(join(s.root, 'bin', 'python3'), 0o755)
    const dir = join(s.root, 'model')
    const r = await s.run(receiveWeightsStream(m, dir, FILES, [worker]), STREAM)
    const out = parseStreamOutput(r.stdout)
    expect([...out.files.values()].map((f) => f.status)).toEqual(['ok', 'ok'])
    expect(readFileSync(join(dir, FILES[1]!.path)).equals(BIG)).toBe(true)
    expect(s.calls()[0]!.input!.equals(STREAM)).toBe(true)
    const plain = await s.run(receiveWeightsStream(m, join(s.root, 'plain'), FILES), STREAM)
    expect(plain.stdout).toBe(`ok\tconfig.json\t${CONFIG.length}\t${sha(CONFIG)}\nok\t${FILES[1]!.path}\t${BIG.length}\t${sha(BIG)}\nend\n`)
  })
})
