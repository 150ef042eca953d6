/**
 * Rules that compare several values of a manifest: one head, unique nodes, fabric IPs inside the
 * fabric subnet, parallelism that fits the GPUs, ports that do not collide, and settings the tool
 * manages itself not being set a second way. Pure: parts in, problems (with the key path of the
 * offending value) out. Single-value formats are checked by the schema (`formats.ts`).
 */
import { parseImageReference } from './image-reference.js'
import { keysNotReadByLaunchMode } from './launch-modes.js'
import { vllmArgsUnknownToRelease } from './vllm-release.js'
import { vllmFlagName } from '../command/vllm-flags.js'
import { dockerEnvNames } from './values.js'
import { cidrContains, cidrRange, type Cidr, isNetworkOrBroadcast, parseCidr, parseIpv4 } from '../net/ipv4.js'
import { SOCKET_IFNAME_VARIABLES, type SocketIfnameVariable, parseInterfaceList, selectInterfaces } from '../net/interface-list.js'
import { type ManifestPath, type PathIssue, pathLabel } from './manifest-error.js'
import type { IndexedNode, ManifestParts } from './parts.js'
import { sshEndpointOf } from './ssh-settings.js'

type Rule = (parts: ManifestParts) => PathIssue[]

const nodeLabel = ({ index, node }: IndexedNode): string => `nodes[${index}] "${node.name}"`

/** Report every node whose `keyOf` value was already seen on an earlier node. */
function duplicates(
  nodes: readonly IndexedNode[],
  keyOf: (entry: IndexedNode) => string | undefined,
  report: (entry: IndexedNode, first: IndexedNode, key: string) => PathIssue,
): PathIssue[] {
  const seen = new Map<string, IndexedNode>()
  const issues: PathIssue[] = []
  for (const entry of nodes) {
    const key = keyOf(entry)
    if (key === undefined) continue
    const first = seen.get(key)
    if (first) issues.push(report(entry, first, key))
    else seen.set(key, entry)
  }
  return issues
}

const exactlyOneHead: Rule = ({ nodes, allNodes }) => {
  const heads = nodes.filter(({ node }) => node.role === 'head')
  const [first, ...extra] = heads
  if (!first) {
    return allNodes
      ? [
          {
            code: 'NO_HEAD',
            message: 'no node has role: head; exactly one node must',
            path: ['nodes'],
            fix: 'set role: head on the node that should run the Ray head and the vLLM API server',
          },
        ]
      : []
  }
  return extra.map((entry) => ({
    code: 'MULTIPLE_HEADS',
    message: `${nodeLabel(entry)} is a second head; ${nodeLabel(first)} is already the head, and exactly one node must be`,
    path: ['nodes', entry.index, 'role'],
    fix: `set role: worker on ${entry.node.name} (or on ${first.node.name})`,
  }))
}

const uniqueNodeNames: Rule = ({ nodes }) =>
  duplicates(
    nodes,
    ({ node }) => node.name,
    (entry, first) => ({
      code: 'DUPLICATE_NODE_NAME',
      message: `node name "${entry.node.name}" in nodes[${entry.index}] is already used by nodes[${first.index}]`,
      path: ['nodes', entry.index, 'name'],
      fix: 'give every node its own name',
    }),
  )

const uniqueSshAddresses: Rule = ({ nodes, ssh }) =>
  duplicates(
    nodes,
    ({ node }) => {
      if (!ssh) return undefined
      const { host, port } = sshEndpointOf(ssh, node)
      return `${host.toLowerCase()}:${port}`
    },
    (entry, first, address) => ({
      code: 'DUPLICATE_SSH_ADDRESS',
      message: `${nodeLabel(entry)} has the same SSH address ${address} as ${nodeLabel(first)}`,
      path: ['nodes', entry.index, 'ssh', 'host'],
      fix: `set ${entry.node.name}'s ssh.host (or ssh.port) to its own management address`,
    }),
  )

const uniqueFabricIps: Rule = ({ nodes }) =>
  duplicates(
    nodes,
    ({ node }) => node.fabricIp,
    (entry, first, ip) => ({
      code: 'DUPLICATE_FABRIC_IP',
      message: `${nodeLabel(entry)} has the same fabric IP ${ip} as ${nodeLabel(first)}; Ray would see them as one node`,
      path: ['nodes', entry.index, 'fabricIp'],
      fix: `set ${entry.node.name}'s fabricIp to the address of its own fabric interface (\`ip -4 addr show\` on it)`,
    }),
  )

