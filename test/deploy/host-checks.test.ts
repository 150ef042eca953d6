/**
 * Host checks, the pure parts: the node probe's host-mode output (real captures from the lab's
 * nodes in fixtures/, made with hostProbeCmd over the lab's SSH; the broken variants are those
 * captures with the one field a fault changes, as the lab e2e tests show it changing for real)
 * read into facts, and the registry's before-change findings for each way a node was broken.
 */
import { spawnSync } from 'node:child_process'
import { chmodSync, mkdtempSync, readFileSync, rmSync, statfsSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { evaluateHostChecks } from '../../src/deploy/host-checks.js'
import { labManifest } from '../../src/lab/lab-manifest.js'
import { type Manifest, ManifestSchema } from '../../src/manifest/schema.js'
import { hostProbeCmd } from '../../src/plan/host-check-commands.js'
import { RELAY_SSH_OPTIONS } from '../../src/plan/relay-commands.js'
import type { FactsBundle, NodeFacts } from '../../src/preflight/facts.js'
import { nodeFactsFromProbe } from '../../src/preflight/gather/gather.js'
import { probeCommand } from '../../src/probe/probe-command.js'
import type { ProbeOutput } from '../../src/probe/probe-output.js'

type Doc = ProbeOutput & Record<string, unknown>
const capture = (role: 'head' | 'worker'): Doc => JSON.parse(readFileSync(`test/deploy/fixtures/host-probe-${role}-healthy.json`, 'utf8'))

const lab: Manifest = ManifestSchema.parse(
  labManifest({
    nodes: [
      {
        name: 'spark-a',
        role: 'head',
        container: 'c-a',
        hostname: 'spark-a',
        mgmtIp: '172.30.230.12',
        fabricIp: '172.30.200.12',
        mgmtInterface: 'enP7s7',
        fabricInterface: 'enp1s0f0np0',
        sshHost: '172.30.230.12',
        hostKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAG/J+TgkPck8fFI2MHxpi/e5Be1dulNgtC7UoPOiuYl',
        gpus: 1,
      },
      {
        name: 'spark-b',
        role: 'worker',
        container: 'c-b',
        hostname: 'spark-b',
        mgmtIp: '172.30.230.13',
        fabricIp: '172.30.200.13',
        mgmtInterface: 'enP7s7',
        fabricInterface: 'enp1s0f0np0',
        sshHost: '172.30.230.13',
        hostKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEWja8KH0OLBB++G4ClRDeDmIrqJqWLhTvRcQ7hTrGCC',
        gpus: 1,
      },
    ],
    sshUser: 'root',
    sshPort: 22,
    fabricInterface: 'enp1s0f0np0',
    fabricSubnet: '172.30.200.0/24',
    imageRef: '172.30.230.2:5000/vrd-lab/vllm-standin:latest',
  }),
)
const factsOf = (m: Manifest, name: string, doc: Doc): NodeFacts => nodeFactsFromProbe(m.nodes.find((n) => n.name === name)!, JSON.stringify(doc)).facts
const bundle = (m: Manifest, head: Doc, worker: Doc): FactsBundle => ({
  schemaVersion: 1,
  gatheredAt: 'now',
  nodes: [factsOf(m, 'spark-a', head), factsOf(m, 'spark-b', worker)],
})
const codes = (f: { code: string; node: string | null }[]) => f.map((x) => `${x.code}@${x.node}`)
const FABRIC = 'enp1s0f0np0'

/** A capture with one interface changed. */
const withLink = (doc: Doc, name: string, change: (i: Doc['interfaces'][number]) => Doc['interfaces'][number] | undefined): Doc => ({
  ...doc,
  interfaces: doc.interfaces.flatMap((i) => (i.name === name ? [change(i)].filter((x) => x !== undefined) : [i])),
})
const withHost = (doc: Doc, host: Partial<NonNullable<Doc['host']>>): Doc => ({ ...doc, host: { ...doc.host, ...host } })

describe('the host probe', () => {
  it('is the node probe in host mode: no docker exec, relay targets only on the head, values as one JSON argument', () => {
    const head = hostProbeCmd(lab, lab.nodes[0]!, true)
    expect(head.cmd.argv.slice(0, 2)).toEqual(['python3', '-'])
    const args = JSON.parse(head.cmd.argv[2]!)
    expect(args).toMatchObject({ exec: false, ray: false, relay: [{ user: 'root', ip: '172.30.200.13', port: 22 }], sshOptions: RELAY_SSH_OPTIONS })
    expect(JSON.parse(hostProbeCmd(lab, lab.nodes[1]!, true).cmd.argv[2]!).relay).toBeUndefined()
    expect(JSON.parse(hostProbeCmd(lab, lab.nodes[0]!, false).cmd.argv[2]!).relay).toBeUndefined()
    expect(head.stdin).not.toContain('172.30.200.13') // values are arguments, never spliced into the program
  })

  it("run by the real python: each relay target is tried with its own user and port and the relay's ssh options, all at once", () => {
    const dir = mkdtempSync(join(tmpdir(), 'vrd-host-probe-'))
    try {
      // A stub ssh that records its argv (one write per line: the stubs run at once) and waits (up to 8 s, for the event, not a fixed time) until another stub runs beside it,
      // then how many run; run one after the other, each waits out the 8 s and records 1. The second worker refuses.
      writeFileSync(
        join(dir, 'ssh'),
        `#!/bin/sh\necho "$*" >>"${dir}/calls"\ntouch "${dir}/running.$$"; i=0; while [ "$(ls "${dir}" | grep -c '^running')" -lt 2 ] && [ $i -lt 80 ]; do sleep 0.1; i=$((i+1)); done; ls "${dir}" | grep -c '^running' >>"${dir}/overlap"; sleep 0.2; rm -f "${dir}/running.$$"\ncase "$*" in *127.0.0.14*) echo 'ssh: connect to host 127.0.0.14 port 2222: Connection refused' >&2; exit 255;; esac\n`,
      )
      chmodSync(join(dir, 'ssh'), 0o755)
      const worker = lab.nodes[1]!
      const three: Manifest = {
        ...lab,
        // Loopback fabric IPs: the probe pings peers and tries their ports, and tests send nothing off this machine.
        nodes: [
          { ...lab.nodes[0]!, fabricIp: '127.0.0.12' },
          { ...worker, fabricIp: '127.0.0.13' },
          { ...worker, name: 'spark-c', fabricIp: '127.0.0.14', ssh: { ...worker.ssh, host: '172.30.230.14', port: 2222, user: 'ops' } },
        ],
      }
      const probe = hostProbeCmd(three, three.nodes[0]!, true)
      const r = spawnSync(probe.cmd.argv[0]!, probe.cmd.argv.slice(1), {
        input: probe.stdin,
        env: { ...process.env, PATH: `${dir}:${process.env.PATH}` },
        encoding: 'utf8',
        timeout: 60_000,
      })
      expect(r.status).toBe(0)
      const { facts } = nodeFactsFromProbe(three.nodes[0]!, r.stdout)
      expect(facts.host?.relay).toEqual([
        { ip: '127.0.0.13', code: 0, output: '' },
        { ip: '127.0.0.14', code: 255, output: 'ssh: connect to host 127.0.0.14 port 2222: Connection refused' },
      ])
      const opts = RELAY_SSH_OPTIONS.join(' ')
      expect(
        readFileSync(join(dir, 'calls'), 'utf8')
          .trim()
          .split('\n')
          .map((l) => l.trim())
          .sort(),
      ).toEqual([`${opts} -p 22 -l root 127.0.0.13 true`, `${opts} -p 2222 -l ops 127.0.0.14 true`])
      // Both workers' handshakes at once (threads), not one after the other.
      expect(Math.max(...readFileSync(join(dir, 'overlap'), 'utf8').trim().split('\n').map(Number))).toBe(2)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('reads a healthy head captured on the lab into host facts', () => {
    const f = factsOf(lab, 'spark-a', capture('head'))
    expect(f.host).toMatchObject({
      kernel: expect.any(String),
      driverVersion: '580.95.05',
      cudaVersion: '13.0',
      unifiedMemory: true,
      rdmaDevices: [],
      docker: { ok: true, rootDir: '/var/lib/docker', nvidiaHook: '/usr/bin/nvidia-container-runtime-hook', rootFreeBytes: expect.any(Number) },
      relay: [{ ip: '172.30.200.13', code: 0, output: '' }],
    })
    expect(f.interfaces.find((i) => i.name === FABRIC)).toMatchObject({
      flags: expect.arrayContaining(['UP', 'LOWER_UP']),
      mtu: 1500,
      addresses: ['172.30.200.12/24'],
    })
    expect(f.gpus).toEqual([expect.objectContaining({ name: 'NVIDIA GB10', memoryTotalMiB: 122502, memoryFreeMiB: 119808 })])
  })
})

describe("the host checks' findings", () => {
  const healthy = () => bundle(lab, capture('head'), capture('worker'))

  it('a healthy lab gives none, with relay and the image size', () => {
    expect(evaluateHostChecks(lab, healthy(), { relay: true, imageBytes: 500_000_000 })).toEqual([])
  })

  it('a fabric link taken down (ip link set enp1s0f0np0 down on spark-b): FABRIC_LINK_DOWN, and relay SSH fails', () => {
    const worker = withLink(capture('worker'), FABRIC, (i) => ({ ...i, up: false, flags: ['BROADCAST', 'MULTICAST'], operstate: 'down' }))
    const head = withHost(capture('head'), {
      relay: [{ ip: '172.30.200.13', code: 255, output: 'ssh: connect to host 172.30.200.13 port 22: Connection timed out' }],
    })
    const f = evaluateHostChecks(lab, bundle(lab, head, worker), { relay: true })
    expect(codes(f)).toEqual(['FABRIC_LINK_DOWN@spark-b', 'RELAY_SSH_FAILED@spark-a'])
    expect(f[0]).toMatchObject({
      message: 'Fabric interface enp1s0f0np0 on spark-b is administratively down.',
      evidence: { Interface: 'enp1s0f0np0', Flags: 'BROADCAST,MULTICAST', State: 'DOWN' },
      fix: expect.stringContaining('ip link set enp1s0f0np0 up'),
    })
    expect(f[1]).toMatchObject({
      evidence: {
        Command: 'ssh -o BatchMode=yes -p 22 root@172.30.200.13 true (on spark-a)',
        'Exit status': '255',
        Output: expect.stringContaining('Connection timed out'),
      },
      fix: expect.stringContaining("Make spark-b's sshd reachable from spark-a over the fabric at 172.30.200.13:22"),
    })
    // Without relay facts, no SSH check.
    const { relay: _, ...noRelay } = head.host!
    expect(codes(evaluateHostChecks(lab, bundle(lab, { ...head, host: noRelay }, worker), {}))).toEqual(['FABRIC_LINK_DOWN@spark-b'])
  })

  it('the fabric address removed (ip addr del on spark-b): FABRIC_ADDRESS_MISSING with the exact ip addr add', () => {
    const worker = withLink(capture('worker'), FABRIC, (i) => ({ ...i, addresses: [] }))
    const f = evaluateHostChecks(lab, bundle(lab, capture('head'), worker), {})
    expect(codes(f)).toEqual(['FABRIC_ADDRESS_MISSING@spark-b'])
    expect(f[0]).toMatchObject({
      message: 'No interface on spark-b holds its fabric IP 172.30.200.13.',
      evidence: { 'nodes[1].fabricIp': '172.30.200.13', 'enp1s0f0np0 addresses': '(none)' },
      fix: 'Add it on spark-b: ip addr add 172.30.200.13/24 dev enp1s0f0np0 (and make it persistent), or set nodes[1].fabricIp to the address enp1s0f0np0 really has.',
    })
  })

  it('a fabric interface name that does not exist: FABRIC_ADDRESS_MISSING naming the addresses the node has', () => {
    const m: Manifest = { ...lab, fabric: { ...lab.fabric, interfaces: ['enp1s0f1np1'] } }
    const f = evaluateHostChecks(m, bundle(m, capture('head'), capture('worker')), {})
    const b = f.filter((x) => x.node === 'spark-b')
    expect(codes(b)).toEqual(['FABRIC_ADDRESS_MISSING@spark-b'])
    expect(b[0]!.evidence).toMatchObject({
      Result: 'no interface named enp1s0f1np1',
      'spark-b IPv4 addresses': expect.stringContaining('enp1s0f0np0 172.30.200.13/24'),
    })
  })

  it('docker daemon down: DOCKER_UNUSABLE, and no disk check without a data root', () => {
    const error = 'exit 1: Cannot connect to the Docker daemon at unix:///nonexistent.sock. Is the docker daemon running?'
    const worker = { ...withHost(capture('worker'), { docker: { ok: false, missing: false, error } }), container: undefined }
    const f = evaluateHostChecks(lab, bundle(lab, capture('head'), worker), { imageBytes: 1 })
    expect(codes(f)).toEqual(['DOCKER_UNUSABLE@spark-b'])
    expect(f[0]).toMatchObject({
      evidence: { Result: expect.stringContaining('Cannot connect to the Docker daemon') },
      fix: expect.stringContaining('systemctl start docker'),
    })
  })

  it('fewer GPUs than the manifest says: NO_GPU_VISIBLE with the field to change; no nvidia-smi at all: install the driver', () => {
    const m: Manifest = { ...lab, nodes: lab.nodes.map((n) => (n.name === 'spark-b' ? { ...n, gpus: 2 } : n)) }
    const f = evaluateHostChecks(m, bundle(m, capture('head'), capture('worker')), {})
    expect(codes(f)).toEqual(['NO_GPU_VISIBLE@spark-b'])
    expect(f[0]).toMatchObject({
      message: 'Only 1 of the 2 GPUs the manifest expects are visible on spark-b.',
      fix: expect.stringContaining('set nodes[1].gpus to 1'),
    })
    const { driverVersion: _d, cudaVersion: _c, unifiedMemory: _u, ...rest } = capture('worker').host!
    const none: Doc = { ...capture('worker'), gpus: [], host: { ...rest, gpuError: { missing: true, error: 'nvidia-smi: not found' } } }
    const g = evaluateHostChecks(lab, bundle(lab, capture('head'), none), {})
    expect(g.find((x) => x.code === 'NO_GPU_VISIBLE')).toMatchObject({
      message: 'No GPU is visible on spark-b; the manifest expects 1.',
      fix: expect.stringContaining('Install the NVIDIA driver'),
    })
  })

  it("an image larger than the free space under docker's data root: DISK_SPACE_LOW on every node", () => {
    const f = evaluateHostChecks(lab, healthy(), { imageBytes: 100 * 2 ** 40 })
    expect(codes(f)).toEqual(['DISK_SPACE_LOW@spark-a', 'DISK_SPACE_LOW@spark-b'])
    expect(f[0]!.evidence).toMatchObject({ 'Docker data root': '/var/lib/docker', 'Image size': '100.0 TiB (109951162777600 bytes)' })
  })

  it('the release state directory on a full filesystem: DISK_SPACE_LOW naming the node, the directory and the figures; room enough or no figure is no finding', () => {
    const state = '/var/lib/vllm-ray-deploy/lab'
    const dirs = (freeBytes: number, statPath = state) => [{ label: 'release state', path: state, statPath, freeBytes, totalBytes: 16 * 2 ** 20 }]
    const full = withHost(capture('worker'), { dataDirs: dirs(4096) })
    const f = evaluateHostChecks(lab, bundle(lab, capture('head'), full), {})
    expect(codes(f)).toEqual(['DISK_SPACE_LOW@spark-b'])
    expect(f[0]).toMatchObject({
      message: `spark-b has 4.0 KiB (4096 bytes) free for the release state under ${state}, less than the 64.0 MiB (67108864 bytes) a rollout needs there.`,
      evidence: {
        'release state directory': state,
        Free: '4.0 KiB (4096 bytes)',
        'Filesystem size': '16.0 MiB (16777216 bytes)',
        'Needs at least': '64.0 MiB (67108864 bytes)',
      },
      fix: expect.stringContaining(`on the filesystem holding ${state} on spark-b`),
    })
    // Before a first deploy the directory is not there yet: its nearest ancestor's filesystem is measured, and named.
    const fresh = withHost(capture('head'), { dataDirs: dirs(0, '/var/lib') })
    expect(evaluateHostChecks(lab, bundle(lab, fresh, capture('worker')), {})[0]?.evidence).toMatchObject({
      'release state directory': `${state} (not there yet: /var/lib)`,
    })
    expect(evaluateHostChecks(lab, bundle(lab, withHost(capture('head'), { dataDirs: dirs(2 ** 30) }), full), {}).map((x) => x.node)).toEqual(['spark-b'])
    expect(evaluateHostChecks(lab, healthy(), {})).toEqual([])
  })

  it('the host probe asks each node for the free space of the release state directory; run by the real python, it reads the nearest existing directory', () => {
    const args = JSON.parse(hostProbeCmd(lab, lab.nodes[1]!, false).cmd.argv[2]!) as { dataDirs: unknown }
    expect(args.dataDirs).toEqual([{ label: 'release state', path: '/var/lib/vllm-ray-deploy/lab' }])
    const dir = mkdtempSync(join(tmpdir(), 'vrd-data-dir-'))
    try {
      const probe = probeCommand(lab, lab.nodes[1]!, { mode: 'host', dataDirs: [{ label: 'release state', path: join(dir, 'not', 'yet') }] })
      const r = spawnSync(probe.cmd.argv[0]!, probe.cmd.argv.slice(1), { input: probe.stdin, encoding: 'utf8', timeout: 60_000 })
      expect(r.status).toBe(0)
      const [measured] = nodeFactsFromProbe(lab.nodes[1]!, r.stdout).facts.host?.dataDirs ?? []
      const fs = statfsSync(dir)
      expect(measured).toMatchObject({ label: 'release state', path: join(dir, 'not', 'yet'), statPath: dir, totalBytes: fs.blocks * fs.bsize })
      expect(measured!.freeBytes).toBeGreaterThan(0)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('relay SSH refused for an unknown host key names the known_hosts to fix', () => {
    const head = withHost(capture('head'), { relay: [{ ip: '172.30.200.13', code: 255, output: 'Host key verification failed.' }] })
    const f = evaluateHostChecks(lab, bundle(lab, head, capture('worker')), { relay: true })
    expect(f[0]).toMatchObject({
      code: 'RELAY_SSH_FAILED',
      fix: expect.stringContaining("Add spark-b's host key for 172.30.200.13 to ~/.ssh/known_hosts of root on spark-a"),
    })
  })

  it('a node that could not be probed is NODE_UNREACHABLE, the others are still checked', () => {
    const worker = withLink(capture('worker'), FABRIC, (i) => ({ ...i, up: false, flags: ['BROADCAST', 'MULTICAST'], operstate: 'down' }))
    const facts: FactsBundle = {
      ...bundle(lab, capture('head'), worker),
      nodes: [
        {
          node: 'spark-a',
          sshHost: '172.30.230.12',
          ok: false,
          error: 'cannot connect to root@172.30.230.12:22: ECONNREFUSED',
          interfaces: [],
          peers: [],
          gpus: [],
        },
        factsOf(lab, 'spark-b', worker),
      ],
    }
    expect(codes(evaluateHostChecks(lab, facts, {}))).toEqual(['NODE_UNREACHABLE@spark-a', 'FABRIC_LINK_DOWN@spark-b'])
  })
})
