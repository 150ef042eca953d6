import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { labProblemText } from '../../src/lab/lab-problem.js'
import { MAX_INSTANCES, instanceNames, labInstance, labLayout, validateNodeCount } from '../../src/lab/layout.js'
import { nodeContainerSpec, registryContainerSpec, CONFIG_LABEL } from '../../src/lab/node-container.js'
import { containerArgs } from '../../src/lab/docker-commands.js'

describe('lab layout', () => {
  it('names nodes spark-a.. with mgmt and fabric addresses at .12 + i', () => {
    const l = labLayout(4)
    expect(l.nodes.map((n) => [n.name, n.role, n.container, n.mgmtIp, n.fabricIp])).toEqual([
      ['spark-a', 'head', 'vrd-lab-spark-a', '172.30.230.12', '172.30.200.12'],
      ['spark-b', 'worker', 'vrd-lab-spark-b', '172.30.230.13', '172.30.200.13'],
      ['spark-c', 'worker', 'vrd-lab-spark-c', '172.30.230.14', '172.30.200.14'],
      ['spark-d', 'worker', 'vrd-lab-spark-d', '172.30.230.15', '172.30.200.15'],
    ])
    expect(l.registry).toMatchObject({ ip: '172.30.230.5', nodeHost: '172.30.230.5:5000', hostHost: '127.0.0.1:5000' })
    expect([l.mgmtIfname, l.fabricIfname]).toEqual(['enP7s7', 'enp1s0f0np0'])
  })

  it('keeps every lab object under the vrd-lab- prefix and bridges within 15 characters', () => {
    const l = labLayout(4)
    const names = [
      l.mgmt.name,
      l.fabric.name,
      l.mgmt.bridge,
      l.fabric.bridge,
      l.registry.container,
      l.registry.volume,
      ...l.nodes.flatMap((n) => [n.container, n.dockerVolume]),
    ]
    for (const n of names) expect(n).toMatch(/^vrd-lab-/)
    expect(l.mgmt.bridge.length).toBeLessThanOrEqual(15)
    expect(l.fabric.bridge.length).toBeLessThanOrEqual(15)
  })

  it("stays clear of docker's default 172.17/16", () => {
    for (const net of [labLayout(1).mgmt, labLayout(1).fabric]) expect(net.subnet.startsWith('172.17.')).toBe(false)
    expect(labLayout(1).fabric.internal).toBe(true)
    expect(labLayout(1).mgmt.internal).toBe(false)
  })

  it('has 1 to 4 nodes: another count is a bad-input Problem saying what --nodes takes', () => {
    for (const bad of [0, 5, 1.5]) {
      expect(validateNodeCount(bad)).toEqual({
        ok: false,
        problem: { code: 'bad-input', message: `the lab has 1 to 4 nodes; got ${bad}`, fix: 'give --nodes a whole number from 1 to 4', evidence: {} },
      })
    }
    expect(validateNodeCount(3)).toEqual({ ok: true, value: 3 })
    // bug: a count nobody validated never reaches the layout
    expect(() => labLayout(5)).toThrow(RangeError)
  })
})

