/** A problem found in a cluster: stable code, where, what was compared, and what to change. */
import type { Problem } from '../result/result.js'

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
  // Host checks (src/preflight/checks/host.ts), before a deploy changes anything and in the preflight
  'DOCKER_UNUSABLE',
  'FABRIC_ADDRESS_MISSING',
  'FABRIC_LINK_DOWN',
  'NO_GPU_VISIBLE',
  'DISK_SPACE_LOW',
  'RELAY_SSH_FAILED',
  // GPUs in the container and the host's OOM guard (src/preflight/checks/container-gpu.ts, oom-guard.ts)
  'NVIDIA_RUNTIME_MISSING',
  'CDI_SPEC_STALE',
  'OOM_GUARD_MISSING',
  // Node match, fabric and unified memory (src/preflight/checks/node-match.ts, fabric-link.ts, memory.ts)
  'NODE_DRIFT',
  'FABRIC_MTU_MISMATCH',
  'FABRIC_LINK_SPEED',
  'NCCL_IB_HCA_MISSING',
  'FABRIC_PORT_BLOCKED',
  'UNIFIED_MEMORY_SHORT',
  'GPU_MEMORY_EXHAUSTED',
  // Fit before launch (src/preflight/fit/): the model's footprint per node against its memory
  'MODEL_DOES_NOT_FIT',
  'KV_CACHE_CONCURRENCY',
  'MODEL_FIT_UNKNOWN',
  'KV_BYTES_FLAG_UNKNOWN',
  // The fabric collective (src/preflight/checks/collective-checks.ts)
  'FABRIC_COLLECTIVE_FAILED',
  'FABRIC_SOCKET_FALLBACK',
  'FABRIC_COLLECTIVE_SLOW',
  // Image delivery (src/deploy/relay-transfer.ts)
  'IMAGE_TRANSFER_FAILED',
  // Model weights (src/deploy/weights/transfer.ts)
  'WEIGHTS_MISMATCH',
  'WEIGHTS_DIGEST_MISMATCH',
  'WEIGHTS_REVISION_NOT_PINNED',
  // A rollback's weights against its release's weights.json (src/deploy/weights/restore.ts)
  'ROLLBACK_WEIGHTS_CHANGED',
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
  // Log signatures: cluster, fabric and memory families (src/preflight/signature-rules-*.ts)
  'RAY_VERSION_MISMATCH',
  'NCCL_TRANSPORT_ERROR',
  'RAY_SHM_TOO_SMALL',
  'RAY_BRIDGE_ADDRESS',
  'RAY_WORKER_REGISTER_FAILED',
  'NVRM_NO_MEMORY',
  // A GPU that reports a fault of its own: Xid records, lost from the bus, uncorrectable ECC (src/preflight/signature-rules-gpu-health.ts)
  'GPU_FAULT',
  'OOM_KILLED',
  'GPU_OUT_OF_MEMORY',
  // Log signatures: vLLM's native multi-node mode, torch's TCPStore rendezvous (src/preflight/signature-rules-native.ts)
  'RENDEZVOUS_UNREACHABLE',
  'RENDEZVOUS_RANKS_MISSING',
  'MASTER_ADDR_LOOPBACK',
  'MASTER_ADDR_NOT_FABRIC',
  // vLLM's native multi-node mode, live (src/preflight/checks/native-identity.ts; also MASTER_ADDR_*, RENDEZVOUS_UNREACHABLE above)
  'MASTER_PORT_MISMATCH',
  'NATIVE_RANK_DUPLICATE',
  'NATIVE_RANK_GAP',
  'NATIVE_NNODES_MISMATCH',
  // Log signatures: weights, the image and the start-up network (src/preflight/signature-rules-weights.ts, signature-rules-startup.ts;
  // they also use DISK_SPACE_LOW, IMAGE_LACKS_RAY, GPU_SHORTFALL, VERSION_SKEW, SOCKET_IFNAME_MISSING, MASTER_ADDR_NOT_FABRIC)
  'WEIGHTS_OFFLINE_MISSING',
  'WEIGHTS_ACCESS_DENIED',
  'WEIGHTS_NOT_FOUND',
  'WEIGHTS_CORRUPT',
  'VLLM_FLAG_UNKNOWN',
  'PORT_IN_USE',
  // The image against the GPU and the model: no kernels for the GPU's architecture, a model architecture its vLLM/transformers lacks
  // (src/preflight/signature-rules-engine.ts)
  'GPU_ARCH_UNSUPPORTED',
  'MODEL_NOT_SUPPORTED',
  // vLLM's context length over the model's maximum or the KV cache (src/preflight/signature-rules-memory.ts)
  'MAX_MODEL_LEN_TOO_LONG',
  // A log with failure lines no signature explains (src/preflight/signature-fallback.ts)
  'UNRECOGNISED_FAILURE',
  // The launch script, read before it runs (src/script-check)
  'SCRIPT_UNREADABLE',
  'SCRIPT_NO_RAY_START',
  'SCRIPT_CONTINUATION_BROKEN',
  'SCRIPT_HEAD_IDENTITY_UNPINNED',
  'SCRIPT_WORKER_IDENTITY_UNPINNED',
  'SCRIPT_VLLM_HOST_IP_OVERRIDE',
  'SCRIPT_WORKER_USES_HEAD_IP',
  'SCRIPT_LOOPBACK_IDENTITY',
  'SCRIPT_IFNAME_NOT_FABRIC',
  // The launch script's vllm serve in the native multi-node mode (src/script-check/native-rules.ts)
  'SCRIPT_MASTER_ADDR_NOT_FABRIC',
  'SCRIPT_NATIVE_RANK_DUPLICATE',
  'SCRIPT_NATIVE_RANK_GAP',
  'SCRIPT_NNODES_MISMATCH',
  // The launch script against its executor's contract (src/script-check/executor-rules.ts)
  'SCRIPT_RAY_UNDER_MP',
  'SCRIPT_RAY_NUM_GPUS_MISSING',
  'SCRIPT_SOURCE_NOT_FOLLOWED',
  // Deploy and rollback (src/deploy/)
  'SECRET_INVALID',
  'DEPLOY_LOCKED',
  'DEPLOY_LOCK_LOST',
  'DEPLOY_STEP_FAILED',
  'IMAGE_MISSING',
  // The image built for another CPU architecture than a node's (src/preflight/checks/image-platform.ts)
  'IMAGE_PLATFORM_MISMATCH',
  // The release's image, read before anything changes (src/preflight/checks/image-contents-checks.ts)
  'IMAGE_LACKS_RAY',
  'IMAGE_LACKS_VLLM',
  'IMAGE_PROBE_FAILED',
  'VLLM_FLAG_NOT_IN_VERSION',
  'VLLM_VERSION_NOT_STATED',
  'RELEASE_NOT_FOUND',
  'VLLM_NOT_READY',
  // vLLM's native multi-node mode, watched as it starts (src/preflight/watch-rendezvous.ts)
  'RENDEZVOUS_NODE_NOT_RUNNING',
  'RENDEZVOUS_INCOMPLETE',
  // The start-up timeline of every node (src/preflight/startup-report.ts)
  'STARTUP_PHASE_STALLED',
  'STARTUP_FIRST_FAILURE',
  'STARTUP_TIMELINE',
  'SMOKE_FAILED',
  // Smoke test (src/smoke/)
  'SMOKE_NOT_READY',
  'SMOKE_SERVER_EXITED',
  'SMOKE_SERVER_NOT_STARTED',
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
  'PERFORMANCE_REGRESSION',
  'PREVIOUS_RELEASE_NOT_GONE',
  // The start-up memory watchdog (src/preflight/memory/)
  'MEMORY_FLOOR_REACHED',
  'CUDA_DRIVER_TOO_OLD',
  'NGC_ENTRYPOINT_BYPASSED',
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
  // The native mode's proof that the model spans the cluster (src/smoke/native-proof.ts)
  'SMOKE_NATIVE_NODE_MISSING',
  // A smoke check that could not look at a node (no connection, its command failed): never a verdict on the node
  'SMOKE_CHECK_INCOMPLETE',
] as const

