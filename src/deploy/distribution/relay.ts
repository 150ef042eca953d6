/**
 * `relay`: the runner streams `docker save` once into the head, which loads it and copies the same
 * stream into every worker's `docker load` over the fabric (src/deploy/relay-transfer.ts does the transfer).
 * The host checks also try SSH from the head to each worker's fabric IP.
 */
import { loadImage } from '../../plan/node-commands.js'
import { MINUTE, stepOf } from '../../plan/plan.js'
import { relayFanOut } from '../../plan/relay-commands.js'
import { relayImage } from '../relay-transfer.js'
import { type Distribution, keepIfPresent } from './types.js'

export const relay: Distribution = {
  name: 'relay',
  fromRunner: true,
  parallel: false,
  hostChecks: { relay: true, alsoChecked: 'head-to-worker SSH' },
  planSteps(m, node, image) {
    // The head gets the archive from the runner, loads it and copies the same stream into each
    // worker's docker load over the fabric, all at once.
    if (node.role !== 'head') return []
    const workers = m.nodes.filter((w) => w.role !== 'head')
    const to = workers.map((w) => `${w.name} (${w.fabricIp})`).join(', ')
    return [
      stepOf(m)(
        node,
        'image',
        workers.length > 0
          ? `load ${image} streamed from the runner (docker save), once for the whole cluster, and copy the same stream into ${to} over the fabric`
          : `load ${image} streamed from the runner (docker save)`,
        workers.length > 0 ? relayFanOut(m, workers) : loadImage(),
        60 * MINUTE,
        { kind: 'image-archive', image },
      ),
    ]
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
