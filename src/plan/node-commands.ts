/**
 * Builders for the commands a deploy runs on a node. Each returns data (a `Cmd`); nothing here
 * quotes or concatenates shell text. Values come from the manifest as they are.
 */
import { type Argv, type Cmd, argv, or, shScript, withEnv } from '../command/shell.js'
import type { Manifest, ManifestNode } from '../manifest/schema.js'
import { executorOf } from './executor-commands.js'
import { NODE_STATE_DIR, headOf } from './node-basics.js'

export { NODE_STATE_DIR, headOf }

/** Log of `vllm serve` inside the container. */
export const VLLM_LOG = '/tmp/vllm-ray-deploy-serve.log'

export const LABEL_PREFIX = 'io.vllm-ray-deploy'

const docker = (...args: string[]): Argv => argv('docker', ...args)

export function imageRef(m: Manifest, override?: string): string {
  const ref = override ?? m.image.ref
  return m.image.digest && !ref.includes('@') ? `${ref}@${m.image.digest}` : ref
}

/** Environment every container gets: one identity per node, the fabric for NCCL and Gloo. */
export function nodeEnv(m: Manifest, node: ManifestNode): Record<string, string> {
  const ifaces = m.fabric.interfaces
  return {
    NCCL_SOCKET_IFNAME: ifaces.join(','),
    GLOO_SOCKET_IFNAME: ifaces[0]!,
    ...m.container.env,
    // Ray's node IP and vLLM's IP must be the same address: the node's fabric IP.
    VLLM_HOST_IP: node.fabricIp,
  }
}

export const pullImage = (ref: string): Cmd => docker('pull', ref)
/** Reads a `docker save` archive from stdin. */
export const loadImage = (): Cmd => docker('load')
export const inspectImage = (ref: string): Cmd => docker('image', 'inspect', '--format', '{{.Id}}', ref)

/**
 * Remove the previous container of this name, if any (a missing one is not an error). One docker
 * call: `docker rm -f` of a missing container fails like the inspect that used to guard it did, and
 * either failure was already ignored (the teardown check after it finds what is left); the guard
 * cost every node a docker CLI start and a daemon round trip per stop (issue 40).
 */
export const removeContainer = (name: string): Cmd => or(docker('rm', '-f', name), argv('true'))

/**
 * `docker run` of the node's container with its executor's process in the foreground: `ray start`
 * (head or worker) or, in vLLM's native mode, a placeholder that holds the container for
 * `vllm serve` (src/plan/executor-commands.ts). `envFile` is the release's own secret env file
 * (src/plan/release-commands.ts).
 */
export function runNodeContainer(m: Manifest, node: ManifestNode, image: string, release: string, envFile: string): Cmd {
  const c = m.container
  const args = ['run', '--detach', '--name', c.name, '--network', 'host', '--restart', 'no', '--gpus', String(c.gpus)]
  if (c.shmSize) args.push('--shm-size', c.shmSize)
  for (const d of c.devices) args.push('--device', d)
  for (const v of c.volumes) args.push('--volume', v)
  if (c.secretEnv.length > 0) args.push('--env-file', envFile)
  for (const [k, v] of Object.entries(nodeEnv(m, node))) args.push('--env', `${k}=${v}`)
  args.push(
    '--label',
    `${LABEL_PREFIX}.cluster=${m.cluster}`,
    '--label',
    `${LABEL_PREFIX}.node=${node.name}`,
    '--label',
    `${LABEL_PREFIX}.role=${node.role}`,
    '--label',
    `${LABEL_PREFIX}.release=${release}`,
  )
  const run = executorOf(m).container(m, node)
  args.push(...c.extraArgs, '--entrypoint', run.entrypoint, image, ...run.args)
  return docker(...args)
}

/** Exits 0 when Ray (queried inside the head container) has at least `n` alive nodes. */
export const RAY_ALIVE_PY =
  'import sys\nfrom ray._private.internal_api import get_state_from_address\nalive = sum(1 for n in get_state_from_address("auto").node_table() if n["Alive"])\nprint("alive Ray nodes:", alive)\nsys.exit(0 if alive >= int(sys.argv[1]) else 1)'
export const rayAliveNodes = (m: Manifest, n: number): Argv => docker('exec', m.container.name, 'python3', '-c', RAY_ALIVE_PY, String(n))

/** Succeeds once Ray on the head answers. */
export const rayHeadReady = (m: Manifest): Argv => docker('exec', m.container.name, 'ray', 'status')

/** The exact `vllm serve` argv `node` runs (the head by default; every node in the native mode). */
export function vllmServeArgv(m: Manifest, node: ManifestNode = headOf(m)): string[] {
  const v = m.vllm
  return [
    'vllm',
    'serve',
    v.model,
    '--tensor-parallel-size',
    String(v.tensorParallelSize),
    '--pipeline-parallel-size',
    String(v.pipelineParallelSize),
    '--distributed-executor-backend',
    v.executorBackend,
    ...executorOf(m).serveFlags(m, node),
    '--host',
    '0.0.0.0',
    '--port',
    String(v.port),
    ...(v.servedModelName ? ['--served-model-name', v.servedModelName] : []),
    ...(v.kvCacheMemoryBytes !== undefined ? ['--kv-cache-memory-bytes', String(v.kvCacheMemoryBytes)] : []),
    ...v.args,
  ]
}

