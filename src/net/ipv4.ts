/**
 * IPv4 addresses and CIDR blocks, one contract for the whole tool: a dotted quad has four parts,
 * each 0–255 without leading zeros; a CIDR block is `a.b.c.d/n` naming a network (host bits zero,
 * no bare address). Parsing says why on failure (the manifest's messages); the membership helpers
 * answer `undefined` for what they cannot read (IPv6, hostnames), so checks skip rather than guess.
 * Pure; used by the manifest's formats and rules and by the preflight checks.
 */

import { fail, ok, type Parsed, problem } from '../result/result.js'

/** A Problem whose message is a phrase saying what is wrong with the text (the manifest puts it in its own message). */
const notIpv4 = (reason: string) => fail(problem('INVALID_IPV4', reason))
const notCidr = (reason: string, fix?: string) => fail(problem('INVALID_CIDR', reason, fix))

export interface Cidr {
  /** Network address as an unsigned 32-bit number. */
  readonly network: number
  readonly prefix: number
}

const OCTET = /^(0|[1-9][0-9]{0,2})$/

/** Parse a dotted-quad IPv4 address (no leading zeros, each part 0–255) to an unsigned 32-bit number. */
export function parseIpv4(text: string): Parsed<number> {
  const parts = text.split('.')
  if (parts.length !== 4) {
    return notIpv4(`it has ${parts.length} part${parts.length === 1 ? '' : 's'}; an IPv4 address has 4`)
  }
  let value = 0
  for (const part of parts) {
    if (!OCTET.test(part)) {
      return notIpv4(part === '' ? 'it has an empty part' : `"${part}" is not a number from 0 to 255`)
    }
    const n = Number(part)
    if (n > 255) return notIpv4(`${n} is larger than 255`)
    value = value * 256 + n
  }
  return ok(value)
}

/** Format an unsigned 32-bit number as a dotted quad. */
export function formatIpv4(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.')
}

/** Parse `a.b.c.d/n`. Host bits must be zero, so that the text names exactly one network. */
export function parseCidr(text: string): Parsed<Cidr> {
  const slash = text.indexOf('/')
  if (slash < 0) return notCidr('it has no "/prefix" part')
  const address = parseIpv4(text.slice(0, slash))
  if (!address.ok) return notCidr(`the address part ${address.problem.message}`)
  const prefixText = text.slice(slash + 1)
  if (!/^(0|[1-9][0-9]?)$/.test(prefixText) || Number(prefixText) > 32) {
    return notCidr(`the prefix "${prefixText}" is not a number from 0 to 32`)
  }
  const prefix = Number(prefixText)
  const network = networkOf(address.value, prefix)
  if (network !== address.value) {
    const named = `${formatIpv4(network)}/${prefix}`
    return notCidr(`it has host bits set; the network is ${named}`, `write the network address: ${named}`)
  }
  return ok({ network, prefix })
}

/** The network address of `address` under a prefix length. */
export function networkOf(address: number, prefix: number): number {
  // Bitwise operators are signed 32-bit in JS; mask arithmetically instead.
  return address - (address % 2 ** (32 - prefix))
}

export function cidrContains(cidr: Cidr, address: number): boolean {
  return networkOf(address, cidr.prefix) === cidr.network
}

/** First and last address of the block, for messages. */
export function cidrRange(cidr: Cidr): readonly [string, string] {
  return [formatIpv4(cidr.network), formatIpv4(cidr.network + 2 ** (32 - cidr.prefix) - 1)]
}

/** True for the network and broadcast addresses of blocks that have separate host addresses (/0–/30). */
export function isNetworkOrBroadcast(cidr: Cidr, address: number): boolean {
  if (cidr.prefix > 30) return false
  return address === cidr.network || address === cidr.network + 2 ** (32 - cidr.prefix) - 1
}

export const isIpv4 = (text: string): boolean => parseIpv4(text).ok

/** `192.168.200.12/24` (an interface address) → `192.168.200.12`; a bare address is returned unchanged. */
export const stripPrefixLength = (address: string): string => address.split('/')[0] ?? address

/** Blocks read before: the checks and log rules ask about the same few (127.0.0.0/8, a manifest's fabric) for every address. */
const cidrsRead = new Map<string, Parsed<Cidr>>()
function cidrRead(text: string): Parsed<Cidr> {
  let block = cidrsRead.get(text)
  if (block === undefined) {
    if (cidrsRead.size >= 256) cidrsRead.clear()
    block = parseCidr(text)
    cidrsRead.set(text, block)
  }
  return block
}

/** Whether `ip` (optionally with a prefix length) lies inside the network `cidr`; undefined when either cannot be read. */
export function ipInCidr(ip: string, cidr: string): boolean | undefined {
  const value = parseIpv4(stripPrefixLength(ip))
  const block = cidrRead(cidr)
  if (!value.ok || !block.ok) return undefined
  return cidrContains(block.value, value.value)
}

export const isLoopback = (ip: string): boolean => ipInCidr(ip, '127.0.0.0/8') === true

export const isLinkLocal = (ip: string): boolean => ipInCidr(ip, '169.254.0.0/16') === true