const fabricIpsInSubnet: Rule = ({ nodes, fabric }) => {
  const subnet = fabric ? parseCidr(fabric.subnet) : undefined
  if (!fabric || !subnet?.ok) return []
  const cidr: Cidr = subnet.value
  const [low, high] = cidrRange(cidr)
  return nodes.flatMap((entry): PathIssue[] => {
    const ip = parseIpv4(entry.node.fabricIp)
    if (!ip.ok) return []
    const path = ['nodes', entry.index, 'fabricIp']
    if (!cidrContains(cidr, ip.value)) {
      return [
        {
          code: 'FABRIC_IP_OUTSIDE_SUBNET',
          message: `fabric IP ${entry.node.fabricIp} of ${nodeLabel(entry)} is outside the fabric subnet ${fabric.subnet} (${low} to ${high})`,
          path,
          fix: `use ${entry.node.name}'s address on the fabric interface, or correct fabric.subnet`,
        },
      ]
    }
    if (isNetworkOrBroadcast(cidr, ip.value)) {
      return [
        {
          code: 'FABRIC_IP_RESERVED',
          message: `fabric IP ${entry.node.fabricIp} of ${nodeLabel(entry)} is the ${ip.value === cidr.network ? 'network' : 'broadcast'} address of ${fabric.subnet}, not a host address`,
          path,
          fix: `use ${entry.node.name}'s own address on the fabric interface`,
        },
      ]
    }
    return []
  })
}

const parallelismFitsGpus: Rule = ({ nodes, allNodes, vllm }) => {
  if (!vllm || !allNodes) return []
  const needed = vllm.tensorParallelSize * vllm.pipelineParallelSize
  const total = nodes.reduce((sum, { node }) => sum + node.gpus, 0)
  if (needed <= total) return []
  const perNode = nodes.map(({ node }) => `${node.name} ${node.gpus}`).join(', ')
  return [
    {
      code: 'PARALLELISM_EXCEEDS_GPUS',
      message: `tensorParallelSize ${vllm.tensorParallelSize} x pipelineParallelSize ${vllm.pipelineParallelSize} needs ${needed} GPUs, but the nodes have ${total} in total (${perNode})`,
      path: ['vllm', 'tensorParallelSize'],
      fix: `lower tensorParallelSize or pipelineParallelSize so their product is at most ${total}, or add nodes or GPUs`,
    },
  ]
}

/**
 * vLLM's native mode (`mp`) puts world_size / nnodes ranks on every node (vllm/config/parallel.py:
 * `local_world_size = world_size // nnodes_within_dp`), so the GPUs must be the same on every node
 * and TP x PP must use all of them: a smaller product leaves ranks to nodes that do not exist.
 */
const nativeParallelismMatchesNodes: Rule = ({ nodes, allNodes, vllm }) => {
  if (!vllm || !allNodes || vllm.executorBackend !== 'mp' || nodes.length === 0) return []
  const world = vllm.tensorParallelSize * vllm.pipelineParallelSize
  const perNode = nodes.map(({ node }) => `${node.name} ${node.gpus}`).join(', ')
  const gpus = new Set(nodes.map(({ node }) => node.gpus))
  if (gpus.size > 1)
    return [
      {
        code: 'NATIVE_UNEVEN_GPUS',
        message: `executorBackend mp runs the same number of ranks on every node, but the nodes have different GPU counts (${perNode})`,
        path: ['vllm', 'executorBackend'],
        fix: 'give every node the same nodes[].gpus (the GPUs vLLM uses there), or use executorBackend: ray',
      },
    ]
  const each = nodes[0]!.node.gpus
  if (world === nodes.length * each) return []
  return [
    {
      code: 'NATIVE_PARALLELISM_MISMATCH',
      message: `executorBackend mp needs tensorParallelSize ${vllm.tensorParallelSize} x pipelineParallelSize ${vllm.pipelineParallelSize} = ${world} to equal ${nodes.length} nodes x ${each} GPUs = ${nodes.length * each} (vLLM starts world_size / --nnodes ranks on every node)`,
      path: ['vllm', 'tensorParallelSize'],
      fix: `set tensorParallelSize x pipelineParallelSize to ${nodes.length * each}, or change the nodes or their gpus`,
    },
  ]
}

