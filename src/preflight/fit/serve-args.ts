/**
 * The `vllm serve` arguments that decide a model's memory, read from the manifest's `vllm.args`
 * as vLLM's argparse would (`--flag value` or `--flag=value`, the last one wins). Pure.
 */

export interface ServeArgs {
  readonly maxModelLen?: number
  readonly maxNumSeqs?: number
  readonly maxNumBatchedTokens?: number
  /** `--kv-cache-dtype`: `auto` (the model's dtype), `fp8`, `fp8_e4m3`, `fp8_e5m2`, `bfloat16`, ... */
  readonly kvCacheDtype?: string
  readonly kvCacheMemoryBytes?: number
  readonly gpuMemoryUtilization?: number
  /** `--speculative-config` names MTP: the checkpoint's `mtp.*` weights are loaded too. */
  readonly mtp: boolean
  /** `--enforce-eager`: no CUDA graphs. */
  readonly enforceEager: boolean
}

/**
 * vLLM's human-readable integers (vllm/engine/arg_utils.py `human_readable_int`): `25600`, `32k`
 * (×1000), `32K` (×1024), `1m`/`1M`, `1g`/`1G`, with an optional decimal for the lower-case forms.
 */
export function humanReadableInt(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kmgtKMGT]?)\s*$/.exec(text)
  if (!m) return undefined
  const [, digits, unit] = m
  const value = Number(digits)
  if (!unit) return Number.isInteger(value) ? value : undefined
  const power = 'kmgt'.indexOf(unit.toLowerCase()) + 1
  if (unit === unit.toUpperCase()) return Number.isInteger(value) ? value * 1024 ** power : undefined
  return Math.round(value * 1000 ** power)
}

/** The value of the last `--name X` / `--name=X` in args (snake_case spellings too). */
export function argValue(args: readonly string[], name: string): string | undefined {
  const snake = `--${name.slice(2).replaceAll('-', '_')}`
  let value: string | undefined
  args.forEach((arg, i) => {
    for (const flag of [name, snake]) {
      if (arg === flag && i + 1 < args.length) value = args[i + 1]
      else if (arg.startsWith(`${flag}=`)) value = arg.slice(flag.length + 1)
    }
  })
  return value
}

const hasFlag = (args: readonly string[], name: string): boolean => args.some((a) => a === name || a.startsWith(`${name}=`))

export function serveArgs(args: readonly string[]): ServeArgs {
  const int = (name: string): number | undefined => {
    const text = argValue(args, name)
    const n = text === undefined ? undefined : humanReadableInt(text)
    return n !== undefined && n > 0 ? n : undefined
  }
  const util = Number(argValue(args, '--gpu-memory-utilization'))
  const kvDtype = argValue(args, '--kv-cache-dtype')
  const spec = argValue(args, '--speculative-config') ?? ''
  const maxModelLen = int('--max-model-len')
  const maxNumSeqs = int('--max-num-seqs')
  const maxNumBatchedTokens = int('--max-num-batched-tokens')
  const kvCacheMemoryBytes = int('--kv-cache-memory-bytes')
  return {
    ...(maxModelLen !== undefined && { maxModelLen }),
    ...(maxNumSeqs !== undefined && { maxNumSeqs }),
    ...(maxNumBatchedTokens !== undefined && { maxNumBatchedTokens }),
    ...(kvDtype !== undefined && { kvCacheDtype: kvDtype }),
    ...(kvCacheMemoryBytes !== undefined && { kvCacheMemoryBytes }),
    ...(Number.isFinite(util) && util > 0 && util <= 1 && { gpuMemoryUtilization: util }),
    mtp: /mtp/i.test(spec),
    enforceEager: hasFlag(args, '--enforce-eager'),
  }
}

/** Bytes per element of the KV cache: `auto` is the model's dtype; every fp8 kind is one byte. */
export function kvDtypeBytes(kvCacheDtype: string | undefined, modelDtypeBytes: number): number {
  const d = (kvCacheDtype ?? 'auto').toLowerCase()
  if (d === 'auto') return modelDtypeBytes
  if (d.startsWith('fp8') || d.startsWith('float8') || d === 'int8') return 1
  if (d === 'float32') return 4
  if (d.includes('fp4') || d.includes('nvfp4')) return 0.5
  return 2
}
