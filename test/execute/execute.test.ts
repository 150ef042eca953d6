import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { argv, render, shScript } from '../../src/command/shell.js'
import { executePlan } from '../../src/execute/execute.js'
import type { Plan, PlannedStep } from '../../src/plan/plan.js'
import { fail, ok, problem } from '../../src/result/result.js'
import { LocalTransport } from '../../src/transport/local.js'

const journal = () => join(mkdtempSync(join(tmpdir(), 'vrd-exec-')), 'journal')

/** A step that appends "<node>:<action>:start/end" to a journal, sleeping in between. */
function step(node: string, action: string, file: string, opts: { sleep?: number; fail?: boolean } = {}): PlannedStep {
  const cmd = shScript(
    'echo "$1:$2:start" >> "$3"; sleep "$4"; echo "$1:$2:end" >> "$3"; [ "$5" = ok ]',
    node,
    action,
    file,
    String(opts.sleep ?? 0),
    opts.fail ? 'fail' : 'ok',
  )
  return { id: `${node}/${action}`, node, action, description: action, cmd, command: render(cmd), timeoutSeconds: 10 }
}

const plan = (phases: Plan['phases']): Plan => ({ cluster: 't', image: 'i', release: 'r', head: 'a', nodes: [], launch: 'builtin', phases })
const transports = new Map([
  ['a', new LocalTransport()],
  ['b', new LocalTransport()],
])
const noStdin = async () => ok('')

describe('executePlan', () => {
  it('runs phases in order and the nodes of a parallel phase at the same time', async () => {
    const j = journal()
    const r = await executePlan(
      plan([
        { name: 'prepare', description: '', parallel: true, steps: [step('a', 'x', j, { sleep: 0.5 }), step('b', 'x', j, { sleep: 0.5 })] },
        { name: 'ray-head', description: '', parallel: false, steps: [step('a', 'y', j)] },
      ]),
      { transports, stdinFor: noStdin },
    )
    expect(r.ok).toBe(true)
    const lines = readFileSync(j, 'utf8').trim().split('\n')
    // Both nodes started the first phase before either finished it; the second came after both.
    expect(lines.slice(0, 2).sort()).toEqual(['a:x:start', 'b:x:start'])
    expect(lines.slice(2, 4).sort()).toEqual(['a:x:end', 'b:x:end'])
    expect(lines.slice(4)).toEqual(['a:y:start', 'a:y:end'])
    expect(r.results.map((s) => `${s.step.id}=${s.status}`)).toEqual(['a/x=ok', 'b/x=ok', 'a/y=ok'])
  })

  it('stops after a failing phase, skips what follows and says why', async () => {
    const j = journal()
    const r = await executePlan(
      plan([
        { name: 'prepare', description: '', parallel: true, steps: [step('a', 'x', j, { fail: true }), step('a', 'x2', j), step('b', 'x', j)] },
        { name: 'ray-head', description: '', parallel: false, steps: [step('a', 'y', j)] },
      ]),
      { transports, stdinFor: noStdin },
    )
    expect(r.ok).toBe(false)
    expect(r.stoppedAt?.phase).toBe('prepare')
    expect(r.stoppedAt?.reason).toMatch(/a\/x: exit 1/)
    expect(r.results.map((s) => `${s.step.id}=${s.status}`)).toEqual(['a/x=failed', 'a/x2=skipped', 'b/x=ok', 'a/y=skipped'])
    expect(readFileSync(j, 'utf8')).not.toContain('a:y')
  })

  it('a gate after a phase can stop the run (the preflight hook)', async () => {
    const j = journal()
    const r = await executePlan(
      plan([
        { name: 'preflight', description: '', parallel: false, steps: [step('a', 'x', j)] },
        { name: 'vllm', description: '', parallel: false, steps: [step('a', 'serve', j)] },
      ]),
      { transports, stdinFor: noStdin, afterPhase: async (phase) => (phase === 'preflight' ? 'VLLM_PIN_NOT_IN_RAY on a' : undefined) },
    )
    expect(r.stoppedAt).toEqual({ phase: 'preflight', reason: 'VLLM_PIN_NOT_IN_RAY on a' })
    expect(readFileSync(j, 'utf8')).not.toContain('serve')
  })

  it('a gate that ends while the run is cancelled (the /health wait, the smoke) stops it as cancelled, not failed', async () => {
    const j = journal()
    const ac = new AbortController()
    const r = await executePlan(
      plan([
        { name: 'vllm', description: '', parallel: false, steps: [step('a', 'serve', j)] },
        { name: 'smoke', description: '', parallel: false, steps: [step('a', 'after', j)] },
      ]),
      {
        transports,
        stdinFor: noStdin,
        signal: ac.signal,
        afterPhase: async () => {
          ac.abort() // SIGINT arrives during the gate, which then reports what it saw
          return 'vllm serve: cancelled while waiting for /health'
        },
      },
    )
    expect(r.cancelled).toBe(true)
    expect(r.stoppedAt?.phase).toBe('vllm')
    expect(readFileSync(j, 'utf8')).not.toContain('after')
  })

  it('untilPhase stops cleanly after that phase', async () => {
    const j = journal()
    const r = await executePlan(
      plan([
        { name: 'prepare', description: '', parallel: false, steps: [step('a', 'x', j)] },
        { name: 'ray-head', description: '', parallel: false, steps: [step('a', 'y', j)] },
      ]),
      { transports, stdinFor: noStdin, untilPhase: 'prepare' },
    )
    expect(r.ok).toBe(true)
    expect(r.results.map((s) => s.step.id)).toEqual(['a/x'])
  })

  it('feeds each step its stdin and reports a stdin that cannot be prepared', async () => {
    const cat = argv('cat')
    const s: PlannedStep = { id: 'a/cat', node: 'a', action: 'cat', description: 'cat', cmd: cat, command: 'cat', timeoutSeconds: 5, stdin: { kind: 'probe' } }
    const fed = await executePlan(plan([{ name: 'prepare', description: '', parallel: false, steps: [s] }]), { transports, stdinFor: async () => ok('hello') })
    expect(fed.results[0]!.result?.stdout).toBe('hello')
    const bad = await executePlan(plan([{ name: 'prepare', description: '', parallel: false, steps: [s] }]), {
      transports,
      stdinFor: async () => fail(problem('SECRET_INVALID', 'HF_TOKEN not set')),
    })
    expect(bad.results[0]!.detail).toMatch(/cannot prepare stdin \(probe\): HF_TOKEN not set/)
  })
})
