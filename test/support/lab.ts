/**
 * The lab as the tests drive it: src/lab's functions, with a Problem failing the test instead of
 * coming back as a value. A test that brings the lab up, runs a scenario or opens the nodes has
 * nothing to do with a Problem but stop, so it reads the lab's own text (what failed, its fix, the
 * command's output) in the failure. The CLI's adapter (src/tasks/lab-task.ts) is tested on its own.
 */
import * as lab from '../../src/lab/index.js'
import { type LabResult, labProblemText } from '../../src/lab/lab-problem.js'
import * as variants from '../../src/lab/image-variants.js'
import * as scenario from '../../src/lab/scenario.js'

export { dockerBinary, type LabInfo } from '../../src/lab/index.js'
export { labPaths } from '../../src/lab/paths.js'
export type { LabImageVariant } from '../../src/lab/image-variants.js'

/** The value, or an Error carrying the Problem's text. */
export function orThrow<T>(r: LabResult<T>): T {
  if (!r.ok) throw new Error(labProblemText(r.problem))
  return r.value
}

type Args<F> = F extends (...args: infer A) => unknown ? A : never

export const labUp = async (...a: Args<typeof lab.labUp>) => orThrow(await lab.labUp(...a))
export const labDown = async (...a: Args<typeof lab.labDown>) => orThrow(await lab.labDown(...a))
export const labStatus = async (...a: Args<typeof lab.labStatus>) => orThrow(await lab.labStatus(...a))
export const resolveLabDir = (...a: Args<typeof lab.resolveLabDir>) => orThrow(lab.resolveLabDir(...a))
export const loadLabManifest = async (...a: Args<typeof scenario.loadLabManifest>) => orThrow(await scenario.loadLabManifest(...a))
export const labTransports = async (...a: Args<typeof scenario.labTransports>) => orThrow(await scenario.labTransports(...a))
export const runLabScenario = async (...a: Args<typeof scenario.runLabScenario>) => orThrow(await scenario.runLabScenario(...a))
export const serveLabScenario = async (...a: Args<typeof scenario.serveLabScenario>) => orThrow(await scenario.serveLabScenario(...a))
export const scenarioScript = (...a: Args<typeof scenario.scenarioScript>) => orThrow(scenario.scenarioScript(...a))
export const ensureNoRayImage = async (...a: Args<typeof variants.ensureNoRayImage>) => orThrow(await variants.ensureNoRayImage(...a))
