/**
 * Host checks, the pure parts: the probe's output (real captures from the lab's nodes in
 * fixtures/) read by the parser, and the evaluator's findings for each way a node was broken.
 */
import { spawnSync } from 'node:child_process'
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { evaluateHostChecks, parseHostProbe } from '../../src/deploy/host-checks.js'
import { labManifest } from '../../src/lab/manifest.js'
import { type Manifest, ManifestSchema } from '../../src/manifest/schema.js'
import { render } from '../../src/command/shell.js'
import { hostProbeCmd } from '../../src/plan/host-check-commands.js'
import { RELAY_SSH_OPTIONS } from '../../src/plan/relay-commands.js'

const fixture = (name: string) => readFileSync(`test/deploy/fixtures/host-probe-${name}.txt`, 'utf8')
const probe = (name: string) => parseHostProbe(fixture(name))

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
const results = (a: string, b: string) => [
  { node: 'spark-a', probe: probe(a) },
  { node: 'spark-b', probe: probe(b) },
]
const codes = (f: { code: string; node: string | null }[]) => f.map((x) => `${x.code}@${x.node}`)

describe('the host probe', () => {
  it('is one fixed script with the values as positional arguments; relay targets only on the head', () => {
    const head = hostProbeCmd(lab, lab.nodes[0]!, true)
    expect(head.argv.slice(0, 2)).toEqual(['sh', '-c'])
    expect(head.argv.slice(3)).toEqual(['sh', '1', 'enp1s0f0np0', '1', 'root', '172.30.200.13', '22', ...RELAY_SSH_OPTIONS])
    expect(hostProbeCmd(lab, lab.nodes[1]!, true).argv.slice(3)).toEqual(['sh', '1', 'enp1s0f0np0', '0'])
    expect(hostProbeCmd(lab, lab.nodes[0]!, false).argv.slice(3)).toEqual(['sh', '1', 'enp1s0f0np0', '0'])
    expect(render(head)).not.toContain('172.30.200.13 22 true') // values are arguments, never spliced into the script
  })

  it("run by the real sh: each relay target is tried with its own user and port and the relay's ssh options", () => {
    const dir = mkdtempSync(join(tmpdir(), 'vrd-host-probe-'))
    try {
      // A stub ssh that records its argv; the second worker refuses.
      writeFileSync(
        join(dir, 'ssh'),
        `#!/bin/sh\nprintf '%s ' "$@" >>"${dir}/calls"; echo >>"${dir}/calls"\ncase "$*" in *172.30.200.14*) echo 'ssh: connect to host 172.30.200.14 port 2222: Connection refused' >&2; exit 255;; esac\n`,
      )
      chmodSync(join(dir, 'ssh'), 0o755)
      const worker = lab.nodes[1]!
      const three: Manifest = {
        ...lab,
        nodes: [
          ...lab.nodes,
          { ...worker, name: 'spark-c', fabricIp: '172.30.200.14', ssh: { ...worker.ssh, host: '172.30.230.14', port: 2222, user: 'ops' } },
        ],
      }
      const cmd = hostProbeCmd(three, three.nodes[0]!, true)
      const r = spawnSync(cmd.argv[0]!, cmd.argv.slice(1), { env: { ...process.env, PATH: `${dir}:${process.env.PATH}` }, encoding: 'utf8', timeout: 60_000 })
      expect(r.status).toBe(0)
      expect(parseHostProbe(r.stdout).relay).toEqual([
        { ip: '172.30.200.13', code: 0, output: '' },
        { ip: '172.30.200.14', code: 255, output: 'ssh: connect to host 172.30.200.14 port 2222: Connection refused' },
      ])
      const opts = RELAY_SSH_OPTIONS.join(' ')
      expect(
        readFileSync(join(dir, 'calls'), 'utf8')
          .trim()
          .split('\n')
          .map((l) => l.trim()),
      ).toEqual([`${opts} -p 22 -l root 172.30.200.13 true`, `${opts} -p 2222 -l ops 172.30.200.14 true`])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('reads a healthy head captured on the lab', () => {
    expect(probe('head-healthy')).toEqual({
      complete: true,
      docker: { ok: true, rootDir: '/var/lib/docker' },
      disk: { path: '/var/lib/docker', freeBytes: 77006388 * 1024 },
      links: [{ name: 'enp1s0f0np0', present: true, flags: ['BROADCAST', 'MULTICAST', 'UP', 'LOWER_UP'], state: 'UP' }],
      addresses: [
        { iface: 'lo', cidr: '127.0.0.1/8' },
        { iface: 'docker0', cidr: '172.17.0.1/16' },
        { iface: 'enp1s0f0np0', cidr: '172.30.200.12/24' },
        { iface: 'enP7s7', cidr: '172.30.230.12/24' },
      ],
      gpus: { ok: true, count: 1 },
      relay: [{ ip: '172.30.200.13', code: 0, output: '' }],
    })
  })

  it('a probe cut off before its last line is not complete', () => {
    expect(parseHostProbe(fixture('head-healthy').replace('end\n', '')).complete).toBe(false)
    expect(parseHostProbe('garbage\n\tmore').complete).toBe(false)
  })
})

describe("the host checks' findings", () => {
  it('a healthy lab gives none, with relay and the image size', () => {
    expect(evaluateHostChecks(lab, results('head-healthy', 'worker-healthy'), { relay: true, imageBytes: 500_000_000 })).toEqual([])
  })

  it('a fabric link taken down (ip link set enp1s0f0np0 down on spark-b): FABRIC_LINK_DOWN, and relay SSH fails', () => {
    const f = evaluateHostChecks(lab, results('head-relay-to-down-worker', 'worker-link-down'), { relay: true })
    expect(codes(f)).toEqual(['RELAY_SSH_FAILED@spark-a', 'FABRIC_LINK_DOWN@spark-b'])
    expect(f[1]).toMatchObject({
      message: 'Fabric interface enp1s0f0np0 on spark-b is administratively down.',
      evidence: { Interface: 'enp1s0f0np0', Flags: 'BROADCAST,MULTICAST', State: 'DOWN' },
      fix: expect.stringContaining('ip link set enp1s0f0np0 up'),
    })
    expect(f[0]).toMatchObject({
      evidence: {
        Command: 'ssh -o BatchMode=yes -p 22 root@172.30.200.13 true (on spark-a)',
        'Exit status': '255',
        Output: expect.stringContaining('Connection timed out'),
      },
      fix: expect.stringContaining("Make spark-b's sshd reachable from spark-a over the fabric at 172.30.200.13:22"),
    })
    // Without relay, no SSH check is asked for.
    expect(codes(evaluateHostChecks(lab, results('head-relay-to-down-worker', 'worker-link-down'), {}))).toEqual(['FABRIC_LINK_DOWN@spark-b'])
  })

  it('the fabric address removed (ip addr del on spark-b): FABRIC_ADDRESS_MISSING with the exact ip addr add', () => {
    const f = evaluateHostChecks(lab, results('head-healthy', 'worker-no-fabric-address'), {})
    expect(codes(f)).toEqual(['FABRIC_ADDRESS_MISSING@spark-b'])
    expect(f[0]).toMatchObject({
      message: 'No interface on spark-b holds its fabric IP 172.30.200.13.',
      evidence: { 'nodes[1].fabricIp': '172.30.200.13', 'enp1s0f0np0 addresses': '(none)' },
      fix: 'Add it on spark-b: ip addr add 172.30.200.13/24 dev enp1s0f0np0 (and make it persistent), or set nodes[1].fabricIp to the address enp1s0f0np0 really has.',
    })
  })

  it('a fabric interface name that does not exist: FABRIC_ADDRESS_MISSING naming the addresses the node has', () => {
    const m: Manifest = { ...lab, fabric: { ...lab.fabric, interfaces: ['enp1s0f1np1'] } }
    const raw = fixture('worker-healthy').replace(
      'link\tenp1s0f0np0\tpresent\tBROADCAST,MULTICAST,UP,LOWER_UP\tUP',
      'link\tenp1s0f1np1\tmissing\tDevice "enp1s0f1np1" does not exist.',
    )
    const f = evaluateHostChecks(
      m,
      [
        { node: 'spark-a', probe: probe('head-healthy') },
        { node: 'spark-b', probe: parseHostProbe(raw) },
      ],
      {},
    )
    const b = f.filter((x) => x.node === 'spark-b')
    expect(codes(b)).toEqual(['FABRIC_ADDRESS_MISSING@spark-b'])
    expect(b[0]!.evidence).toMatchObject({
      Result: 'Device "enp1s0f1np1" does not exist.',
      'spark-b IPv4 addresses': expect.stringContaining('enp1s0f0np0 172.30.200.13/24'),
    })
  })

  it('docker daemon down (captured with DOCKER_HOST pointing at no socket): DOCKER_UNUSABLE, and no disk check without a data root', () => {
    const f = evaluateHostChecks(lab, results('head-healthy', 'worker-docker-down'), { imageBytes: 1 })
    expect(codes(f)).toEqual(['DOCKER_UNUSABLE@spark-b'])
    expect(f[0]).toMatchObject({
      evidence: { Result: expect.stringContaining('Cannot connect to the Docker daemon') },
      fix: expect.stringContaining('systemctl start docker'),
    })
  })

  it('fewer GPUs than the manifest says: NO_GPU_VISIBLE with the field to change', () => {
    const m: Manifest = { ...lab, nodes: lab.nodes.map((n) => (n.name === 'spark-b' ? { ...n, gpus: 2 } : n)) }
    const f = evaluateHostChecks(m, results('head-healthy', 'worker-healthy'), {})
    expect(codes(f)).toEqual(['NO_GPU_VISIBLE@spark-b'])
    expect(f[0]).toMatchObject({
      message: 'Only 1 of the 2 GPUs the manifest expects are visible on spark-b.',
      fix: expect.stringContaining('set nodes[1].gpus to 1'),
    })
    const none = fixture('worker-healthy').replace('gpu\tok\t1', 'gpu\tmissing\tnvidia-smi is not installed (not on PATH)')
    const g = evaluateHostChecks(
      lab,
      [
        { node: 'spark-a', probe: probe('head-healthy') },
        { node: 'spark-b', probe: parseHostProbe(none) },
      ],
      {},
    )
    expect(g[0]).toMatchObject({
      code: 'NO_GPU_VISIBLE',
      message: 'No GPU is visible on spark-b; the manifest expects 1.',
      fix: expect.stringContaining('Install the NVIDIA driver'),
    })
  })

  it("an image larger than the free space under docker's data root: DISK_SPACE_LOW on every node", () => {
    const f = evaluateHostChecks(lab, results('head-healthy', 'worker-healthy'), { imageBytes: 100 * 2 ** 40 })
    expect(codes(f)).toEqual(['DISK_SPACE_LOW@spark-a', 'DISK_SPACE_LOW@spark-b'])
    expect(f[0]!.evidence).toMatchObject({ 'Docker data root': '/var/lib/docker', 'Image size': '100.0 TiB (109951162777600 bytes)' })
  })

  it('relay SSH refused for an unknown host key names the known_hosts to fix', () => {
    const raw = fixture('head-healthy').replace('relay\t172.30.200.13\t0\t', 'relay\t172.30.200.13\t255\tHost key verification failed. ')
    const f = evaluateHostChecks(
      lab,
      [
        { node: 'spark-a', probe: parseHostProbe(raw) },
        { node: 'spark-b', probe: probe('worker-healthy') },
      ],
      { relay: true },
    )
    expect(f[0]).toMatchObject({
      code: 'RELAY_SSH_FAILED',
      fix: expect.stringContaining("Add spark-b's host key for 172.30.200.13 to ~/.ssh/known_hosts of root on spark-a"),
    })
  })

  it('a node that could not be probed is NODE_UNREACHABLE, the others are still checked', () => {
    const f = evaluateHostChecks(
      lab,
      [
        { node: 'spark-a', error: 'cannot connect to root@172.30.230.12:22: ECONNREFUSED' },
        { node: 'spark-b', probe: probe('worker-link-down') },
      ],
      {},
    )
    expect(codes(f)).toEqual(['NODE_UNREACHABLE@spark-a', 'FABRIC_LINK_DOWN@spark-b'])
  })
})
