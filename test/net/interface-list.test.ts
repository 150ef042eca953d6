import { describe, expect, it } from 'vitest'
import { parseInterfaceList, selectInterfaces } from '../../src/net/interface-list.js'

const ifaces = ['lo', 'enP7s7', 'enp1s0f1np1', 'enp1s0f0np0', 'docker0'].map((name) => ({ name }))
const nccl = (value: string) => selectInterfaces(parseInterfaceList('NCCL_SOCKET_IFNAME', value), ifaces)
const gloo = (value: string) => selectInterfaces(parseInterfaceList('GLOO_SOCKET_IFNAME', value), ifaces)
const names = (s: { selected: { name: string }[] }) => s.selected.map((i) => i.name)

describe('NCCL_SOCKET_IFNAME as NCCL reads it', () => {
  it('items are name prefixes', () => {
    expect(names(nccl('enp1'))).toEqual(['enp1s0f1np1', 'enp1s0f0np0'])
    expect(nccl('enp1s0f1np1,eth')).toEqual({ selected: [{ name: 'enp1s0f1np1' }], unmatched: ['eth'] })
  })

  it('a leading = makes every item exact; a leading ^ excludes; both apply to the whole list', () => {
    expect(nccl('=enp1')).toEqual({ selected: [], unmatched: ['enp1'] })
    expect(names(nccl('=enp1s0f1np1,enP7s7'))).toEqual(['enP7s7', 'enp1s0f1np1'])
    expect(names(nccl('^lo,docker,enP'))).toEqual(['enp1s0f1np1', 'enp1s0f0np0'])
    expect(names(nccl('^=enp1s0f0np0'))).toEqual(['lo', 'enP7s7', 'enp1s0f1np1', 'docker0'])
    // `=` after the first item is part of that item's name, not a flag.
    expect(nccl('lo,=enp1s0f1np1').unmatched).toEqual(['=enp1s0f1np1'])
  })

  it('ignores :port suffixes and empty items, and a one-character value altogether', () => {
    expect(names(nccl('enp1s0f1np1:5000,,'))).toEqual(['enp1s0f1np1'])
    expect(parseInterfaceList('NCCL_SOCKET_IFNAME', 'e').mode).toBe('auto')
  })
})

describe('GLOO_SOCKET_IFNAME as torch/Gloo reads it', () => {
  it('a comma list of exact names, one device each: no prefixes, no ^, no trimming', () => {
    expect(names(gloo('enp1s0f1np1,enP7s7'))).toEqual(['enP7s7', 'enp1s0f1np1'])
    expect(gloo('enp1')).toEqual({ selected: [], unmatched: ['enp1'] })
    expect(gloo('^lo').unmatched).toEqual(['^lo'])
    expect(gloo('enp1s0f1np1, enP7s7').unmatched).toEqual([' enP7s7'])
    expect(gloo('enp1s0f1np1,,lo').unmatched).toEqual([''])
    expect(gloo('enp1s0f1np1,').unmatched).toEqual([])
  })
})