/**
 * Keys of one executor set under the other are refused, not warned about: they would do nothing, and
 * a manifest that says `ray.dashboard: true` under `mp` believes in a dashboard that never starts.
 * The schema fills defaults, so a key "is set" when it differs from its default.
 */
const executorKeysMatchBackend: Rule = ({ ray, vllm }) => {
  if (!vllm) return []
  const issue = (path: ManifestPath, what: string, fix: string): PathIssue => ({
    code: 'EXECUTOR_KEY_UNUSED',
    message: `${pathLabel(path)} ${what}, but vllm.executorBackend is ${vllm.executorBackend}`,
    path,
    related: ['vllm', 'executorBackend'],
    fix,
  })
  if (vllm.executorBackend === 'ray')
    return vllm.masterPort === 29501
      ? []
      : [issue(['vllm', 'masterPort'], 'is only used by the native mode', 'remove vllm.masterPort, or set vllm.executorBackend: mp')]
  if (!ray) return []
  const rayOnly: [boolean, ManifestPath][] = [
    [ray.port !== 6379, ['ray', 'port']],
    [ray.dashboard, ['ray', 'dashboard']],
    [ray.dashboardPort !== 8265, ['ray', 'dashboardPort']],
    [ray.objectStoreMemoryBytes !== undefined, ['ray', 'objectStoreMemoryBytes']],
    [ray.extraArgs.length > 0, ['ray', 'extraArgs']],
  ]
  return rayOnly
    .filter(([set]) => set)
    .map(([, path]) => issue(path, 'configures Ray, which the native mode does not start', `remove ${pathLabel(path)}, or set vllm.executorBackend: ray`))
}

/** Ports that all listen on the head node. */
const distinctHeadPorts: Rule = ({ ray, vllm }) => {
  const ports: { readonly label: string; readonly path: ManifestPath; readonly port: number }[] = []
  if (vllm?.executorBackend === 'mp') ports.push({ label: 'vllm.masterPort', path: ['vllm', 'masterPort'], port: vllm.masterPort })
  else if (ray) {
    ports.push({ label: 'ray.port', path: ['ray', 'port'], port: ray.port })
    if (ray.dashboard) ports.push({ label: 'ray.dashboardPort', path: ['ray', 'dashboardPort'], port: ray.dashboardPort })
  }
  if (vllm) ports.push({ label: 'vllm.port', path: ['vllm', 'port'], port: vllm.port })
  return ports.flatMap((entry, i) => {
    const earlier = ports.slice(0, i).find((other) => other.port === entry.port)
    return earlier
      ? [
          {
            code: 'PORT_CONFLICT',
            message: `${entry.label} ${entry.port} is the same port as ${earlier.label}; both listen on the head node`,
            path: entry.path,
            related: earlier.path,
            fix: `choose a different ${entry.label}`,
          },
        ]
      : []
  })
}

const digestMatchesReference: Rule = ({ image }) => {
  if (!image?.digest) return []
  const reference = parseImageReference(image.ref)
  if (!reference.ok || reference.value.digest === undefined || reference.value.digest === image.digest) return []
  return [
    {
      code: 'IMAGE_DIGEST_CONFLICT',
      message: `image.digest ${image.digest} differs from the digest in image.ref (${reference.value.digest})`,
      path: ['image', 'digest'],
      fix: 'pin the digest in one place only, or make both the same',
    },
  ]
}

const secretsNotAlsoPlain: Rule = ({ container }) => {
  if (!container) return []
  const seen = new Set<string>()
  return container.secretEnv.flatMap((name, index): PathIssue[] => {
    if (seen.has(name)) {
      return [
        { code: 'DUPLICATE_SECRET_ENV', message: `secretEnv lists ${name} twice`, path: ['container', 'secretEnv', index], fix: `remove the second ${name}` },
      ]
    }
    seen.add(name)
    if (!(name in container.env)) return []
    return [
      {
        code: 'SECRET_ENV_ALSO_SET',
        message: `${name} is in container.secretEnv and also has a value in container.env; a secret must not be written in the manifest`,
        path: ['container', 'env', name],
        anchor: 'key',
        fix: `remove ${name} from container.env and provide it through the environment of the action or CLI`,
      },
    ]
  })
}

