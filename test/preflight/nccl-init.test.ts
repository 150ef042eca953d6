/**
 * NCCL's init lines read on what a real NCCL printed: one rank on an H200 (no RDMA device there),
 * NCCL 2.28.9 from torch 2.11 (test/fixtures/hardware/README.md says how each was made).
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parseNcclInit } from '../../src/preflight/nccl-init.js'

const capture = (name: string) => parseNcclInit(readFileSync(`test/fixtures/hardware/h200/nccl-one-rank-${name}.txt`, 'utf8'))

describe("NCCL's init as a real NCCL prints it", () => {
  it('a node without RDMA devices: NCCL finds no IB device and uses sockets on eth0', () => {
    const init = capture('default')
    expect(init).toMatchObject({ version: '2.28.9+cuda13.0', network: 'Socket', ibNoDevice: true, socketInterfaces: '[0]eth0:192.0.2.2<0>', warnings: [] })
    expect(init.ibHca).toBeUndefined()
  })

  it('NCCL_IB_HCA naming a device that does not exist: no error, only a silent fall back to sockets', () => {
    for (const name of ['ib-hca-missing', 'ib-hca-missing-exact']) {
      const init = capture(name)
      expect(init.ibHca).toMatch(/^=?mlx5_99$/)
      expect(init.warnings).toEqual([])
      expect(init).toMatchObject({ network: 'Socket', ibNoDevice: true })
    }
  })

  it('NCCL_SOCKET_IFNAME matching nothing: bootstrap fails, and the reading says why', () => {
    const init = capture('socket-ifname-nomatch')
    expect(init).toMatchObject({ socketIfname: 'nomatch', warnings: ['Bootstrap : no socket interface found'] })
    expect(init.network).toBeUndefined()
  })

  it('P2P and SHM disabled (the network forced) on one rank: still sockets, and the same reading', () => {
    expect(capture('net-forced')).toMatchObject({ network: 'Socket', ibNoDevice: true })
  })

  it('reads an IB selection as IB (the line shape of the captures, with the IB plugin chosen)', () => {
    expect(
      parseNcclInit(
        'host:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB enp1s0f1np1:192.168.200.12<0>\nhost:1:1 [0] NCCL INFO Using network IB\n',
      ),
    ).toMatchObject({ network: 'IB', ibNoDevice: false })
    expect(parseNcclInit('')).toEqual({ ibNoDevice: false, warnings: [] })
  })
})