describe('lab instances (several labs on one machine)', () => {
  const all = Array.from({ length: MAX_INSTANCES }, (_, i) => instanceNames(i + 1))

  it('instance 1 is the lab of earlier releases: same names, subnets, registry port and dir', () => {
    expect(labLayout(2)).toEqual(labLayout(2, instanceNames(1)))
    expect(instanceNames(1)).toMatchObject({ prefix: 'vrd-lab', labelFilter: 'label=vrd-lab=1', guardComment: 'vrd-lab-egress-guard', dirName: '.lab' })
  })

  it('instance 2 has its own prefix, subnets, registry port and dir', () => {
    const two = instanceNames(2)
    const l = labLayout(2, two)
    expect(l.nodes.map((n) => [n.name, n.container, n.dockerVolume, n.mgmtIp, n.fabricIp])).toEqual([
      ['spark-a', 'vrd-lab2-spark-a', 'vrd-lab2-spark-a-docker', '172.30.231.12', '172.30.201.12'],
      ['spark-b', 'vrd-lab2-spark-b', 'vrd-lab2-spark-b-docker', '172.30.231.13', '172.30.201.13'],
    ])
    expect([l.mgmt.name, l.mgmt.bridge, l.fabric.name, l.fabric.bridge]).toEqual(['vrd-lab2-mgmt', 'vrd-lab2-mgmt0', 'vrd-lab2-fabric', 'vrd-lab2-fab0'])
    expect(l.registry).toMatchObject({ container: 'vrd-lab2-registry', ip: '172.30.231.5', nodeHost: '172.30.231.5:5000', hostHost: '127.0.0.1:5001' })
    expect(two).toMatchObject({ labelFilter: 'label=vrd-lab=2', guardComment: 'vrd-lab2-egress-guard', dirName: '.lab-2' })
  })

  it('no two instances share a name, a subnet, a bridge, a host port or a dir, and no name of one starts with another prefix', () => {
    const layouts = all.map((n) => ({ n, l: labLayout(4, n) }))
    const names = (x: (typeof layouts)[number]) => [
      x.l.mgmt.name,
      x.l.fabric.name,
      x.l.mgmt.bridge,
      x.l.fabric.bridge,
      x.l.registry.container,
      x.l.registry.volume,
      ...x.l.nodes.flatMap((node) => [node.container, node.dockerVolume]),
      x.n.guardComment,
    ]
    const unique = (xs: string[]) => expect(new Set(xs).size).toBe(xs.length)
    unique(layouts.flatMap(names))
    unique(layouts.flatMap((x) => [x.l.mgmt.subnet, x.l.fabric.subnet]))
    unique(layouts.map((x) => x.l.registry.hostHost))
    unique(all.map((n) => n.dirName))
    for (const x of layouts) {
      expect(x.l.mgmt.bridge.length).toBeLessThanOrEqual(15)
      expect(x.l.fabric.bridge.length).toBeLessThanOrEqual(15)
      for (const net of [x.l.mgmt, x.l.fabric]) expect(net.subnet.startsWith('172.17.')).toBe(false)
      // down finds an instance's objects by `<prefix>-`: another instance's names never match it.
      for (const y of layouts) if (y !== x) for (const name of names(y)) expect(name.startsWith(`${x.n.prefix}-`)).toBe(false)
    }
  })

  it('reads VRD_LAB_INSTANCE: unset or empty is 1; anything but 1..8 is an error naming the variable', () => {
    expect(labInstance({})).toEqual({ ok: true, value: 1 })
    expect(labInstance({ VRD_LAB_INSTANCE: '' })).toEqual({ ok: true, value: 1 })
    expect(labInstance({ VRD_LAB_INSTANCE: ' 2 ' })).toEqual({ ok: true, value: 2 })
    expect(labInstance({ VRD_LAB_INSTANCE: String(MAX_INSTANCES) })).toEqual({ ok: true, value: MAX_INSTANCES })
    for (const bad of ['0', '9', '1.5', '-1', 'two', '2x', '0x2', '1e0']) {
      const r = labInstance({ VRD_LAB_INSTANCE: bad })
      expect(r.ok).toBe(false)
      if (!r.ok) expect(r.problem.message).toBe(`VRD_LAB_INSTANCE must be a whole number from 1 to 8; got "${bad}"`)
    }
    expect(() => instanceNames(0)).toThrow(RangeError)
  })
})

describe('node container spec', () => {
  const layout = labLayout(2)
  const node = layout.nodes[1]!
  const base = {
    image: 'vrd-lab/node:latest',
    nodeFilesDir: '/lab/nodes',
    labDir: '/lab',
    hostKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJp5Rr5xWm0d6XxY2y2wz0E2v0m2b0HhY8s3fQk0t9sX',
  }

  it('a new host key in the lab dir changes the node config hash, so up recreates the node instead of reusing its sshd with the old key', () => {
    const a = nodeContainerSpec(layout, node, { ...base, privileged: false })
    const b = nodeContainerSpec(layout, node, {
      ...base,
      privileged: false,
      hostKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOtherKeyOtherKeyOtherKeyOtherKeyOtherKey0',
    })
    expect(b.labels?.[CONFIG_LABEL]).not.toBe(a.labels?.[CONFIG_LABEL])
    expect(nodeContainerSpec(layout, node, { ...base, privileged: false }).labels?.[CONFIG_LABEL]).toBe(a.labels?.[CONFIG_LABEL])
  })

  it('without --privileged: every capability but SYS_RESOURCE, unconfined, private cgroupns, docker-init', () => {
    const args = containerArgs(nodeContainerSpec(layout, node, { ...base, privileged: false }))
    expect(args).not.toContain('--privileged')
    expect(args.join(' ')).toContain(
      '--init --cgroupns=private --cap-add ALL --cap-drop SYS_RESOURCE --security-opt seccomp=unconfined ' +
        '--security-opt apparmor=unconfined --security-opt systempaths=unconfined --device-cgroup-rule a *:* rwm',
    )
  })

  it('with --privileged where the host allows it', () => {
    const args = containerArgs(nodeContainerSpec(layout, node, { ...base, privileged: true }))
    expect(args).toContain('--privileged')
    expect(args).not.toContain('--cap-add')
  })

  it('sits on mgmt at its fixed address, with DNS that never leaves the machine', () => {
    const spec = nodeContainerSpec(layout, node, { ...base, privileged: false })
    expect(spec).toMatchObject({
      name: 'vrd-lab-spark-b',
      hostname: 'spark-b',
      network: 'vrd-lab-mgmt',
      ip: '172.30.230.13',
      aliases: ['spark-b'],
      dns: ['127.0.0.1'],
      dnsOptions: ['timeout:1', 'attempts:1'],
    })
    expect(spec.mounts).toEqual([
      { type: 'volume', source: 'vrd-lab-spark-b-docker', target: '/var/lib/docker' },
      { type: 'bind', source: '/lab/nodes', target: '/etc/vrd-lab', readonly: true },
    ])
    expect(spec.env).toMatchObject({ VRD_LAB_FABRIC_IP: '172.30.200.13', VRD_LAB_REGISTRY: '172.30.230.5:5000', VRD_LAB_FABRIC_IFNAME: 'enp1s0f0np0' })
  })

  it('carries a config hash that changes with the spec', () => {
    const a = nodeContainerSpec(layout, node, { ...base, privileged: false }).labels![CONFIG_LABEL]
    const b = nodeContainerSpec(layout, node, { ...base, privileged: true }).labels![CONFIG_LABEL]
    const a2 = nodeContainerSpec(layout, node, { ...base, privileged: false }).labels![CONFIG_LABEL]
    expect(a).toMatch(/^[0-9a-f]{16}$/)
    expect(a).toBe(a2)
    expect(a).not.toBe(b)
  })

  it('publishes the registry on loopback only', () => {
    expect(registryContainerSpec(layout, 'vrd-lab/registry:latest')).toMatchObject({
      name: 'vrd-lab-registry',
      ip: '172.30.230.5',
      publish: ['127.0.0.1:5000:5000'],
      mounts: [{ type: 'volume', source: 'vrd-lab-registry-data', target: '/var/lib/registry' }],
    })
  })
})

