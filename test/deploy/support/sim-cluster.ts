/**
 * A recording transport over simulated nodes, for the rollout's stages and failure paths without
 * Docker. Every command is recorded as the node's shell would run it (rendered once by the real
 * renderer). The state commands (lock, release files, checksums, current/previous, prune, audit)
 * run for real in a per-node temporary directory standing in for /var/lib/vllm-ray-deploy, with a
 * `docker` on PATH that answers `inspect` from the simulated container; what needs a real Docker,
 * Ray or vLLM (image pull and inspect, start.sh, serve.sh, Ray waits, the probes) is answered here
 * from the simulated state. The node probe (src/probe/node-probe.ts) is answered in both its modes
 * in its own document (ProbeOutputSchema): the host as the lab captured it in
 * ../fixtures/host-probe-<role>-healthy.json, the container as the sim holds it.
 */
import { spawn } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { type Cmd, render } from '../../../src/command/shell.js'
import { labManifest } from '../../../src/lab/lab-manifest.js'
import { type Manifest, ManifestSchema } from '../../../src/manifest/schema.js'
import { NODE_STATE_DIR } from '../../../src/plan/node-commands.js'
import { IMAGE_CONTENTS_PY } from '../../../src/probe/image-contents-probe.js'
import { COLLECTIVE_MARK, COLLECTIVE_PY, type CollectiveArgs, STDLIB_MAX_BYTES } from '../../../src/probe/collective-program.js'
import { FREE_PORT_PY } from '../../../src/plan/collective-commands.js'
import { TEARDOWN_LEFT, TEARDOWN_PY } from '../../../src/plan/teardown-commands.js'
import { killEngineCmd, memorySampleCmd } from '../../../src/plan/memory-watch-commands.js'
import type { ProbeOutput } from '../../../src/probe/node-facts.js'
import { PROBE_PROGRAM } from '../../../src/probe/probe-command.js'
import type { RolloutOptions } from '../../../src/deploy/rollout-types.js'
import type { SmokeGate } from '../../../src/deploy/smoke-seam.js'
import type { RunOptions, RunResult, Transport } from '../../../src/transport/transport.js'

export const LAB_NODES = [
  { name: 'spark-a', role: 'head', fabricIp: '172.30.200.12', mgmtIp: '172.30.230.12' },
  { name: 'spark-b', role: 'worker', fabricIp: '172.30.200.13', mgmtIp: '172.30.230.13' },
] as const

/** The lab's manifest (two nodes, image pulled), as `lab up` writes it; `patch` changes it. */
export function simManifest(patch: (doc: Record<string, unknown>) => void = () => {}): Manifest {
  const doc = labManifest({
    nodes: LAB_NODES.map((n) => ({
      name: n.name,
      role: n.role,
      container: `c-${n.name}`,
      hostname: n.name,
      mgmtIp: n.mgmtIp,
      fabricIp: n.fabricIp,
      mgmtInterface: 'enP7s7',
      fabricInterface: 'enp1s0f0np0',
      sshHost: n.mgmtIp,
      hostKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAG/J+TgkPck8fFI2MHxpi/e5Be1dulNgtC7UoPOiuYl',
      gpus: 1,
    })),
    sshUser: 'root',
    sshPort: 22,
    fabricInterface: 'enp1s0f0np0',
    fabricSubnet: '172.30.200.0/24',
    imageRef: '172.30.230.2:5000/vrd-lab/vllm-standin:latest',
  })
  patch(doc)
  return ManifestSchema.parse(doc)
}

const FAKE_DOCKER = `#!/bin/sh
# docker inspect --format FORMAT NAME: the simulated container ($SIM_DIR/container), else exit 1.
[ "$1" = inspect ] || [ "$1 $2" = "container inspect" ] || exit 0
[ -f "$SIM_DIR/container" ] || { echo "Error: No such object" >&2; exit 1; }
case "$*" in *State.Running*) cat "$SIM_DIR/container" ;; *) cut -d' ' -f1 "$SIM_DIR/container" ;; esac
`

export interface Fault {
  readonly node?: string
  /** Matched against the rendered command. */
  readonly when: RegExp
  readonly result?: Partial<RunResult>
  /** Only the first `times` matches fail (default: every one). */
  times?: number
}

