/**
 * Host readiness (issue 38): the node's docker can give the container its GPUs
 * (NVIDIA_RUNTIME_MISSING), no NVIDIA CDI spec is left from another driver (CDI_SPEC_STALE), and a
 * unified-memory node runs an OOM guard (OOM_GUARD_MISSING). First the node probe itself, run here
 * by the real python3 on public material (test/fixtures/hardware/public/README.md: CDI specs from
 * NVIDIA/nvidia-container-toolkit#38, NixOS/nixpkgs#297537 and Igalia/webkit-container-sdk#23, the
 * docker info of nvidia-container-toolkit#1967) with the H200's real nvidia-smi (driver 580.159.04);
 * then the checks over the lab's captured host with one thing changed; then the paths users run:
 * the deploy's host-checks stage and the preflight command.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { evaluateHostChecks } from '../../../src/deploy/host-checks.js'
import { deployRelease } from '../../../src/deploy/rollout.js'
import { expectationFromManifest } from '../../../src/manifest/expectation.js'
import { gpuRequestOf } from '../../../src/manifest/gpu-request.js'
import { parseManifest } from '../../../src/manifest/load-manifest.js'
import type { Manifest } from '../../../src/manifest/schema.js'
import { runChecks } from '../../../src/preflight/checks/index.js'
import type { FactsBundle, HostFacts, NodeFacts } from '../../../src/preflight/facts.js'
import { nodeFactsFromProbe } from '../../../src/preflight/gather/gather.js'
import { hostProbeCmd } from '../../../src/plan/host-check-commands.js'
import { ok } from '../../../src/result/result.js'
import { rolloutOutcome } from '../../../src/tasks/deploy-task.js'
import { scanLog } from '../../../src/preflight/signatures.js'
import { preflightTask } from '../../../src/tasks/preflight.js'
import { SimCluster, hostCapture, simManifest, simRolloutOptions } from '../../deploy/support/sim-cluster.js'
import { runProbeHere } from '../../support/probe-here.js'

const PUBLIC = 'test/fixtures/hardware/public'
const H200 = 'test/fixtures/hardware/h200'
const output = (name: string) => readFileSync(`${H200}/${name}.txt`, 'utf8').split('\n').slice(1, -2).join('\n')
const [gIndex, gName, gUuid, gDriver, gTotal, gFree] = output('nvidia-smi-query-csv-noheader-nounits').split(', ')

const { manifest: example } = parseManifest(readFileSync('src/manifest/examples/dgx-spark-pair.yml', 'utf8'), 'example.yml')
// Loopback fabric IPs: the probe pings its peers and tries their ports; nothing leaves this machine.
const m: Manifest = { ...example!, nodes: example!.nodes.map((n, i) => ({ ...n, fabricIp: `127.0.0.${12 + i}` })) }
const head = m.nodes[0]!

interface Here {
  /** CDI spec files (name → text) in the directory docker info names. */
  readonly specs?: Readonly<Record<string, string>>
  readonly gpu?: 'h200' | 'gb10'
  readonly runtimeHook?: boolean
  readonly cdiHook?: boolean
  /** What `systemctl is-active` prints (absent: no systemctl answers, as without systemd). */
  readonly systemctl?: string
  /** A process named earlyoom runs while the probe looks. */
  readonly earlyoom?: boolean
}

