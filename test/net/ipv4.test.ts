import { describe, expect, it } from 'vitest'
import {
  formatIpv4,
  ipInCidr,
  isIpv4,
  isLinkLocal,
  isLoopback,
  isSelfAddress,
  parseCidr,
  parseIpv4,
  singleNumberAddress,
  stripPrefixLength,
  unusableHostAddress,
} from '../../src/net/ipv4.js'

describe('IPv4: one contract for the manifest and the preflight', () => {
  it('reads dotted quads and refuses anything else', () => {
    expect(parseIpv4('192.168.200.12')).toEqual({ ok: true, value: 0xc0a8c80c })
    expect(parseIpv4('256.1.1.1').ok).toBe(false)
    expect(parseIpv4('10.1.230').ok).toBe(false)
    // Leading zeros are refused everywhere (some parsers read 010 as octal 8).
    expect(isIpv4('010.1.1.1')).toBe(false)
    expect(isIpv4('fe80::1')).toBe(false)
    expect(isIpv4('ec2-1-2-3-4.compute.amazonaws.com')).toBe(false)
  })

  it('strips a prefix length from an interface address', () => {
    expect(stripPrefixLength('192.168.200.12/24')).toBe('192.168.200.12')
    expect(stripPrefixLength('10.1.230.180')).toBe('10.1.230.180')
  })

  it('tests subnet membership, and says "unknown" for what it cannot read', () => {
    expect(ipInCidr('192.168.200.13', '192.168.200.0/24')).toBe(true)
    expect(ipInCidr('10.1.230.180', '192.168.200.0/24')).toBe(false)
    expect(ipInCidr('192.168.200.13/24', '192.168.200.0/24')).toBe(true)
    expect(ipInCidr('192.168.201.10', '192.168.200.0/23')).toBe(true)
    expect(ipInCidr('8.8.8.8', '0.0.0.0/0')).toBe(true)
    expect(ipInCidr('fe80::1', '192.168.200.0/24')).toBeUndefined()
    expect(ipInCidr('192.168.200.1', 'not-a-cidr')).toBeUndefined()
    expect(parseCidr('192.168.200.0/33').ok).toBe(false)
    // A CIDR block names a network: no bare address, no host bits (an interface address is not a block).
    expect(parseCidr('192.168.200.7').ok).toBe(false)
    expect(ipInCidr('192.168.200.7', '192.168.200.7/32')).toBe(true)
    expect(ipInCidr('192.168.200.7', '192.168.200.7/24')).toBeUndefined()
  })

  it('knows loopback and link-local', () => {
    expect(isLoopback('127.0.0.1')).toBe(true)
    expect(isLoopback('127.1.2.3')).toBe(true)
    expect(isLoopback('10.0.0.1')).toBe(false)
    expect(isLinkLocal('169.254.3.1')).toBe(true)
  })

  it('says why an address names no host the other nodes reach, and nothing for one that can', () => {
    const why = (t: string) => unusableHostAddress(t)
    expect(['127.0.0.1', '127.0.1.1', 'localhost', '::1', '[::1]'].map(why)).toEqual(Array(5).fill('a loopback address'))
    expect(['0.0.0.0', '::'].map(why)).toEqual(['the wildcard (any) address', 'the wildcard (any) address'])
    expect(['255.255.255.0', '255.255.0.0', '255.0.0.0', '255.255.255.252', '255.255.254.0'].map(why)).toEqual(Array(5).fill('a netmask'))
    expect(why('255.255.255.255')).toBe('the broadcast address')
    expect(why('239.1.2.3')).toBe('a multicast address')
    expect(['255.255.255.1', '255.0.255.0', '240.0.0.1'].map(why)).toEqual(Array(3).fill("a reserved address (240.0.0.0/4), no host's"))
    expect(why('192.168.200.12/24')).toBe('an address with its prefix length, which no resolver reads as a host')
    expect(why('')).toBe('empty')
    expect(why('/root/cuda11.8.bashrc')).toBe('not an address or host name')
    // Host addresses, including ones that end in .0 or .255 (valid hosts in a /16 or wider), host names and IPv6.
    for (const host of ['192.168.200.12', '10.0.1.0', '172.16.3.255', '169.254.3.1', 'spark-a', 'ec2-1-2-3-4.compute.amazonaws.com', 'fe80::1', 'node_7'])
      expect(why(host), host).toBeUndefined()
    expect(isSelfAddress('127.0.1.1')).toBe(true)
    expect(isSelfAddress('0.0.0.0')).toBe(true)
    expect(isSelfAddress('255.255.255.0')).toBe(false)
  })

  it('reads a host written as one number as inet_aton does (6841231 is 0.104.99.143, 05 octal 0.0.0.5): 0.0.0.0/8 is no host', () => {
    expect(formatIpv4(singleNumberAddress('6841231') ?? -1)).toBe('0.104.99.143')
    expect(singleNumberAddress('05')).toBe(5)
    expect(singleNumberAddress('010')).toBe(8)
    // inet_aton rejects a bad octal number and anything past 32 bits
    expect(singleNumberAddress('08')).toBeUndefined()
    expect(singleNumberAddress('4294967296')).toBeUndefined()
    const thisNetwork = unusableHostAddress('0.0.0.5')
    expect(thisNetwork).toContain('0.0.0.0/8')
    for (const t of ['6841231', '05', '1009', '0.104.99.143', '0.0.3.241', '0.255.255.255']) expect(unusableHostAddress(t), t).toBe(thisNetwork)
    expect(unusableHostAddress('08')).toBe('not an address or host name')
    // one number that is a real address reads as that address: 2130706433 is 127.0.0.1, 3232235777 is 192.168.1.1
    expect(unusableHostAddress('2130706433')).toBe('a loopback address')
    expect(unusableHostAddress('3232235777')).toBeUndefined()
    // digits and letters are a host name; 0.0.0.0 stays the wildcard
    for (const host of ['node01', '1node', '10-0-0-5']) expect(unusableHostAddress(host), host).toBeUndefined()
    expect(unusableHostAddress('0.0.0.0')).toBe('the wildcard (any) address')
  })
})
