/** `pull`: every node pulls the reference from its registry. */
import { pullImage } from '../../plan/node-commands.js'
import { stepOf } from '../../plan/plan.js'
import { outcome, succeeded } from '../../transport/transport.js'
import type { Distribution } from './types.js'

export const pull: Distribution = {
  name: 'pull',
  fromRunner: false,
  parallel: true,
  hostChecks: {},
  planSteps: (m, node, image) => [stepOf(m)(node, 'image', `pull ${image}`, pullImage(image), m.ssh.commandTimeoutSeconds)],
  async deliver(d) {
    await Promise.all(
      d.nodes.map(async (n) => {
        d.progress(`[${n.name}] image: docker pull ${d.image}`)
        const r = await d.transports
          .get(n.name)!
          .run(pullImage(d.image), { timeoutMs: d.m.ssh.commandTimeoutSeconds * 1000, ...(d.signal && { signal: d.signal }) })
        if (!succeeded(r)) return void d.actions.set(n.name, { action: 'failed', detail: `docker pull ${outcome(r)}: ${r.stderr.trim().slice(-300)}` })
        d.actions.set(n.name, { action: /Image is up to date/.test(r.stdout) ? 'up-to-date' : 'pulled' })
      }),
    )
  },
}
