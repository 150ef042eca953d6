/**
 * The lab's vLLM stand-in held to real vLLM, release by release: test/contract/standin_surface.py
 * prints what the stand-in sends (its response bodies, /metrics, `vllm serve` flags, variables, log
 * format strings and executor choice) acting as each contract release (VLLM_STANDIN_ACT_AS), and
 * each must be what that release's wheel defines (src/command/vllm-contract/vllm-<V>.json). A field,
 * metric, flag or wording of the stand-in that a release lacks fails here, naming the release.
 * Stdlib Python only (no Ray): the stand-in's modules are imported, not started.
 */
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { VLLM_CONTRACTS, type VllmContract, formatPattern, levelOf } from './support.js'

interface Surface {
  readonly standin: string
  readonly acts_as: string
  readonly version_endpoint: string
  readonly bodies: Readonly<Record<string, readonly string[]>>
  readonly metrics: Readonly<Record<string, readonly string[]>>
  readonly flags: readonly string[]
  readonly envs: Readonly<Record<string, { present: boolean; default: string | null }>>
  readonly logs: Readonly<Record<string, readonly { file: string; call: string | null; format: string }[]>>
  readonly executor: Readonly<Record<'unset' | '0' | '1', 'classic' | 'v2'>>
  readonly finish_reasons: readonly string[]
  readonly routes: Readonly<Record<string, readonly string[]>>
  readonly release_flags: readonly string[]
  readonly refused: readonly string[]
}

const SCRIPT = fileURLToPath(new URL('./standin_surface.py', import.meta.url))

function surface(actAs?: string): Surface {
  const env = { ...process.env, PYTHONDONTWRITEBYTECODE: '1' } as Record<string, string>
  delete env.VLLM_STANDIN_ACT_AS
  delete env.VLLM_USE_RAY_V2_EXECUTOR_BACKEND
  if (actAs) env.VLLM_STANDIN_ACT_AS = actAs
  const r = spawnSync('python3', [SCRIPT], { encoding: 'utf8', env, timeout: 60_000 })
  if (r.status !== 0) throw new Error(`standin_surface.py${actAs ? ` (act as ${actAs})` : ''} failed: ${r.stderr || r.error}`)
  return JSON.parse(r.stdout) as Surface
}

/** `10.` and `10.0` are one default; text compares as text. */
const sameDefault = (a: string, b: string | null): boolean => a === b || (b !== null && a.trim() !== '' && !Number.isNaN(Number(a)) && Number(a) === Number(b))

/** Every way `s` differs from release `c`, each naming the release. */
function differences(s: Surface, c: VllmContract, opts: { executor: boolean }): string[] {
  const v = `vLLM ${c.vllm}`
  const out: string[] = []
  for (const [model, keys] of Object.entries(s.bodies)) {
    const real = c.protocol[model]?.fields ?? {}
    for (const k of keys) if (!(k in real)) out.push(`${v}: the stand-in's ${model} has "${k}", which ${v}'s ${model} does not define`)
  }
  for (const [name, labels] of Object.entries(s.metrics)) {
    const real = c.metrics.metrics[name]
    if (!real) out.push(`${v}: the stand-in exposes ${name}, which ${v} does not register`)
    else if (real.hidden) out.push(`${v}: the stand-in exposes ${name}, which ${v} shows only with --show-hidden-metrics-for-version`)
    else if (real.labels && [...labels].sort().join(',') !== [...real.labels].sort().join(','))
      out.push(`${v}: ${name} is labelled ${labels.join(',')} by the stand-in, ${real.labels.join(',')} by ${v}`)
  }
  if ([...s.finish_reasons].sort().join(',') !== [...c.metrics.finish_reasons].sort().join(','))
    out.push(`${v}: finished_reason values ${s.finish_reasons.join(',')} (stand-in) vs ${c.metrics.finish_reasons.join(',')}`)
  for (const [path, methods] of Object.entries(s.routes)) {
    const real = c.routes[path]
    if (!real) out.push(`${v}: the stand-in serves ${path}, which ${v}'s vllm serve does not`)
    else for (const m of methods) if (!real.methods.includes(m)) out.push(`${v}: the stand-in answers ${m} ${path}, ${v} only ${real.methods.join('/')}`)
  }
  for (const f of s.flags) if (!c.flags.flags.includes(f)) out.push(`${v}: the stand-in accepts ${f}, which ${v}'s vllm serve does not have`)
  for (const [name, e] of Object.entries(s.envs)) {
    const real = c.envs.envs[name]
    if (!e.present) continue
    if (name === 'VLLM_USE_RAY_V2_EXECUTOR_BACKEND' && !opts.executor) continue
    if (!real?.present) out.push(`${v}: the stand-in reads ${name}, which ${v}'s vllm/envs.py does not have`)
    else if (real.default !== null && !sameDefault(real.default, e.default))
      out.push(`${v}: ${name} defaults to ${JSON.stringify(e.default)} in the stand-in, ${JSON.stringify(real.default)} in ${v}`)
  }
  for (const [id, formats] of Object.entries(s.logs)) {
    const real = c.logs[id] ?? []
    for (const f of formats) {
      const same = real.filter((r) => formatPattern(r.format).test(f.format))
      if (same.length === 0)
        out.push(
          `${v}: the stand-in's "${id}" message ${JSON.stringify(f.format)} (${f.file}) is not ${v}'s wording: ${real.map((r) => JSON.stringify(r.format)).join(' or ') || 'none'}`,
        )
      else if (!same.some((r) => levelOf(r.call) === null || levelOf(f.call) === null || levelOf(r.call) === levelOf(f.call)))
        out.push(`${v}: the stand-in's "${id}" message is logged at ${levelOf(f.call)}, ${v} at ${same.map((r) => levelOf(r.call)).join('/')}`)
    }
  }
  if (opts.executor) {
    const classic = c.executor.classic_executor_file !== null
    const want = !classic
      ? { unset: 'v2', '0': 'v2', '1': 'v2' }
      : !c.executor.v2_flag
        ? { unset: 'classic', '0': 'classic', '1': 'classic' }
        : { unset: c.executor.v2_flag_default === '1' ? 'v2' : 'classic', '0': 'classic', '1': 'v2' }
    if (JSON.stringify(s.executor) !== JSON.stringify(want))
      out.push(
        `${v}: the stand-in's Ray executor for VLLM_USE_RAY_V2_EXECUTOR_BACKEND unset/0/1 is ${JSON.stringify(s.executor)}, ${v}'s is ${JSON.stringify(want)}`,
      )
    if (s.version_endpoint !== `${c.vllm}+standin`) out.push(`${v}: /version says ${s.version_endpoint}`)
  }
  return out
}

