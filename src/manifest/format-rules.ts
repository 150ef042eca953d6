/**
 * The rules behind the manifest's formats and refinements as plain functions, without zod: the zod
 * schema (formats.ts, schema.ts) calls them, and so does the manifest's fast path (fast-parse.ts),
 * which validates a manifest before zod is built (the Action's start-up, bench row 6). Each
 * function is the one both paths run, so they cannot disagree; FAST_RULES names them for the plan
 * the build generates (manifest-plan.generated.ts).
 */
import { parseCidr, parseIpv4 } from '../net/ipv4.js'
import type { Problem } from '../result/result.js'
import { DIGEST_PATTERN, parseImageReference } from './image-reference.js'

/** What a rule says about one string: nothing when it is fine. */
export interface Verdict {
  readonly reason?: string
  readonly fix?: string
}

/** A parser's Problem as a format's verdict: its message is the reason; its fix only where it names one beyond the message. */
const verdictOf = (p: Problem): Verdict => ({ reason: p.message, ...(p.fix !== p.message && { fix: p.fix }) })

const fromRegex =
  (re: RegExp, reason?: string) =>
  (text: string): Verdict | undefined =>
    re.test(text) ? undefined : { ...(reason !== undefined && { reason }) }

export const checkIpv4 = (text: string): Verdict | undefined => {
  const parsed = parseIpv4(text)
  return parsed.ok ? undefined : verdictOf(parsed.problem)
}

export const checkCidr = (text: string): Verdict | undefined => {
  const parsed = parseCidr(text)
  return parsed.ok ? undefined : verdictOf(parsed.problem)
}

export const checkInterfaceName = (text: string): Verdict | undefined => {
  if (text.length === 0) return { reason: 'it is empty' }
  if (text.length > 15) return { reason: `it is ${text.length} characters long; Linux allows at most 15` }
  if (/[/:\s]/.test(text)) return { reason: 'it contains "/", ":" or whitespace' }
  if (text === '.' || text === '..') return { reason: 'it is "." or ".."' }
  return undefined
}

export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

export const checkEnvName = (text: string): Verdict | undefined => {
  if (ENV_NAME.test(text)) return undefined
  const suggestion = text.replace(/[^A-Za-z0-9_]/g, '_').replace(/^(?=[0-9])/, '_')
  return suggestion !== '' ? { fix: `rename it to ${suggestion}` } : {}
}

export const checkImageReference = (text: string): Verdict | undefined => {
  const parsed = parseImageReference(text)
  return parsed.ok ? undefined : verdictOf(parsed.problem)
}

export const checkImageDigest = fromRegex(new RegExp(DIGEST_PATTERN))

const KEY_TYPES = '(?:ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp(?:256|384|521)|sk-ssh-ed25519@openssh\\.com|sk-ecdsa-sha2-nistp256@openssh\\.com)'
export const HOST_KEY_PATTERN = `^(?:SHA256:[A-Za-z0-9+/]{43}=?|${KEY_TYPES} AAAA[A-Za-z0-9+/]+={0,2}(?: .*)?)$`

export const checkHostKeyPin = (text: string): Verdict | undefined => {
  if (new RegExp(HOST_KEY_PATTERN).test(text)) return undefined
  if (/^(MD5:)?([0-9a-f]{2}:){15}[0-9a-f]{2}$/i.test(text)) {
    return { reason: 'MD5 fingerprints are not accepted', fix: 'use the SHA256 fingerprint from `ssh-keyscan HOST | ssh-keygen -lf -`' }
  }
  return { fix: 'run `ssh-keyscan -t ed25519 HOST | ssh-keygen -lf -` and paste the SHA256:... part' }
}

export const checkResourceName = fromRegex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/)

export const checkSshHost = (text: string): Verdict | undefined => {
  if (text === '') return { reason: 'it is empty' }
  const at = text.indexOf('@')
  if (at >= 0) {
    return { reason: 'it contains a user name', fix: `write host: ${text.slice(at + 1)} and user: ${text.slice(0, at)}` }
  }
  if (/[\s/]/.test(text)) return { reason: 'it contains whitespace or "/"' }
  return undefined
}

export const checkByteSize = fromRegex(/^[0-9]+(?:\.[0-9]+)?[bkmgBKMG]?$/)
export const checkVolumeSpec = fromRegex(/^[^:\s]+:\/[^:\s]*(?::[a-zA-Z,]+)?$/)
export const checkDevicePath = fromRegex(/^\/[^:\s]*(?::\/[^:\s]*)?(?::[rwm]+)?$/)

/** Why `text` is not a JavaScript regular expression ('' when it is one). */
export function regexError(text: string): string {
  try {
    new RegExp(text)
    return ''
  } catch (err) {
    return (err as Error).message
  }
}
export const isRegex = (text: string): boolean => regexError(text) === ''

/** A hub revision never holds `..` (it becomes part of a path on the node). */
export const revisionWithoutDotDot = (revision: string): boolean => !revision.includes('..')

/** A model path has no `.` or `..` part. */
export const pathWithoutDotParts = (path: string): boolean => !path.split('/').some((part) => part === '.' || part === '..')

/** A plain http:// hub endpoint only with allowInsecure: true. */
export const hubEndpointAllowed = (hub: { readonly endpoint?: string | undefined; readonly allowInsecure?: boolean | undefined }): boolean =>
  hub.endpoint === undefined || !/^http:/i.test(hub.endpoint) || hub.allowInsecure === true

/** Exactly one of the model's sources is given. */
export const exactlyOneModelSource = (source: { readonly hub?: unknown; readonly runner?: unknown; readonly nodes?: unknown }): boolean =>
  [source.hub, source.runner, source.nodes].filter((x) => x !== undefined).length === 1

/** A YAML number or boolean in an argument list or env map is taken as its text. */
export const scalarToText = (value: string | number | boolean): string => String(value)

/** A NUL cannot be in an argument or an environment value: the node would never receive it. */
export const withoutNul = (value: string): boolean => !value.includes('\0')

/**
 * Every rule by the name the generated plan uses. A format check answers a Verdict (undefined: the
 * text is fine), a refinement a boolean, a transform the new value.
 */
export const FAST_RULES = {
  checkIpv4,
  checkCidr,
  checkInterfaceName,
  checkEnvName,
  checkImageReference,
  checkImageDigest,
  checkHostKeyPin,
  checkResourceName,
  checkSshHost,
  checkByteSize,
  checkVolumeSpec,
  checkDevicePath,
  isRegex,
  revisionWithoutDotDot,
  pathWithoutDotParts,
  hubEndpointAllowed,
  exactlyOneModelSource,
  scalarToText,
  withoutNul,
} as const
export type FastRuleName = keyof typeof FAST_RULES
