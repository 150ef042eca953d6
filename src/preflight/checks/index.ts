/**
 * The one registry of checks. Each entry reads only the facts document (and the manifest's
 * expectation when there is one), says which facts it needs, and the first stage it can run in:
 *
 * - `before-change`: the hosts alone (kernel, driver, docker and its NVIDIA tooling, CDI specs, fabric
 *   links, MTU, ports, memory and its OOM guard, the manifest's container env). A deploy runs these before it changes anything
 *   (src/deploy/host-checks.ts), so a bad host stops it with the running release untouched.
 *   The fabric collective's entries need its facts (a deploy's fabric-test stage, the preflight).
 * - `after-launch`: the running containers and Ray (identities, versions inside the image, Ray's
 *   membership and demands, the kernel log while vLLM starts).
 *
 * `preflight` runs every entry; `diagnose --facts` runs every entry whose facts the bundle holds.
 * Adding a check is one entry here (and its finding code in finding.ts).
 */

import type { Expectation } from '../../manifest/expectation.js'
import type { FactsBundle } from '../facts.js'
import type { Finding, FindingCode } from '../finding.js'
import { fabricCollectiveFailed, fabricCollectiveSlow, fabricSocketFallback } from './collective-checks.js'
import { imageMismatch, versionSkew } from './consistency.js'
import { buildContext, type CheckContext, type CheckOptions } from './check-context.js'
import { cdiSpecStale, nvidiaRuntimeMissing } from './container-gpu.js'
import { fabricUnreachable } from './fabric.js'
import { fabricLinkSpeed, fabricMtuMismatch, fabricPortBlocked, ncclIbHcaMissing } from './fabric-link.js'
import { gpuShortfall, headWithoutGpu } from './gpus.js'
import { diskSpaceLow, dockerUnusable, fabricInterfaces, noGpuVisible, relaySshFailed } from './host.js'
import { gpuMemoryExhausted, unifiedMemoryShort } from './memory.js'
import { nativeHostIp, nativeMasterAddress, nativeMasterUnreachable, nativeNnodes, nativeRanks } from './native-identity.js'
import { nodeDrift } from './node-match.js'
import { oomGuardMissing } from './oom-guard.js'
import { pendingDemands } from './ray-demands.js'
import { rayIdentityNotFabric } from './ray-identity.js'
import { duplicateRayAddress, rayNodeMissing, rayUnexpectedNode } from './ray-membership.js'
import { nodeUnreachable, rayUnavailable } from './reachability.js'
import { socketIfnameMissing, socketIfnameWrongSubnet } from './socket-ifname.js'
import { duplicateVllmIp, vllmHostIpOverride, vllmPinNotInRay } from './vllm-identity.js'

export type Check = (ctx: CheckContext) => Finding[]

export const CHECK_STAGES = ['before-change', 'after-launch'] as const
export type CheckStage = (typeof CHECK_STAGES)[number]

/** The parts of the facts document a check reads; an entry runs only when all of its are present. */
export const FACT_NEEDS = ['nodes', 'host', 'interfaces', 'ports', 'container', 'ray', 'expected', 'collective'] as const
export type FactNeed = (typeof FACT_NEEDS)[number]

export interface CheckEntry {
  readonly codes: readonly FindingCode[]
  readonly stage: CheckStage
  readonly needs: readonly FactNeed[]
  readonly run: Check
}

const okNodes = (f: FactsBundle) => f.nodes.filter((n) => n.ok)

/** Whether the facts (and the expectation) hold what a need names. */
export function present(need: FactNeed, facts: FactsBundle, expected: Expectation | undefined): boolean {
  switch (need) {
    case 'nodes':
      return facts.nodes.length > 0
    case 'host':
      return okNodes(facts).some((n) => n.host)
    case 'interfaces':
      return okNodes(facts).some((n) => n.interfaces.length > 0)
    case 'ports':
      return okNodes(facts).some((n) => n.ports)
    case 'container':
      return okNodes(facts).some((n) => n.container)
    case 'ray':
      return facts.ray !== undefined
    case 'expected':
      return expected !== undefined
    case 'collective':
      return facts.collective !== undefined
  }
}

const entry = (stage: CheckStage, needs: readonly FactNeed[], codes: readonly FindingCode[], run: Check): CheckEntry => ({ stage, needs, codes, run })