interface SimNode {
  readonly name: string
  readonly role: string
  readonly dir: string
  readonly images: Map<string, string>
  container?: { id: string; running: boolean; imageId: string; release: string }
  vllm: boolean
}

/** A real capture with room: this project's build machine, 24 GB, PSI idle. */
const ROOMY_MEMORY = ['meminfo-x86-24g-noswap.txt', 'psi-idle.txt']
  .map((f) => readFileSync(join(import.meta.dirname, '..', '..', 'preflight', 'fixtures', 'memory', f), 'utf8'))
  .join('')

/** Whether `cmd` runs the argv word `word` anywhere in it (a sequence's parts included). */
const hasArgv = (cmd: Cmd, word: string): boolean =>
  cmd.kind === 'argv' ? cmd.argv.includes(word) : cmd.kind === 'seq' ? cmd.cmds.some((c) => hasArgv(c, word)) : false

const ok = (stdout = '', code = 0, stderr = ''): RunResult => ({ code, signal: null, stdout, stderr, durationMs: 1, timedOut: false })

async function text(stdin: RunOptions['stdin']): Promise<string | undefined> {
  if (stdin === undefined || typeof stdin === 'string') return stdin
  const chunks: Buffer[] = []
  for await (const c of stdin as Readable) chunks.push(Buffer.from(c))
  return Buffer.concat(chunks).toString('utf8')
}

export class SimCluster {
  readonly root = mkdtempSync(join(tmpdir(), 'vrd-sim-'))
  /** Every command each node was asked to run, in order. */
  /** Every command run, in order; `faulted`: a fault answered it (it failed without running). */
  /** Every command run; `knownHost`: the facts probe came with host facts taken as given (KNOWN_HOST before the program). */
  readonly log: { node: string; command: string; faulted?: boolean; knownHost?: unknown }[] = []
  readonly faults: Fault[] = []
  /** Nodes whose connection is gone: every command ends without an exit status, as SSH's does. */
  readonly unreachable = new Set<string>()
  private readonly nodes = new Map<string, SimNode>()
  private containers = 0
  /** The image ID a pull gives. */
  imageId = `sha256:${'a'.repeat(64)}`
  /** What the facts probe prints on a node (healthy by default). */
  probe: (node: string) => string = (node) => healthyProbe(node, this.imageId)
  /** What the image-contents probe prints (`docker run --rm … IMAGE -c PROGRAM`): the lab stand-in's contents by default. */
  imageContents: string = JSON.stringify(STANDIN_CONTENTS)
  /** What a rank of the fabric collective prints: the stdlib path's line of a healthy run by default (its bytes as the program caps them). */
  collective: (node: string, args: CollectiveArgs) => string = (_node, a) =>
    `${COLLECTIVE_MARK}${JSON.stringify({ ok: true, backend: 'tcp', impl: 'stdlib', bytes: Math.floor(Math.min(a.bytes, STDLIB_MAX_BYTES) / (4 * a.world)) * 4 * a.world, iters: a.iters, seconds: 0.01, algbwGBps: 0.4, busbwGBps: 0.4, rank: a.rank, world: a.world })}\n`
  /** vllm serve answers /health once started. */
  vllmComesUp = true
  /** The host part of a node's host-mode probe: the lab's capture by default, changed here to break a host. */
  hostFacts: (node: string, host: NonNullable<ProbeOutput['host']>) => NonNullable<ProbeOutput['host']> = (_node, host) => host
  /**
   * What the memory watchdog's read (`cat /proc/meminfo /proc/pressure/memory`) prints on a node: a
   * real capture with room (test/preflight/fixtures/memory) by default. A test sets a node short.
   */
  memory: (node: string) => string = () => ROOMY_MEMORY

  constructor(readonly manifest: Manifest) {
    const bin = join(this.root, 'bin')
    mkdirSync(bin)
    writeFileSync(join(bin, 'docker'), FAKE_DOCKER)
    chmodSync(join(bin, 'docker'), 0o755)
    for (const n of manifest.nodes) {
      const dir = join(this.root, n.name)
      mkdirSync(join(dir, 'state'), { recursive: true })
      this.nodes.set(n.name, { name: n.name, role: n.role, dir, images: new Map(), vllm: false })
    }
  }

  cleanup(): void {
    rmSync(this.root, { recursive: true, force: true })
  }

  fail(fault: Fault): this {
    this.faults.push(fault)
    return this
  }

