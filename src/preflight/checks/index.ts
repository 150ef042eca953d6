/**
 * The Ray identity preflight: pure checks over a facts bundle (and the manifest's expectation when
 * there is one). Each check reads only what it needs and returns no finding when that data is absent.
 */

import type { Expectation } from '../../manifest/expectation.js'
import type { FactsBundle } from '../facts.js'
import type { Finding } from '../finding.js'
import { imageMismatch, versionSkew } from './consistency.js'
import { buildContext, type CheckContext } from './context.js'
import { fabricUnreachable } from './fabric.js'
import { gpuShortfall, headWithoutGpu } from './gpus.js'
import { pendingDemands } from './ray-demands.js'
import { rayIdentityNotFabric } from './ray-identity.js'
import { duplicateRayAddress, rayNodeMissing, rayUnexpectedNode } from './ray-membership.js'
import { nodeUnreachable, rayUnavailable } from './reachability.js'
import { socketIfnameMissing, socketIfnameWrongSubnet } from './socket-ifname.js'
import { duplicateVllmIp, vllmHostIpOverride, vllmPinNotInRay } from './vllm-identity.js'

export type Check = (ctx: CheckContext) => Finding[]

/** In display order: can we see the cluster, is Ray right, does vLLM agree, is the wiring right. */
export const CHECKS: readonly Check[] = [
  nodeUnreachable,
  rayUnavailable,
  rayNodeMissing,
  rayUnexpectedNode,
  rayIdentityNotFabric,
  duplicateRayAddress,
  vllmPinNotInRay,
  vllmHostIpOverride,
  duplicateVllmIp,
  pendingDemands,
  gpuShortfall,
  headWithoutGpu,
  imageMismatch,
  versionSkew,
  socketIfnameMissing,
  socketIfnameWrongSubnet,
  fabricUnreachable,
]

export function runChecks(facts: FactsBundle, expected?: Expectation): Finding[] {
  const ctx = buildContext(facts, expected)
  return CHECKS.flatMap((check) => check(ctx))
}
