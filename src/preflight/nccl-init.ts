/**
 * What NCCL says at init with NCCL_DEBUG=INFO: which network it chose (`Using network IB` or
 * `Using network Socket`), over which interface, and whether an NCCL_IB_HCA it was given matched a
 * device. NCCL prints its network selection at init even with one rank, so the reading works on a
 * single GPU too. Line shapes as NCCL 2.28 prints them (test/fixtures/hardware/h200/nccl-*.txt are
 * real captures):
 *
 *   NCCL INFO NCCL version 2.28.9+cuda13.0
 *   NCCL INFO NCCL_IB_HCA set to mlx5_99
 *   NCCL INFO NET/IB : No device found.
 *   NCCL INFO NET/Socket : Using [0]eth0:192.0.2.2<0>
 *   NCCL INFO Using network Socket
 *   NCCL WARN Bootstrap : no socket interface found
 */

export interface NcclInit {
  readonly version?: string
  /** The network plugin NCCL assigned (`IB`, `Socket`, or an external plugin's name). */
  readonly network?: string
  /** NCCL_IB_HCA as NCCL read it. */
  readonly ibHca?: string
  readonly socketIfname?: string
  /** NCCL's IB transport found no usable device (`NET/IB : No device found.`). */
  readonly ibNoDevice: boolean
  /** `NET/Socket : Using ...`: the interfaces of the socket transport. */
  readonly socketInterfaces?: string
  /** NCCL WARN lines, without their prefix. */
  readonly warnings: readonly string[]
}

const first = (text: string, re: RegExp): string | undefined => re.exec(text)?.[1]?.trim()

export function parseNcclInit(text: string): NcclInit {
  const warnings = [...text.matchAll(/NCCL WARN (.+)$/gm)].map((m) => (m[1] ?? '').trim())
  const version = first(text, /NCCL INFO NCCL version (\S+)/)
  const network = first(text, /NCCL INFO Using network (\S+)/)
  const ibHca = first(text, /NCCL INFO NCCL_IB_HCA set (?:by environment )?to (\S+)/)
  const socketIfname = first(text, /NCCL INFO NCCL_SOCKET_IFNAME set (?:by environment )?to (\S+)/)
  const socketInterfaces = first(text, /NCCL INFO NET\/Socket : Using (.+)$/m)
  return {
    ...(version && { version }),
    ...(network && { network }),
    ...(ibHca && { ibHca }),
    ...(socketIfname && { socketIfname }),
    ibNoDevice: /NCCL INFO NET\/IB : No device found/.test(text),
    ...(socketInterfaces && { socketInterfaces }),
    warnings,
  }
}
