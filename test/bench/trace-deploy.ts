/**
 * A deploy on the lab with every command over the transport traced (issue 40's rows 2 and 3, by
 * hand): `node trace.js MANIFEST RELEASE [--force] [--quiet]` (the lab's key, or VRD_SSH_KEY_FILE); prints the stages' times, then every
 * command: node, stage, start and end (ms from the deploy's start), its first words; and forwarded
 * TCP connections. Bundled with ncc: `ncc build test/bench/trace-deploy.ts -o DIR`.
 */
import { performance } from 'node:perf_hooks'
import type { Manifest, ManifestNode } from '../../src/manifest/schema.js'
import type { Result } from '../../src/result/result.js'
import { render } from '../../src/command/shell.js'
import { SshTransport } from '../../src/transport/ssh.js'
import { sshTargetFor } from '../../src/transport/targets.js'
import type { RunOptions, RunResult, Transport } from '../../src/transport/transport.js'
import type { Cmd } from '../../src/command/shell.js'
import { deployTask } from '../../src/tasks/deploy-task.js'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { resolveLabDir } from '../support/lab.js'

const [path, release, ...rest] = process.argv.slice(2)
const t0 = performance.now()
const now = () => Math.round(performance.now() - t0)
const live: string[] = []
const rows: string[] = []
const stages: string[] = []
const open = new Map<string, number>()

class Tracing implements Transport {
  readonly forwardTcp?: Transport['forwardTcp']
  constructor(
    private readonly inner: Transport,
    private readonly node: string,
  ) {
    if (inner.forwardTcp)
      this.forwardTcp = async (host, port) => {
        const a = now()
        const r = await inner.forwardTcp!(host, port)
        rows.push(
          `${String(a).padStart(6)} ${String(now()).padStart(6)} ${this.node.padEnd(8)} ${(live[live.length - 1] ?? '-').padEnd(14)} forwardTcp ${host}:${port}`,
        )
        return r
      }
  }
  get label(): string {
    return this.inner.label
  }
  async run(cmd: Cmd, opts: RunOptions): Promise<RunResult> {
    const a = now()
    const stage = live[live.length - 1] ?? '-'
    try {
      return await this.inner.run(cmd, opts)
    } finally {
      const text = render(cmd).replace(/\s+/g, ' ')
      rows.push(`${String(a).padStart(6)} ${String(now()).padStart(6)} ${this.node.padEnd(8)} ${stage.padEnd(14)} ${text.slice(0, 150)}`)
    }
  }
  close(): Promise<void> {
    return this.inner.close()
  }
}

async function main(): Promise<void> {
  const key = readFileSync(process.env.VRD_SSH_KEY_FILE ?? join(resolveLabDir(), 'id_ed25519'), 'utf8')
  const credentials = { privateKey: key }
  const connect = async (m: Manifest, node: ManifestNode): Promise<Result<Transport>> => {
    const a = now()
    const r = await SshTransport.connect(sshTargetFor(m, node, credentials as never))
    rows.push(`${String(a).padStart(6)} ${String(now()).padStart(6)} ${node.name.padEnd(8)} ${'-'.padEnd(14)} (connect)`)
    return r.ok ? { ok: true, value: new Tracing(r.value, node.name) } : r
  }
  const cpu = process.cpuUsage()
  const out = await deployTask(path!, {
    credentials: credentials as never,
    connect,
    env: process.env,
    release: release!,
    ...(rest.includes('--force') && { force: true }),
    onStage: (stage, event) => {
      if (event === 'start') {
        live.push(stage)
        open.set(stage, now())
      } else {
        const i = live.lastIndexOf(stage)
        if (i >= 0) live.splice(i, 1)
        stages.push(`${stage} ${open.get(stage)}–${now()} (${now() - (open.get(stage) ?? 0)} ms)`)
      }
    },
  })
  const total = now()
  const used = process.cpuUsage(cpu)
  console.log(`${out.headline}\ntotal ${total} ms, CPU ${Math.round((used.user + used.system) / 1000)} ms`)
  console.log(`stages: ${stages.join(', ')}`)
  if (!rest.includes('--quiet')) for (const r of rows.sort()) console.log(r)
  console.log(`commands: ${rows.length}`)
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e)
    process.exit(3)
  },
)
