/**
 * The node probe on what a real driver prints. (1) The probe itself, run on an H200 machine
 * (test/fixtures/hardware/h200/node-probe.txt): its document fits the facts schema and says what
 * the other captures there say. (2) The probe run here by the real python3 with an `nvidia-smi` on
 * PATH that prints the H200's real answers (its query columns put in the probe's order), and
 * GB10's `[N/A]` memory: the probe's own parsing of them.
 */
import { spawn, spawnSync } from 'node:child_process'
import { createServer } from 'node:net'
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseManifest } from '../../src/manifest/load-manifest.js'
import { nodeFactsFromProbe } from '../../src/preflight/gather/gather.js'
import { type ProbeOptions, knownHostOf, probeCommand } from '../../src/probe/probe-command.js'
import { runProbeHere } from '../support/probe-here.js'

const H200 = 'test/fixtures/hardware/h200'
/** A capture's output: the lines between its `$ command` line and its `[exit N]` line. */
const output = (name: string) => readFileSync(`${H200}/${name}.txt`, 'utf8').split('\n').slice(1, -2).join('\n')
const { manifest } = parseManifest(readFileSync('src/manifest/examples/dgx-spark-pair.yml', 'utf8'), 'example.yml')
const m = {
  ...manifest!,
  nodes: manifest!.nodes.map((n, i) => ({ ...n, fabricIp: `127.0.0.${12 + i}` })),
  container: { ...manifest!.container, name: `vrd-no-such-${process.pid}` },
}
const head = m.nodes[0]!

describe('the node probe on a real H200', () => {
  it("printed a document of the facts' schema with the driver, CUDA and memory the other captures show", () => {
    const { facts, notes } = nodeFactsFromProbe(head, output('node-probe'))
    expect(facts.ok).toBe(true)
    expect(notes).toEqual(['ip -j addr: ip: not found'])
    const driver = /Kernel Module for x86_64\s+(\S+)/.exec(output('proc-driver-nvidia-version'))?.[1]
    expect(facts.host).toMatchObject({ driverVersion: driver, cudaVersion: '13.0', unifiedMemory: false, rdmaDevices: [], kernel: output('uname-r').trim() })
    expect(facts.gpus).toEqual([expect.objectContaining({ name: 'NVIDIA H200', memoryTotalMiB: 143_771 })])
    // Without iproute2 the kernel's own list still gives each link's MTU; eth0's speed (-1) is unknown, so absent.
    expect(facts.interfaces.find((i) => i.name === 'eth0')).toEqual({ name: 'eth0', up: true, addresses: [], operstate: 'up', mtu: 1400 })
  })
})

