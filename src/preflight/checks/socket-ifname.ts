/**
 * NCCL_SOCKET_IFNAME / GLOO_SOCKET_IFNAME in each container: set on multi-homed nodes, naming
 * interfaces that exist, on the fabric subnet. How each library reads its value (NCCL: prefixes,
 * `^` and `=` for the whole list; Gloo: exact names, each needing an address) is in
 * src/net/interface-list.ts, shared with the manifest rule.
 */

import {
  SOCKET_IFNAME_VARIABLES as VARIABLES,
  type Selection,
  type SocketIfnameVariable,
  parseInterfaceList,
  selectInterfaces,
} from '../../net/interface-list.js'
import { ipInCidr, isLoopback, stripPrefixLength } from '../../net/ipv4.js'
import type { InterfaceFacts } from '../facts.js'
import type { Finding } from '../finding.js'
import type { CheckContext, ClusterNode } from './check-context.js'

/** Bridges and virtual links that do not make a machine multi-homed for this purpose. */
const VIRTUAL = /^(lo|docker|veth|br-|virbr)/

const ipv4s = (i: InterfaceFacts): string[] => i.addresses.map(stripPrefixLength).filter((a) => ipInCidr(a, '0.0.0.0/0') === true && !isLoopback(a))

/** Interfaces that carry a routable IPv4 address and are up. */
const addressed = (ifaces: readonly InterfaceFacts[]): InterfaceFacts[] => ifaces.filter((i) => i.up && !VIRTUAL.test(i.name) && ipv4s(i).length > 0)

const describe = (ifaces: readonly InterfaceFacts[]): string =>
  ifaces.length === 0 ? '(none)' : ifaces.map((i) => `${i.name} ${i.addresses.join(' ') || '(no address)'}`).join(', ')

/** IPv6 loopback is never a candidate (NCCL skips it); everything else with an address is. */
const hasAddress = (i: InterfaceFacts): boolean => i.addresses.some((a) => stripPrefixLength(a) !== '::1')

/**
 * What the variable selects on this node, by the library's own rule. NCCL considers running
 * interfaces with an address; Gloo looks a name up among the interfaces that have an address
 * ("Unable to find address for: <name>" otherwise).
 */
function select(variable: SocketIfnameVariable, value: string, ifaces: readonly InterfaceFacts[]): Selection<InterfaceFacts> & { readonly exclude: boolean } {
  const list = parseInterfaceList(variable, value)
  const candidates = ifaces.filter((i) => hasAddress(i) && (variable === 'GLOO_SOCKET_IFNAME' || i.up))
  return { ...selectInterfaces(list, candidates), exclude: list.mode === 'exclude' }
}

/** The interface that should be named: the manifest's fabric interface present here, or the one holding the fabric IP. */
function fabricInterface(ctx: CheckContext, node: ClusterNode): string {
  const ifaces = node.facts?.interfaces ?? []
  const named = ctx.expected?.fabricInterfaces.find((n) => ifaces.some((i) => i.name === n))
  const fabricIp = node.expected?.fabricIp
  const holding = ifaces.find((i) => i.addresses.some((a) => stripPrefixLength(a) === fabricIp))?.name
  return named ?? holding ?? ctx.expected?.fabricInterfaces[0] ?? '<fabric interface>'
}

const containerOf = (ctx: CheckContext, node: ClusterNode): string => node.facts?.container?.name ?? ctx.expected?.containerName ?? 'the container'

