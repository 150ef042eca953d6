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
  // Log signatures: networking families
  'RAY_NODE_DEAD',
  'RAY_GCS_UNREACHABLE',
  'RAYLET_UNREACHABLE',
  'LOOPBACK_IDENTITY',
  'BIND_FOREIGN_ADDRESS',
  // The launch script, read before it runs (src/script-check)
  'SCRIPT_UNREADABLE',
  'SCRIPT_NO_RAY_START',
  'SCRIPT_HEAD_IDENTITY_UNPINNED',
  'SCRIPT_WORKER_IDENTITY_UNPINNED',
  'SCRIPT_VLLM_HOST_IP_OVERRIDE',
  'SCRIPT_WORKER_USES_HEAD_IP',
  'SCRIPT_LOOPBACK_IDENTITY',
  'SCRIPT_IFNAME_NOT_FABRIC',
  // Deploy and rollback (src/deploy/)
  'DEPLOY_LOCKED',
  'DEPLOY_STEP_FAILED',
  'IMAGE_MISSING',
  // The release's image, read before anything changes (src/preflight/checks/image-contents.ts)
  'IMAGE_LACKS_RAY',
  'IMAGE_LACKS_VLLM',
  'IMAGE_PROBE_FAILED',
  'RELEASE_NOT_FOUND',
  'VLLM_NOT_READY',
  'SMOKE_FAILED',
  // Smoke test (src/smoke/)
  'SMOKE_NOT_READY',
  'SMOKE_SERVER_EXITED',
  'SMOKE_UNREACHABLE',
  'SMOKE_UNAUTHORIZED',
  'SMOKE_HTTP_ERROR',
  'SMOKE_BAD_RESPONSE',
  'SMOKE_MODEL_MISSING',
  'SMOKE_EMPTY_COMPLETION',
  'SMOKE_ASSERTION_FAILED',
  'SMOKE_USAGE_INCONSISTENT',
  'SMOKE_STREAM_BROKEN',
  'SMOKE_LATENCY_EXCEEDED',
  'SMOKE_METRICS_UNAVAILABLE',
  'SMOKE_METRICS_MISMATCH',
  'SMOKE_RAY_QUERY_FAILED',
  'SMOKE_PLACEMENT_GROUP_MISSING',
  'SMOKE_PLACEMENT_GROUP_NOT_CREATED',
  'SMOKE_BUNDLE_COUNT',
  'SMOKE_BUNDLE_NODE_DEAD',
  'SMOKE_BUNDLE_OFF_FABRIC',
  'SMOKE_BUNDLES_OVERPACKED',
  'SMOKE_SERVING_NODE_MISSING',
] as const

export type FindingCode = (typeof FINDING_CODES)[number]

/**
 * Evidence labels that code reads back (not only people): the log position a signature matched at,
 * and where else `diagnose` saw the same finding. Written and read through these names only.
 */
export const EVIDENCE = {
  logLine: 'Log line',
  alsoSeenAt: 'Also seen at',
} as const

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
  /** The fix as data when it is mechanical: a unified diff (`git apply` / `patch -p1`) of the file named in it. */
  readonly patch?: string
}

export const hasErrors = (findings: readonly Finding[]): boolean => findings.some((f) => f.severity === 'error')