  transports(): Map<string, Transport> {
    return new Map([...this.nodes.keys()].map((name) => [name, this.transport(name)]))
  }

  /** The commands a node ran whose text matches. */
  ran(node: string, what: RegExp): string[] {
    return this.log.filter((l) => l.node === node && what.test(l.command)).map((l) => l.command)
  }

  node(name: string): SimNode {
    return this.nodes.get(name)!
  }

  stateDir(name: string): string {
    return join(this.node(name).dir, 'state', this.manifest.cluster)
  }

  /** Run a shell line on the node's simulated disk. */
  sh(name: string, line: string): Promise<RunResult> {
    return this.realSh(this.node(name), line, undefined)
  }

  private transport(name: string): Transport {
    return {
      label: `${name} (sim)`,
      run: async (cmd: Cmd, opts: RunOptions) => {
        const command = render(cmd)
        const entry: (typeof this.log)[number] = { node: name, command }
        this.log.push(entry)
        const stdin = await text(opts.stdin)
        const known = stdin?.endsWith(PROBE_PROGRAM) ? /^KNOWN_HOST = __import__\("json"\)\.loads\((".*")\)\n/.exec(stdin)?.[1] : undefined
        if (known) entry.knownHost = JSON.parse(JSON.parse(known))
        if (this.unreachable.has(name)) {
          entry.faulted = true
          return { ...ok('', 0, 'Not connected to server\n'), code: null }
        }
        const fault = this.faults.find((f) => (f.node === undefined || f.node === name) && f.when.test(command) && (f.times ?? 1) > 0)
        if (fault) {
          entry.faulted = true
          if (fault.times !== undefined) fault.times--
          return { ...ok('', 1, 'simulated failure'), ...fault.result }
        }
        return this.answer(this.node(name), command, stdin, cmd)
      },
      close: async () => {},
    }
  }

  /**
   * Processes the verified teardown finds on a node, per node: `ours` is the release current names
   * (killed unless `stays`, as a supervisor would restart it); otherwise another process on the GPU.
   */
  readonly leftovers = new Map<string, { pid: number; command: string; ours: boolean; stays?: boolean; gpuMiB?: string }[]>()

  private async teardown(n: SimNode): Promise<RunResult> {
    const current = await this.realSh(n, `readlink ${NODE_STATE_DIR}/${this.manifest.cluster}/current || true`, undefined)
    const release = current.stdout.trim().split('/').pop() ?? ''
    const all = this.leftovers.get(n.name) ?? []
    const left = all.filter((p) => !p.ours || p.stays).map(({ stays: _, ...p }) => p)
    const killed = all.filter((p) => p.ours && !p.stays).map((p) => ({ pid: p.pid, command: p.command }))
    this.leftovers.set(
      n.name,
      all.filter((p) => !p.ours || p.stays),
    )
    const doc = {
      release,
      containers: [],
      killed,
      left,
      memAvailableBytes: 100 * 2 ** 30,
      waitedSeconds: left.length > 0 ? this.manifest.deploy.teardownTimeoutSeconds : 0,
    }
    return ok(`${JSON.stringify(doc)}\n`, left.length > 0 ? TEARDOWN_LEFT : 0)
  }

  private setContainer(n: SimNode, c: SimNode['container']): void {
    n.container = c
    const file = join(n.dir, 'container')
    if (c) writeFileSync(file, `${c.id} ${c.running} 2026-12-04T00:00:00Z ${c.imageId} ${c.release}\n`)
    else rmSync(file, { force: true })
  }

