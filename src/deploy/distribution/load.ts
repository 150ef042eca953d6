/** `load`: this machine streams `docker save` into each node's `docker load` over SSH. */
import { stdinProvider } from '../../execute/step-inputs.js'
import { loadImage } from '../../plan/node-commands.js'
import { stepOf } from '../../plan/plan.js'
import { outcome, succeeded } from '../../transport/transport.js'
import { type Distribution, keepIfPresent, shortImageId } from './types.js'

export const load: Distribution = {
  name: 'load',
  fromRunner: true,
  parallel: true,
  hostChecks: {},
  planSteps: (m, node, image) => [
    stepOf(m)(node, 'image', `load ${image} streamed from the runner (docker save)`, loadImage(), m.ssh.commandTimeoutSeconds, {
      kind: 'image-archive',
      image,
    }),
  ],
  async deliver(d) {
    const stdin = stdinProvider(d.manifestPath, process.env, { onImageBytes: (_node, b) => d.addBytes(b) })
    await Promise.all(
      d.nodes.map(async (n) => {
        if (keepIfPresent(d, n.name)) return
        d.progress(
          `[${n.name}] image: docker save ${d.image} | ssh | docker load (node has ${shortImageId(d.before.get(n.name))}, want ${shortImageId(d.want)})`,
        )
        const step = load.planSteps(d.m, n, d.image)[0]!
        const input = await stdin(step.stdin!, step)
        if (!input.ok) return void d.actions.set(n.name, { action: 'failed', detail: input.problem.message })
        const r = await d.transports
          .get(n.name)!
          .run(loadImage(), { timeoutMs: d.m.ssh.commandTimeoutSeconds * 1000, stdin: input.value, ...(d.signal && { signal: d.signal }) })
        d.actions.set(n.name, succeeded(r) ? { action: 'loaded' } : { action: 'failed', detail: `docker load ${outcome(r)}: ${r.stderr.trim().slice(-300)}` })
      }),
    )
  },
}
