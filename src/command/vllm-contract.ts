/**
 * What real vLLM offers the tool, release by release: the `vllm serve` flags, the response fields,
 * the /metrics names, the environment variables and the log wordings, extracted from each published
 * wheel by test/contract/extract.py (with `ast`, nothing run) into ./vllm-contract/vllm-<V>.json.
 * test/contract/README.md says how to add a release; test/contract/*.test.ts hold the tool's parsers,
 * the stand-in and this data to each other.
 */
import v0_19_1 from './vllm-contract/vllm-0.19.1.json'
import v0_24_0 from './vllm-contract/vllm-0.24.0.json'
import v0_28_0 from './vllm-contract/vllm-0.28.0.json'
import v0_34_0 from './vllm-contract/vllm-0.34.0.json'
import { vllmFlagName } from './vllm-flags.js'

export type VllmVersion = readonly [number, number, number]

export interface LogFormat {
  readonly file: string
  readonly function: string
  /** The call that prints or raises it (`logger.info`, `ValueError`); null when the text is built first. */
  readonly call: string | null
  /** The format string: `%s`-style for log calls, `{expr}` for f-strings. */
  readonly format: string
}

export interface VllmContract {
  readonly vllm: string
  readonly protocol: Readonly<Record<string, { readonly file: string | null; readonly fields: Readonly<Record<string, string>> }>>
  /** HTTP path → methods, files, and (for /version) the keys of the JSON it returns. */
  readonly routes: Readonly<Record<string, { readonly methods: readonly string[]; readonly files: readonly string[]; readonly json_keys: readonly string[] }>>
  readonly metrics: {
    readonly file: string | null
    /** Exposed names (counters with `_total`) → kind, label names, and whether only --show-hidden-metrics-for-version shows it. */
    readonly metrics: Readonly<Record<string, { readonly kind: string; readonly labels: readonly string[] | null; readonly hidden: boolean }>>
    readonly finish_reasons: readonly string[]
  }
  readonly flags: { readonly files: readonly string[]; readonly flags: readonly string[]; readonly executor_backends: readonly string[] }
  readonly envs: { readonly file: string; readonly envs: Readonly<Record<string, { readonly present: boolean; readonly default: string | null }>> }
  readonly logs: Readonly<Record<string, readonly LogFormat[]>>
  readonly executor: {
    readonly v2_flag: boolean
    readonly v2_flag_default: string | null
    readonly classic_executor_file: string | null
    readonly v2_executor_file: string | null
    readonly node_pins: readonly { readonly file: string; readonly function: string; readonly format: string }[]
  }
  readonly unparsed_files: readonly string[]
}

/** Every release with a contract, oldest first. */
export const VLLM_CONTRACTS: readonly VllmContract[] = [v0_19_1, v0_24_0, v0_28_0, v0_34_0] as VllmContract[]

/**
 * Read `0.17.1`, `v0.5.3.post1`, `0.25.1rc2.dev14+gabc123` as [major, minor, patch]. Pre-release
 * and dev suffixes are ignored, so `0.25.1rc2` counts as 0.25.1 (close enough for these cut-offs).
 */
export function parseVllmVersion(text: string | undefined): VllmVersion | undefined {
  const m = /^\s*v?(\d+)\.(\d+)(?:\.(\d+))?/.exec(text ?? '')
  if (!m) return undefined
  return [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)]
}

export function compareVllmVersions(a: VllmVersion, b: VllmVersion): number {
  for (let i = 0; i < 3; i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0)
    if (d !== 0) return d
  }
  return 0
}

/**
 * The contract that speaks for `version`: its own, else the newest contract release before it (a
 * release between two contracts is taken to be like the older one; after the newest, like the
 * newest). Undefined for a version older than every contract, or none.
 */
export function contractFor(version: string | undefined): VllmContract | undefined {
  const v = parseVllmVersion(version)
  if (!v) return undefined
  return [...VLLM_CONTRACTS].reverse().find((c) => compareVllmVersions(v, parseVllmVersion(c.vllm)!) >= 0)
}

/**
 * The vLLM version an image reference's tag names, when it names one: `vllm/vllm-openai:v0.24.0`,
 * `registry/team/vllm:0.28.0-ray`. Only 0.x tags count (NGC's `26.08-py3` is a container release,
 * not a vLLM version).
 */
export function vllmVersionOfImageTag(ref: string): string | undefined {
  const tag = /:([^/:@]+)(?:@sha256:[0-9a-f]+)?$/.exec(ref)?.[1]
  return /^v?(0\.\d+\.\d+(?:\.post\d+)?)(?:$|[-+_.])/.exec(tag ?? '')?.[1]
}

export interface UnknownFlag {
  readonly index: number
  readonly flag: string
}

/**
 * The words of a `vllm serve` argument list that name an option `contract`'s release does not have
 * (vLLM's parser rejects them: "unrecognized arguments"). `--no-X` counts as known when `--X` is
 * (argparse.BooleanOptionalAction); values (words after a flag, negative numbers) are not flags.
 */
export function unknownVllmFlags(args: readonly string[], contract: VllmContract): UnknownFlag[] {
  const known = new Set(contract.flags.flags)
  return args.flatMap((word, index): UnknownFlag[] => {
    if (!word.startsWith('-') || word === '-' || word === '--' || /^-\d/.test(word)) return []
    const flag = word.startsWith('--') ? vllmFlagName(word) : word.split('=')[0]!
    if (known.has(flag) || (flag.startsWith('--no-') && known.has(`--${flag.slice('--no-'.length)}`))) return []
    return [{ index, flag }]
  })
}
