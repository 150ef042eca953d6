/**
 * Row 6, the Action's start-up: `node <action bundle>` (what `dist/index.js` is) with
 * `command: preflight`, from spawning node to the first TCP connection reaching a real sshd
 * (test/support/sshd.ts, through a counting proxy), against `node -e ''`. And the size of what
 * that node process loads: the bundle's JavaScript.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { type Socket, connect, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { basename, dirname, join, resolve } from 'node:path'
import { performance } from 'node:perf_hooks'
import { parseDocument } from 'yaml'
import { loadManifestFile } from '../../../src/manifest/load-manifest.js'
import { inputEnv } from '../../support/action.js'
import { startLoopbackSshd } from '../../support/sshd.js'
import { log } from '../measure.js'
import { type Row, samples } from '../table.js'

const exited = (p: ChildProcess): Promise<void> => new Promise((r) => (p.exitCode !== null || p.signalCode !== null ? r() : p.on('exit', () => r())))

/** Every .js/.cjs/.json file beside the bundle (ncc emits one file plus chunks, one per dynamic import). */
export function bundleBytes(entry: string): { bytes: number; files: number } {
  const walk = (d: string): string[] => readdirSync(d).flatMap((f) => (statSync(join(d, f)).isDirectory() ? walk(join(d, f)) : [join(d, f)]))
  const files = walk(dirname(entry)).filter((f) => /\.(c?js|json)$/.test(f))
  return { bytes: files.reduce((s, f) => s + statSync(f).size, 0), files: files.length }
}

/**
 * A preload (`node -r`) that appends every JavaScript file the process compiles to `list`, one
 * `path<TAB>characters` line each, as it compiles it: what the process really loads up to the
 * moment it is killed (the chunks its command needs, not every chunk beside the bundle).
 */
const loadRecorder = (list: string): string => `const fs = require('node:fs')
const M = require('node:module')
const compile = M.prototype._compile
M.prototype._compile = function (code, file) {
  fs.appendFileSync(${JSON.stringify(list)}, file + '\\t' + code.length + '\\n')
  return compile.call(this, code, file)
}
`

export async function startupRows(actionEntry: string, runs = 7): Promise<Row[]> {
  const sshd = await startLoopbackSshd()
  const dir = mkdtempSync(join(tmpdir(), 'vrd-bench-startup-'))
  let onAccept: (() => void) | undefined
  const sockets = new Set<Socket>()
  // One proxy per node (the manifest refuses two nodes on one SSH address), each into the sshd.
  const proxies = [0, 1].map(() =>
    createServer((client) => {
      onAccept?.()
      const up = connect(sshd.port, '127.0.0.1')
      sockets.add(client).add(up)
      client.pipe(up).pipe(client)
      const drop = () => {
        client.destroy()
        up.destroy()
      }
      client.on('error', drop).on('close', drop)
      up.on('error', drop).on('close', drop)
    }),
  )
  const ports = await Promise.all(proxies.map((p) => new Promise<number>((r) => p.listen(0, '127.0.0.1', () => r((p.address() as { port: number }).port)))))
  try {
    // The example manifest, every node on the proxy, the loopback sshd's host key pinned.
    const doc = parseDocument(readFileSync('src/manifest/examples/dgx-spark-pair.yml', 'utf8'))
    for (let i = 0; i < 2; i++) {
      doc.setIn(['nodes', i, 'ssh', 'host'], '127.0.0.1')
      doc.setIn(['nodes', i, 'ssh', 'port'], ports[i])
      doc.setIn(['nodes', i, 'ssh', 'hostKeys'], [sshd.hostPublicKey])
    }
    const manifestPath = join(dir, 'manifest.yml')
    writeFileSync(manifestPath, doc.toString())
    const loaded = await loadManifestFile(manifestPath)
    if (!loaded.manifest) throw new Error(`bench manifest invalid: ${loaded.errors.map((e) => e.message).join('; ')}`)
    // As the runner starts it: every input from action.yml, its default unless given; the
    // output and summary files exist.
    for (const f of ['output', 'summary']) writeFileSync(join(dir, f), '')
    const env = {
      ...process.env,
      ...inputEnv({ command: 'preflight', manifest: manifestPath, 'ssh-private-key': sshd.clientKey }),
      GITHUB_OUTPUT: join(dir, 'output'),
      GITHUB_STEP_SUMMARY: join(dir, 'summary'),
      RUNNER_TEMP: dir,
    }
    const toFirstConnection = async (preload?: string): Promise<number> => {
      const started = performance.now()
      const child = spawn(process.execPath, [...(preload ? ['-r', preload] : []), actionEntry], { env, stdio: ['ignore', 'pipe', 'pipe'] })
      let out = ''
      child.stdout!.on('data', (c) => (out += c))
      child.stderr!.on('data', (c) => (out += c))
      try {
        return await new Promise<number>((resolve, reject) => {
          onAccept = () => resolve(performance.now() - started)
          child.on('exit', (code) => reject(new Error(`the action exited (${code}) before connecting: ${out.slice(-400)}`)))
          setTimeout(() => reject(new Error(`no SSH connection within 60 s: ${out.slice(-400)}`)), 60_000).unref()
        })
      } finally {
        onAccept = undefined
        child.kill('SIGKILL')
        await exited(child)
        for (const s of sockets) s.destroy()
        sockets.clear()
      }
    }
    const bare = async (): Promise<number> => {
      const started = performance.now()
      const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' })
      await exited(child)
      return performance.now() - started
    }
    await bare()
    await toFirstConnection()
    const figure: number[] = []
    const baseline: number[] = []
    for (let i = 0; i < runs; i++) {
      baseline.push(await bare())
      figure.push(await toFirstConnection())
    }
    log(`row 6: first connection after ${figure.map((v) => Math.round(v)).join(', ')} ms; node -e '' ${baseline.map((v) => Math.round(v)).join(', ')} ms`)
    // One more, untimed, with the load recorder: which of the bundle's files the process loaded.
    const list = join(dir, 'loaded.txt')
    writeFileSync(join(dir, 'record-loads.cjs'), loadRecorder(list))
    writeFileSync(list, '')
    await toFirstConnection(join(dir, 'record-loads.cjs'))
    const bundleDir = resolve(dirname(actionEntry))
    const loadedFiles = readFileSync(list, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split('\t'))
      .filter(([f]) => dirname(f!) === bundleDir)
    const size = bundleBytes(actionEntry)
    const loadedBytes = loadedFiles.reduce((n, [f]) => n + statSync(f!).size, 0)
    return [
      {
        id: '6a',
        figure: 'Action start-up: `node dist/index.js` (preflight) → first SSH connection',
        value: samples('ms', figure),
        baselineLabel: "`node -e ''`",
        baseline: samples('ms', baseline),
        goal: { kind: 'ratioMax', limit: 2.5 },
        note: `measured with ${actionEntry} (the bundle \`npm run build\` writes to dist/index.js, built from this checkout) against a real loopback sshd`,
      },
      {
        id: '6b',
        figure: 'Action start-up: JavaScript the node process loads',
        value: samples('bytes', [loadedBytes]),
        baselineLabel: `${loadedFiles.length} of the bundle's ${size.files} file(s), ${(size.bytes / 1e6).toFixed(1)} MB in all`,
        goal: { kind: 'none' },
        note: `loaded up to the first connection: ${loadedFiles.map(([f, n]) => `${basename(f!)} (${Math.round(Number(n) / 1024)} KiB)`).join(', ')}`,
      },
    ]
  } finally {
    for (const p of proxies) p.close()
    await sshd.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}
