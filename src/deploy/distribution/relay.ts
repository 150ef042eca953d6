/**
 * `relay`: the runner streams `docker save` once into the head, which loads it and copies the same
 * stream into every worker's `docker load` over the fabric. With `image.relayLanding: true` the head
 * lands it in a file and copies the same stream into a file on every worker, each hashed as written;
 * then every node runs `docker load -i` from its own file at once and removes it (a node without the
 * room or python3 for the file: streamed, with a warning). src/deploy/relay-transfer.ts does the
 * transfer. The host checks also try SSH from the head to each worker's fabric IP.
 */
import type { Cmd } from '../../command/shell.js'
import { landFanOut, landedArchive } from '../../plan/image-landing-commands.js'
import { loadImage } from '../../plan/node-commands.js'
import { MINUTE, stepOf } from '../../plan/plan.js'
import { relayFanOut } from '../../plan/relay-commands.js'
import { relayImage } from '../relay-transfer.js'
import { runnerArchiveDir } from '../runner-archive.js'
import { type Distribution, keepIfPresent } from './types.js'

export const relay: Distribution = {
  name: 'relay',
  fromRunner: true,
  parallel: false,
  hostChecks: { relay: true, alsoChecked: 'head-to-worker SSH' },
  planSteps(m, node, image) {
    // The head gets the archive from the runner and, all at once, loads it (or lands it in a file)
    // and copies the same stream into each worker's docker load (or file) over the fabric.
    if (node.role !== 'head') return []
    const workers = m.nodes.filter((w) => w.role !== 'head')
    const to = workers.map((w) => `${w.name} (${w.fabricIp})`).join(', ')
    const step = (description: string, cmd: Cmd) => [stepOf(m)(node, 'image', description, cmd, 60 * MINUTE, { kind: 'image-archive', image })]
    if (!m.image.relayLanding)
      return step(
        workers.length > 0
          ? `load ${image} streamed from the runner (docker save), once for the whole cluster, and copy the same stream into ${to} over the fabric`
          : `load ${image} streamed from the runner (docker save)`,
        workers.length > 0 ? relayFanOut(m, workers) : loadImage(),
      )
    const file = landedArchive(m, image)
    const then = `then docker load -i ${file} on every node at once, the file removed after (streamed into docker load instead where a node lacks the room or python3)`
    return step(
      workers.length > 0
        ? `land ${image} from the runner (docker save), once for the whole cluster, and copy the same stream into ${to} over the fabric, each node writing ${file} and hashing it as written; ${then}`
        : `land ${image} from the runner (docker save) in ${file}, hashed as written; ${then}`,
      landFanOut(m, workers, file),
    )
  },
  async deliver(d) {
    const skip = new Set(d.nodes.filter((n) => d.want && d.before.get(n.name) === d.want).map((n) => n.name))
    // Every node already holds the runner's image ID (the gate just read it): nothing to relay, nothing to read again.
    if (d.nodes.every((n) => skip.has(n.name))) {
      for (const n of d.nodes) keepIfPresent(d, n.name)
      return
    }
    const relayed = await relayImage(d.m, d.image, d.transports, {
      onProgress: d.progress,
      skip,
      ...(d.want && { runnerId: d.want }),
      ...(d.m.image.runnerArchiveCache && { archiveDir: runnerArchiveDir() }),
      ...(d.signal && { signal: d.signal }),
    })
    d.addBytes(relayed.bytesSent)
    d.findings.push(...relayed.findings)
    for (const n of d.nodes)
      d.actions.set(
        n.name,
        skip.has(n.name)
          ? { action: 'present', imageId: d.before.get(n.name)! }
          : relayed.imageIds.has(n.name)
            ? { action: 'relayed' }
            : { action: 'failed', detail: 'the relay did not deliver it' },
      )
  },
}
