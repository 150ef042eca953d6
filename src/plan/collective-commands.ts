/**
 * The fabric collective as commands: a free port on the head's fabric IP for the rendezvous, then
 * on every node at once a throw-away container of the release's image (`docker run --rm --network
 * host`, never pulling: the image stage put it there) with the release's container settings and env
 * (src/plan/node-commands.ts `nodeEnv`: NCCL_SOCKET_IFNAME, GLOO_SOCKET_IFNAME, container.env with
 * NCCL_IB_HCA, VLLM_HOST_IP), plus NCCL_DEBUG=INFO, running src/probe/collective-program.ts's program.
 * The secret env file is not passed: it holds credentials, not fabric settings.
 */
import { type Argv, argv } from '../command/shell.js'
import type { Manifest, ManifestNode } from '../manifest/schema.js'
import { COLLECTIVE_PY, type CollectiveArgs, collectiveWholeSeconds } from '../probe/collective-program.js'
import { nodeEnv } from './node-commands.js'

/** Bytes all-reduced (float32 lanes): large enough that NCCL's bandwidth nears the link's, small enough for a second. */
export const COLLECTIVE_BYTES = 64 * 1024 * 1024
export const COLLECTIVE_ITERS = 5
/** Seconds beyond the program's own watchdog for the container to start and be removed. */
export const COLLECTIVE_START_SLACK_SECONDS = 30

/** Prints a port free on the given address now (the kernel's choice; the rendezvous binds it a moment later). */
export const FREE_PORT_PY = 'import socket, sys\ns = socket.socket()\ns.bind((sys.argv[1], 0))\nprint(s.getsockname()[1])'
export const freePort = (ip: string): Argv => argv('python3', '-c', FREE_PORT_PY, ip)

/** The environment of a rank: the release container's, and NCCL's init lines. */
export const collectiveEnv = (m: Manifest, node: ManifestNode): Record<string, string> => ({ ...nodeEnv(m, node), NCCL_DEBUG: 'INFO' })

/** One rank's `timeout … docker run --rm --network host … --entrypoint python3 IMAGE -c PROGRAM ARGS`. */
export function collectiveRank(m: Manifest, node: ManifestNode, image: string, args: CollectiveArgs): Argv {
  const c = m.container
  const opts = ['--rm', '--pull', 'never', '--network', 'host', '--gpus', String(c.gpus)]
  if (c.shmSize) opts.push('--shm-size', c.shmSize)
  for (const d of c.devices) opts.push('--device', d)
  for (const v of c.volumes) opts.push('--volume', v)
  for (const [k, v] of Object.entries(collectiveEnv(m, node))) opts.push('--env', `${k}=${v}`)
  return argv(
    'timeout',
    '--kill-after=10',
    String(collectiveWholeSeconds(args.timeout) + COLLECTIVE_START_SLACK_SECONDS),
    'docker',
    'run',
    ...opts,
    ...c.extraArgs,
    '--entrypoint',
    'python3',
    image,
    '-c',
    COLLECTIVE_PY,
    JSON.stringify(args),
  )
}
