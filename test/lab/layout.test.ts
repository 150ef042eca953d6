import { describe, expect, it } from 'vitest'
import { labLayout, validateNodeCount } from '../../src/lab/layout.js'
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

  it('has 1 to 4 nodes', () => {
    expect(() => validateNodeCount(0)).toThrow(RangeError)
    expect(() => validateNodeCount(5)).toThrow(/1 to 4/)
    expect(() => validateNodeCount(1.5)).toThrow()
    expect(validateNodeCount(3)).toBe(3)
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
