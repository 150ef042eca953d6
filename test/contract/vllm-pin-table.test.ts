/**
 * src/preflight/vllm-pin.ts's release table held to what the wheels say: every release read for it
 * (test/contract/executor-facts.json, from `extract.sh facts`) and every contract release
 * (src/command/vllm-contract/vllm-<V>.json) must fall in a row that says the same about the V2 flag,
 * its default, the classic executor and the driver's node: pin.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parseVllmVersion } from '../../src/command/vllm-contract.js'
import { EXECUTOR_RELEASES, vllmPinsDriverNode } from '../../src/preflight/vllm-pin.js'
import { VLLM_CONTRACTS } from './support.js'

interface Read {
  readonly vllm: string
  readonly v2Default: string | null
  readonly classic: boolean
  readonly pins: boolean
  readonly from: string
}

const facts = JSON.parse(readFileSync(new URL('./executor-facts.json', import.meta.url), 'utf8')) as {
  releases: { vllm: string; wheel: string; v2_flag_default: string | null; classic_executor_file: string | null; driver_pin: unknown[] }[]
}
const read: Read[] = [
  ...facts.releases.map((r) => ({
    vllm: r.vllm,
    v2Default: r.v2_flag_default,
    classic: r.classic_executor_file !== null,
    pins: r.driver_pin.length > 0,
    from: r.wheel,
  })),
  ...VLLM_CONTRACTS.map((c) => ({
    vllm: c.vllm,
    v2Default: c.executor.v2_flag_default,
    classic: c.executor.classic_executor_file !== null,
    pins: c.executor.node_pins.some((p) => /ray_utils|executor/.test(p.file)),
    from: `src/command/vllm-contract/vllm-${c.vllm}.json`,
  })),
]

const rowOf = (v: string) => {
  const version = parseVllmVersion(v)!
  return [...EXECUTOR_RELEASES].reverse().find((r) => compareRow(version, r.from) >= 0)!
}
const compareRow = (a: readonly number[], b: readonly number[]) => a[0]! - b[0]! || a[1]! - b[1]! || a[2]! - b[2]!

describe('the executor table of vllm-pin.ts against the wheels', () => {
  it('covers the releases from 0.5.3.post1 to the newest contract, every 0.17+ release included', () => {
    const versions = new Set(read.map((r) => r.vllm))
    for (const v of ['0.5.4', '0.5.5', '0.19.1', '0.20.0', '0.21.0', '0.32.0', '0.33.0', '0.34.0']) expect(versions).toContain(v)
  })

  it.each(read.map((r) => [r.vllm, r] as const))('vLLM %s', (version, r) => {
    const row = rowOf(version)
    expect(
      { v2Default: row.v2Default, classic: row.classic, pins: row.pins },
      `vLLM ${version} (read from ${r.from}) vs the row from ${row.from.join('.')}`,
    ).toEqual({
      v2Default: r.v2Default,
      classic: r.classic,
      pins: r.pins,
    })
    // And the verdict the preflight gives with the flag unset follows from it.
    const expected = r.pins && r.v2Default !== '1'
    expect(vllmPinsDriverNode(version, {}).pins, `vLLM ${version}`).toBe(expected)
  })
})
