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
  // Log signatures
  'PLACEMENT_GROUP_PENDING',
  'PLACEMENT_GROUP_TIMEOUT',
  'UNIQUE_IP_ERROR',
  'GLOO_LOOPBACK',
  'NCCL_SOCKET_FALLBACK',
  'RAY_IP_MISMATCH_WARNING',
  'DRIVER_NO_GPU',
  'ENGINE_DEAD',
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
}

export const hasErrors = (findings: readonly Finding[]): boolean => findings.some((f) => f.severity === 'error')
