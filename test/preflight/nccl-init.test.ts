/**
 * NCCL's init lines read on what a real NCCL printed: one rank on an H200 (no RDMA device there),
 * NCCL 2.28.9 from torch 2.11 (test/fixtures/hardware/README.md says how each was made).
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { ncclTransport, parseNcclInit } from '../../src/preflight/nccl-init.js'

const capture = (name: string) => parseNcclInit(readFileSync(`test/fixtures/hardware/h200/nccl-one-rank-${name}.txt`, 'utf8'))

describe("NCCL's init as a real NCCL prints it", () => {
  it('a node without RDMA devices: NCCL finds no IB device and uses sockets on eth0', () => {
    const init = capture('default')
    expect(init).toMatchObject({ version: '2.28.9+cuda13.0', network: 'Socket', ibNoDevice: true, socketInterfaces: '[0]eth0:192.0.2.2<0>', warnings: [] })
    expect(ncclTransport(init)).toEqual({ kind: 'socket', reason: 'no-ib-device', via: '[0]eth0:192.0.2.2<0>' })
  })

  it('NCCL_IB_HCA naming a device that does not exist: no error, only a silent fall back to sockets', () => {
    for (const name of ['ib-hca-missing', 'ib-hca-missing-exact']) {
      const init = capture(name)
      expect(init.ibHca).toMatch(/^=?mlx5_99$/)
      expect(init.warnings).toEqual([])
      expect(ncclTransport(init)).toMatchObject({ kind: 'socket', reason: 'ib-hca-unmatched' })
    }
  })

  it('NCCL_SOCKET_IFNAME matching nothing: bootstrap fails, and the reading says why', () => {
    const init = capture('socket-ifname-nomatch')
    expect(init).toMatchObject({ socketIfname: 'nomatch', warnings: ['Bootstrap : no socket interface found'] })
    expect(init.network).toBeUndefined()
    expect(ncclTransport(init)).toEqual({ kind: 'failed', reason: 'Bootstrap : no socket interface found' })
  })

  it('P2P and SHM disabled (the network forced) on one rank: still sockets, and the same reading', () => {
    expect(ncclTransport(capture('net-forced'))).toMatchObject({ kind: 'socket', reason: 'no-ib-device' })
  })

  it('reads an IB selection as IB (the line shape of the captures, with the IB plugin chosen)', () => {
    expect(
      ncclTransport(
        parseNcclInit(
          'host:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB enp1s0f1np1:192.168.200.12<0>\nhost:1:1 [0] NCCL INFO Using network IB\n',
        ),
      ),
    ).toEqual({ kind: 'ib', network: 'IB' })
    expect(ncclTransport(parseNcclInit(''))).toEqual({ kind: 'unknown' })
  })
})
