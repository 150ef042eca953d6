/** A problem found in a cluster: stable code, where, what was compared, and what to change. */

export type Severity = 'error' | 'warning' | 'info'

export const FINDING_CODES = [
  'NODE_UNREACHABLE',
  'RAY_UNAVAILABLE',
  'RAY_NODE_MISSING',
  'RAY_UNEXPECTED_NODE',
  'RAY_IDENTITY_NOT_FABRIC',
  'VLLM_PIN_NOT_IN_RAY',
  'VLLM_HOST_IP_OVERRIDE',
  'DUPLICATE_NODE_IP',
  'SOCKET_IFNAME_MISSING',
  'SOCKET_IFNAME_WRONG_SUBNET',
  'GPU_SHORTFALL',
  'HEAD_WITHOUT_GPU',
  'IMAGE_MISMATCH',
  'VERSION_SKEW',
  'FABRIC_UNREACHABLE',
  // Host checks before a deploy (src/deploy/host-checks.ts)
  'DOCKER_UNUSABLE',
  'FABRIC_ADDRESS_MISSING',
  'FABRIC_LINK_DOWN',
  'NO_GPU_VISIBLE',
  'DISK_SPACE_LOW',
  'RELAY_SSH_FAILED',
  // Image delivery (src/deploy/relay.ts)
  'IMAGE_TRANSFER_FAILED',
  // Log signatures
  'PLACEMENT_GROUP_PENDING',
  'PLACEMENT_GROUP_TIMEOUT',
  'UNIQUE_IP_ERROR',
  'GLOO_LOOPBACK',
  'NCCL_SOCKET_FALLBACK',
  'RAY_IP_MISMATCH_WARNING',
  'DRIVER_NO_GPU',
  'ENGINE_DEAD',
  // Deploy and rollback (src/deploy/)
  'DEPLOY_LOCKED',
  'DEPLOY_STEP_FAILED',
  'IMAGE_MISSING',
  'RELEASE_NOT_FOUND',
  'VLLM_NOT_READY',
  'SMOKE_FAILED',
] as const

export type FindingCode = (typeof FINDING_CODES)[number]

export interface Finding {
  readonly code: FindingCode
  readonly severity: Severity
  /** Node the finding is about, or null for the cluster as a whole. */
  readonly node: string | null
  /** One sentence a person can read: what is wrong. */
  readonly message: string
  /** The values compared, side by side, labelled (insertion order is display order). */
  readonly evidence: Readonly<Record<string, string>>
  /** What to change, naming the flag or variable and the node. */
  readonly fix: string
}

export const hasErrors = (findings: readonly Finding[]): boolean => findings.some((f) => f.severity === 'error')