describe('the stand-in acting as each contract release', () => {
  it.each(VLLM_CONTRACTS.map((c) => [c.vllm, c] as const))(
    'vLLM %s: its bodies, metrics, flags, variables, wordings and executor are that release’s',
    (version, c) => {
      const s = surface(version)
      expect(s.acts_as).toBe(version)
      expect(differences(s, c, { executor: true })).toEqual([])
      // It refuses what the release's parser refuses: its copy of the flags is the release's (extract.sh writes it).
      expect(s.release_flags, `vllm/standin/release_flags.py for ${version}: run test/contract/extract.sh contract`).toEqual([...c.flags.flags].sort())
      expect(s.refused).toEqual(['--no-such-flag-anywhere'])
    },
  )

  it('unset, it is the oldest contract release in all but the executor (its V2 flag defaults to 0, as in 0.20.x)', () => {
    const s = surface()
    expect(s.version_endpoint).toBe('0.17.0+standin')
    expect(s.refused).toEqual([]) // unset, it accepts and ignores any flag, as always
    expect(differences(s, VLLM_CONTRACTS[0]!, { executor: false })).toEqual([])
    expect(s.executor).toEqual({ unset: 'classic', '0': 'classic', '1': 'v2' })
  })

  it('catches a drifted stand-in: a renamed field, a removed metric and an unknown flag each name the release', () => {
    const s = surface('0.24.0')
    const c = VLLM_CONTRACTS.find((x) => x.vllm === '0.24.0')!
    const drifted: Surface = {
      ...s,
      bodies: { ...s.bodies, ChatMessage: [...(s.bodies.ChatMessage ?? []), 'reasoning_content'] },
      metrics: { ...s.metrics, 'vllm:time_per_output_token_seconds': ['engine', 'model_name'] },
      flags: [...s.flags, '--disable-log-requests'],
      logs: { ...s.logs, 'api-server-start': [{ file: 'x.py', call: 'logger.info', format: 'Starting vLLM API server 0 on http://%s:%d' }] },
    }
    const found = differences(drifted, c, { executor: true })
    expect(found).toEqual(
      expect.arrayContaining([
        expect.stringContaining('vLLM 0.24.0: the stand-in\'s ChatMessage has "reasoning_content"'),
        expect.stringContaining('vllm:time_per_output_token_seconds, which vLLM 0.24.0 does not register'),
        expect.stringContaining('--disable-log-requests'),
        expect.stringContaining('"api-server-start" message'),
      ]),
    )
  })
})