/** A fixed script: run its arguments with output appended to the log named first. */
const LOGGED_EXEC = 'log="$1"; shift; exec "$@" >>"$log" 2>&1'

/**
 * What `vllm serve` runs with besides vllm.env: Ray forwards every worker's lines to it, each with
 * its node's address, instead of printing a line repeated on several workers once (Ray's default
 * log deduplication), so the start-up watcher sees each node's phases (src/preflight/startup-timeline.ts).
 * vllm.env may set it otherwise.
 */
const SERVE_ENV: Readonly<Record<string, string>> = { RAY_DEDUP_LOGS: '0' }

/** Start `vllm serve` in `node`'s container (the head by default), detached, logging to VLLM_LOG. */
export function startVllm(m: Manifest, node: ManifestNode = headOf(m)): Cmd {
  const envArgs = Object.entries({ ...SERVE_ENV, ...m.vllm.env }).flatMap(([k, v]) => ['--env', `${k}=${v}`])
  return docker('exec', '--detach', ...envArgs, m.container.name, ...shScript(LOGGED_EXEC, VLLM_LOG, ...vllmServeArgv(m, node)).argv)
}

/** vLLM's health endpoint as seen on the head itself. */
export const vllmHealthUrl = (m: Manifest): string => `http://127.0.0.1:${m.vllm.port}/health`

/** Succeeds when vLLM answers /health on the head (from the head itself). */
export const vllmHealth = (m: Manifest): Argv => argv('curl', '--silent', '--show-error', '--fail', '--max-time', '5', vllmHealthUrl(m))

/** The environment a launch script runs with: the node's identity and the cluster's, and the release it starts. */
export function launchScriptEnv(m: Manifest, node: ManifestNode, image: string, release?: string): Record<string, string> {
  // bug: called only for launch.mode script
  if (m.launch.mode !== 'script') throw new Error('launchScriptEnv needs launch.mode script')
  const head = headOf(m)
  return {
    ...m.launch.env,
    VRD_CLUSTER: m.cluster,
    VRD_NODE_NAME: node.name,
    VRD_ROLE: node.role,
    VRD_NODE_IP: node.fabricIp,
    VRD_GPUS: String(node.gpus),
    VRD_HEAD_IP: head.fabricIp,
    VRD_RAY_PORT: String(m.ray.port),
    VRD_IMAGE: image,
    VRD_CONTAINER: m.container.name,
    VRD_FABRIC_IFNAME: m.fabric.interfaces[0]!,
    // vLLM's native multi-node mode: the head rank 0, the workers 1 … in manifest order (the built-in launcher's order).
    VRD_NODE_RANK: String([head, ...m.nodes.filter((n) => n.role !== 'head')].findIndex((n) => n.name === node.name)),
    VRD_NNODES: String(m.nodes.length),
    // Which contract the script serves (docs/executors.md): under mp it starts only the container; the tool runs vllm serve in it.
    VRD_EXECUTOR: m.vllm.executorBackend,
    ...(m.vllm.executorBackend === 'mp' && { VRD_MASTER_ADDR: head.fabricIp, VRD_MASTER_PORT: String(m.vllm.masterPort) }),
    // The label the tool reads a container's release from (the built-in launcher sets it too).
    ...(release !== undefined && { VRD_RELEASE: release, VRD_RELEASE_LABEL: `${LABEL_PREFIX}.release=${release}` }),
    // The weights stage's model.path: the script mounts it (read-only) and serves it with HF_HUB_OFFLINE=1.
    ...(m.model && { VRD_MODEL_PATH: m.model.path }),
  }
}

/** Run the user's launch script (a release's copy at `path` on the node) with the node's identity in its environment. */
export function runLaunchScript(m: Manifest, node: ManifestNode, image: string, path: string, release?: string): Cmd {
  // bug: called only for launch.mode script
  if (m.launch.mode !== 'script') throw new Error('runLaunchScript needs launch.mode script')
  return withEnv(launchScriptEnv(m, node, image, release), 'bash', path, ...m.launch.args)
}

/** A fixed script used as a bounded poll: run the command until it succeeds or the deadline passes. */
export const RETRY_SCRIPT =
  'deadline=$(( $(date +%s) + $1 )); pause=$2; shift 2; until "$@"; do [ "$(date +%s)" -lt "$deadline" ] || exit 1; sleep "$pause"; done'
export const retry = (cmd: Argv, seconds: number, pauseSeconds = 2): Cmd => shScript(RETRY_SCRIPT, String(seconds), String(pauseSeconds), ...cmd.argv)