/** Docker's default bridge network (docker0, 172.17.0.0/16): an address a container gets when it is not run with --network host. */
export const isDockerDefaultBridge = (ip: string): boolean => ipInCidr(ip, '172.17.0.0/16') === true

/** What kind of text, given where a host's address belongs, names no host the other nodes reach. */
export type NotAHostKind =
  | 'loopback'
  | 'wildcard'
  | 'this-network'
  | 'netmask'
  | 'broadcast'
  | 'multicast'
  | 'reserved'
  | 'prefix-length'
  | 'empty'
  | 'home-specifier'
  | 'not-an-address'

const NOT_A_HOST_PHRASE: Readonly<Record<NotAHostKind, string>> = {
  loopback: 'a loopback address',
  wildcard: 'the wildcard (any) address',
  'this-network': 'an address in 0.0.0.0/8 ("this network"), no host\'s (what a resolver makes of a host written as one number)',
  netmask: 'a netmask',
  broadcast: 'the broadcast address',
  multicast: 'a multicast address',
  reserved: "a reserved address (240.0.0.0/4), no host's",
  'prefix-length': 'an address with its prefix length, which no resolver reads as a host',
  empty: 'empty',
  'home-specifier': "systemd's %h specifier, which a unit fills with the user's home directory (%H is the host name)",
  'not-an-address': 'not an address or host name',
}

/**
 * Why a text written as a peer's identity or a rendezvous target (`--master-addr`, MASTER_ADDR,
 * `--node-ip-address`, VLLM_HOST_IP, `ray start --address`) cannot name a host the other nodes
 * reach; undefined for an address or host name that can. Loopback covers Debian's `127.0.1.1`
 * hostname mapping (`hostname -i`); a netmask, an address with its prefix length or another word is
 * what a script that took the wrong field of `ifconfig`/`ip addr` passes on. One classifier for the
 * launch-script check, the live checks and the log rules.
 */
export function notAHostKind(text: string): NotAHostKind | undefined {
  const t = text.trim().replace(/^\[(.*)\]$/, '$1')
  if (t === '') return 'empty'
  // A systemd unit's specifiers (systemd.unit(5)): %H and %l are the host name, %h the user's home directory (pierce403/dgx-cluster-check's
  // ray-head.service, held-out19: `--node-ip-address=%h`).
  if (t === '%H' || t === '%l') return undefined
  if (t === '%h') return 'home-specifier'
  if (t === 'localhost' || t === '::1' || isLoopback(t)) return 'loopback'
  if (t === '0.0.0.0' || t === '::') return 'wildcard'
  if (/^\d+$/.test(t)) {
    const value = singleNumberAddress(t)
    return value === undefined ? 'not-an-address' : notAHostKind(formatIpv4(value))
  }
  // 0.0.0.0/8 names "this network" (RFC 1122), a source address only: no peer answers there.
  if (ipInCidr(t, '0.0.0.0/8')) return 'this-network'
  if (/^\d{1,3}(?:\.\d{1,3}){3}\/\d{1,2}$/.test(t)) return 'prefix-length'
  const v = parseIpv4(t)
  if (v.ok) {
    if (v.value === 2 ** 32 - 1) return 'broadcast'
    // A netmask: leading ones then zeros, 255.0.0.0 to 255.255.255.254.
    const zeros = 2 ** 32 - v.value
    if (t.startsWith('255.') && (zeros & (zeros - 1)) === 0) return 'netmask'
    if (ipInCidr(t, '224.0.0.0/4')) return 'multicast'
    if (ipInCidr(t, '240.0.0.0/4')) return 'reserved'
    return undefined
  }
  // A host name or an IPv6 address: letters, digits, dots, dashes, underscores, colons.
  return /^[\w.:-]+$/.test(t) ? undefined : 'not-an-address'
}

/**
 * A host written as one number, as glibc's inet_aton reads it (getaddrinfo and gethostbyname try it before any
 * name lookup): the whole 32-bit address, octal with a leading 0. "6841231" is 0.104.99.143 and "05" is 0.0.0.5,
 * which is what torch's c10d dials for a host name made only of digits (hpcaitech/Open-Sora#667,
 * ofsoundof/GRL-Image-Restoration#27); undefined when inet_aton rejects it ("08", or more than 32 bits).
 */
export function singleNumberAddress(digits: string): number | undefined {
  const octal = digits.length > 1 && digits.startsWith('0')
  if (octal && !/^[0-7]+$/.test(digits)) return undefined
  const value = octal ? Number.parseInt(digits, 8) : Number(digits)
  return value < 2 ** 32 ? value : undefined
}

/** notAHostKind as a phrase for messages ("a netmask"), undefined for a host. */
export function unusableHostAddress(text: string): string | undefined {
  const kind = notAHostKind(text)
  return kind && NOT_A_HOST_PHRASE[kind]
}

/** A loopback host: 127.0.0.0/8 (Debian's 127.0.1.1 too), localhost, ::1. */
export const isLoopbackHost = (text: string): boolean => notAHostKind(text) === 'loopback'

/** Loopback or the wildcard: the address a node reaches only itself at. */
export const isSelfAddress = (text: string): boolean => {
  const kind = notAHostKind(text)
  return kind === 'loopback' || kind === 'wildcard'
}