/** Flags that the tool sets from a manifest key, so writing them in an argument list sets them twice. */
interface ManagedFlag {
  readonly flags: readonly string[]
  readonly setBy: string
}

const CONTAINER_FLAGS: readonly ManagedFlag[] = [
  { flags: ['--name'], setBy: 'container.name' },
  { flags: ['--gpus'], setBy: 'container.gpus' },
  { flags: ['--shm-size'], setBy: 'container.shmSize' },
]

const RAY_FLAGS: readonly ManagedFlag[] = [
  { flags: ['--node-ip-address'], setBy: 'nodes[].fabricIp' },
  { flags: ['--address', '--head'], setBy: 'the node roles' },
  { flags: ['--port'], setBy: 'ray.port' },
  { flags: ['--include-dashboard'], setBy: 'ray.dashboard' },
  { flags: ['--dashboard-port'], setBy: 'ray.dashboardPort' },
  { flags: ['--object-store-memory'], setBy: 'ray.objectStoreMemoryBytes' },
]

const VLLM_FLAGS: readonly ManagedFlag[] = [
  { flags: ['--tensor-parallel-size', '-tp'], setBy: 'vllm.tensorParallelSize' },
  { flags: ['--pipeline-parallel-size', '-pp'], setBy: 'vllm.pipelineParallelSize' },
  { flags: ['--distributed-executor-backend'], setBy: 'vllm.executorBackend' },
  { flags: ['--port'], setBy: 'vllm.port' },
  { flags: ['--served-model-name'], setBy: 'vllm.servedModelName' },
  { flags: ['--nnodes', '-n'], setBy: 'the nodes (executorBackend: mp)' },
  { flags: ['--node-rank'], setBy: 'the node order (executorBackend: mp)' },
  { flags: ['--master-addr'], setBy: "the head's nodes[].fabricIp (executorBackend: mp)" },
  { flags: ['--master-port'], setBy: 'vllm.masterPort' },
  { flags: ['--headless'], setBy: 'the node roles (executorBackend: mp)' },
]

const managedFlagsNotInArgs: Rule = ({ container, ray, vllm }) => {
  const plain = (arg: string) => arg.split('=')[0] ?? arg
  const lists: {
    readonly path: readonly [string, string]
    readonly args?: readonly string[]
    readonly flags: readonly ManagedFlag[]
    /** The flag an argument names, as its program's parser reads it. */
    readonly name: (arg: string) => string
  }[] = [
    { path: ['container', 'extraArgs'], args: container?.extraArgs, flags: CONTAINER_FLAGS, name: plain },
    { path: ['ray', 'extraArgs'], args: ray?.extraArgs, flags: RAY_FLAGS, name: plain },
    // vLLM reads --tensor_parallel_size as --tensor-parallel-size.
    { path: ['vllm', 'args'], args: vllm?.args, flags: VLLM_FLAGS, name: vllmFlagName },
  ]
  return lists.flatMap(({ path, args, flags, name }) =>
    (args ?? []).flatMap((arg, index): PathIssue[] => {
      const flag = name(arg)
      const managed = flags.find((entry) => entry.flags.includes(flag))
      if (!managed) return []
      return [
        {
          code: 'MANAGED_FLAG_IN_ARGS',
          message: `${pathLabel(path)} sets ${flag}, which this tool sets from ${managed.setBy}`,
          path: [...path, index],
          fix: `remove ${flag} (and its value) from ${pathLabel(path)}; set ${managed.setBy} instead`,
        },
      ]
    }),
  )
}

/**
 * The tool sets VLLM_HOST_IP to each node's fabric IP; `container.extraArgs` come after the tool's own
 * `docker run` arguments, so an `-e VLLM_HOST_IP=…` there (in any spelling docker reads) would win.
 * An `--env-file` is refused too: what it sets cannot be seen here.
 */
const extraArgsDoNotSetHostIp: Rule = ({ container }) =>
  dockerEnvNames(container?.extraArgs ?? []).flatMap(({ index, name }): PathIssue[] => {
    if (name !== 'VLLM_HOST_IP' && name !== '*') return []
    return [
      {
        code: 'PER_NODE_ENV',
        message:
          name === '*'
            ? "container.extraArgs passes --env-file, which could set VLLM_HOST_IP (it must be each node's own fabric IP) and hides what the containers get"
            : "container.extraArgs sets VLLM_HOST_IP for every node, but it must be each node's own fabric IP",
        path: ['container', 'extraArgs', index],
        fix:
          name === '*'
            ? 'put the variables in container.env (or container.secretEnv for secrets)'
            : 'remove it; the tool sets VLLM_HOST_IP to nodes[].fabricIp on each node',
      },
    ]
  })

