/**
 * `vllm serve`'s native multi-node flags read as vLLM's parser reads them (docs:
 * src/preflight/NATIVE-MULTINODE.md): `--nnodes`/`-n`, `--node-rank`/`-r`, `--master-addr`,
 * `--master-port`, `--headless`; `--flag value`, `--flag=value`, `-n2`, and vLLM's
 * FlexibleArgumentParser's `--flag_name` spelling; the last occurrence wins, as in argparse. Generic
 * over the item type so the live checks (argv strings from /proc) and the launch-script check
 * (words that remember where they were written) read one way.
 */

import { vllmFlagName } from '../command/vllm-flags.js'

export const SERVE_FLAGS = ['--nnodes', '--node-rank', '--master-addr', '--master-port', '--headless'] as const
export type ServeFlag = (typeof SERVE_FLAGS)[number]

const SHORT: Readonly<Record<string, ServeFlag>> = { '-n': '--nnodes', '-r': '--node-rank' }

/** vLLM's defaults (vllm/config/parallel.py, ParallelConfig). */
export const SERVE_DEFAULTS = { nnodes: 1, nodeRank: 0, masterAddr: '127.0.0.1', masterPort: 29501 } as const

export interface FlagHit<T> {
  /** The item holding the flag's name. */
  readonly flag: T
  /** The item holding the value (the same item for `--flag=value` and `-n2`). */
  readonly item: T
  /** The value's text. */
  readonly value: string
  /** Characters of `item` before the value (`--nnodes=` → 9; 0 when the value is its own item). */
  readonly offset: number
}

/** Where each flag was last given. `--headless` has no value (its hit's value is ''). */
export function serveFlags<T>(items: readonly T[], text: (t: T) => string): Partial<Record<ServeFlag, FlagHit<T>>> {
  const out: Partial<Record<ServeFlag, FlagHit<T>>> = {}
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!
    const t = text(item)
    if (t === '--') break
    const eq = t.indexOf('=')
    const rawName = t.startsWith('--') && eq > 0 ? t.slice(0, eq) : t
    const name = vllmFlagName(rawName)
    // `-n 2`, or joined `-n2` (digits only: other short options may begin with the same letter).
    const short = t === '-n' || t === '-r' || /^-[nr]\d+$/.test(t) ? SHORT[t.slice(0, 2)] : undefined
    if (name === '--headless') {
      out['--headless'] = { flag: item, item, value: '', offset: t.length }
      continue
    }
    if (short) {
      if (t.length > 2) out[short] = { flag: item, item, value: t.slice(2), offset: 2 }
      else if (i + 1 < items.length) {
        out[short] = { flag: item, item: items[i + 1]!, value: text(items[i + 1]!), offset: 0 }
        i++
      }
      continue
    }
    if (!(SERVE_FLAGS as readonly string[]).includes(name)) continue
    const flag = name as ServeFlag
    if (eq > 0 && t.startsWith('--')) out[flag] = { flag: item, item, value: t.slice(eq + 1), offset: eq + 1 }
    else if (i + 1 < items.length) {
      out[flag] = { flag: item, item: items[i + 1]!, value: text(items[i + 1]!), offset: 0 }
      i++
    }
  }
  return out
}

/**
 * vLLM's data-parallel placement flags (vllm/engine/arg_utils.py, the parallel group: `--data-parallel-rank`/`-dpn`,
 * `--data-parallel-start-rank`/`-dpr`, `--data-parallel-size-local`/`-dpl`, `--data-parallel-address`/`-dpa`,
 * `--data-parallel-rpc-port`/`-dpp`; `--headless`'s help: "Run in headless mode. See multi-node data parallel
 * documentation"). A `--headless` serve that places data-parallel engines, with no `--nnodes`/`--node-rank`, runs
 * `run_headless`'s data-parallel variant: its engines meet the head at `--data-parallel-address` /
 * `--data-parallel-rpc-port` ("Launching <n> data parallel engine(s) in headless mode, with head node address
 * <ip>:<rpc port>."), and each engine's tensor-parallel group stays on its node (nnodes 1: `--master-addr` unused).
 * See src/preflight/NATIVE-MULTINODE.md, `--headless`.
 */
