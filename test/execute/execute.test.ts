import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { argv, render, shScript } from '../../src/command/shell.js'
import { CANCELLED, executePlan } from '../../src/execute/execute.js'
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
        { name: 'release-files', description: '', parallel: true, steps: [step('a', 'x', j, { sleep: 0.5 }), step('b', 'x', j, { sleep: 0.5 })] },
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
        { name: 'release-files', description: '', parallel: true, steps: [step('a', 'x', j, { fail: true }), step('a', 'x2', j), step('b', 'x', j)] },
        { name: 'ray-head', description: '', parallel: false, steps: [step('a', 'y', j)] },
      ]),
      { transports, stdinFor: noStdin },
    )
    expect(r.ok).toBe(false)
    expect(r.stoppedAt?.phase).toBe('release-files')
    expect(r.stoppedAt?.reason).toMatch(/a\/x: exit 1/)
    expect(r.results.map((s) => `${s.step.id}=${s.status}`)).toEqual(['a/x=failed', 'a/x2=skipped', 'b/x=ok', 'a/y=skipped'])
    expect(readFileSync(j, 'utf8')).not.toContain('a:y')
  })

  it('a cancel during a phase stops the step in flight and starts nothing after it, as cancelled', async () => {
    const j = journal()
    const ac = new AbortController()
    setTimeout(() => ac.abort(), 300)
    const r = await executePlan(
      plan([
        { name: 'vllm', description: '', parallel: false, steps: [step('a', 'serve', j, { sleep: 5 }), step('a', 'next', j)] },
        { name: 'smoke', description: '', parallel: false, steps: [step('a', 'after', j)] },
      ]),
      { transports, stdinFor: noStdin, signal: ac.signal },
    )
    expect(r.cancelled).toBe(true)
    expect(r.ok).toBe(false)
    expect(r.stoppedAt).toEqual({ phase: 'vllm', reason: CANCELLED })
    expect(r.durationMs).toBeLessThan(4000)
    expect(r.results.map((s) => `${s.step.id}=${s.status}`)).toEqual(['a/serve=failed', 'a/next=skipped', 'a/after=skipped'])
    expect(readFileSync(j, 'utf8').trim().split('\n')).toEqual(['a:serve:start'])
  })

  it('a run cancelled before it starts runs no step', async () => {
    const j = journal()
    const ac = new AbortController()
    ac.abort()
    const r = await executePlan(plan([{ name: 'release-files', description: '', parallel: true, steps: [step('a', 'x', j), step('b', 'x', j)] }]), {
      transports,
      stdinFor: noStdin,
      signal: ac.signal,
    })
    expect(r).toMatchObject({ ok: false, cancelled: true, stoppedAt: { phase: 'release-files', reason: CANCELLED } })
    expect(r.results.map((s) => s.status)).toEqual(['skipped', 'skipped'])
    expect(() => readFileSync(j, 'utf8')).toThrow()
  })

  it('a step on a node without a connection fails, naming the node', async () => {
    const j = journal()
    const r = await executePlan(plan([{ name: 'stop-previous', description: '', parallel: true, steps: [step('c', 'x', j)] }]), {
      transports,
      stdinFor: noStdin,
    })
    expect(r.results[0]).toMatchObject({ status: 'failed', detail: 'no connection to c' })
    expect(r.stoppedAt?.reason).toBe('c/x: no connection to c')
  })

  it('feeds each step its stdin and reports a stdin that cannot be prepared', async () => {
    const cat = argv('cat')
    const s: PlannedStep = { id: 'a/cat', node: 'a', action: 'cat', description: 'cat', cmd: cat, command: 'cat', timeoutSeconds: 5, stdin: { kind: 'probe' } }
    const fed = await executePlan(plan([{ name: 'release-files', description: '', parallel: false, steps: [s] }]), {
      transports,
      stdinFor: async () => ok('hello'),
    })
    expect(fed.results[0]!.result?.stdout).toBe('hello')
    const bad = await executePlan(plan([{ name: 'release-files', description: '', parallel: false, steps: [s] }]), {
      transports,
      stdinFor: async () => fail(problem('SECRET_INVALID', 'HF_TOKEN not set')),
    })
    expect(bad.results[0]!.detail).toMatch(/cannot prepare stdin \(probe\): HF_TOKEN not set/)
  })
})
