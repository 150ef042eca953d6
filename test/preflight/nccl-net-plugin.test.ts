/**
 * NCCL's network plugin (aws-ofi-nccl over libfabric) and NCCL_NET: a plugin that does not start is a warning (NCCL goes on with its own
 * transports), a network NCCL_NET forces that no plugin provides is an error, and the error trace NCCL prints under an explained WARN is
 * that WARN's, not another failure. Wordings from aws-ofi-nccl's source (src/nccl_ofi_net.cpp, _rdma.cpp, _sendrecv.cpp, 1.6–1.17) and
 * NCCL's net.cc; lines from public threads.
 */
import { describe, expect, it } from 'vitest'
import { bad, scan } from './support/paste-scan.js'

const transport = (text: string) => scan(text).filter((x) => x.code === 'NCCL_TRANSPORT_ERROR')

describe('aws-ofi-nccl that does not start: an NCCL_TRANSPORT_ERROR warning naming the call and the libfabric error', () => {
  it.each([
    // aws-ofi-nccl src/nccl_ofi_net.cpp: "Couldn't open a fabric provider. RC: %d, ERROR: %s" (fi_strerror(61) is "No data available")
    [
      "ip-10-0-1-2:1234:1234 [0] NCCL WARN NET/OFI Couldn't open a fabric provider. RC: -61, ERROR: No data available",
      "Couldn't open a fabric provider",
      'No data available',
    ],
    // src/nccl_ofi_sendrecv.cpp / _rdma.cpp: "OFI fi_getinfo() call failed: %s"
    ['algo-1:17779:17852 [6] NCCL WARN NET/OFI OFI fi_getinfo() call failed: No data available', 'OFI fi_getinfo() call failed', 'No data available'],
    // src/nccl_ofi_net.cpp: "Unable to find a protocol that worked.  Failing initialization." then PACKAGE_NAME " initialization failed"
    ['node1:123:456 [0] NCCL WARN NET/OFI Unable to find a protocol that worked.  Failing initialization.', 'Unable to find a protocol that worked', undefined],
    ['node1:123:456 [0] NCCL WARN NET/OFI aws-ofi-nccl initialization failed', 'aws-ofi-nccl initialization failed', undefined],
  ])('%s', (line, call, why) => {
    const f = transport(line)
    expect(f).toHaveLength(1)
    expect(f[0]!.severity).toBe('warning')
    expect(f[0]!.evidence['Plugin call']).toBe(call)
    expect(f[0]!.evidence.Error).toBe(why)
    expect(bad(line)).toEqual([])
  })

  it('a fallback to sockets after the plugin failed is warnings only: the trace NCCL prints under the WARN is that WARN', () => {
    const log = [
      'algo-1:17779:17852 [6] NCCL INFO NET/OFI Initializing aws-ofi-nccl 1.11.0-aws',
      'algo-1:17779:17852 [6] NCCL WARN NET/OFI OFI fi_getinfo() call failed: No data available',
      'algo-1:17779:17852 [6] NCCL WARN NET/OFI Failed to initialize sendrecv protocol',
      'algo-1:17779:17852 [6] NCCL WARN NET/OFI aws-ofi-nccl initialization failed',
      'algo-1:17779:17852 [6] NCCL INFO net.cc:62 -> 2',
      'algo-1:17779:17852 [6] NCCL INFO NET/IB : No device found.',
      'algo-1:17779:17852 [6] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>',
      'algo-1:17779:17852 [6] NCCL INFO Using network Socket',
    ].join('\n')
    expect(bad(log)).toEqual([])
    expect(scan(log).map((x) => x.code)).toEqual(expect.arrayContaining(['NCCL_TRANSPORT_ERROR', 'NCCL_SOCKET_FALLBACK']))
  })

  it('the same for an RDMA device that does not open (NCCL falls back to sockets)', () => {
    const log = [
      'node1:123:456 [0] NCCL WARN Call to ibv_open_device failed',
      'node1:123:456 [0] NCCL INFO net_ib.cc:210 -> 2',
      'node1:123:456 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>',
    ].join('\n')
    expect(bad(log)).toEqual([])
  })

  it('near miss: a trace under a WARN no signature explains, or from another process, is still a failure line', () => {
    expect(bad('node1:123:456 [0] NCCL WARN Something new went wrong\nnode1:123:456 [0] NCCL INFO net.cc:62 -> 2').map((x) => x.code)).toEqual([
      'UNRECOGNISED_FAILURE',
    ])
    const other = 'node1:123:456 [0] NCCL WARN Call to ibv_open_device failed\nnode2:777:888 [1] NCCL INFO transport/net.cc:1538 -> 3'
    expect(bad(other).map((x) => x.code)).toEqual(['UNRECOGNISED_FAILURE'])
    // an unexplained WARN between the explained line and the trace: the trace is the new WARN's, and both are quoted
    const between =
      'node1:123:456 [0] NCCL WARN Call to ibv_open_device failed\nnode1:123:456 [0] NCCL WARN Something new went wrong\nnode1:123:456 [0] NCCL INFO net.cc:62 -> 2'
    const quoted = bad(between).find((x) => x.code === 'UNRECOGNISED_FAILURE')
    expect(quoted?.evidence['Failure lines in all']).toBe('2')
  })

  it('near miss: the plugin loading and choosing its provider is no finding', () => {
    const log = [
      'ip-10-36-29-253:79:79 [0] NCCL INFO NET/Plugin: Failed to find ncclCollNetPlugin_v8 symbol.',
      'nid001234:1234:1234 [0] NCCL INFO NET/OFI Selected provider is efa, fabric is efa-direct (found 4 nics)',
      'libfabric:85:1747438790::core:core:fi_getinfo_():1392<warn> fi_getinfo: provider efa output empty list',
    ].join('\n')
    expect(scan(log)).toEqual([])
  })
})