export type FindingCode = (typeof FINDING_CODES)[number]

/**
 * Evidence labels that code reads back (not only people): the log position a signature matched at,
 * and where else `diagnose` saw the same finding. Written and read through these names only.
 */
export const EVIDENCE = {
  logLine: 'Log line',
  alsoSeenAt: 'Also seen at',
  /** `path:line[:col]` of a launch-script finding: where its annotation lands. */
  scriptLine: 'Script line',
  /** The cause a finding that says what died names (a death finding without it leaves its cause to UNRECOGNISED_FAILURE). */
  cause: 'Cause',
} as const

/**
 * A Problem (src/result/result.ts: code, message, evidence, fix) found in a cluster, with a catalogued
 * code, a severity and the node it is about. `message` is one sentence a person can read; `evidence`
 * the values compared, side by side, labelled (insertion order is display order); `fix` what to change,
 * naming the flag or variable and the node.
 */
export interface Finding extends Problem<FindingCode> {
  readonly severity: Severity
  /** Node the finding is about, or null for the cluster as a whole. */
  readonly node: string | null
  /** The fix as data when it is mechanical: a unified diff (`git apply` / `patch -p1`) of the file named in it. */
  readonly patch?: string
}

/** The one conversion Problem → Finding: the Problem's fields as they are, placed on a node with a severity. */
export const findingOf = (p: Problem<FindingCode>, node: string | null, severity: Severity = 'error'): Finding => ({
  code: p.code,
  severity,
  node,
  message: p.message,
  evidence: p.evidence,
  fix: p.fix,
})

/** The one conversion Finding → Problem (a stage that stops on a finding): its code, evidence and fix, its message or the one given. */
export const problemOf = (f: Finding, message: string = f.message): Problem<FindingCode> => ({ code: f.code, message, evidence: f.evidence, fix: f.fix })

export const hasErrors = (findings: readonly Finding[]): boolean => findings.some((f) => f.severity === 'error')

/** Where a finding is, in words: its node, or the cluster as a whole (never a bare `-`). */
export const whereLabel = (node: string | null): string => node ?? 'the cluster'
