import { createHash, createHmac } from 'node:crypto'

/**
 * Host key pinning, pure. A pin is either an OpenSSH fingerprint (`SHA256:base64`, as printed by
 * `ssh-keygen -lf`) or a public key (`ssh-ed25519 AAAA...`, as in known_hosts). Keys the server
 * presents are raw SSH wire blobs (the base64 field of a known_hosts line, decoded).
 */

export interface HostKeyPin {
  /** `SHA256:...` fingerprint, or the key's type and base64 blob. */
  readonly fingerprint?: string
  readonly keyType?: string
  readonly keyBase64?: string
  /** Where the pin came from, for messages (`manifest nodes[0].hostKeys[0]`, `known_hosts:3`). */
  readonly source: string
  /** An `@revoked` known_hosts line: this key is refused, whatever other line accepts it. */
  readonly revoked?: true
}

/** OpenSSH's SHA256 fingerprint of a raw key blob. */
export function fingerprint(keyBlob: Buffer): string {
  return `SHA256:${createHash('sha256').update(keyBlob).digest('base64').replace(/=+$/, '')}`
}

/** Parse one pin written in a manifest: `SHA256:...` or `<type> <base64> [comment]`. */
export function parsePin(text: string, source: string): HostKeyPin | undefined {
  const t = text.trim()
  if (/^SHA256:[A-Za-z0-9+/]{43}$/.test(t)) return { fingerprint: t, source }
  const m =
    /^(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp(?:256|384|521)|sk-ssh-ed25519@openssh\.com|sk-ecdsa-sha2-nistp256@openssh\.com)\s+([A-Za-z0-9+/]+=*)(\s.*)?$/.exec(
      t,
    )
  if (m) return { keyType: m[1], keyBase64: m[2], source }
  return undefined
}

/** The name known_hosts uses for a host: `host`, or `[host]:port` when the port is not 22. */
export function knownHostsName(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`
}

/** OpenSSH's pattern match (match.c `match_pattern`): `*` and `?`, case-insensitive for host names. */
function patternMatches(pattern: string, name: string): boolean {
  const re = new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
    'i',
  )
  return re.test(name)
}

/**
 * Does a known_hosts host field name `name`? As OpenSSH's `match_hostname`: a hashed field compares
 * the HMAC; otherwise the comma-separated patterns are read in full, a negated pattern (`!pat`) that
 * matches rejects the line whatever else matches, and one plain pattern must match.
 */
function hostFieldMatches(field: string, name: string): boolean {
  if (field.startsWith('|1|')) {
    const [, , salt, hash] = field.split('|')
    if (!salt || !hash) return false
    const h = createHmac('sha1', Buffer.from(salt, 'base64')).update(name).digest('base64')
    return h === hash
  }
  let positive = false
  for (const pattern of field.split(',')) {
    if (pattern.startsWith('!')) {
      if (patternMatches(pattern.slice(1), name)) return false
    } else if (patternMatches(pattern, name)) positive = true
  }
  return positive
}

/**
 * Pins for one host from known_hosts text (OpenSSH format, hashed or plain host names). `@revoked`
 * lines come back as revoked pins (the key is refused even where another line lists it);
 * `@cert-authority` lines are left out (host certificates are not used).
 */
export function pinsFromKnownHosts(text: string, host: string, port: number, sourceName = 'known_hosts'): HostKeyPin[] {
  const name = knownHostsName(host, port)
  const pins: HostKeyPin[] = []
  text.split('\n').forEach((raw, i) => {
    let line = raw.trim()
    if (line === '' || line.startsWith('#')) return
    let revoked = false
    if (line.startsWith('@')) {
      const [marker = '', ...after] = line.split(/\s+/)
      if (marker !== '@revoked') return
      revoked = true
      line = after.join(' ')
    }
    const [hosts, ...rest] = line.split(/\s+/)
    if (!hosts || !hostFieldMatches(hosts, name)) return
    const pin = parsePin(rest.join(' '), `${sourceName}:${i + 1}`)
    if (pin) pins.push(revoked ? { ...pin, revoked: true } : pin)
  })
  return pins
}

/** Does the presented key match any pin? Never when a revoked pin names it. */
export function keyMatches(keyBlob: Buffer, pins: readonly HostKeyPin[]): HostKeyPin | undefined {
  if (revokedPin(keyBlob, pins)) return undefined
  return pins.find((p) => !p.revoked && pinNames(p, keyBlob))
}

/** The `@revoked` pin that names this key, if any. */
export function revokedPin(keyBlob: Buffer, pins: readonly HostKeyPin[]): HostKeyPin | undefined {
  return pins.find((p) => p.revoked && pinNames(p, keyBlob))
}

const pinNames = (p: HostKeyPin, keyBlob: Buffer): boolean =>
  p.fingerprint !== undefined ? p.fingerprint === fingerprint(keyBlob) : p.keyBase64 === keyBlob.toString('base64')

/** The pins that can accept a key (a host with only revoked pins has none). */
export const acceptingPins = (pins: readonly HostKeyPin[]): HostKeyPin[] => pins.filter((p) => !p.revoked)

/** The SSH key type written inside a key blob (first length-prefixed string). */
export function keyType(keyBlob: Buffer): string {
  if (keyBlob.length < 4) return 'unknown'
  const len = keyBlob.readUInt32BE(0)
  return keyBlob.subarray(4, 4 + len).toString('latin1')
}

/** Host key algorithms to ask the server for, so it presents a key type we hold a pin for. */
export function preferredAlgorithms(all: readonly HostKeyPin[]): string[] | undefined {
  const pins = acceptingPins(all)
  const types = [...new Set(pins.map((p) => p.keyType).filter((t): t is string => t !== undefined))]
  if (types.length === 0 || pins.some((p) => p.fingerprint !== undefined)) return undefined
  return types.flatMap((t) => (t === 'ssh-rsa' ? ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'] : [t]))
}
