/**
 * The start-up phases (src/preflight/startup-phases.ts) on lines rendered from each release's own
 * format strings (extract.py LOGS): every wording a phase is recognised by must exist in every
 * release the tool supports, or in the releases named here, and give that phase.
 */
import { describe, expect, it } from 'vitest'
import { type StartupPhase, phaseOfLine } from '../../src/preflight/startup-phases.js'
import { VLLM_CONTRACTS, render } from './support.js'

/** LOGS id → the phase its lines mark (and whether the line ends the phase before), and where it must exist. */
const PHASE_WORDINGS: readonly { id: string; phase: StartupPhase; after?: boolean; only?: readonly string[]; pick?: (format: string) => boolean }[] = [
  { id: 'non-default-args', phase: 'config' },
  { id: 'resolved-arch', phase: 'config' },
  { id: 'engine-init', phase: 'config' },
  { id: 'server-version', phase: 'config' },
  { id: 'nccl-version', phase: 'distributed-init' },
  { id: 'dist-init', phase: 'distributed-init', pick: (f) => f.startsWith('world_size') },
  { id: 'pg-wait', phase: 'distributed-init' },
  // 0.34 dropped "Starting to load model"; "Loading model from scratch" is in every release.
  { id: 'load-start', phase: 'weights-loading', only: ['0.19.1', '0.24.0', '0.28.0'] },
  { id: 'load-scratch', phase: 'weights-loading' },
  { id: 'weights-took', phase: 'weights-loading' },
  { id: 'load-took', phase: 'kv-cache-profiling', after: true },
  { id: 'compile-cache', phase: 'compilation' },
  { id: 'dynamo', phase: 'compilation' },
  { id: 'compile-graph', phase: 'compilation' },
  { id: 'compile-load', phase: 'compilation' },
  { id: 'torch-compile-total', phase: 'kv-cache-profiling', after: true },
  { id: 'fi-autotune', phase: 'compilation', only: ['0.34.0'], pick: (f) => f.startsWith('Running FlashInfer autotune') },
  { id: 'profiling-run', phase: 'kv-cache-profiling' },
  { id: 'kv-memory', phase: 'kv-cache-profiling' },
  { id: 'cuda-graph-memory', phase: 'kv-cache-profiling', only: ['0.19.1', '0.24.0', '0.28.0'] },
  { id: 'kv-cache-size', phase: 'kv-cache-profiling' },
  { id: 'graph-finished', phase: 'api-server', after: true },
  { id: 'init-engine-took', phase: 'api-server', after: true },
  { id: 'api-server-start', phase: 'api-server' },
  { id: 'routes', phase: 'api-server' },
]

/**
 * Arguments that make a line like the one vLLM prints: numbers where it prints numbers; a leading
 * `%s` glued to the text is 0.34's empty compile prefix, one before a space the device (`GPU KV cache size`).
 */
function argsFor(format: string): string[] {
  const specs = format.match(/%(?:\.\d+)?[sdfr]/g) ?? []
  return specs.map((spec, i) => {
    if (i === 0 && spec === '%s' && format.startsWith('%s')) return format[2] === ' ' ? 'GPU' : ''
    return spec === '%d' ? '8' : spec.endsWith('f') ? '3.54' : '188,640'
  })
}

describe.each(VLLM_CONTRACTS.map((c) => [c.vllm, c] as const))('vLLM %s', (version, c) => {
  for (const w of PHASE_WORDINGS) {
    const needed = !w.only || w.only.includes(version)
    it(`${w.id}: ${needed ? 'present, and' : 'where present'} marks ${w.phase}`, () => {
      const formats = (c.logs[w.id] ?? []).filter((f) => (w.pick ? w.pick(f.format) : true))
      if (needed) expect(formats.length, `vLLM ${version} prints no ${w.id} line`).toBeGreaterThan(0)
      for (const f of formats) {
        const line = `(EngineCore_DP0 pid=387) INFO 12-05 16:44:29 [${f.file.split('/').pop()}:1] ${render(f.format, argsFor(f.format))}`
        expect(phaseOfLine(line), `${version} ${f.file}: ${line}`).toEqual(expect.objectContaining({ phase: w.phase, ...(w.after && { after: true }) }))
      }
    })
  }

  it('the shard progress bar and the CUDA graph bar carry their progress', () => {
    const shards = c.logs['shards-progress']?.[0]?.format
    expect(shards).toBe('Loading safetensors checkpoint shards')
    expect(phaseOfLine(`${shards}:  60% Completed | 3/5 [00:03<00:02,  1.06s/it]`)).toEqual({ phase: 'weights-loading', progress: '3/5 shards' })
    const graphs = (c.logs['cuda-graph'] ?? []).map((f) => f.format)
    expect(graphs.length).toBeGreaterThan(0)
    for (const g of graphs) {
      const bar = `${g.replace(/\(\{\}, \{\}\)/, '(decode, FULL)')}: 97%|█████▎ | 65/67 [00:15<00:00,  4.58it/s]`
      expect(phaseOfLine(bar), bar).toEqual({ phase: 'cuda-graph-capture', progress: '65/67 graphs' })
    }
  })
})