describe("the probe's reading of nvidia-smi", () => {
  function probeWith(smi: { query: string; table: string }) {
    const dir = mkdtempSync(join(tmpdir(), 'vrd-smi-'))
    try {
      writeFileSync(join(dir, 'query.txt'), `${smi.query}\n`)
      writeFileSync(join(dir, 'table.txt'), `${smi.table}\n`)
      writeFileSync(join(dir, 'nvidia-smi'), `#!/bin/sh\ncase "$*" in *--query-gpu*) cat "${dir}/query.txt" ;; *) cat "${dir}/table.txt" ;; esac\n`)
      chmodSync(join(dir, 'nvidia-smi'), 0o755)
      const p = probeCommand(m, head)
      const r = runProbeHere(p, dir)
      expect(r.status).toBe(0)
      return nodeFactsFromProbe(head, r.stdout).facts
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }
  // The capture's columns: index, name, uuid, driver_version, memory.total, memory.free, memory.used.
  const [index, name, uuid, driver, total, free] = output('nvidia-smi-query-csv-noheader-nounits').split(', ')

  it("an H200: its memory, the driver from the query, CUDA from nvidia-smi's header; not unified", () => {
    const facts = probeWith({ query: [index, name, uuid, total, free, driver].join(', '), table: output('nvidia-smi') })
    expect(facts.gpus).toEqual([{ index: 0, name: 'NVIDIA H200', uuid, memoryTotalMiB: 143_771, memoryFreeMiB: 143_156 }])
    expect(facts.host).toMatchObject({ cudaVersion: '13.0', unifiedMemory: false })
    expect(facts.host?.driverVersion).toMatch(/^\d+\.\d+/)
  })

  it("a GB10, whose driver reports no memory ([N/A]): unified, with the host's meminfo to go by", () => {
    const facts = probeWith({ query: `0, NVIDIA GB10, ${uuid}, [N/A], [N/A], 580.95.05`, table: output('nvidia-smi') })
    expect(facts.gpus).toEqual([{ index: 0, name: 'NVIDIA GB10', uuid }])
    expect(facts.host).toMatchObject({ unifiedMemory: true, memTotalBytes: expect.any(Number), memAvailableBytes: expect.any(Number) })
  })
})

describe("the probe's kernel-log lines", () => {
  it('keeps the GPU out-of-memory and OOM-killer lines of the window (an hour; 30 s here) when no release runs, not older ones', () => {
    const uptime = Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0])
    const at = (secondsAgo: number) => `[${Math.max(0, uptime - secondsAgo).toFixed(6)}]`
    const old = `${at(300)} NVRM: Out of memory [NV_ERR_NO_MEMORY] (0x00000051) five minutes ago`
    const recent = `${at(2)} NVRM: nvCheckOkFailedNoLog: Check failed: Out of memory [NV_ERR_NO_MEMORY] (0x00000051) returned from _memdescAllocInternal`
    const dir = mkdtempSync(join(tmpdir(), 'vrd-dmesg-'))
    try {
      writeFileSync(join(dir, 'log'), `${old}\n${at(5)} eth0: link up\n${recent}\n`)
      writeFileSync(join(dir, 'dmesg'), `#!/bin/sh\ncat "${dir}/log"\n`)
      chmodSync(join(dir, 'dmesg'), 0o755)
      const p = probeCommand(m, head, { kernelLogWindowSeconds: 30 })
      const r = runProbeHere(p, dir)
      // A 30 s window: the line of five minutes ago is out (it is stamped at boot where this machine
      // booted less than five minutes ago, still outside the window once it has been up a minute).
      const expected = uptime > 60 ? [recent] : [old, recent]
      expect(nodeFactsFromProbe(head, r.stdout).facts.host?.kernelLog).toEqual(expected)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('a later probe of the same rollout (the preflight after the host checks)', () => {
  /** The probe with a docker and an nvidia-smi on PATH that answer with real captures and log every call. */
  function probeLogging(opts: ProbeOptions) {
    const dir = mkdtempSync(join(tmpdir(), 'vrd-known-'))
    try {
      const [index, name, uuid, driver, total, free] = output('nvidia-smi-query-csv-noheader-nounits').split(', ')
      writeFileSync(join(dir, 'query.txt'), `${[index, name, uuid, total, free, driver].join(', ')}\n`)
      writeFileSync(join(dir, 'table.txt'), `${output('nvidia-smi')}\n`)
      writeFileSync(join(dir, 'info.json'), `${readFileSync('test/fixtures/hardware/lab-docker-info-json.txt', 'utf8').split('\n')[1]}\n`)
      const log = `echo "$(basename "$0") $*" >> "${dir}/calls"`
      writeFileSync(join(dir, 'nvidia-smi'), `#!/bin/sh\n${log}\ncase "$*" in *--query-gpu*) cat "${dir}/query.txt" ;; *) cat "${dir}/table.txt" ;; esac\n`)
      // docker info: the lab node's real answer; docker inspect: no such container.
      writeFileSync(join(dir, 'docker'), `#!/bin/sh\n${log}\n[ "$1" = info ] && exec cat "${dir}/info.json"\necho "Error: No such object: $3" >&2; exit 1\n`)
      chmodSync(join(dir, 'nvidia-smi'), 0o755)
      chmodSync(join(dir, 'docker'), 0o755)
      const p = probeCommand(m, head, opts)
      // No dockerd at DOCKER_HOST: the probe asks the (fake) CLI, as on a node whose socket it cannot read.
      const r = runProbeHere(p, dir)
      expect(r.status).toBe(0)
      return {
        facts: nodeFactsFromProbe(head, r.stdout).facts,
        calls: readFileSync(join(dir, 'calls'), 'utf8')
          .trim()
          .split('\n')
          .map((c) => c.trim()),
        cmd: p.cmd,
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }

  it("takes docker's engine, the CUDA version, the NVIDIA tooling and the OOM guards from the host checks: no docker info, one nvidia-smi", () => {
    const first = probeLogging({ mode: 'host' })
    expect(first.calls).toEqual(expect.arrayContaining(['docker info --format {{json .}}', 'nvidia-smi']))
    expect(first.facts.host?.docker).toMatchObject({ ok: true, version: '20.10.24+dfsg1', rootDir: '/var/lib/docker', rootFreeBytes: expect.any(Number) })
    const knownHost = knownHostOf(first.facts)!
    expect(Object.keys(knownHost).sort()).toEqual(['cudaVersion', 'docker', 'nvidiaContainer', 'oomGuards'])

    const later = probeLogging({ knownHost })
    // What a start leaves as it was is not read again; the GPUs (their free memory) and the container are.
    expect(later.calls.filter((c) => c.startsWith('docker info') || c === 'nvidia-smi')).toEqual([])
    expect(later.calls).toEqual(expect.arrayContaining([expect.stringMatching(/^nvidia-smi --query-gpu=/), expect.stringMatching(/^docker inspect /)]))
    const { rootFreeBytes: _a, ...engine } = first.facts.host!.docker!
    expect(later.facts.host?.docker).toEqual({ ...engine, rootFreeBytes: expect.any(Number) })
    expect(later.facts.host).toMatchObject({ cudaVersion: '13.0', nvidiaContainer: first.facts.host!.nvidiaContainer, oomGuards: first.facts.host!.oomGuards })
    expect(later.facts.gpus).toEqual(first.facts.gpus)
    // The command (what `plan` shows) is the same: the known facts travel on stdin.
    expect(later.cmd).toEqual(probeCommand(m, head).cmd)
  })

  it('takes nothing from a node whose host checks failed, and reads docker again where it did not work then', () => {
    expect(knownHostOf(undefined)).toBeUndefined()
    expect(knownHostOf({ node: 'spark-a', ok: false, error: 'unreachable', interfaces: [], peers: [], gpus: [] })).toBeUndefined()
    const broken = {
      node: 'spark-a',
      ok: true,
      interfaces: [],
      peers: [],
      gpus: [],
      host: { cudaVersion: '13.0', docker: { ok: false, error: 'exit 1: permission denied' } },
    }
    expect(knownHostOf(broken)).toEqual({ cudaVersion: '13.0' })
    const later = probeLogging({ knownHost: knownHostOf(broken)! })
    expect(later.calls).toContain('docker info --format {{json .}}')
    expect(later.calls).not.toContain('nvidia-smi')
  })
})

describe("dockerd's socket instead of the docker CLI (issue 40)", () => {
  /** A capture's text after its first (comment) line. */
  const capture = (name: string) => readFileSync(`test/fixtures/hardware/${name}`, 'utf8').split('\n').slice(1).join('\n')
  const cliInfo = capture('lab-docker-cli-info-json.txt')
  const cliInspect = capture('lab-docker-cli-inspect.txt')
  const container = JSON.parse(cliInspect)[0].Name.slice(1) as string

  /**
   * The host probe on a PATH whose `docker` logs its calls and prints the lab node's CLI captures,
   * with DOCKER_HOST at a fake dockerd that answers each GET with the same node's API capture of the
   * same second (`api`: path → capture), or at no dockerd.
   */
  async function probeOn(api: Record<string, string> | undefined, env: Record<string, string> = {}) {
    const dir = mkdtempSync(join(tmpdir(), 'vrd-dockerd-'))
    const sock = join(dir, 'docker.sock')
    const asked: string[] = []
    const server = createServer((c) =>
      c.once('data', (req) => {
        const path = req.toString('latin1').split(' ')[1] ?? ''
        asked.push(path)
        c.end(api?.[path] ?? capture('lab-docker-api-404.txt'))
      }),
    )
    try {
      if (api) await new Promise<void>((ok) => server.listen(sock, ok))
      writeFileSync(join(dir, 'info.json'), cliInfo)
      writeFileSync(join(dir, 'inspect.json'), cliInspect)
      const log = `echo "$(basename "$0") $*" >> "${dir}/calls"`
      writeFileSync(join(dir, 'docker'), `#!/bin/sh\n${log}\n[ "$1" = info ] && exec cat "${dir}/info.json"\nexec cat "${dir}/inspect.json"\n`)
      chmodSync(join(dir, 'docker'), 0o755)
      const p = probeCommand({ ...m, container: { ...m.container, name: container } }, head, { mode: 'host' })
      const child = spawn(p.cmd.argv[0]!, p.cmd.argv.slice(1), {
        env: { ...process.env, PATH: `${dir}:${process.env.PATH}`, DOCKER_HOST: `unix://${sock}`, ...env },
      })
      let stdout = ''
      child.stdout.on('data', (b) => (stdout += b))
      child.stdin.end(p.stdin)
      const code = await new Promise((ok) => child.on('close', ok))
      expect(code).toBe(0)
      const calls = (() => {
        try {
          return readFileSync(join(dir, 'calls'), 'utf8').trim().split('\n')
        } catch {
          return []
        }
      })()
      return { facts: nodeFactsFromProbe(head, stdout).facts, calls, asked }
    } finally {
      server.close()
      rmSync(dir, { recursive: true, force: true })
    }
  }

  it('reads the engine and the container from the socket, no docker CLI started, and finds what the CLI found', async () => {
    const viaApi = await probeOn({ '/info': capture('lab-docker-api-info.txt'), [`/containers/${container}/json`]: capture('lab-docker-api-container.txt') })
    expect(viaApi.asked).toEqual(['/info', `/containers/${container}/json`])
    expect(viaApi.calls).toEqual([])
    const viaCli = await probeOn(undefined)
    expect(viaCli.calls).toEqual(['docker info --format {{json .}}', `docker inspect --type container ${container}`])
    const { rootFreeBytes: _a, ...engine } = viaCli.facts.host!.docker!
    expect(engine).toMatchObject({ ok: true, version: '20.10.24+dfsg1', rootDir: '/var/lib/docker' })
    expect(viaApi.facts.host?.docker).toEqual({ ...engine, rootFreeBytes: expect.any(Number) })
    expect(viaCli.facts.container).toMatchObject({ name: container, running: true, imageId: expect.stringMatching(/^sha256:/) })
    expect(viaApi.facts.container).toEqual(viaCli.facts.container)
  })

  it('a container the daemon does not have (404) is no container, as the CLI\'s "No such container"', async () => {
    const r = await probeOn({ '/info': capture('lab-docker-api-info.txt') })
    expect(r.calls).toEqual([])
    expect(r.facts.container).toBeUndefined()
  })

  it('asks the CLI where it would ask another daemon: a docker context, a DOCKER_HOST that is not a unix socket', async () => {
    const api = { '/info': capture('lab-docker-api-info.txt'), [`/containers/${container}/json`]: capture('lab-docker-api-container.txt') }
    const config = mkdtempSync(join(tmpdir(), 'vrd-docker-config-'))
    writeFileSync(join(config, 'config.json'), JSON.stringify({ auths: {}, currentContext: 'remote' }))
    try {
      for (const env of [{ DOCKER_CONTEXT: 'remote' }, { DOCKER_CONFIG: config }] as Record<string, string>[]) {
        const r = await probeOn(api, env)
        expect(r.asked).toEqual([])
        expect(r.calls).toEqual(['docker info --format {{json .}}', `docker inspect --type container ${container}`])
      }
    } finally {
      rmSync(config, { recursive: true, force: true })
    }
    const tcp = await probeOn(undefined, { DOCKER_HOST: 'tcp://127.0.0.1:1' })
    expect(tcp.calls).toEqual(['docker info --format {{json .}}', `docker inspect --type container ${container}`])
  })
})

describe('route lookups: one ip for every peer (issue 40)', () => {
  const FIXTURE = 'test/fixtures/hardware/lab-ip-batch-route-get.txt'
  const realIp = spawnSync('sh', ['-c', 'command -v ip'], { encoding: 'utf8' }).stdout.trim()
  const peers = ['172.30.204.12', '10.99.0.1', '172.30.204.14']
  const four = {
    ...m,
    nodes: [{ ...head, fabricIp: '172.30.204.13' }, ...peers.map((ip, i) => ({ ...m.nodes[1]!, name: `spark-${'bcd'[i]}`, fabricIp: ip }))],
  }

  /**
   * The host probe of a node with three peers, on a PATH whose `ip` answers route lookups with the
   * lab capture (the batch's lines, or each lookup's own line; `batch: false` is an ip whose batch
   * mode fails, as one without -force would) and whose `ping` answers; `ip -j addr` is the real one.
   */
  function probeRoutes(batch: boolean) {
    const dir = mkdtempSync(join(tmpdir(), 'vrd-ip-'))
    try {
      const log = `echo "$(basename "$0") $*" >> "${dir}/calls"`
      writeFileSync(
        join(dir, 'ip'),
        [
          '#!/bin/sh',
          log,
          'case "$*" in',
          `  "-j -force -batch -") cat >/dev/null; ${batch ? `sed -n '3,5p' ${FIXTURE}; sed -n '7,8p' ${FIXTURE} >&2; exit 1` : 'echo "Option \\"-force\\" is unknown" >&2; exit 255'} ;;`,
          `  "-j route get 10.99.0.1") sed -n '12p' ${FIXTURE} >&2; exit 2 ;;`,
          `  "-j route get "*) grep -F "\\"dst\\":\\"$4\\"" ${FIXTURE} | head -1 ;;`,
          `  *) exec ${realIp} "$@" ;;`,
          'esac',
          '',
        ].join('\n'),
      )
      writeFileSync(join(dir, 'ping'), `#!/bin/sh\n${log}\necho "1 packets transmitted, 1 received"\n`)
      chmodSync(join(dir, 'ip'), 0o755)
      chmodSync(join(dir, 'ping'), 0o755)
      const p = probeCommand(four, four.nodes[0]!, { mode: 'host' })
      const r = runProbeHere(p, dir)
      expect(r.status).toBe(0)
      const calls = readFileSync(join(dir, 'calls'), 'utf8').trim().split('\n')
      return { facts: nodeFactsFromProbe(four.nodes[0]!, r.stdout).facts, calls }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }

  it('asks once for the default route and every peer; the peer ip could not route is asked alone, for its own error', () => {
    const { facts, calls } = probeRoutes(true)
    expect(calls.filter((c) => c.startsWith('ip ') && c !== 'ip -j addr')).toEqual(['ip -j -force -batch -', 'ip -j route get 10.99.0.1'])
    expect(facts.defaultRoute).toEqual({ to: '8.8.8.8', dev: 'enP7s7', src: '172.30.234.13', via: '172.30.234.1' })
    expect(facts.peers.map((p) => [p.ip, p.route, p.reachable])).toEqual([
      ['172.30.204.12', { to: '172.30.204.12', dev: 'enp1s0f0np0', src: '172.30.204.13' }, true],
      ['10.99.0.1', { to: '10.99.0.1', error: 'RTNETLINK answers: No route to host' }, undefined],
      ['172.30.204.14', { to: '172.30.204.14', dev: 'enp1s0f0np0', src: '172.30.204.13' }, true],
    ])
    // Pings only where a route was found, as before.
    expect(calls.filter((c) => c.startsWith('ping '))).toEqual(['ping -n -c 1 -W 2 172.30.204.12', 'ping -n -c 1 -W 2 172.30.204.14'])
  })

  it('an ip whose batch fails gives the same facts from one lookup per target', () => {
    const batched = probeRoutes(true)
    const single = probeRoutes(false)
    expect(single.calls.filter((c) => c.startsWith('ip -j route get'))).toHaveLength(4)
    expect(single.facts.defaultRoute).toEqual(batched.facts.defaultRoute)
    expect(single.facts.peers).toEqual(batched.facts.peers)
  })
})