  private async answer(n: SimNode, command: string, stdin: string | undefined, cmd: Cmd): Promise<RunResult> {
    const ref = this.manifest.image.ref
    if (stdin?.endsWith(PROBE_PROGRAM)) {
      // `python3 - <args-json>` (src/probe/probe-command.ts): `exec` false is the host checks' mode.
      const args = JSON.parse(cmd.kind === 'argv' ? cmd.argv[2]! : '{}') as ProbeArgs
      return ok(args.exec ? this.probe(n.name) : JSON.stringify(this.hostProbe(n, args)))
    }
    if (/\bdocker run --rm\b/.test(command) && command.includes(IMAGE_CONTENTS_PY.split('\n')[0]!)) return ok(this.imageContents)
    if (cmd.kind === 'argv' && cmd.argv.includes(FREE_PORT_PY)) return ok('40123\n')
    // The verified teardown scans the host's /proc: never on this machine. The sim answers with the node's leftovers,
    // after the container's removal that the same command runs first (stop-previous: one command per node).
    if (hasArgv(cmd, TEARDOWN_PY)) {
      if (command.includes('docker rm -f')) {
        this.setContainer(n, undefined)
        n.vllm = false
      }
      return this.teardown(n)
    }
    if (cmd.kind === 'argv' && cmd.argv.includes(COLLECTIVE_PY)) return ok(this.collective(n.name, JSON.parse(cmd.argv.at(-1)!) as CollectiveArgs))
    if (command === render(memorySampleCmd())) return ok(this.memory(n.name))
    if (command === render(killEngineCmd(this.manifest))) {
      if (n.container) this.setContainer(n, { ...n.container, running: false })
      n.vllm = false
      return ok(n.container ? `${this.manifest.container.name}\n` : '', n.container ? 0 : 1)
    }
    if (command.includes('@@ready')) return ok(n.vllm ? '@@ready\n@@log\nINFO Application startup complete.\n' : '@@exited\n@@log\nRuntimeError: engine died\n')
    if (command.startsWith('docker image inspect')) {
      const id = n.images.get(ref) ?? [...n.images.values()].find((v) => command.includes(v))
      return id ? ok(`${id}\n`) : ok('', 1, `Error: No such image: ${ref}`)
    }
    if (command.startsWith('docker pull')) {
      const had = n.images.get(ref) === this.imageId
      n.images.set(ref, this.imageId)
      // docker pull's own last line.
      return ok(had ? `Status: Image is up to date for ${ref}\n` : `Status: Downloaded newer image for ${ref}\n`)
    }
    if (command.includes('docker rm -f')) {
      this.setContainer(n, undefined)
      n.vllm = false
      return ok()
    }
    const started = /^sh \S+\/releases\/([\w.-]+)\/(start|serve)\.sh$/.exec(command)
    if (started?.[2] === 'start') {
      this.setContainer(n, { id: `c${++this.containers}`, running: true, imageId: this.imageId, release: started[1]! })
      return ok()
    }
    if (started?.[2] === 'serve') {
      n.vllm = this.vllmComesUp
      return ok()
    }
    if (command.includes('ray status') || command.includes('ray.nodes')) return ok()
    if (command.startsWith('curl')) return n.vllm ? ok('') : ok('', 7, 'curl: (7) Failed to connect')
    return this.realSh(n, command, stdin)
  }

  /**
   * The probe in its host mode on a healthy node: the lab's capture of the host, the ports and the
   * head's relay SSH the arguments ask for, and the container as `docker inspect` shows it (no
   * `docker exec`, so no versions or vLLM IP): `null` when there is none, as docker answers.
   */
  private hostProbe(n: SimNode, args: ProbeArgs): ProbeOutput {
    const doc = hostCapture(n.name)
    const captured = new Map(doc.ports?.map((p) => [`${p.ip}:${p.port}`, p.state]))
    const { relay: _, ...host } = doc.host ?? {}
    const c = n.container
    return {
      ...doc,
      host: { ...this.hostFacts(n.name, host), ...(args.relay && { relay: args.relay.map((t) => ({ ip: t.ip, code: 0, output: '' })) }) },
      // Nothing listens before Ray is up, so the host answers with a reset.
      ports: args.ports.map((p) => ({ ...p, state: captured.get(`${p.ip}:${p.port}`) ?? 'refused' })),
      container: c
        ? { name: args.container, running: c.running, imageRef: this.manifest.image.ref, imageId: c.imageId, env: labEnv(n.name), versions: {} }
        : null,
    }
  }

  private realSh(n: SimNode, command: string, stdin: string | undefined): Promise<RunResult> {
    const line = command.split(NODE_STATE_DIR).join(join(n.dir, 'state'))
    return new Promise((resolve) => {
      const child = spawn('sh', ['-c', line], {
        env: { ...process.env, PATH: `${join(this.root, 'bin')}:${process.env.PATH}`, SIM_DIR: n.dir },
        stdio: ['pipe', 'pipe', 'pipe'],
      })
      let out = ''
      let err = ''
      child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c))
      child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c))
      child.on('close', (code) => resolve(ok(out, code ?? 1, err)))
      // A command that does not read its stdin may exit before it is written.
      child.stdin.on('error', () => {})
      child.stdin.end(stdin ?? '')
    })
  }
}

