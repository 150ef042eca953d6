/**
 * The lab's fixed shape, as data: names, subnets, addresses, interface names.
 *
 * Everything the lab creates on this machine carries the `vrd-lab-` prefix (containers, networks,
 * volumes, bridges, the iptables comment) or the `vrd-lab/` repository (images), so that nothing
 * collides with other work on the machine and `down` can find every object it made.
 */

export const PREFIX = 'vrd-lab'
/** Label put on every container, network, volume and image the lab creates. */
export const LABEL = 'vrd-lab'
export const MAX_NODES = 4
export const DEFAULT_NODES = 2

/** Interface names a DGX Spark shows (management NIC and the RoCE port used as fabric). */
export const MGMT_IFNAME = 'enP7s7'
export const FABRIC_IFNAME = 'enp1s0f0np0'

export interface LabNetwork {
  /** Docker network name. */
  readonly name: string
  /** Linux bridge on this machine (at most 15 characters). */
  readonly bridge: string
  readonly subnet: string
  /** This machine's address on the bridge. */
  readonly gateway: string
  /** `--internal`: no gateway, no NAT, nothing leaves the bridge. */
  readonly internal: boolean
}

export interface LabNodeLayout {
  /** Node name and hostname: spark-a .. spark-d. */
  readonly name: string
  readonly role: 'head' | 'worker'
  readonly container: string
  /** Named volume holding the node's /var/lib/docker (overlay2 needs a real filesystem). */
  readonly dockerVolume: string
  readonly mgmtIp: string
  readonly fabricIp: string
  /** DNS alias of the node's fabric address inside the lab (`spark-a-fabric`). */
  readonly fabricAlias: string
}

export interface LabRegistryLayout {
  readonly container: string
  readonly volume: string
  readonly ip: string
  readonly port: number
  /** How the nodes name it (insecure registry in their dockerd). */
  readonly nodeHost: string
  /** How this machine names it (published on loopback only). */
  readonly hostHost: string
}

export interface LabLayout {
  readonly mgmt: LabNetwork
  readonly fabric: LabNetwork
  readonly registry: LabRegistryLayout
  readonly nodes: readonly LabNodeLayout[]
  readonly mgmtIfname: string
  readonly fabricIfname: string
}

export const MGMT_NETWORK: LabNetwork = {
  name: `${PREFIX}-mgmt`,
  bridge: `${PREFIX}-mgmt0`,
  subnet: '172.30.230.0/24',
  gateway: '172.30.230.1',
  internal: false,
}

export const FABRIC_NETWORK: LabNetwork = {
  name: `${PREFIX}-fabric`,
  bridge: `${PREFIX}-fab0`,
  subnet: '172.30.200.0/24',
  gateway: '172.30.200.1',
  internal: true,
}

export const REGISTRY: LabRegistryLayout = {
  container: `${PREFIX}-registry`,
  volume: `${PREFIX}-registry-data`,
  ip: '172.30.230.5',
  port: 5000,
  nodeHost: '172.30.230.5:5000',
  hostHost: '127.0.0.1:5000',
}

/** Images the lab builds. All live under the `vrd-lab/` repository prefix. */
export const IMAGES = {
  /** debootstrap minbase + node packages (sshd, docker.io, python3, iproute2, ...), by `docker import`. */
  nodeBase: 'vrd-lab/node-base:bookworm',
  /** node-base + the lab's init, fake GPU tools and runtime wrapper (thin `docker build` layer). */
  node: 'vrd-lab/node:latest',
  /** Debian's docker-registry binary with its libraries, nothing else. */
  registry: 'vrd-lab/registry:latest',
  /** debootstrap minbase + python3, python3-venv, iproute2, procps, curl, ca-certificates. */
  workloadBase: 'vrd-lab/workload-base:bookworm',
  /** workload-base + Ray wheels in /opt/venv + the vLLM stand-in package. */
  workload: 'vrd-lab/vllm-standin:latest',
} as const

/** The workload image's repository path inside the lab registry. */
export const WORKLOAD_REPOSITORY = 'vrd-lab/vllm-standin'
export const WORKLOAD_TAG = 'latest'

export const nodeName = (index: number): string => `spark-${String.fromCharCode(97 + index)}`

/** Address of node `index` (0-based) on a /24 whose network address is `subnet`: `.12 + index`. */
export function hostAddress(subnet: string, index: number): string {
  const base = subnet.split('/')[0]!.split('.')
  return [...base.slice(0, 3), String(12 + index)].join('.')
}

export function validateNodeCount(n: number): number {
  if (!Number.isInteger(n) || n < 1 || n > MAX_NODES) {
    throw new RangeError(`the lab has 1 to ${MAX_NODES} nodes; got ${JSON.stringify(n)}`)
  }
  return n
}

export function labLayout(nodes: number): LabLayout {
  validateNodeCount(nodes)
  return {
    mgmt: MGMT_NETWORK,
    fabric: FABRIC_NETWORK,
    registry: REGISTRY,
    mgmtIfname: MGMT_IFNAME,
    fabricIfname: FABRIC_IFNAME,
    nodes: Array.from({ length: nodes }, (_, i) => {
      const name = nodeName(i)
      return {
        name,
        role: i === 0 ? 'head' : 'worker',
        container: `${PREFIX}-${name}`,
        dockerVolume: `${PREFIX}-${name}-docker`,
        mgmtIp: hostAddress(MGMT_NETWORK.subnet, i),
        fabricIp: hostAddress(FABRIC_NETWORK.subnet, i),
        fabricAlias: `${name}-fabric`,
      } satisfies LabNodeLayout
    }),
  }
}
