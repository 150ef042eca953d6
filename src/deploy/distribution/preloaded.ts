/** `preloaded`: the image is already on every node; it is only checked (also how a rollback checks a release's image ID). */
import { inspectImage } from '../../plan/node-commands.js'
import { MINUTE, stepOf } from '../../plan/plan.js'
import type { Distribution } from './types.js'
import { keepIfPresent } from './types.js'

export const preloaded: Distribution = {
  name: 'preloaded',
  fromRunner: false,
  parallel: true,
  hostChecks: {},
  planSteps: (m, node, image) => [stepOf(m)(node, 'image', `check ${image} is present`, inspectImage(image), MINUTE)],
  async deliver(d) {
    for (const n of d.nodes) {
      const has = d.before.get(n.name)
      if (d.want ? keepIfPresent(d, n.name) : has && keepIfPresent({ ...d, want: has }, n.name)) continue
      d.actions.set(n.name, { action: 'failed', detail: `${d.want ?? d.image} is not on ${n.name}` })
    }
  },
}