const isSocketIfnameVariable = (name: string): name is SocketIfnameVariable => (SOCKET_IFNAME_VARIABLES as readonly string[]).includes(name)

/** Environment variables whose right value differs per node or follows from the fabric. */
const envAgreesWithFabric: Rule = ({ container, vllm, fabric }) => {
  const maps: { readonly path: ManifestPath; readonly env: Readonly<Record<string, string>> }[] = []
  if (container) maps.push({ path: ['container', 'env'], env: container.env })
  if (vllm) maps.push({ path: ['vllm', 'env'], env: vllm.env })
  return maps.flatMap(({ path, env }) =>
    Object.entries(env).flatMap(([name, value]): PathIssue[] => {
      const where = [...path, name]
      if (name === 'VLLM_HOST_IP') {
        return [
          {
            code: 'PER_NODE_ENV',
            message: `${pathLabel(path)} sets VLLM_HOST_IP for every node, but it must be each node's own fabric IP`,
            path: where,
            anchor: 'key',
            fix: 'remove it; the tool sets VLLM_HOST_IP to nodes[].fabricIp on each node',
          },
        ]
      }
      if (isSocketIfnameVariable(name) && fabric) {
        // The library's own reading of the value (src/net/interface-list.ts), against the fabric's names.
        const list = parseInterfaceList(name, value)
        const outside = selectInterfaces(
          list,
          fabric.interfaces.map((iface) => ({ name: iface })),
        ).unmatched
        if (outside.length === 0) return []
        return [
          {
            code: 'SOCKET_IFNAME_NOT_FABRIC',
            message: `${name}=${value} in ${pathLabel(path)} names ${outside.join(', ')}, which is not among fabric.interfaces (${fabric.interfaces.join(', ')})`,
            path: where,
            fix: `set ${name} to ${fabric.interfaces.join(',')} or remove it`,
          },
        ]
      }
      return []
    }),
  )
}

const smokeExpectationsReachable: Rule = ({ smoke }) =>
  (smoke?.prompts ?? []).flatMap((prompt, index): PathIssue[] => {
    const wanted = prompt.expect.minCompletionTokens
    if (wanted === undefined || wanted <= prompt.maxTokens) return []
    return [
      {
        code: 'SMOKE_EXPECT_UNREACHABLE',
        message: `smoke.prompts[${index}] expects at least ${wanted} completion tokens but allows only maxTokens ${prompt.maxTokens}`,
        path: ['smoke', 'prompts', index, 'expect', 'minCompletionTokens'],
        fix: `raise maxTokens to at least ${wanted} or lower minCompletionTokens`,
      },
    ]
  })

export const MANIFEST_RULES: readonly Rule[] = [
  exactlyOneHead,
  uniqueNodeNames,
  uniqueSshAddresses,
  uniqueFabricIps,
  fabricIpsInSubnet,
  parallelismFitsGpus,
  nativeParallelismMatchesNodes,
  executorKeysMatchBackend,
  distinctHeadPorts,
  digestMatchesReference,
  secretsNotAlsoPlain,
  managedFlagsNotInArgs,
  extraArgsDoNotSetHostIp,
  envAgreesWithFabric,
  smokeExpectationsReachable,
]

/** Every rule violation in the parts given. */
export function checkManifestRules(parts: ManifestParts): PathIssue[] {
  return MANIFEST_RULES.flatMap((rule) => rule(parts))
}

/**
 * Warnings: rules over the manifest as written (raw data, before defaults), for what is valid but
 * does not do what it says. Returned beside the errors, as values; they never make a manifest invalid.
 */
type WarningRule = (data: unknown) => PathIssue[]

export const MANIFEST_WARNING_RULES: readonly WarningRule[] = [keysNotReadByLaunchMode, vllmArgsUnknownToRelease]

/** Every warning for the written data. */
export function checkManifestWarnings(data: unknown): PathIssue[] {
  return MANIFEST_WARNING_RULES.flatMap((rule) => rule(data))
}