/** The node probe's arguments (src/probe/probe-command.ts), as the sim reads them off its command. */
interface ProbeArgs {
  readonly container: string
  readonly exec: boolean
  readonly ray: boolean
  readonly ports: readonly { peer: string; ip: string; port: number; purpose: string }[]
  readonly relay?: readonly { user: string; ip: string; port: number }[]
}

/** The host probe as the lab printed it on this node's role (test/deploy/fixtures/host-probe-<role>-healthy.json). */
export function hostCapture(node: string): ProbeOutput {
  const me = LAB_NODES.find((n) => n.name === node)!
  return JSON.parse(readFileSync(`test/deploy/fixtures/host-probe-${me.role}-healthy.json`, 'utf8')) as ProbeOutput
}

/** The container's networking environment the lab's releases set (start.sh's --env). */
function labEnv(node: string): Record<string, string> {
  const me = LAB_NODES.find((n) => n.name === node)!
  return { VLLM_HOST_IP: me.fabricIp, NCCL_SOCKET_IFNAME: 'enp1s0f0np0', GLOO_SOCKET_IFNAME: 'enp1s0f0np0' }
}

/**
 * The facts probe's answer (its full mode: the preflight) on a healthy lab node with the release
 * running: the host as the lab captured it, the container as docker inspect and `docker exec` give it
 * (vLLM's IP `vllmIp`, else the fabric IP from VLLM_HOST_IP), and on the head Ray's `ray.nodes()`.
 */
export function healthyProbe(node: string, imageId: string, vllmIp?: string): string {
  const me = LAB_NODES.find((n) => n.name === node)!
  const { relay: _, ...host } = hostCapture(node).host ?? {}
  const doc: ProbeOutput = {
    ...hostCapture(node),
    host,
    container: {
      name: 'vllm-ray',
      running: true,
      imageRef: '172.30.230.2:5000/vrd-lab/vllm-standin:latest',
      imageId,
      // vLLM's rule: VLLM_HOST_IP when set, so a wrong vLLM IP is a wrong VLLM_HOST_IP.
      env: { ...labEnv(node), VLLM_HOST_IP: vllmIp ?? me.fabricIp },
      versions: { python: '3.12.3', ray: '2.55.1', vllm: '0.17.1' },
      vllmIp: vllmIp ?? me.fabricIp,
      vllmIpSource: 'VLLM_HOST_IP',
      rayNodeIp: me.fabricIp,
    },
  }
  if (me.role !== 'head') return JSON.stringify(doc)
  return JSON.stringify({
    ...doc,
    rayNodes: LAB_NODES.map((n) => ({
      NodeID: n.name,
      Alive: true,
      NodeManagerAddress: n.fabricIp,
      Resources: { GPU: 1, [`node:${n.fabricIp}`]: 1, ...(n.role === 'head' && { 'node:__internal_head__': 1 }) },
    })),
  })
}

/** The image-contents probe's answer in the lab's stand-in image, as the lab printed it (image-contents.e2e.test.ts, 2026-12-04). */
export const STANDIN_CONTENTS = {
  probe: 'image-contents/1',
  python: '3.11.2',
  executable: '/opt/venv/bin/python3',
  ray: { module: true, version: '2.55.1', cli: '/opt/venv/bin/ray' },
  vllm: { module: true, version: '0.17.0+standin', cli: '/opt/venv/bin/vllm' },
  torch: { version: null, nccl: null },
}

/** A smoke gate that passes (the rollout tests that are about other stages). */
export const PASSING_SMOKE: SmokeGate = async () => ({ ok: true, findings: [], text: 'smoke passed', outputs: { verdict: 'passed' }, summary: '' })

/** A rollout of `release` over the sim's cluster with a passing smoke gate; `extra` overrides any option. */
export const simRolloutOptions = (s: SimCluster, release: string, extra: Partial<RolloutOptions> = {}): RolloutOptions => ({
  manifest: s.manifest,
  manifestPath: '/nonexistent/manifest.yml',
  transports: s.transports(),
  env: {},
  release,
  who: 'test',
  smoke: PASSING_SMOKE,
  ...extra,
})
