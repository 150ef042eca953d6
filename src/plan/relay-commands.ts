/**
 * `image.distribution: relay`: the runner sends the image once to the head (`docker load` fed
 * from the runner's `docker save`), and the head passes it on to each worker over the fabric:
 * `docker save IMAGE | ssh <worker fabric ip> docker load`, run on the head. Needs node-to-node
 * SSH without a prompt (a key the worker accepts, the worker's fabric IP in the head's
 * known_hosts); the host checks verify it first (RELAY_SSH_FAILED).
 */
import { type Cmd, argv, pipe } from '../command/shell.js'
import type { Manifest, ManifestNode } from '../manifest/schema.js'
import { fabricSshTarget } from './host-check-commands.js'

/** Options of the head's ssh to a worker: never a prompt, host key checked, a bounded connect. */
export const RELAY_SSH_OPTIONS = ['-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=yes', '-o', 'ConnectTimeout=10'] as const

/** On the head: stream `image` from the head's docker into `worker`'s docker over the fabric. */
export function relayToWorker(m: Manifest, worker: ManifestNode, image: string): Cmd {
  const t = fabricSshTarget(m, worker)
  return pipe(argv('docker', 'save', image), argv('ssh', ...RELAY_SSH_OPTIONS, '-p', String(t.port), '-l', t.user, t.ip, 'docker', 'load'))
}
