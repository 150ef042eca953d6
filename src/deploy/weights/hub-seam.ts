/**
 * The seam to the hub source (src/deploy/weights/hub.ts, built alongside): the planner of a
 * download of model.source.hub into model.path on one node. Undefined in a build without it: a
 * hub source then stops the weights stage with WEIGHTS_HUB_UNAVAILABLE before anything changes.
 * At merge this line imports hub.ts's planner (adapted to HubPlanner if its signature differs).
 */
import type { HubPlanner } from './transfer.js'

export const hubPlanner: HubPlanner | undefined = undefined
