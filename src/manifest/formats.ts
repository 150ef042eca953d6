/**
 * Value formats of the manifest as zod schemas. Each one checks a single value with a pure rule,
 * reports a stable code, a message naming the expected form with an example, and a fix when one
 * can be derived; and carries a `pattern` (or bounds) so the JSON Schema lets editors flag the same
 * mistakes.
 */
import { z } from 'zod'
import { describeValue } from './describe-value.js'
import {
  checkByteSize,
  checkCidr,
  checkDevicePath,
  checkEnvName,
  checkHostKeyPin,
  checkImageDigest,
  checkImageReference,
  checkInterfaceName,
  checkIpv4,
  checkResourceName,
  checkSshHost,
  checkVolumeSpec,
  ENV_NAME,
  HOST_KEY_PATTERN,
  scalarToText,
  type Verdict,
  withoutNul,
} from './format-rules.js'
import { DIGEST_PATTERN, IMAGE_REFERENCE_PATTERN } from './image-reference.js'
import type { ManifestErrorCode } from './manifest-error.js'

interface StringFormat {
  readonly code: ManifestErrorCode
  /** Noun phrase with an example: `an IPv4 address like 192.168.200.12`. */
  readonly expected: string
  readonly check: (text: string) => Verdict | undefined
  /** Short name of the form for the JSON Schema's `title` and the reference. */
  readonly title: string
  readonly pattern: string
  readonly examples: readonly string[]
}

/** Fields a custom issue carries for the issue mapper. */
export interface FormatIssueParams {
  readonly code: ManifestErrorCode
  readonly fix?: string
}

/**
 * Each format is built once and shared by every field that uses it (per bounds for numbers): a zod
 * schema never changes once built (`.describe()`, `.optional()`, `.default()` each return a new
 * schema around it), and building the manifest's schema is the largest part of what the Action does
 * before its first SSH connection (bench row 6): one instance per format, not one per field, is
 * about a quarter fewer zod constructions.
 */
const built = new Map<string, z.ZodType>()
function shared<T extends z.ZodType>(key: string, build: () => T): T {
  const known = built.get(key) as T | undefined
  if (known) return known
  const schema = build()
  built.set(key, schema)
  return schema
}

function stringFormat(format: StringFormat) {
  return shared(`string ${format.code} ${format.pattern} ${format.expected}`, () => stringSchema(format))
}

/**
 * The zod check of each string format, with the rule it runs: the generated fast-path plan
 * (fast-plan.ts) names the rule instead of the closure zod holds.
 */
export const FORMAT_CHECK_RULES = new WeakMap<object, (text: string) => Verdict | undefined>()

function stringSchema(format: StringFormat) {
  const check = z.superRefine((text: string, ctx) => {
    const verdict = format.check(text)
    if (!verdict) return
    const params: FormatIssueParams = { code: format.code, ...(verdict.fix !== undefined && { fix: verdict.fix }) }
    ctx.addIssue({
      code: 'custom',
      message: `expected ${format.expected}, got ${JSON.stringify(text)}${verdict.reason ? ` (${verdict.reason})` : ''}`,
      params,
    })
  })
  FORMAT_CHECK_RULES.set(check, format.check)
  return z
    .string({ error: (issue) => `expected ${format.expected}, got ${describeValue(issue.input)}` })
    .check(check)
    .meta({ title: format.title, pattern: format.pattern, examples: [...format.examples] })
}

const IPV4_PATTERN = '^(?:(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])\\.){3}(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])$'

export const ipv4Address = () =>
  stringFormat({
    code: 'INVALID_IPV4',
    expected: 'an IPv4 address like 192.168.200.12',
    title: 'IPv4 address',
    pattern: IPV4_PATTERN,
    examples: ['192.168.200.12'],
    check: checkIpv4,
  })

export const cidrBlock = () =>
  stringFormat({
    code: 'INVALID_CIDR',
    expected: 'an IPv4 network in CIDR form like 192.168.200.0/24',
    title: 'IPv4 CIDR block',
    pattern: `${IPV4_PATTERN.slice(0, -1)}/(?:[0-9]|[12][0-9]|3[0-2])$`,
    examples: ['192.168.200.0/24'],
    check: checkCidr,
  })

export const interfaceName = () =>
  stringFormat({
    code: 'INVALID_INTERFACE_NAME',
    expected: 'a Linux interface name like enp1s0f1np1 (1 to 15 characters, no "/", ":" or whitespace)',
    title: 'Linux network interface name',
    pattern: '^(?!\\.{1,2}$)[^/:\\s]{1,15}$',
    examples: ['enp1s0f1np1'],
    check: checkInterfaceName,
  })

export const envName = () =>
  stringFormat({
    code: 'INVALID_ENV_NAME',
    expected: 'an environment variable name like HF_TOKEN (letters, digits and "_", not starting with a digit)',
    title: 'environment variable name',
    pattern: ENV_NAME.source,
    examples: ['HF_TOKEN'],
    check: checkEnvName,
  })

export const imageReference = () =>
  stringFormat({
    code: 'INVALID_IMAGE_REF',
    expected: 'an image reference like ghcr.io/org/image:tag or org/image@sha256:<64 hex digits>',
    title: 'container image reference',
    pattern: IMAGE_REFERENCE_PATTERN,
    examples: ['hellohal2064/vllm-qwen3.5-gb10:latest'],
    check: checkImageReference,
  })

