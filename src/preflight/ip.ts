/**
 * IPv4 addresses and CIDR blocks, just enough for the preflight: parse, compare, test membership.
 * Functions return `undefined` for input they cannot read instead of throwing.
 */

/** The 32-bit value of a dotted-quad IPv4 address, or undefined if `text` is not one. */
export function parseIpv4(text: string): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text.trim())
  if (!m) return undefined
  let value = 0
  for (const part of m.slice(1)) {
    const octet = Number(part)
    if (octet > 255) return undefined
    value = value * 256 + octet
  }
  return value
}

export const isIpv4 = (text: string): boolean => parseIpv4(text) !== undefined

/** `192.168.200.12/24` → `192.168.200.12`; a bare address is returned unchanged. */
export const stripPrefixLength = (address: string): string => address.split('/')[0] ?? address

export interface Cidr {
  readonly base: number
  readonly prefix: number
}

/** Parse `a.b.c.d/n` (a bare address counts as /32). */
export function parseCidr(text: string): Cidr | undefined {
  const [addr, len] = text.trim().split('/')
  const base = parseIpv4(addr ?? '')
  if (base === undefined) return undefined
  const prefix = len === undefined ? 32 : Number(len)
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > 32) return undefined
  return { base, prefix }
}

const mask = (prefix: number): number => (prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0)

/** Whether `ip` lies inside `cidr`; undefined when either cannot be parsed (IPv6 included). */
export function ipInCidr(ip: string, cidr: string): boolean | undefined {
  const value = parseIpv4(stripPrefixLength(ip))
  const block = parseCidr(cidr)
  if (value === undefined || block === undefined) return undefined
  const m = mask(block.prefix)
  return ((value & m) >>> 0) === ((block.base & m) >>> 0)
}

export const isLoopback = (ip: string): boolean => ipInCidr(ip, '127.0.0.0/8') === true

export const isLinkLocal = (ip: string): boolean => ipInCidr(ip, '169.254.0.0/16') === true