/** The host probe run by the real python3 with docker, nvidia-smi, the hooks and systemctl on PATH as `h` says. */
async function probeHere(h: Here): Promise<NodeFacts> {
  const dir = mkdtempSync(join(tmpdir(), 'vrd-ready-'))
  const bin = join(dir, 'bin')
  const cdi = join(dir, 'cdi')
  mkdirSync(bin)
  mkdirSync(cdi)
  const exe = (name: string, text: string) => {
    writeFileSync(join(bin, name), text)
    chmodSync(join(bin, name), 0o755)
  }
  let guard: ReturnType<typeof spawn> | undefined
  try {
    for (const [name, text] of Object.entries(h.specs ?? {})) writeFileSync(join(cdi, name), text)
    const info = { ...JSON.parse(readFileSync(`${PUBLIC}/docker-info-cdi-29.7.2.json`, 'utf8')), DockerRootDir: dir, CDISpecDirs: [cdi] }
    writeFileSync(join(dir, 'info.json'), JSON.stringify(info))
    exe('docker', `#!/bin/sh\ncase "$1" in\n  info) cat "${dir}/info.json" ;;\n  *) echo "Error: No such container: $4" >&2; exit 1 ;;\nesac\n`)
    const query = h.gpu === 'gb10' ? `0, NVIDIA GB10, ${gUuid}, [N/A], [N/A], 580.95.05` : [gIndex, gName, gUuid, gTotal, gFree, gDriver].join(', ')
    writeFileSync(join(dir, 'query.txt'), `${query}\n`)
    writeFileSync(join(dir, 'table.txt'), `${output('nvidia-smi')}\n`)
    exe('nvidia-smi', `#!/bin/sh\ncase "$*" in *--query-gpu*) cat "${dir}/query.txt" ;; *) cat "${dir}/table.txt" ;; esac\n`)
    if (h.runtimeHook) exe('nvidia-container-runtime-hook', '#!/bin/sh\nexit 0\n')
    if (h.cdiHook) exe('nvidia-cdi-hook', '#!/bin/sh\nexit 0\n')
    if (h.systemctl !== undefined) exe('systemctl', `#!/bin/sh\nprintf '%s' '${h.systemctl}'\nexit 3\n`)
    else exe('systemctl', '#!/bin/sh\necho "System has not been booted with systemd as init system (PID 1). Can\'t operate." >&2\nexit 1\n')
    if (h.earlyoom) {
      exe('earlyoom', '#!/bin/sh\nsleep 60\n')
      guard = spawn(join(bin, 'earlyoom'), [], { stdio: 'ignore' })
      // Running once exec has happened (node reports it as 'spawn'): the probe's process list sees it.
      await once(guard, 'spawn')
    }
    const p = hostProbeCmd(m, head, false)
    // No dockerd at DOCKER_HOST: the probe asks the fake docker CLI (its captured `docker info`).
    const r = runProbeHere(p, bin)
    expect(r.status, r.stderr).toBe(0)
    return nodeFactsFromProbe(head, r.stdout).facts
  } finally {
    guard?.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The process names the probe counts as an OOM guard. */
const GUARD_NAMES = ['earlyoom', 'systemd-oomd', 'nohang', 'nohang-desktop', 'oomd']

const spec = (name: string) => readFileSync(`${PUBLIC}/${name}`, 'utf8')
const bundleOf = (...nodes: NodeFacts[]): FactsBundle => ({ schemaVersion: 1, gatheredAt: 'now', nodes })
const codesOf = (f: readonly { code: string; severity: string; node: string | null }[], codes: readonly string[]) =>
  f.filter((x) => codes.includes(x.code)).map((x) => `${x.severity} ${x.code}@${x.node}`)
const READY = ['NVIDIA_RUNTIME_MISSING', 'CDI_SPEC_STALE', 'OOM_GUARD_MISSING']
/** CDI_SPEC_STALE of the specs this test wrote (the probe also reads /etc/cdi and /var/run/cdi of the machine it runs on). */
const mineOnly = (f: { code: string; evidence: Readonly<Record<string, string>> }) =>
  f.code === 'CDI_SPEC_STALE' && (f.evidence['CDI spec'] ?? '').includes('vrd-ready-')

describe('the node probe reads the NVIDIA container tooling and the OOM guard (real python3, public fixtures)', () => {
  it("a spec nvidia-ctk wrote for driver 520.61.05 on a host running the H200's 580.159.04: its versions and missing files, docker 29.7.2's CDI", async () => {
    const f = await probeHere({ specs: { 'nvidia.yaml': spec('cdi-spec-driver-520.61.05.yaml') }, cdiHook: true, runtimeHook: true })
    expect(f.host?.driverVersion).toBe('580.159.04')
    expect(f.host?.docker).toMatchObject({
      ok: true,
      version: '29.7.2',
      runtimes: ['io.containerd.runc.v2', 'nvidia', 'runc'],
      nvidiaHook: expect.stringMatching(/nvidia-container-runtime-hook$/),
      cdiDevices: ['nvidia.com/gpu=0', 'nvidia.com/gpu=GPU-0008bcf4-cae8-0120-a18f-bc344fb1c710', 'nvidia.com/gpu=all'],
    })
    const specs = f.host?.nvidiaContainer?.cdiSpecs ?? []
    expect(f.host?.nvidiaContainer?.cdiHook).toMatch(/nvidia-cdi-hook$/)
    const mine = specs.filter((s) => s.path.endsWith('/cdi/nvidia.yaml') && s.path.includes('vrd-ready-'))
    expect(mine).toEqual([
      {
        path: expect.stringMatching(/\/cdi\/nvidia\.yaml$/),
        kind: 'nvidia.com/gpu',
        driverVersions: ['520.61.05'],
        hostPaths: 4,
        missing: [
          '/usr/lib64/libnvidia-tls.so.520.61.05',
          '/usr/lib64/libnvidia-vulkan-producer.so.520.61.05',
          '/usr/lib64/libnvidia-wayland-client.so.520.61.05',
          '/usr/lib64/libnvoptix.so.520.61.05',
        ],
        missingCount: 4,
      },
    ])
    // docker 29.7.2 with nvidia-cdi-hook and CDI on turns --gpus all into nvidia.com/gpu=all: the stale spec is read.
    const found = evaluateHostChecks(m, bundleOf(f)).filter(mineOnly)
    expect(found).toEqual([
      expect.objectContaining({
        severity: 'error',
        node: head.name,
        message: expect.stringContaining('it was generated for NVIDIA driver 520.61.05, but 580.159.04 runs, and 4 of the 4 host files it mounts are gone'),
        evidence: expect.objectContaining({ 'Read by this deploy': expect.stringContaining('docker 29.7.2 serves --gpus all through CDI') }),
        fix: expect.stringMatching(/^Regenerate it for the running driver on spark-a: sudo nvidia-ctk cdi generate --output=\/.*\/cdi\/nvidia\.yaml;/),
      }),
    ])
  })

  it('a JSON spec (driver 550.67) and a YAML entry (535.171.07) read the same way; a spec of another vendor is left out', async () => {
    const other = 'cdiVersion: 0.5.0\nkind: vendor.com/device\ndevices:\n- name: x\n  containerEdits:\n    deviceNodes:\n    - path: /dev/x\n'
    const f = await probeHere({ specs: { 'a.json': spec('cdi-spec-nixos-550.67.json'), 'b.yaml': spec('cdi-spec-libegl-535.171.07.yaml'), 'c.yaml': other } })
    const mine = (f.host?.nvidiaContainer?.cdiSpecs ?? []).filter((s) => s.path.includes('vrd-ready-'))
    expect(mine.map((s) => [s.path.split('/').pop(), s.kind, s.driverVersions, s.missingCount])).toEqual([
      ['a.json', 'nvidia.com/gpu', ['550.67'], 3],
      ['b.yaml', 'nvidia.com/gpu', ['535.171.07'], 1],
    ])
    // Without nvidia-container-runtime-hook or the CDI route for --gpus (no nvidia-cdi-hook), docker has no NVIDIA driver for --gpus.
    const f2 = evaluateHostChecks(m, bundleOf(f)).filter((x) => x.code !== 'CDI_SPEC_STALE' || mineOnly(x))
    expect(codesOf(f2, READY)).toEqual([
      `error NVIDIA_RUNTIME_MISSING@${head.name}`,
      `warning CDI_SPEC_STALE@${head.name}`,
      `warning CDI_SPEC_STALE@${head.name}`,
    ])
  })

  it('the OOM guard: systemd says every guard is inactive and none runs: a warning on a GB10, none on the H200; a process named earlyoom is a guard', async () => {
    const inactive = 'inactive\ninactive\ninactive\ninactive\n'
    const gb10 = await probeHere({ gpu: 'gb10', systemctl: inactive, runtimeHook: true })
    expect(gb10.host?.unifiedMemory).toBe(true)
    // What runs is this machine's process table, which a lab node's own guard (the lab's stand-in
    // earlyoom, a process of this host) may join or leave at any moment: only known names, once each.
    expect(gb10.host?.oomGuards?.units).toEqual({ earlyoom: 'inactive', 'systemd-oomd': 'inactive', nohang: 'inactive', 'nohang-desktop': 'inactive' })
    const seen = gb10.host?.oomGuards?.running ?? []
    expect(seen.filter((g) => !GUARD_NAMES.includes(g))).toEqual([])
    expect(new Set(seen).size).toBe(seen.length)
    if (seen.length === 0) {
      expect(codesOf(evaluateHostChecks(m, bundleOf(gb10)), READY)).toEqual([`warning OOM_GUARD_MISSING@${head.name}`])
    }
    const h200 = await probeHere({ gpu: 'h200', systemctl: inactive, runtimeHook: true })
    expect(codesOf(evaluateHostChecks(m, bundleOf(h200)), READY)).toEqual([])
    // Without systemd (a container host, the lab's nodes), the process is what counts.
    const guarded = await probeHere({ gpu: 'gb10', earlyoom: true, runtimeHook: true })
    expect(guarded.host?.oomGuards?.unitsError).toMatch(/not been booted with systemd/)
    expect(guarded.host?.oomGuards?.running).toContain('earlyoom')
    expect(codesOf(evaluateHostChecks(m, bundleOf(guarded)), READY)).toEqual([])
  })
})

// ---- the checks over the lab's captured host (a GB10 stand-in, driver 580.95.05), one thing changed ----

const captured = hostCapture('spark-a').host!
const HOOK = '/usr/bin/nvidia-container-runtime-hook'
/** The lab's host with the facts the new probe reads: the hook, no CDI spec, docker 28 without CDI devices, earlyoom active. */
const healthyHost: HostFacts = {
  ...captured,
  docker: { ...captured.docker!, nvidiaHook: HOOK, version: '28.5.2', runtimes: ['io.containerd.runc.v2', 'runc'], cdiSpecDirs: ['/etc/cdi', '/var/run/cdi'] },
  nvidiaContainer: { runtimeMode: 'auto', cdiSpecs: [] },
  oomGuards: { units: { earlyoom: 'active', 'systemd-oomd': 'inactive', nohang: 'inactive', 'nohang-desktop': 'inactive' }, running: ['earlyoom'] },
}
const sim = simManifest()
const node = (host: HostFacts, name = 'spark-a'): NodeFacts => ({
  ...nodeFactsFromProbe(sim.nodes.find((n) => n.name === name)!, JSON.stringify(hostCapture(name))).facts,
  host,
})
const judge = (host: HostFacts, mm: Manifest = sim) =>
  runChecks(bundleOf(node(host), node(healthyHost, 'spark-b')), expectationFromManifest(mm), { stages: ['before-change'] })
/** The readiness findings of spark-a, the node changed (spark-b keeps the healthy host, whatever the manifest asks). */
const ready = (host: HostFacts, mm: Manifest = sim) => judge(host, mm).filter((f) => READY.includes(f.code) && f.node === 'spark-a')
const withDocker = (h: HostFacts, d: Partial<NonNullable<HostFacts['docker']>>): HostFacts => ({ ...h, docker: { ...h.docker!, ...d } })
const withNv = (h: HostFacts, n: Partial<NonNullable<HostFacts['nvidiaContainer']>>): HostFacts => ({ ...h, nvidiaContainer: { ...h.nvidiaContainer!, ...n } })
const extra = (...args: string[]): Manifest => ({ ...sim, container: { ...sim.container, extraArgs: args } })
const scripted: Manifest = { ...sim, launch: { mode: 'script', path: 'launch.sh', args: [], env: {} } }
const stale580 = {
  path: '/etc/cdi/nvidia.yaml',
  kind: 'nvidia.com/gpu',
  driverVersions: ['580.95.05'],
  hostPaths: 41,
  missing: ['/usr/lib/aarch64-linux-gnu/libcuda.so.580.95.05'],
  missingCount: 27,
}
const current = { ...stale580, path: '/var/run/cdi/nvidia.yaml', driverVersions: ['580.173.02'], missing: [], missingCount: 0 }
const upgraded = (h: HostFacts): HostFacts => ({ ...h, driverVersion: '580.173.02' })

describe('the healthy host', () => {
  it('gives none of them, and a facts bundle from before the probe read them gives none either', () => {
    expect(judge(healthyHost)).toEqual([])
    const { nvidiaContainer: _n, oomGuards: _o, ...old } = healthyHost
    expect(judge({ ...old, docker: { ...old.docker!, nvidiaHook: undefined } })).toEqual([])
  })
})

describe('NVIDIA_RUNTIME_MISSING: docker cannot serve the GPU request', () => {
  it("--gpus without nvidia-container-runtime-hook (docker 28): docker's own error, every tool named, the toolkit install as the fix", () => {
    const f = ready(withDocker(healthyHost, { nvidiaHook: undefined }))
    expect(f).toEqual([
      expect.objectContaining({
        code: 'NVIDIA_RUNTIME_MISSING',
        severity: 'error',
        node: 'spark-a',
        message: expect.stringContaining(
          '--gpus all: docker has no NVIDIA device driver (no nvidia-container-runtime-hook on PATH); docker run answers: could not select device driver "" with capabilities: [[gpu]]',
        ),
        evidence: expect.objectContaining({
          'docker runtimes': 'io.containerd.runc.v2, runc',
          'nvidia-container-runtime-hook': 'not on PATH',
          'NVIDIA CDI specs': '(none)',
        }),
        fix: expect.stringContaining(
          'sudo nvidia-ctk runtime configure --runtime=docker) and restart docker (sudo systemctl restart docker); then check: ssh root@172.30.230.12 docker run --rm --gpus all ubuntu nvidia-smi -L',
        ),
      }),
    ])
  })

  it('docker 29.2+ serves --gpus through CDI without the hook: nvidia-cdi-hook and an nvidia.com/gpu spec suffice; without the spec it does not', () => {
    const cdiOnly = withNv(withDocker(healthyHost, { nvidiaHook: undefined, version: '29.7.2' }), { cdiHook: '/usr/bin/nvidia-cdi-hook', cdiSpecs: [current] })
    expect(ready(upgraded(cdiOnly))).toEqual([])
    expect(ready(upgraded(withNv(cdiOnly, { cdiSpecs: [] }))).map((f) => f.message)).toEqual([
      expect.stringContaining('and no CDI route: nvidia-cdi-hook, CDI on and an nvidia.com/gpu spec'),
    ])
    // docker 29.1 predates the CDI route: the hook is needed.
    expect(ready(upgraded(withDocker(cdiOnly, { version: '29.1.3' }))).map((f) => f.code)).toEqual(['NVIDIA_RUNTIME_MISSING'])
  })

  it('the runtime in mode "cdi" with --gpus: the hook refuses, in its own words; --runtime nvidia in container.extraArgs serves it', () => {
    const cdiMode = upgraded(withNv(healthyHost, { runtimeMode: 'cdi', cdiSpecs: [current] }))
    const f = ready(cdiMode)
    expect(f.map((x) => x.code)).toEqual(['NVIDIA_RUNTIME_MISSING'])
    expect(f[0]!.message).toContain('invoking the NVIDIA Container Runtime Hook directly (e.g. specifying the docker --gpus flag) is not supported')
    expect(f[0]!.fix).toContain('sudo nvidia-ctk config --in-place --set nvidia-container-runtime.mode=auto')
    expect(ready(withDocker(cdiMode, { runtimes: ['nvidia', 'runc'] }), extra('--runtime', 'nvidia'))).toEqual([])
  })

  it('--runtime nvidia in container.extraArgs where docker has no such runtime', () => {
    expect(ready(healthyHost, extra('--runtime=nvidia')).map((f) => f.message)).toEqual([
      "spark-a's docker cannot give the container its GPUs: --runtime nvidia: docker knows no runtime of that name (it has io.containerd.runc.v2, runc); docker run answers: unknown or invalid runtime name: nvidia.",
    ])
  })

  it('--device nvidia.com/gpu=all: what dockerd found decides; without its list, CDI on and a spec of that kind', () => {
    const m2 = extra('--device', 'nvidia.com/gpu=all')
    expect(ready(withDocker(healthyHost, { cdiDevices: ['nvidia.com/gpu=0'] }), m2).map((f) => f.message)).toEqual([
      expect.stringContaining(
        '--device nvidia.com/gpu=all: dockerd found no CDI device of that name (it found nvidia.com/gpu=0); docker run answers: unresolvable CDI devices nvidia.com/gpu=all',
      ),
    ])
    expect(ready(withDocker(healthyHost, { cdiDevices: ['nvidia.com/gpu=all'] }), m2)).toEqual([])
    const off = ready(withDocker(healthyHost, { cdiSpecDirs: [] }), m2)
    expect(off[0]!.message).toContain('CDI is off in docker')
    expect(off[0]!.fix).toContain('sudo nvidia-ctk runtime configure --runtime=docker --cdi.enabled')
  })

  it('under a launch script: an error only when the node has none of the runtime, the hook and an NVIDIA CDI spec', () => {
    const bare = withDocker(healthyHost, { nvidiaHook: undefined })
    expect(ready(bare, scripted).map((f) => f.message)).toEqual([
      "spark-a's docker cannot give the container its GPUs: the launch script's docker run finds neither the nvidia runtime, nor nvidia-container-runtime-hook, nor an NVIDIA CDI spec.",
    ])
    expect(ready(withDocker(bare, { runtimes: ['nvidia', 'runc'] }), scripted)).toEqual([])
  })

  it('a node the manifest gives no GPU is not asked', () => {
    const noGpu: Manifest = { ...sim, nodes: sim.nodes.map((n) => (n.name === 'spark-a' ? { ...n, gpus: 0 } : n)) }
    expect(ready(withDocker(healthyHost, { nvidiaHook: undefined }), noGpu)).toEqual([])
  })

  it('is the one finding for a missing hook: node match no longer compares it (no NODE_DRIFT beside it)', () => {
    expect(judge(withDocker(healthyHost, { nvidiaHook: undefined })).map((f) => f.code)).toEqual(['NVIDIA_RUNTIME_MISSING'])
  })
})

describe('CDI_SPEC_STALE: a spec left by a driver upgrade', () => {
  it('read by this deploy (--device nvidia.com/gpu=all): an error naming both versions, the missing files and the regenerate command', () => {
    const h = upgraded(withNv(withDocker(healthyHost, { cdiDevices: ['nvidia.com/gpu=all'] }), { cdiSpecs: [stale580] }))
    const f = ready(h, extra('--device=nvidia.com/gpu=all'))
    expect(f).toEqual([
      expect.objectContaining({
        code: 'CDI_SPEC_STALE',
        severity: 'error',
        message:
          'The CDI spec /etc/cdi/nvidia.yaml on spark-a is stale: it was generated for NVIDIA driver 580.95.05, but 580.173.02 runs, and 27 of the 41 host files it mounts are gone (/usr/lib/aarch64-linux-gnu/libcuda.so.580.95.05). This deploy\'s container reads it (container.extraArgs passes --device nvidia.com/gpu=all, which dockerd resolves from the CDI specs), so it would not start, or start with the old driver\'s libraries ("driver/library version mismatch").',
        evidence: expect.objectContaining({
          'Driver in the spec': '580.95.05',
          'spark-a driver': '580.173.02',
          'Missing files': '/usr/lib/aarch64-linux-gnu/libcuda.so.580.95.05 and 26 more',
        }),
        fix: expect.stringMatching(
          /^Regenerate it for the running driver on spark-a: sudo nvidia-ctk cdi generate --output=\/etc\/cdi\/nvidia\.yaml; check with nvidia-ctk cdi list\./,
        ),
      }),
    ])
  })

  it('--gpus on docker 29.2+ with CDI reads nvidia.com/gpu specs only: a stale management.nvidia.com/gpu spec is a warning there', () => {
    const viaCdi = upgraded(withNv(withDocker(healthyHost, { version: '29.7.2' }), { cdiHook: '/usr/bin/nvidia-cdi-hook', cdiSpecs: [stale580] }))
    expect(ready(viaCdi).map((x) => `${x.severity} ${x.code}`)).toEqual(['error CDI_SPEC_STALE'])
    const management = withNv(viaCdi, { cdiSpecs: [{ ...stale580, kind: 'management.nvidia.com/gpu' }] })
    expect(ready(management).map((x) => `${x.severity} ${x.code}`)).toEqual(['warning CDI_SPEC_STALE'])
  })

  it('not read by this deploy (--gpus through the prestart hook on docker 28): a warning', () => {
    const f = ready(upgraded(withNv(healthyHost, { cdiSpecs: [stale580] })))
    expect(f.map((x) => `${x.severity} ${x.code}`)).toEqual(['warning CDI_SPEC_STALE'])
    expect(f[0]!.message).toContain("This deploy's container does not read it now (--gpus through the prestart hook)")
  })

  it('read through --runtime nvidia in its "cdi" mode; a current spec of the same kind in /var/run/cdi wins over a stale /etc/cdi one (a warning)', () => {
    const h = upgraded(withDocker(withNv(healthyHost, { runtimeMode: 'cdi', cdiSpecs: [stale580] }), { runtimes: ['nvidia', 'runc'] }))
    expect(ready(h, extra('--runtime', 'nvidia')).map((x) => `${x.severity} ${x.code}`)).toEqual(['error CDI_SPEC_STALE'])
    const shadowed = ready(withNv(h, { cdiSpecs: [stale580, current] }), extra('--runtime', 'nvidia'))
    expect(shadowed.map((x) => `${x.severity} ${x.code}`)).toEqual(['warning CDI_SPEC_STALE'])
    expect(shadowed[0]!.message).toContain('/var/run/cdi/nvidia.yaml defines nvidia.com/gpu too and is current, so it wins')
  })

  it("a spec in /var/run/cdi points at the toolkit's refresh service; a current one, or one whose files all exist and that names no version, is fine", () => {
    const h = upgraded(withNv(healthyHost, { cdiSpecs: [{ ...stale580, path: '/var/run/cdi/nvidia.yaml' }] }))
    expect(ready(h)[0]!.fix).toContain('sudo systemctl restart nvidia-cdi-refresh.service')
    expect(ready(upgraded(withNv(healthyHost, { cdiSpecs: [current] })))).toEqual([])
    expect(ready(withNv(healthyHost, { cdiSpecs: [{ ...current, driverVersions: [] }] }))).toEqual([])
  })
})

describe('OOM_GUARD_MISSING: a unified-memory node without earlyoom, systemd-oomd or nohang', () => {
  const guards = (units: Record<string, string> | undefined, running: string[] = [], unitsError?: string): HostFacts => ({
    ...healthyHost,
    oomGuards: { ...(units && { units }), ...(unitsError && { unitsError }), running },
  })
  const none = { earlyoom: 'inactive', 'systemd-oomd': 'inactive', nohang: 'inactive', 'nohang-desktop': 'inactive' }

  it('none installed: a warning with the install and a configuration that prefers vLLM and spares sshd and docker', () => {
    const f = ready(guards(none))
    expect(f).toEqual([
      expect.objectContaining({
        code: 'OOM_GUARD_MISSING',
        severity: 'warning',
        node: 'spark-a',
        evidence: expect.objectContaining({
          'spark-a GPU': 'NVIDIA GB10 (unified memory)',
          earlyoom: 'unit inactive; no process',
          'Guard processes': '(none)',
        }),
        fix: expect.stringContaining('Install and start earlyoom on spark-a: sudo apt-get install -y earlyoom && sudo systemctl enable --now earlyoom'),
      }),
    ])
    expect(f[0]!.fix).toMatch(/--prefer '.*VLLM::.*' --avoid '.*sshd\|dockerd/)
  })

  it('installed but failed: start it, not install it', () => {
    expect(ready(guards({ ...none, earlyoom: 'failed' }))[0]!.fix).toMatch(
      /^Start earlyoom on spark-a \(its unit is failed\): sudo systemctl enable --now earlyoom/,
    )
  })

  it('an active systemd-oomd or nohang, or a guard process in a container without systemd, is a guard', () => {
    expect(ready(guards({ ...none, 'systemd-oomd': 'active' }))).toEqual([])
    expect(ready(guards({ ...none, 'nohang-desktop': 'active' }))).toEqual([])
    expect(ready(guards(undefined, ['earlyoom'], 'System has not been booted with systemd as init system (PID 1).'))).toEqual([])
  })

  it('a discrete GPU node is not asked', () => {
    expect(ready({ ...guards(none), unifiedMemory: false })).toEqual([])
  })
})

describe('the GPU request the manifest makes', () => {
  it('the built-in launcher: container.gpus, then what container.extraArgs adds; a launch script: unknown', () => {
    expect(gpuRequestOf(sim)).toEqual({ known: true, gpus: 'all', cdiDevices: [] })
    expect(gpuRequestOf(extra('--runtime', 'nvidia', '--device=nvidia.com/gpu=0', '--device', '/dev/infiniband', '--gpus=device=0'))).toEqual({
      known: true,
      gpus: 'device=0',
      runtime: 'nvidia',
      cdiDevices: ['nvidia.com/gpu=0'],
    })
    expect(gpuRequestOf(scripted)).toEqual({ known: false, cdiDevices: [] })
  })
})

// ---- the paths users run ----

let cluster: SimCluster | undefined
afterEach(() => cluster?.cleanup())

describe('the deploy and the preflight show them', () => {
  it('the host-checks stage stops the deploy at a stale spec it would read, with the finding and its fix in the report; nothing changed', async () => {
    cluster = new SimCluster(simManifest((doc) => ((doc.container as Record<string, unknown>).extraArgs = ['--device', 'nvidia.com/gpu=all'])))
    const served = withDocker({ ...hostCapture('spark-a').host!, ...healthyHost }, { cdiDevices: ['nvidia.com/gpu=all'] })
    cluster.hostFacts = (n) => (n === 'spark-b' ? upgraded(withNv(served, { cdiSpecs: [stale580] })) : served)
    const lines: string[] = []
    const r = await deployRelease(simRolloutOptions(cluster, 'r1', { onProgress: (l) => lines.push(l) }))
    expect(r).toMatchObject({ result: 'failed', changed: false, failure: { stage: 'host-checks' } })
    expect(r.findings.filter((f) => READY.includes(f.code)).map((f) => `${f.severity} ${f.code}@${f.node}`)).toEqual(['error CDI_SPEC_STALE@spark-b'])
    expect(lines.join('\n')).toContain('error CDI_SPEC_STALE on spark-b: The CDI spec /etc/cdi/nvidia.yaml on spark-b is stale')
    const out = rolloutOutcome('lab', r, cluster.manifest)
    expect(out.text).toContain('sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml')
    expect(cluster.ran('spark-a', /docker pull/)).toEqual([])
  })

  it('a missing OOM guard is a warning: the deploy goes on and says it', async () => {
    cluster = new SimCluster(simManifest())
    cluster.hostFacts = (n, h) => ({ ...h, ...healthyHost, ...(n === 'spark-a' && { oomGuards: { units: { earlyoom: 'inactive' }, running: [] } }) })
    const lines: string[] = []
    const r = await deployRelease(simRolloutOptions(cluster, 'r1', { onProgress: (l) => lines.push(l) }))
    expect(r.result, JSON.stringify(r.failure)).toBe('deployed')
    expect(r.findings.filter((f) => READY.includes(f.code)).map((f) => `${f.severity} ${f.code}@${f.node}`)).toEqual(['warning OOM_GUARD_MISSING@spark-a'])
    expect(lines.join('\n')).toMatch(/warning OOM_GUARD_MISSING on spark-a: spark-a's GPU shares the host's memory and no user-space OOM killer runs there/)
  })

  it('the preflight command runs the same entries on the facts it gathers and prints the finding with its fix', async () => {
    cluster = new SimCluster(simManifest())
    const probe = cluster.probe
    cluster.probe = (n) => {
      const doc = JSON.parse(probe(n))
      return JSON.stringify({
        ...doc,
        host: { ...doc.host, ...healthyHost, docker: { ...healthyHost.docker!, nvidiaHook: n === 'spark-b' ? undefined : HOOK } },
      })
    }
    const dir = mkdtempSync(join(tmpdir(), 'vrd-ready-pre-'))
    try {
      writeFileSync(join(dir, 'm.yml'), JSON.stringify(cluster.manifest))
      const transports = cluster.transports()
      const out = await preflightTask(join(dir, 'm.yml'), {
        credentials: { privateKey: 'unused' },
        connect: async (_m, n) => ok(transports.get(n.name)!),
        collective: false,
      })
      expect(out.text).toMatch(/NVIDIA_RUNTIME_MISSING/)
      expect(out.text).toContain('could not select device driver "" with capabilities: [[gpu]]')
      expect(out.text).toContain('sudo nvidia-ctk runtime configure --runtime=docker')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe("docker's and podman's own errors, pasted (the log signatures of the same families)", () => {
  /** Each line of the public fixture after its `# <url>` source line. */
  const lines = readFileSync(`${PUBLIC}/docker-run-errors.txt`, 'utf8')
    .split('\n')
    .reduce<{ source: string; text: string[] }[]>((acc, l) => {
      if (l.startsWith('# https://')) acc.push({ source: l.slice(2).split(' ')[0]!, text: [] })
      else if (l.trim() && !l.startsWith('#')) acc.at(-1)?.text.push(l)
      return acc
    }, [])
  const expected: Record<string, string> = {
    'https://github.com/hiyouga/LlamaFactory/issues/5268': 'NVIDIA_RUNTIME_MISSING',
    'https://github.com/NVlabs/BundleSDF/issues/184': 'NVIDIA_RUNTIME_MISSING',
    'https://github.com/infiniflow/ragflow/issues/9573': 'NVIDIA_RUNTIME_MISSING',
    'https://github.com/NixOS/nixpkgs/issues/305312': 'NVIDIA_RUNTIME_MISSING',
    'https://github.com/NVIDIA/nvidia-container-toolkit/issues/146': 'NVIDIA_RUNTIME_MISSING',
    'https://github.com/NVIDIA/nvidia-container-toolkit/issues/1246': 'NVIDIA_RUNTIME_MISSING',
    'https://github.com/NVIDIA/nvidia-container-toolkit/issues/450': 'CDI_SPEC_STALE',
    'https://github.com/HaveAGitGat/Tdarr/issues/1423': 'CDI_SPEC_STALE',
  }

  it.each(Object.entries(expected))('%s gives %s, as an error with the fix', (source, code) => {
    const entry = lines.find((l) => l.source === source)!
    const found = scanLog(`${entry.text.join('\n')}\n`, 'paste').filter((f) => f.code !== 'UNRECOGNISED_FAILURE')
    expect(found.map((f) => `${f.severity} ${f.code}`)).toEqual([`error ${code}`])
  })

  it('names what matters: the driver docker lacks, the CDI device, the runtime mode, the missing file and its driver version', () => {
    const one = (text: string) => scanLog(`${text}\n`, 'paste').filter((f) => f.code !== 'UNRECOGNISED_FAILURE')[0]!
    expect(one('docker: Error response from daemon: could not select device driver "cdi" with capabilities: [].').message).toMatch(/CDI is off/)
    expect(one('Error response from daemon: could not select device driver "" with capabilities: [[gpu]].').fix).toContain(
      'nvidia-ctk runtime configure --runtime=docker',
    )
    expect(one('Error: setting up CDI devices: unresolvable CDI devices nvidia.com/gpu=all').evidence).toMatchObject({ 'CDI device': 'nvidia.com/gpu=all' })
    expect(one('docker: Error response from daemon: unknown or invalid runtime name: nvidia.').evidence).toMatchObject({ Runtime: 'nvidia' })
    expect(
      one(
        'Error: crun: cannot stat `/lib64/libEGL_nvidia.so.550.54.14`: No such file or directory: OCI runtime attempted to invoke a command that was not found',
      ).evidence,
    ).toMatchObject({
      'Missing driver file': '/lib64/libEGL_nvidia.so.550.54.14',
      'Driver in the spec': '550.54.14',
    })
    // Near misses: a library that is not the driver's, and a versioned NVIDIA file that exists.
    expect(scanLog('OSError: libfoo.so.123.4: cannot open shared object file: No such file or directory\n', 'paste').map((f) => f.code)).not.toContain(
      'CDI_SPEC_STALE',
    )
    expect(scanLog('loaded /usr/lib/x86_64-linux-gnu/libcuda.so.580.95.05\n', 'paste').map((f) => f.code)).toEqual([])
  })
})