export const imageDigest = () =>
  stringFormat({
    code: 'INVALID_DIGEST',
    expected: 'an image digest like sha256:<64 lowercase hex digits>',
    title: 'image digest',
    pattern: DIGEST_PATTERN,
    examples: [`sha256:${'0'.repeat(64)}`],
    check: checkImageDigest,
  })

export const hostKeyPin = () =>
  stringFormat({
    code: 'INVALID_HOST_KEY',
    expected: 'a host key pin: a fingerprint like SHA256:<43 base64 characters> (from `ssh-keygen -lf`) or a public key line like "ssh-ed25519 AAAA..."',
    title: 'SSH host key fingerprint or public key',
    pattern: HOST_KEY_PATTERN,
    examples: ['SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s', 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl'],
    check: checkHostKeyPin,
  })

export const resourceName = (example: string) =>
  stringFormat({
    code: 'INVALID_NAME',
    expected: `a name like ${example} (letters, digits, ".", "_" and "-", starting with a letter or digit, at most 63 characters)`,
    title: 'name',
    pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$',
    examples: [example],
    check: checkResourceName,
  })

export const sshHost = () =>
  stringFormat({
    code: 'INVALID_HOST',
    expected: 'a hostname or IP address like 10.1.230.180',
    title: 'hostname or IP address',
    pattern: '^[^\\s@/]+$',
    examples: ['10.1.230.180', 'spark-a.lab.example.com'],
    check: checkSshHost,
  })

export const byteSize = () =>
  stringFormat({
    code: 'INVALID_SIZE',
    expected: 'a size like 16g or 10.24g (a number with an optional b, k, m or g unit)',
    title: 'size',
    pattern: '^[0-9]+(?:\\.[0-9]+)?[bkmgBKMG]?$',
    examples: ['16g'],
    check: checkByteSize,
  })

export const volumeSpec = () =>
  stringFormat({
    code: 'INVALID_VOLUME',
    expected: 'a volume like /host/path:/container/path or /host/path:/container/path:ro',
    title: 'volume mount',
    pattern: '^[^:\\s]+:/[^:\\s]*(?::[a-zA-Z,]+)?$',
    examples: ['/root/.cache/huggingface:/root/.cache/huggingface'],
    check: checkVolumeSpec,
  })

export const devicePath = () =>
  stringFormat({
    code: 'INVALID_DEVICE',
    expected: 'a device path like /dev/infiniband (optionally /host/dev:/container/dev[:rwm])',
    title: 'device path',
    pattern: '^/[^:\\s]*(?::/[^:\\s]*)?(?::[rwm]+)?$',
    examples: ['/dev/infiniband'],
    check: checkDevicePath,
  })

/** A whole number with bounds; the message names the bounds and what was given. */
export function wholeNumber(bounds: { readonly min: number; readonly max?: number }) {
  const expected = bounds.max === undefined ? `a whole number of at least ${bounds.min}` : `a whole number from ${bounds.min} to ${bounds.max}`
  const error = (issue: { readonly input?: unknown }) => `expected ${expected}, got ${describeValue(issue.input)}`
  return shared(`int ${bounds.min} ${bounds.max}`, () => {
    const atLeast = z.int({ error }).min(bounds.min, { error })
    return bounds.max === undefined ? atLeast : atLeast.max(bounds.max, { error })
  })
}

export const port = () => wholeNumber({ min: 1, max: 65535 })

/**
 * The longest delay a Node.js timer honours: 2^31-1 ms (about 24.8 days). A larger one fires at
 * once, so a timeout key past it would time every command out "after 2 s". Every duration in the
 * manifest is bounded so that it, plus the transport's own slack (under a minute), stays below it.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1
const SLACK_MS = 60_000
export const seconds = () => wholeNumber({ min: 1, max: Math.floor((MAX_TIMER_MS - SLACK_MS) / 1000) })
export const minutes = () => wholeNumber({ min: 1, max: Math.floor((MAX_TIMER_MS - SLACK_MS) / 60_000) })
export const milliseconds = () => wholeNumber({ min: 1, max: MAX_TIMER_MS - SLACK_MS })
/**
 * The fabric collective's per-rank timeout: its SSH deadline is twice it plus 50 s (two phases of
 * the rank program, its start and the transport's slack: src/preflight/gather/run-collective.ts), so
 * the largest value is about half of seconds()' (a test holds the two together).
 */
export const COLLECTIVE_DEADLINE_EXTRA_S = 50
export const collectiveSeconds = () =>
  wholeNumber({ min: 1, max: Math.floor((Math.floor((MAX_TIMER_MS - SLACK_MS) / 1000) - COLLECTIVE_DEADLINE_EXTRA_S) / 2) })

/** A string value in an env map or argument list; YAML numbers and booleans are taken as their text. */
export const scalarText = () => shared('scalarText', () => scalarTextSchema())

const scalarTextSchema = () =>
  z
    .union([z.string(), z.number(), z.boolean()], {
      error: (issue) => `expected a string (or a number or boolean, which is turned into text), got ${describeValue(issue.input)}`,
    })
    .transform(scalarToText)
    // A NUL cannot be in an argument or an environment value: the node would never receive it.
    .refine(withoutNul, { error: 'contains a NUL character, which no argument or environment value can carry' })

/** `NAME: value` pairs with checked names. */
export const envMap = () => shared('envMap', () => z.record(envName(), scalarText()))
