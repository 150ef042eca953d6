/**
 * The lab's fixed shape, as data: names, subnets, addresses, interface names.
 *
 * Everything the lab creates on this machine carries the `vrd-lab-` prefix (containers, networks,
 * volumes, bridges, the iptables comment) or the `vrd-lab/` repository (images), so that nothing
 * collides with other work on the machine and `down` can find every object it made.
 *
 * One machine can hold several labs side by side: `$VRD_LAB_INSTANCE` (1, the default, to
 * MAX_INSTANCES) picks one. Each has its own prefix (`vrd-lab-`, `vrd-lab2-`, ...), subnets, registry
 * port and lab dir; the images (`vrd-lab/...`) and the build cache are shared. Instance 1 is exactly
 * the lab of earlier releases, so an existing lab keeps working.
 */
import { ok } from '../result/result.js'
import { type LabProblem, type LabResult, labFail } from './lab-problem.js'

export const MAX_INSTANCES = 8

/** Label put on every container, network, volume and image the lab creates (value: the instance). */
export const LABEL = 'vrd-lab'

/** The names one lab instance gives its objects. */
export interface LabInstanceNames {
  readonly instance: number
  /** `vrd-lab` for instance 1, `vrd-lab<N>` for the others. */
  readonly prefix: string
  /** The LABEL value of this instance's containers, networks and volumes. */
  readonly labelValue: string
  /** `docker ... --filter` for exactly this instance's objects. */
  readonly labelFilter: string
  /** The comment on this instance's egress guard rules. */
  readonly guardComment: string
  /** Folder name of the default lab dir under the repository: `.lab`, `.lab-<N>`. */
  readonly dirName: string
}

/**
 * The instance `$VRD_LAB_INSTANCE` names (1 when unset or empty). A bad value is a Problem, never a
 * quiet fall-back to another lab's containers.
 */
export function labInstance(env: NodeJS.ProcessEnv = process.env): LabResult<number> {
  const raw = env.VRD_LAB_INSTANCE?.trim()
  if (!raw) return ok(1)
  const n = /^[0-9]+$/.test(raw) ? Number(raw) : Number.NaN
  if (!Number.isInteger(n) || n < 1 || n > MAX_INSTANCES) {
    return labFail(
      'bad-input',
      `VRD_LAB_INSTANCE must be a whole number from 1 to ${MAX_INSTANCES}; got ${JSON.stringify(env.VRD_LAB_INSTANCE)}`,
      'unset VRD_LAB_INSTANCE for the default lab, or set it to the number of the lab to use',
    )
  }
  return ok(n)
}

/** The names of instance `instance`, one that labInstance accepted (or a literal 1 to MAX_INSTANCES). */
export function instanceNames(instance: number): LabInstanceNames {
  if (!Number.isInteger(instance) || instance < 1 || instance > MAX_INSTANCES) {
    // bug: every instance number comes from labInstance, which refuses a bad one, or is a literal
    throw new RangeError(`the lab instance is 1 to ${MAX_INSTANCES}; got ${JSON.stringify(instance)}`)
  }
  const prefix = instance === 1 ? 'vrd-lab' : `vrd-lab${instance}`
  return {
    instance,
    prefix,
    labelValue: String(instance),
    labelFilter: `label=${LABEL}=${instance}`,
    guardComment: `${prefix}-egress-guard`,
    dirName: instance === 1 ? '.lab' : `.lab-${instance}`,
  }
}

/**
 * This process's instance. A bad `$VRD_LAB_INSTANCE` leaves instance 1's names here and the Problem
 * in INSTANCE_PROBLEM: every lab command checks it first (resolveLabDir, where each starts), and
 * nothing else reads the lab.
 */
const current = labInstance()
export const INSTANCE_PROBLEM: LabProblem | undefined = current.ok ? undefined : current.problem
export const INSTANCE: LabInstanceNames = instanceNames(current.ok ? current.value : 1)
export const PREFIX = INSTANCE.prefix
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

/** Instance N: mgmt 172.30.(229+N).0/24, fabric 172.30.(199+N).0/24, registry on 127.0.0.1:(4999+N). */
export function instanceNetworks(names: LabInstanceNames): { mgmt: LabNetwork; fabric: LabNetwork; registry: LabRegistryLayout } {
  const mgmtNet = `172.30.${229 + names.instance}`
  const fabricNet = `172.30.${199 + names.instance}`
  const port = 5000
  const hostPort = 4999 + names.instance
  return {
    mgmt: { name: `${names.prefix}-mgmt`, bridge: `${names.prefix}-mgmt0`, subnet: `${mgmtNet}.0/24`, gateway: `${mgmtNet}.1`, internal: false },
    fabric: { name: `${names.prefix}-fabric`, bridge: `${names.prefix}-fab0`, subnet: `${fabricNet}.0/24`, gateway: `${fabricNet}.1`, internal: true },
    registry: {
      container: `${names.prefix}-registry`,
      volume: `${names.prefix}-registry-data`,
      ip: `${mgmtNet}.5`,
      port,
      nodeHost: `${mgmtNet}.5:${port}`,
      hostHost: `127.0.0.1:${hostPort}`,
    },
  }
}

const nets = instanceNetworks(INSTANCE)
export const MGMT_NETWORK: LabNetwork = nets.mgmt
export const FABRIC_NETWORK: LabNetwork = nets.fabric
export const REGISTRY: LabRegistryLayout = nets.registry

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

/** `--nodes` (or the count lab up keeps): a whole number from 1 to MAX_NODES. */
export function validateNodeCount(n: number): LabResult<number> {
  if (!Number.isInteger(n) || n < 1 || n > MAX_NODES) {
    return labFail('bad-input', `the lab has 1 to ${MAX_NODES} nodes; got ${JSON.stringify(n)}`, `give --nodes a whole number from 1 to ${MAX_NODES}`)
  }
  return ok(n)
}

/** The layout of `nodes` nodes, a count validateNodeCount accepted (or a literal). */
export function labLayout(nodes: number, names: LabInstanceNames = INSTANCE): LabLayout {
  const count = validateNodeCount(nodes)
  // bug: lab up validates --nodes first; every other caller passes a literal
  if (!count.ok) throw new RangeError(count.problem.message)
  const { mgmt, fabric, registry } = instanceNetworks(names)
  return {
    mgmt,
    fabric,
    registry,
    mgmtIfname: MGMT_IFNAME,
    fabricIfname: FABRIC_IFNAME,
    nodes: Array.from({ length: nodes }, (_, i) => {
      const name = nodeName(i)
      return {
        name,
        role: i === 0 ? 'head' : 'worker',
        container: `${names.prefix}-${name}`,
        dockerVolume: `${names.prefix}-${name}-docker`,
        mgmtIp: hostAddress(mgmt.subnet, i),
        fabricIp: hostAddress(fabric.subnet, i),
        fabricAlias: `${name}-fabric`,
      } satisfies LabNodeLayout
    }),
  }
}