describe('aws-ofi-nccl that cannot set up a domain or endpoint for a connection: an NCCL_TRANSPORT_ERROR error', () => {
  it.each([
    // aws/aws-ofi-nccl#801 (2025): torch over the cxi provider, aws-ofi-nccl 1.6
    ["[0] NCCL WARN NET/OFI Couldn't open a fabric access domain. RC: -38, ERROR: Function not implemented", 'Function not implemented', '-38'],
    // aws/aws-ofi-nccl#889 (2025)
    [
      'nccl_net_ofi_domain_get_ep:969 NCCL WARN NET/OFI Creating new endpoint for domain 0x7f9befa99380 failed: Invalid argument',
      'Invalid argument',
      undefined,
    ],
  ])('%s', (line, why, rc) => {
    const f = transport(line)
    expect(f).toHaveLength(1)
    expect(f[0]!.severity).toBe('error')
    expect(f[0]!.evidence.Error).toBe(why)
    expect(f[0]!.evidence['libfabric return code']).toBe(rc)
  })
})

describe("aws-ofi-nccl failing while it connects the ranks: an NCCL_TRANSPORT_ERROR error; EFA's security-group banner: FABRIC_PORT_BLOCKED", () => {
  it.each([
    // aws-ofi-nccl src/nccl_ofi_rdma.cpp: "Remote write completed with error. RC: %d. Flags: %ld. Error: %d (%s). Completed length: %ld"
    [
      'node1:123:456 [0] NCCL WARN NET/OFI Remote write completed with error. RC: 5. Flags: 0. Error: 13 (Unknown error). Completed length: 0',
      'Remote write completed with error',
      '5',
    ],
    // torch repeating NCCL's last error under ncclInternalError (src/nccl_ofi_rdma.cpp's address-vector insert)
    [
      '[rank0]: ncclInternalError: Internal check failed.\n[rank0]: Last error:\n[rank0]: NET/OFI Unable to insert remote address into address vector for device 3. RC: -22',
      'Unable to insert remote address into address vector for device 3',
      '-22',
    ],
  ])('%s', (text, call, rc) => {
    const f = transport(text)
    expect(f).toHaveLength(1)
    expect(f[0]!.severity).toBe('error')
    expect(f[0]!.evidence['Plugin call']).toBe(call)
    expect(f[0]!.evidence['libfabric return code']).toBe(rc)
  })

  it("EFA's own banner for packets a security group dropped (src/platform-aws.cpp) names the security group", () => {
    const log = [
      'ip-10-0-1-2:91:190 [3] NCCL WARN NET/OFI Request 0x7f3e2c0 (send) completed with error: err: 113, flags: 0, prov_errno: 4106, strerror: Unreachable remote, len: 0',
      '',
      '**********************************************************************',
      '* This error indicates that the security group on either this instance or the peer instance',
      '* is not setup correctly.  For more information, please see the AWS documentation at',
      '* https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-start-nccl.html#nccl-start-base-setup',
      '**********************************************************************',
    ].join('\n')
    const f = scan(log).filter((x) => x.code === 'FABRIC_PORT_BLOCKED')
    expect(f).toHaveLength(1)
    expect(f[0]!.severity).toBe('error')
    expect(f[0]!.fix).toMatch(/outbound/)
  })

  it("near miss: the plugin's INFO lines that mention an error are no finding", () => {
    expect(scan('node1:123:456 [0] NCCL INFO NET/OFI Setting FI_EFA_FORK_SAFE environment variable to 1 (error checking on)')).toEqual([])
  })
})

describe('NCCL_NET forcing a network no plugin provides: an NCCL_TRANSPORT_ERROR error with the fix', () => {
  it.each([
    // NCCL src/plugin/net.cc (2.19+), as torch quotes it under ncclInvalidUsage: an ALCF job notes page (2025) and a CSCS job script's comment (2026)
    ['ncclInvalidUsage: This usually reflects invalid usage of NCCL library.\nLast error:\nFailed to initialize any NET plugin', undefined],
    // a GB10 pair's write-up (2026): "NCCL WARN P2P is not supported on GB10" then this
    ['NCCL WARN Failed to initialize any NET plugin', undefined],
    // NCCL src/net.cc (2.12–2.18): WARN("Error: network %s not found.", netName)
    ['node1:123:456 [0] NCCL WARN Error: network AWS Libfabric not found.', 'AWS Libfabric'],
  ])('%s', (text, asked) => {
    const f = transport(text)
    expect(f).toHaveLength(1)
    expect(f[0]!.severity).toBe('error')
    expect(f[0]!.evidence['NCCL_NET asks for']).toBe(asked)
    expect(f[0]!.fix).toContain('NCCL_NET')
  })
})
