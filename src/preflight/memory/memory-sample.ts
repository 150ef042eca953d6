/**
 * One read of a node's memory, as the start-up memory watchdog takes it: the text of
 * `cat /proc/meminfo /proc/pressure/memory` (src/plan/memory-watch-commands.ts), parsed and
 * validated. Pure; outside text, so a missing or garbled figure is a value that says why, never a throw.
 *
 * /proc/meminfo (proc(5)): `Key:   <n> kB` lines; MemAvailable exists since Linux 3.14.
 * /proc/pressure/memory (Linux 4.20+, CONFIG_PSI; kernel Documentation/accounting/psi.rst, "Pressure
 * interface"): two lines,
 *   some avg10=0.00 avg60=0.00 avg300=0.00 total=0
 *   full avg10=0.00 avg60=0.00 avg300=0.00 total=0
 * the share (percent) of the last 10, 60 and 300 s in which some task (`some`) or every non-idle
 * task at once (`full`) waited on memory, and the total stall time in µs. A kernel without PSI, or
 * booted with psi=0, has no such file (or one that fails to read): the sample then has no pressure.
 */
import { type Parsed, fail, ok, problem } from '../../result/result.js'

export interface MemoryPressure {
  /** `some avg10`, percent. */
  readonly someAvg10: number
  /** `full avg10`, percent (absent where the kernel prints no `full` line). */
  readonly fullAvg10?: number
}

export interface MemorySample {
  readonly totalBytes: number
  readonly availableBytes: number
  /** Absent when /proc/meminfo has no such line. */
  readonly swapTotalBytes?: number
  readonly swapFreeBytes?: number
  /** Absent where the kernel has no PSI (or its lines could not be read). */
  readonly pressure?: MemoryPressure
}

const MEMINFO_LINE = /^([A-Za-z][\w()]*):\s+(\d+)(?:\s+kB)?$/
const PSI_LINE = /^(some|full) avg10=(\d+(?:\.\d+)?) avg60=(\d+(?:\.\d+)?) avg300=(\d+(?:\.\d+)?) total=(\d+)$/

const unreadable = (why: string, text: string): Parsed<never> =>
  fail(
    problem(
      'MEMORY_SAMPLE_UNREADABLE',
      `${why}; it read: ${
        text
          .trim()
          .split('\n')
          .slice(0, 3)
          .map((l) => l.slice(0, 80))
          .join(' | ') || '(nothing)'
      }`,
      'Read /proc/meminfo on the node by hand: a kernel before 3.14 has no MemAvailable.',
    ),
  )

/** The kB lines of /proc/meminfo, as bytes (a line of another shape is skipped: a later kernel's new line). */
function meminfoBytes(lines: readonly string[]): Map<string, number> {
  const bytes = new Map<string, number>()
  for (const line of lines) {
    const m = MEMINFO_LINE.exec(line)
    if (!m || bytes.has(m[1]!)) continue
    const kb = Number(m[2])
    if (Number.isSafeInteger(kb * 1024)) bytes.set(m[1]!, kb * 1024)
  }
  return bytes
}

/** The `some` and `full` lines of /proc/pressure/memory; undefined without a well-formed `some` line. */
function pressureOf(lines: readonly string[]): MemoryPressure | undefined {
  const avg10 = new Map<string, number>()
  for (const line of lines) {
    const m = PSI_LINE.exec(line)
    if (!m || avg10.has(m[1]!)) continue
    const v = Number(m[2])
    if (v >= 0 && v <= 100) avg10.set(m[1]!, v)
  }
  const some = avg10.get('some')
  if (some === undefined) return undefined
  const full = avg10.get('full')
  return { someAvg10: some, ...(full !== undefined && { fullAvg10: full }) }
}

/** `cat /proc/meminfo /proc/pressure/memory`'s stdout: the figures, or why they cannot be trusted. */
export function parseMemorySample(text: string): Parsed<MemorySample> {
  const lines = text.split('\n').map((l) => l.trim())
  const bytes = meminfoBytes(lines)
  const total = bytes.get('MemTotal')
  const available = bytes.get('MemAvailable')
  if (total === undefined) return unreadable('no MemTotal line in /proc/meminfo', text)
  if (available === undefined) return unreadable('no MemAvailable line in /proc/meminfo (a kernel before 3.14?)', text)
  if (total === 0 || available > total) return unreadable(`MemAvailable ${available} B against MemTotal ${total} B`, text)
  const swapTotal = bytes.get('SwapTotal')
  const swapFree = bytes.get('SwapFree')
  const pressure = pressureOf(lines)
  return ok({
    totalBytes: total,
    availableBytes: available,
    ...(swapTotal !== undefined && { swapTotalBytes: swapTotal }),
    ...(swapFree !== undefined && swapTotal !== undefined && swapFree <= swapTotal && { swapFreeBytes: swapFree }),
    ...(pressure && { pressure }),
  })
}
