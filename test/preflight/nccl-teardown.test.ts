/**
 * NCCL tearing a communicator down at the end of a run (src/init.cc: "comm %p rank %d nranks %d cudaDev %d busId %lx - Abort COMPLETE",
 * "… - Destroy COMPLETE"): the proxy's socket calls return as their sockets close and NCCL prints their error trace just before. That
 * trace is the shutdown's, not a failure; a WARN line or another process's trace stays one.
 */
import { describe, expect, it } from 'vitest'
import { bad, scan } from './support/paste-scan.js'

describe("NCCL's error trace before its communicator's teardown", () => {
  it.each([
    // the shape of a finished two-node job's shutdown: each process's socket.cc trace, then its Abort COMPLETE (NCCL 2.2x)
    [
      'node-b:7070:11027 [0] NCCL INFO misc/socket.cc:47 -> 3',
      'node-b:7070:11027 [0] NCCL INFO misc/socket.cc:58 -> 3',
      'node-b:7070:7147 [0] NCCL INFO misc/socket.cc:832 -> 3',
      'node-a:7614:9432 [0] NCCL INFO misc/socket.cc:47 -> 3',
      'node-a:7614:7692 [0] NCCL INFO misc/socket.cc:832 -> 3',
      'node-b:7070:11027 [0] NCCL INFO comm 0x60630f7f62f0 rank 1 nranks 2 cudaDev 0 busId 1e0 - Abort COMPLETE',
      'node-a:7614:9432 [0] NCCL INFO comm 0x573f9cb382e0 rank 0 nranks 2 cudaDev 0 busId 1e0 - Abort COMPLETE',
    ],
    // ncclCommDestroy's line, a proxy trace first
    ['gpu1:412:980 [3] NCCL INFO proxy.cc:1504 -> 3', 'gpu1:412:412 [3] NCCL INFO comm 0x55d1 rank 3 nranks 8 cudaDev 3 busId 4f000 - Destroy COMPLETE'],
  ])('%#', (...lines) => {
    expect(scan(lines.join('\n'))).toEqual([])
  })

  it("the teardown itself is no finding (a 16-rank all-reduce test ending: a README of youkaichao's training image, code index id 13409439908)", () => {
    const log = [
      'lsp-ws1:7650:7729 [0] NCCL INFO [Service thread] Connection closed by localRank 0',
      'lsp-ws1:7655:7655 [0] NCCL INFO comm 0x4d2d12d0 rank 5 nranks 16 cudaDev 5 busId 92000 - Abort COMPLETE',
      'lsp-ws1:7650:7650 [0] NCCL INFO comm 0x37c6a330 rank 0 nranks 16 cudaDev 0 busId 4b000 - Abort COMPLETE',
    ].join('\n')
    expect(scan(log)).toEqual([])
  })

  it('near miss: a WARN before the teardown, and the trace of a process that did not tear down, stay failure lines', () => {
    const warn = [
      'node-b:7070:7147 [0] NCCL WARN socketProgress: Connection closed by remote peer node-a<42551>',
      'node-b:7070:7147 [0] NCCL INFO misc/socket.cc:832 -> 6',
      'node-b:7070:11027 [0] NCCL INFO comm 0x60630f7f62f0 rank 1 nranks 2 cudaDev 0 busId 1e0 - Abort COMPLETE',
    ].join('\n')
    expect(bad(warn).length).toBeGreaterThan(0)
    const other = [
      'node-c:555:556 [0] NCCL INFO transport/net.cc:1538 -> 3',
      'node-b:7070:11027 [0] NCCL INFO comm 0x6063 rank 1 nranks 2 cudaDev 0 busId 1e0 - Abort COMPLETE',
    ].join('\n')
    expect(bad(other).map((x) => x.code)).toEqual(['UNRECOGNISED_FAILURE'])
  })

  it('near miss: a trace long before the teardown is not its', () => {
    const lines = [
      'node-b:7070:7147 [0] NCCL INFO misc/socket.cc:832 -> 3',
      ...Array.from({ length: 25 }, (_, i) => `step ${i} loss 0.5`),
      'node-b:7070:11027 [0] NCCL INFO comm 0x6063 rank 1 nranks 2 cudaDev 0 busId 1e0 - Abort COMPLETE',
    ]
    expect(bad(lines.join('\n')).map((x) => x.code)).toEqual(['UNRECOGNISED_FAILURE'])
  })
})
