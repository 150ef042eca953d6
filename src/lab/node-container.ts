/**
 * How a lab node and the lab registry are run, as data (ContainerSpec). Pure.
 */
import { createHash } from 'node:crypto'
import type { ContainerSpec } from './docker-commands.js'
import { INSTANCE, LABEL, type LabLayout, type LabNodeLayout } from './layout.js'

/** Label holding a hash of the container's spec: a node whose spec changed is recreated. */
export const CONFIG_LABEL = 'vrd-lab.config'
export const ROLE_LABEL = 'vrd-lab.role'
export const NODE_LABEL = 'vrd-lab.node'
export const PRIVILEGED_LABEL = 'vrd-lab.privileged'
export const DIR_LABEL = 'vrd-lab.dir'

/**
 * On hosts that cannot grant `--privileged` (a capability bounding set without
 * CAP_SYS_RESOURCE), the node gets every capability the host has and no confinement instead.
 * The init script then remounts /sys and the cgroup hierarchies read-write.
 */
export const UNPRIVILEGED_NODE_FLAGS = {
  capAdd: ['ALL'],
  capDrop: ['SYS_RESOURCE'],
  securityOpts: ['seccomp=unconfined', 'apparmor=unconfined', 'systempaths=unconfined'],
  deviceCgroupRules: ['a *:* rwm'],
} as const

/**
 * Docker's embedded DNS forwards names it does not know to the upstream resolver, from the
 * node's namespace, along the mgmt default route. Upstream 127.0.0.1 (nothing listens) keeps
 * every query local, and timeout 1 / attempts 1 makes such a lookup fail in about 2 s.
 */
export const NODE_DNS = { dns: ['127.0.0.1'], dnsOptions: ['timeout:1', 'attempts:1'] } as const

export interface NodeRunOptions {
  readonly image: string
  readonly privileged: boolean
  /** Host folder with every node's files; mounted read-only at /etc/vrd-lab. */
  readonly nodeFilesDir: string
  readonly labDir: string
  /**
   * The node's host public key (from the lab dir). sshd loads it when the node boots, so a new key
   * (a lab dir made anew at the same path) must recreate the node, never reuse it with the old key.
   */
  readonly hostKey: string
}

function withConfigHash(spec: ContainerSpec): ContainerSpec {
  const hash = createHash('sha256').update(JSON.stringify(spec)).digest('hex').slice(0, 16)
  return { ...spec, labels: { ...spec.labels, [CONFIG_LABEL]: hash } }
}

/**
 * The node as created on the mgmt network; the fabric network is connected before the first
 * start (see `fabricAttachment`), so the node boots with both interfaces.
 */
export function nodeContainerSpec(layout: LabLayout, node: LabNodeLayout, o: NodeRunOptions): ContainerSpec {
  return withConfigHash({
    name: node.container,
    image: o.image,
    hostname: node.name,
    init: true,
    cgroupns: 'private',
    ...(o.privileged ? { privileged: true } : UNPRIVILEGED_NODE_FLAGS),
    network: layout.mgmt.name,
    ip: node.mgmtIp,
    aliases: [node.name],
    ...NODE_DNS,
    mounts: [
      { type: 'volume', source: node.dockerVolume, target: '/var/lib/docker' },
      { type: 'bind', source: o.nodeFilesDir, target: '/etc/vrd-lab', readonly: true },
    ],
    env: {
      VRD_LAB_MGMT_IP: node.mgmtIp,
      VRD_LAB_MGMT_GATEWAY: layout.mgmt.gateway,
      VRD_LAB_FABRIC_IP: node.fabricIp,
      VRD_LAB_MGMT_IFNAME: layout.mgmtIfname,
      VRD_LAB_FABRIC_IFNAME: layout.fabricIfname,
      VRD_LAB_REGISTRY: layout.registry.nodeHost,
    },
    labels: {
      [LABEL]: INSTANCE.labelValue,
      [ROLE_LABEL]: 'node',
      [NODE_LABEL]: node.name,
      [PRIVILEGED_LABEL]: String(o.privileged),
      [DIR_LABEL]: o.labDir,
      // The fabric attachment is part of the node's shape too.
      'vrd-lab.fabric': `${layout.fabric.name}=${node.fabricIp}`,
      // sshd loads its host key at boot: a new key in the lab dir needs a new container.
      'vrd-lab.host-key': createHash('sha256').update(o.hostKey).digest('hex').slice(0, 16),
    },
    stopTimeoutSeconds: 20,
  })
}

export const fabricAttachment = (layout: LabLayout, node: LabNodeLayout) =>
  ({ network: layout.fabric.name, ip: node.fabricIp, aliases: [node.fabricAlias] }) as const

export function registryContainerSpec(layout: LabLayout, image: string): ContainerSpec {
  const r = layout.registry
  return withConfigHash({
    name: r.container,
    image,
    network: layout.mgmt.name,
    ip: r.ip,
    aliases: ['registry'],
    ...NODE_DNS,
    publish: [`${r.hostHost}:${r.port}`],
    mounts: [{ type: 'volume', source: r.volume, target: '/var/lib/registry' }],
    labels: { [LABEL]: INSTANCE.labelValue, [ROLE_LABEL]: 'registry' },
  })
}

/** A throw-away container that only tells whether `--privileged` can start here. */
export const privilegeProbeSpec = (image: string): ContainerSpec => ({
  name: 'vrd-lab-privilege-probe',
  image,
  privileged: true,
  network: 'none',
  labels: { [LABEL]: INSTANCE.labelValue, [ROLE_LABEL]: 'probe' },
})