/** SOCKET_IFNAME_MISSING: unset on a multi-homed node, or naming interfaces that do not exist. */
export function socketIfnameMissing(ctx: CheckContext): Finding[] {
  const findings: Finding[] = []
  for (const node of ctx.nodes) {
    const ifaces = node.facts?.interfaces ?? []
    const env = ctx.envOf(node)
    if (!env || ifaces.length === 0) continue
    const iface = fabricInterface(ctx, node)
    const where = `container ${containerOf(ctx, node)}`
    const candidates = addressed(ifaces)
    const unset = VARIABLES.filter((v) => !env[v]?.trim())
    if (unset.length > 0 && candidates.length > 1) {
      findings.push({
        code: 'SOCKET_IFNAME_MISSING',
        severity: 'warning',
        node: node.name,
        message: `${unset.join(' and ')} ${unset.length > 1 ? 'are' : 'is'} unset in ${node.name}'s ${where} although ${node.name} has ${candidates.length} addressed interfaces, so NCCL/Gloo may bind the wrong one.`,
        evidence: {
          ...Object.fromEntries(unset.map((v) => [v, '(unset)'])),
          [`Addressed interfaces on ${node.name}`]: describe(candidates),
        },
        fix: `On ${node.name} start ${where} with ${unset.map((v) => `-e ${v}=${iface}`).join(' ')} (the fabric interface).`,
      })
    }
    for (const variable of VARIABLES) {
      const value = env[variable]?.trim()
      if (!value) continue
      const { selected, unmatched, exclude } = select(variable, value, ifaces)
      // Gloo opens a device on every name, so one unknown name fails; NCCL needs one interface selected.
      const broken = variable === 'GLOO_SOCKET_IFNAME' ? unmatched.length > 0 : selected.length === 0 && !exclude
      if (!broken) continue
      const absent = unmatched.filter((item) => !ifaces.some((i) => i.name === item || (variable === 'NCCL_SOCKET_IFNAME' && i.name.startsWith(item))))
      const addressless = unmatched.filter((item) => !absent.includes(item))
      const named = (items: string[]) => items.map((item) => (/^[^\s,]+$/.test(item) ? item : JSON.stringify(item))).join(', ')
      const why = [
        ...(absent.length > 0 ? [`${named(absent)} that ${absent.length > 1 ? 'do' : 'does'} not exist there`] : []),
        ...(addressless.length > 0 ? [`${named(addressless)} that ${addressless.length > 1 ? 'have' : 'has'} no address there`] : []),
      ]
      findings.push({
        code: 'SOCKET_IFNAME_MISSING',
        severity: 'error',
        node: node.name,
        message: `${variable}=${value} on ${node.name} names ${why.length > 0 ? why.join(', and ') : 'no interface that is up with an address there'}.`,
        evidence: { [variable]: value, [`Interfaces on ${node.name}`]: describe(ifaces) },
        fix: `On ${node.name} set ${variable}=${iface} in ${where} (interface names differ between machines; check \`ip -br addr\` there).`,
      })
    }
  }
  return findings
}

/** SOCKET_IFNAME_WRONG_SUBNET: the interface named has no address in the fabric subnet. */
export function socketIfnameWrongSubnet(ctx: CheckContext): Finding[] {
  const subnet = ctx.expected?.fabricSubnet
  if (!subnet) return []
  const findings: Finding[] = []
  for (const node of ctx.nodes) {
    const ifaces = node.facts?.interfaces ?? []
    const env = ctx.envOf(node)
    if (!env || ifaces.length === 0) continue
    for (const variable of VARIABLES) {
      const value = env[variable]?.trim()
      if (!value) continue
      const { selected } = select(variable, value, ifaces)
      if (selected.length === 0) continue // reported as SOCKET_IFNAME_MISSING (or nothing left to judge)
      const onFabric = (i: InterfaceFacts): boolean => ipv4s(i).some((a) => ipInCidr(a, subnet) === true)
      // Gloo uses a device on every name, so each must be on the fabric; NCCL needs one.
      const wrong = variable === 'GLOO_SOCKET_IFNAME' ? selected.filter((i) => !onFabric(i)) : selected.some(onFabric) ? [] : selected
      if (wrong.length === 0) continue
      const iface = fabricInterface(ctx, node)
      findings.push({
        code: 'SOCKET_IFNAME_WRONG_SUBNET',
        severity: variable === 'GLOO_SOCKET_IFNAME' ? 'error' : 'warning',
        node: node.name,
        message: `${variable}=${value} on ${node.name} selects ${wrong.map((i) => i.name).join(', ')}, which has no address in the fabric subnet ${subnet}.`,
        evidence: {
          [variable]: value,
          'Selected interfaces': describe(wrong),
          'Fabric subnet': subnet,
          ...(node.expected?.fabricIp ? { 'Expected fabric IP': node.expected.fabricIp } : {}),
        },
        fix: `On ${node.name} set ${variable}=${iface} in container ${containerOf(ctx, node)} so ${variable === 'GLOO_SOCKET_IFNAME' ? "vLLM's Gloo (CPU) group" : "NCCL's bootstrap and socket traffic"} uses the fabric.`,
      })
    }
  }
  return findings
}