/** In display order: can we see the cluster, are the hosts right, is Ray right, does vLLM agree, is the wiring right. */
export const CHECKS: readonly CheckEntry[] = [
  entry('before-change', ['nodes'], ['NODE_UNREACHABLE'], nodeUnreachable),
  entry('before-change', ['host'], ['DOCKER_UNUSABLE'], dockerUnusable),
  entry('before-change', ['host', 'expected'], ['FABRIC_ADDRESS_MISSING', 'FABRIC_LINK_DOWN'], fabricInterfaces),
  entry('before-change', ['host', 'expected'], ['NO_GPU_VISIBLE'], noGpuVisible),
  entry('before-change', ['host'], ['DISK_SPACE_LOW'], diskSpaceLow),
  entry('before-change', ['host', 'expected'], ['RELAY_SSH_FAILED'], relaySshFailed),
  entry('before-change', ['host'], ['NODE_DRIFT'], nodeDrift),
  entry('before-change', ['host'], ['NVIDIA_RUNTIME_MISSING'], nvidiaRuntimeMissing),
  entry('before-change', ['host'], ['CDI_SPEC_STALE'], cdiSpecStale),
  entry('before-change', ['interfaces'], ['FABRIC_MTU_MISMATCH'], fabricMtuMismatch),
  entry('before-change', ['interfaces'], ['FABRIC_LINK_SPEED'], fabricLinkSpeed),
  entry('before-change', ['host'], ['NCCL_IB_HCA_MISSING'], ncclIbHcaMissing),
  entry('before-change', ['ports'], ['FABRIC_PORT_BLOCKED'], fabricPortBlocked),
  entry('before-change', ['host', 'expected'], ['UNIFIED_MEMORY_SHORT'], unifiedMemoryShort),
  entry('before-change', ['host'], ['OOM_GUARD_MISSING'], oomGuardMissing),
  entry('before-change', ['collective'], ['FABRIC_COLLECTIVE_FAILED'], fabricCollectiveFailed),
  entry('before-change', ['collective'], ['FABRIC_SOCKET_FALLBACK'], fabricSocketFallback),
  entry('before-change', ['collective', 'expected'], ['FABRIC_COLLECTIVE_SLOW'], fabricCollectiveSlow),
  entry('after-launch', ['ray'], ['RAY_UNAVAILABLE'], rayUnavailable),
  entry('after-launch', ['ray'], ['RAY_NODE_MISSING'], rayNodeMissing),
  entry('after-launch', ['ray'], ['RAY_UNEXPECTED_NODE'], rayUnexpectedNode),
  entry('after-launch', ['ray'], ['RAY_IDENTITY_NOT_FABRIC'], rayIdentityNotFabric),
  entry('after-launch', ['ray'], ['DUPLICATE_NODE_IP'], duplicateRayAddress),
  entry('after-launch', ['ray'], ['VLLM_PIN_NOT_IN_RAY'], vllmPinNotInRay),
  entry('after-launch', ['container'], ['VLLM_HOST_IP_OVERRIDE'], vllmHostIpOverride),
  entry('after-launch', ['container'], ['DUPLICATE_NODE_IP'], duplicateVllmIp),
  entry('after-launch', ['ray'], ['PLACEMENT_GROUP_PENDING'], pendingDemands),
  entry('after-launch', [], ['GPU_SHORTFALL'], gpuShortfall),
  entry('after-launch', [], ['HEAD_WITHOUT_GPU'], headWithoutGpu),
  entry('after-launch', ['container'], ['IMAGE_MISMATCH'], imageMismatch),
  entry('after-launch', ['container'], ['VERSION_SKEW'], versionSkew),
  entry('after-launch', ['container'], ['MASTER_ADDR_LOOPBACK', 'MASTER_ADDR_NOT_FABRIC', 'MASTER_PORT_MISMATCH'], nativeMasterAddress),
  entry('after-launch', ['container'], ['RENDEZVOUS_UNREACHABLE'], nativeMasterUnreachable),
  entry('after-launch', ['container'], ['NATIVE_RANK_DUPLICATE', 'NATIVE_RANK_GAP'], nativeRanks),
  entry('after-launch', ['container'], ['NATIVE_NNODES_MISMATCH'], nativeNnodes),
  entry('after-launch', ['container'], ['VLLM_HOST_IP_OVERRIDE'], nativeHostIp),
  entry('after-launch', ['container'], ['SOCKET_IFNAME_MISSING'], socketIfnameMissing),
  entry('after-launch', ['container'], ['SOCKET_IFNAME_WRONG_SUBNET'], socketIfnameWrongSubnet),
  entry('after-launch', ['interfaces'], ['FABRIC_UNREACHABLE'], fabricUnreachable),
  entry('after-launch', ['host'], ['GPU_MEMORY_EXHAUSTED'], gpuMemoryExhausted),
]

export interface RunChecksOptions extends CheckOptions {
  /** Only the entries of these stages (default: every stage). */
  readonly stages?: readonly CheckStage[]
}

/** Every entry of the chosen stages whose facts are present, in registry order. */
export function runChecks(facts: FactsBundle, expected?: Expectation, opts: RunChecksOptions = {}): Finding[] {
  const ctx = buildContext(facts, expected, opts)
  return CHECKS.filter((c) => (!opts.stages || opts.stages.includes(c.stage)) && c.needs.every((n) => present(n, facts, expected))).flatMap((c) => c.run(ctx))
}

/** The fabric collective's entries only, over facts that hold it (and the hosts' facts for their RDMA devices). */
export function runCollectiveChecks(facts: FactsBundle, expected?: Expectation): Finding[] {
  return CHECKS.filter((c) => c.needs.includes('collective') && c.needs.every((n) => present(n, facts, expected))).flatMap((c) =>
    c.run(buildContext(facts, expected)),
  )
}
