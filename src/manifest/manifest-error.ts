/** A problem with a manifest file: stable code, where it is (file, 1-based line:col, key path), and what to change. */

import type { ErrorCode as YamlErrorCode } from 'yaml'

export type ManifestPath = readonly (string | number)[]

/**
 * Every code a manifest problem can carry, closed like `yaml`'s own `ErrorCode` (which this
 * includes, prefixed `YAML_`): reports, tests and callers can switch on them.
 */
export const MANIFEST_ERROR_CODES = [
  // Reading the file
  'FILE_NOT_FOUND',
  'FILE_UNREADABLE',
  'EMPTY_MANIFEST',
  'YAML_UNREADABLE',
  'DUPLICATE_KEY',
  // Shape (from the schema)
  'UNKNOWN_KEY',
  'MISSING_KEY',
  'INVALID_KEY',
  'WRONG_TYPE',
  'INVALID_VALUE',
  'INVALID_FORMAT',
  'OUT_OF_RANGE',
  // Value formats (src/manifest/formats.ts)
  'INVALID_IPV4',
  'INVALID_CIDR',
  'INVALID_INTERFACE_NAME',
  'INVALID_ENV_NAME',
  'INVALID_IMAGE_REF',
  'INVALID_DIGEST',
  'INVALID_HOST_KEY',
  'INVALID_NAME',
  'INVALID_HOST',
  'INVALID_SIZE',
  'INVALID_VOLUME',
  'INVALID_DEVICE',
  // Cross-field rules (src/manifest/semantic.ts)
  'NO_HEAD',
  'MULTIPLE_HEADS',
  'DUPLICATE_NODE_NAME',
  'DUPLICATE_SSH_ADDRESS',
  'DUPLICATE_FABRIC_IP',
  'FABRIC_IP_OUTSIDE_SUBNET',
  'FABRIC_IP_RESERVED',
  'PARALLELISM_EXCEEDS_GPUS',
  'NATIVE_UNEVEN_GPUS',
  'NATIVE_PARALLELISM_MISMATCH',
  'EXECUTOR_KEY_UNUSED',
  'PORT_CONFLICT',
  'IMAGE_DIGEST_CONFLICT',
  'DUPLICATE_SECRET_ENV',
  'SECRET_ENV_ALSO_SET',
  'MANAGED_FLAG_IN_ARGS',
  'PER_NODE_ENV',
  'SOCKET_IFNAME_NOT_FABRIC',
  'SMOKE_EXPECT_UNREACHABLE',
  // Warnings (ManifestResult.warnings): valid, but not what the person may think
  'KEY_NOT_READ_IN_LAUNCH_MODE',
  'VLLM_FLAG_NOT_IN_VERSION',
] as const

export type ManifestErrorCode = (typeof MANIFEST_ERROR_CODES)[number] | `YAML_${YamlErrorCode}`

export interface ManifestError {
  readonly code: ManifestErrorCode
  /** One sentence a person can act on. */
  readonly message: string
  readonly file: string
  /** 1-based. */
  readonly line: number
  /** 1-based. */
  readonly col: number
  /** Keys and list indexes from the document root to the offending value, e.g. `['nodes', 1, 'fabricIp']`. */
  readonly path: (string | number)[]
  /** What to change, when there is a concrete suggestion. */
  readonly fix?: string
}

/** A problem that knows its key path but not yet its position; the parser places it in the file. */
export interface PathIssue {
  readonly code: ManifestErrorCode
  readonly message: string
  readonly path: ManifestPath
  readonly fix?: string
  /**
   * What in the file to point at: the value at `path` (default), the key at `path` (unknown keys,
   * bad map keys), or the mapping that should hold `path` (missing keys).
   */
  readonly anchor?: 'value' | 'key' | 'parent'
  /** Where to point instead when `path` is not written in the file (its value is a default). */
  readonly related?: ManifestPath
}

/** File order: line, then column, then code for a stable result. */
export function compareManifestErrors(a: ManifestError, b: ManifestError): number {
  return a.line - b.line || a.col - b.col || a.code.localeCompare(b.code)
}

/** `nodes[1].fabricIp`; the root is `(top level)`. */
export function pathLabel(path: ManifestPath): string {
  if (path.length === 0) return '(top level)'
  return path.reduce<string>((label, key) => (typeof key === 'number' ? `${label}[${key}]` : label === '' ? key : `${label}.${key}`), '')
}

/** `file:line:col: message`, followed by `  fix: ...` on its own line when there is one. */
export function formatManifestError(error: ManifestError): string {
  const head = `${error.file}:${error.line}:${error.col}: ${error.message} [${error.code}]`
  return error.fix ? `${head}\n  fix: ${error.fix}` : head
}
