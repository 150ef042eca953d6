/**
 * NCCL_SOCKET_IFNAME and GLOO_SOCKET_IFNAME, read the way each library reads them. The manifest
 * rule (is the value about the fabric interfaces?) and the preflight check (does it select the
 * fabric on this node?) both go through here, so `validate` never accepts a value the preflight
 * then reports, or the reverse.
 *
 * NCCL (NVIDIA/nccl, read at src/misc/socket.cc@081eafafc98385c45e38d5f5a35b3175735a5847
 * `ncclFindInterfaces`, src/os/linux.cc `ncclOsFindInterfaces`, src/misc/utils.cc@01d1836668ad59bfc26d14aede5fec593da6ae42
 * `parseStringList`/`matchIf`):
 *  - a value of at most one character is ignored (NCCL picks interfaces itself);
 *  - a leading `^` excludes the listed interfaces instead of selecting them; then a leading `=`
 *    makes every item an exact name. Both apply to the whole list, not per item (`^=eth0,eth1`);
 *  - items are comma separated, empty items skipped, a `:port` suffix ignored for interfaces;
 *  - otherwise an item is a name prefix (`enp1` selects `enp1s0f1np1`);
 *  - only running interfaces with an IPv4/IPv6 address are candidates; a value that selects none
 *    fails NCCL's bootstrap ("no socket interface found").
 *
 * Gloo (torch's ProcessGroupGloo, pytorch/pytorch torch/csrc/distributed/c10d/init.cpp@00814e6eee85a493e5dbe3eb71c7e7e9d1048895,
 * the ProcessGroupGloo constructor binding; gloo's tcp device `lookupAddrForIface`):
 *  - a value of at most one character is ignored (the hostname's address is used);
 *  - the value is split on `,` (recent torch: a comma list is accepted) and every piece is an exact
 *    interface name, not trimmed, no prefixes, no `^`: `createDeviceForInterface` is called on each
 *    and fails with "Unable to find address for: <name>" when that interface has no address;
 *  - so every name must exist on the node and carry an address.
 */

export const SOCKET_IFNAME_VARIABLES = ['NCCL_SOCKET_IFNAME', 'GLOO_SOCKET_IFNAME'] as const
export type SocketIfnameVariable = (typeof SOCKET_IFNAME_VARIABLES)[number]

export interface InterfaceList {
  readonly variable: SocketIfnameVariable
  /** `auto`: the library ignores the value (unset or one character) and chooses by itself. */
  readonly mode: 'include' | 'exclude' | 'auto'
  /** Items are whole names (always for Gloo; for NCCL after `=`), else name prefixes. */
  readonly exact: boolean
  readonly items: readonly string[]
}

export function parseInterfaceList(variable: SocketIfnameVariable, value: string | undefined): InterfaceList {
  if (value === undefined || value.length <= 1) return { variable, mode: 'auto', exact: true, items: [] }
  if (variable === 'GLOO_SOCKET_IFNAME') {
    // std::getline over ',' keeps empty pieces between commas but yields none after a trailing one.
    const pieces = value.split(',')
    if (pieces.at(-1) === '') pieces.pop()
    return { variable, mode: 'include', exact: true, items: pieces }
  }
  let rest = value
  const exclude = rest.startsWith('^')
  if (exclude) rest = rest.slice(1)
  const exact = rest.startsWith('=')
  if (exact) rest = rest.slice(1)
  const items = rest
    .split(',')
    .map((item) => item.split(':')[0] ?? '')
    .filter((item) => item !== '')
  return { variable, mode: exclude ? 'exclude' : 'include', exact, items }
}

/** Whether one item of the list names the interface `name`. */
export const itemNames = (list: InterfaceList, item: string, name: string): boolean => (list.exact ? name === item : name.startsWith(item))

/** Whether the list (include or exclude) would let the library use interface `name`. */
export function listSelects(list: InterfaceList, name: string): boolean {
  // NCCL: an empty list matches everything, and `^` inverts the match.
  const named = list.items.length === 0 || list.items.some((item) => itemNames(list, item, name))
  return list.mode === 'exclude' ? !named : list.mode === 'include' && named
}

export interface Selection<T> {
  /** The candidates the library would use, in order. */
  readonly selected: T[]
  /** Items of an include list that name none of the candidates. */
  readonly unmatched: string[]
}

/**
 * What the list selects among `candidates` (interfaces the library could use: for NCCL the running
 * ones with an address, for Gloo the ones with an address). `auto` selects nothing: the library
 * decides at run time.
 */
export function selectInterfaces<T extends { readonly name: string }>(list: InterfaceList, candidates: readonly T[]): Selection<T> {
  if (list.mode === 'auto') return { selected: [], unmatched: [] }
  return {
    selected: candidates.filter((c) => listSelects(list, c.name)),
    unmatched: list.mode === 'include' ? list.items.filter((item) => !candidates.some((c) => itemNames(list, item, c.name))) : [],
  }
}
