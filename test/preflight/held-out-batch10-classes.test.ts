/**
 * Classes fixed after held-out batch 10's first score (README "Batch 10's first score"), each from its source's
 * wordings and other public lines, not only the capture; with near misses.
 */
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { scanLog } from '../../src/preflight/signatures.js'

const scan = (text: string) => scanLog(text.endsWith('\n') ? text : `${text}\n`, 'x.log')
const codes = (text: string) => scan(text).map((f) => f.code)
const heldOut = (file: string) =>
  scanLog(readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'held-out', 'batch10', file), 'utf8').replace(/^#.*\n/gm, ''), file)

describe("DISK_SPACE_LOW: NCCL's shared-memory segment that /dev/shm cannot hold (misc/shmutils.cc)", () => {
  it('every wording: the WARN records, the errno suffix of 2.19+, the line torch repeats after "Last error:"; the path and size as evidence', () => {
    const cases: [string, string, string | undefined][] = [
      // NCCL 2.1x WARN records (a public thread's NCCL_DEBUG=INFO paste)
      [
        '3d3e22c3066f:168:168 [0] misc/shmutils.cc:72 NCCL WARN Error: failed to extend /dev/shm/nccl-UbzKZ9 to 9637892 bytes',
        '/dev/shm/nccl-UbzKZ9',
        '9637892',
      ],
      [
        '3d3e22c3066f:168:168 [0] misc/shmutils.cc:113 NCCL WARN Error while creating shared memory segment /dev/shm/nccl-UbzKZ9 (size 9637888)',
        '/dev/shm/nccl-UbzKZ9',
        '9637888',
      ],
      // NCCL 2.19+ with the errno (pytorch's own skip list quotes it)
      [
        'Error while creating shared memory segment /dev/shm/nccl-VPyhzw (size 21823872), error: No space left on device (28)',
        '/dev/shm/nccl-VPyhzw',
        '21823872',
      ],
      // torch's DistBackendError, the NCCL text after "Last error:" on its own line
      [
        'torch.distributed.DistBackendError: NCCL error in: /app/pytorch/torch/csrc/distributed/c10d/NCCLUtils.cpp:94\nncclSystemError: System call (e.g. socket, malloc) or external library call failed\nLast error:\nError while creating shared memory segment /dev/shm/nccl-cjY8K5 (size 10617216)',
        '/dev/shm/nccl-cjY8K5',
        '10617216',
      ],
    ]
    for (const [text, path, size] of cases) {
      const f = scan(text).find((x) => x.code === 'DISK_SPACE_LOW')
      expect(f, text).toMatchObject({ severity: 'error', evidence: { Path: path, 'Segment size': `${size} bytes` } })
      expect(f!.fix).toContain('--shm-size')
    }
    expect(scan(cases[2]![0]).find((x) => x.code === 'DISK_SPACE_LOW')!.evidence.Errno).toBe('28 (ENOSPC)')
    expect(scan(cases[1]![0]).find((x) => x.code === 'DISK_SPACE_LOW')!.evidence.Errno).toBeUndefined()
    expect(heldOut('shm-64m-nccl-segment-tp2-production-stack-276.txt').map((f) => f.code)).toContain('DISK_SPACE_LOW')
  })
  it('near miss: NCCL choosing its SHM transport on a healthy start is no finding', () => {
    expect(codes('h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via SHM/direct/direct')).toEqual([])
    expect(codes('h:1:2 [0] NCCL INFO NCCL_SHM_DISABLE set by environment to 0.')).toEqual([])
  })
})

describe("PORT_IN_USE: HCCL's host listener on Ascend (CANN EJ0003, HCCL network_manager.cc)", () => {
  it('the CANN error code text and the HCCL listener line, the port as evidence where the line names it', () => {
    const cann = scan('EJ0003: [PID: 159] 2025-03-26-17:01:02.816.428 Failed to bind the IP port. Reason: The IP address and port have been bound already.')
    expect(cann.map((f) => f.code)).toContain('PORT_IN_USE')
    const hccl = scan(
      '[ERROR] HCCL(159,python):2025-03-26-17:01:02.816.400 [network_manager.cc:1163] host nic listen start failed, port[60000], return[11][FUNC:StartListenSocket]',
    ).find((f) => f.code === 'PORT_IN_USE')
    expect(hccl).toMatchObject({ severity: 'error', evidence: { Port: '60000', Library: 'HCCL (Ascend CANN)' } })
    expect(hccl!.fix).toContain('HCCL_IF_BASE_PORT')
    expect(heldOut('port-hccl-60000-two-tp4-jobs-vllm-ascend-405.txt').map((f) => f.code)).toContain('PORT_IN_USE')
  })
  it('near miss: an HCCL start that names its base port is no finding', () => {
    expect(codes('[INFO] HCCL(159,python): host nic listen start success, port[60000]')).toEqual([])
  })
})
