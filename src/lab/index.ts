/**
 * The lab: simulated DGX Spark nodes in Docker on this machine (real sshd, a nested dockerd per
 * node, mgmt + fabric networks, a local registry, a fake GB10), for rehearsing rollouts and for
 * the end-to-end tests. See README.md beside this file.
 */
export { labUp, labDown, type LabDownResult } from './lab.js'
export { labStatus } from './status.js'
export { renderLabStatus } from './status-render.js'
export type { BuildWorkloadOptions } from './workload-image.js'
export { type LabProblem, type LabProblemCode, type LabResult, fileSystemProblem, labProblemText } from './lab-problem.js'
export type {
  LabDownOptions,
  LabInfo,
  LabNodeInfo,
  LabNodeStatus,
  LabOptions,
  LabStatus,
  LabUpOptions,
  LabWorkloadImage,
} from './lab-types.js'
export { resolveLabDir, dockerBinary } from './paths.js'