describe('VRD_LAB_INSTANCE in a process (the modules read it when loaded)', () => {
  afterEach(() => {
    vi.unstubAllEnvs()
    vi.resetModules()
  })

  const load = async (instance: string | undefined, labDir?: string) => {
    vi.resetModules()
    vi.stubEnv('VRD_LAB_INSTANCE', instance)
    vi.stubEnv('VRD_LAB_DIR', labDir)
    return {
      layout: await import('../../src/lab/layout.js'),
      paths: await import('../../src/lab/paths.js'),
      guard: (await import('../../src/lab/host-commands.js')).GUARD_COMMENT,
    }
  }

  it('instance 2: its names everywhere, its own lab dir, and the build cache of the default lab', async () => {
    const { layout, paths, guard } = await load('2')
    const repo = paths.repoRoot()!
    expect([layout.PREFIX, layout.MGMT_NETWORK.subnet, layout.REGISTRY.hostHost, guard]).toEqual([
      'vrd-lab2',
      '172.30.231.0/24',
      '127.0.0.1:5001',
      'vrd-lab2-egress-guard',
    ])
    expect(layout.labLayout(2).nodes[0]!.container).toBe('vrd-lab2-spark-a')
    expect(paths.resolveLabDir()).toEqual({ ok: true, value: join(repo, '.lab-2') })
    expect(paths.labCacheDir()).toBe(join(repo, '.lab', 'cache'))
    // A lab dir chosen by hand keeps its cache inside it, as before.
    expect(paths.labCacheDir('/srv/lab')).toBe('/srv/lab/cache')
  })

  it('unset: instance 1, exactly the names and dir of earlier releases', async () => {
    const { layout, paths, guard } = await load(undefined)
    expect([layout.PREFIX, layout.MGMT_NETWORK.subnet, layout.REGISTRY.hostHost, guard]).toEqual([
      'vrd-lab',
      '172.30.230.0/24',
      '127.0.0.1:5000',
      'vrd-lab-egress-guard',
    ])
    expect(paths.resolveLabDir()).toEqual({ ok: true, value: join(paths.repoRoot()!, '.lab') })
  })

  it('a bad value: every lab command fails with the variable named and a fix, before it touches anything', async () => {
    const { paths } = await load('3x')
    const dir = paths.resolveLabDir()
    expect(dir.ok).toBe(false)
    if (dir.ok) return
    expect(dir.problem.code).toBe('bad-input')
    expect(labProblemText(dir.problem)).toMatch(/^VRD_LAB_INSTANCE must be a whole number from 1 to 8; got "3x"\nfix: unset VRD_LAB_INSTANCE/)
    const { labContext } = await import('../../src/lab/lab-context.js')
    const ctx = labContext({ dir: '/srv/lab' })
    expect(ctx.ok ? 'a context' : ctx.problem.message).toMatch(/^VRD_LAB_INSTANCE must be a whole number/)
  })
})