const DATA_PARALLEL_PLACEMENT = /^(?:--data[-_]parallel[-_](?:rank|start[-_]rank|size[-_]local|address|rpc[-_]port)|-dp[nrlap])(?:=|$)/

/** Whether a serve's words give a data-parallel placement flag (before a `--`). */
export function placesDataParallel<T>(items: readonly T[], text: (t: T) => string): boolean {
  for (const item of items) {
    const t = text(item)
    if (t === '--') return false
    if (DATA_PARALLEL_PLACEMENT.test(t)) return true
  }
  return false
}

/**
 * vLLM's native multi-node mode: `--nnodes` or `--node-rank` given, or `--headless` in a serve that places no
 * data-parallel engines (a headless data-parallel node is the data-parallel mode, its own rendezvous).
 */
export function nativeByFlags(given: { readonly nnodes: boolean; readonly nodeRank: boolean; readonly headless: boolean }, dataParallel: boolean): boolean {
  return given.nnodes || given.nodeRank || (given.headless && !dataParallel)
}

/**
 * Where `vllm serve`'s own arguments start in a command's words, or -1 when it is no `vllm serve`.
 * NVIDIA Dynamo's vLLM worker (`python -m dynamo.vllm`) counts: it parses vLLM's own engine arguments
 * (--nnodes, --node-rank, --master-addr) and runs vLLM's `run_headless` for `--headless`
 * (ai-dynamo/dynamo components/src/dynamo/vllm/headless.py @ 040ac80).
 */
export function serveArgsStart<T>(items: readonly T[], text: (t: T) => string): number {
  for (let i = 0; i < Math.min(items.length, 6); i++) {
    const t = text(items[i]!)
    const next = items[i + 1] !== undefined ? text(items[i + 1]!) : undefined
    if (t.replace(/^.*\//, '') === 'vllm' && next === 'serve') return i + 2
    if (t === '-m' && (next === 'vllm.entrypoints.openai.api_server' || next === 'dynamo.vllm')) return i + 2
    if (t === '-m' && next === 'vllm.entrypoints.cli.main' && items[i + 2] !== undefined && text(items[i + 2]!) === 'serve') return i + 3
  }
  return -1
}

export interface NativeLaunch {
  readonly nnodes: number
  readonly nodeRank: number
  readonly masterAddr: string
  readonly masterPort: number
  readonly headless: boolean
  /** Which of them the command gave (the rest are vLLM's defaults). */
  readonly given: ReadonlySet<ServeFlag>
}

const int = (v: string | undefined, otherwise: number): number => (v !== undefined && /^\d+$/.test(v.trim()) ? Number(v.trim()) : otherwise)

/** The native-mode settings of a `vllm serve` argv; undefined when the argv is no `vllm serve` or runs on one node. */
export function nativeLaunchOf(argv: readonly string[]): NativeLaunch | undefined {
  const start = serveArgsStart(argv, (a) => a)
  if (start < 0) return undefined
  const f = serveFlags(argv.slice(start), (a) => a)
  const launch: NativeLaunch = {
    nnodes: int(f['--nnodes']?.value, SERVE_DEFAULTS.nnodes),
    nodeRank: int(f['--node-rank']?.value, SERVE_DEFAULTS.nodeRank),
    masterAddr: f['--master-addr']?.value || SERVE_DEFAULTS.masterAddr,
    masterPort: int(f['--master-port']?.value, SERVE_DEFAULTS.masterPort),
    headless: f['--headless'] !== undefined,
    given: new Set(SERVE_FLAGS.filter((k) => f[k] !== undefined)),
  }
  const dataParallel = placesDataParallel(argv.slice(start), (a) => a)
  return launch.nnodes > 1 || launch.given.has('--node-rank') || (launch.headless && !dataParallel) ? launch : undefined
}
