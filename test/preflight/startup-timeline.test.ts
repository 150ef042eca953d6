import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { isFailureLine, lineStamp, phaseOfLine, rayLineIp } from '../../src/preflight/startup-phases.js'
import { type PhaseBudgets, createStartupTimeline, stallSentence, timelineLines } from '../../src/preflight/startup-timeline.js'

const fixture = (name: string): string =>
  readFileSync(join(import.meta.dirname, 'fixtures/startup', name), 'utf8')
    .split('\n')
    .filter((l) => !l.startsWith('# Source'))
    .join('\n')
const gloo7074 = readFileSync(join(import.meta.dirname, 'fixtures/logs/gloo-vllm-7074.txt'), 'utf8')
const phases = (text: string) => text.split('\n').flatMap((l) => (phaseOfLine(l) ? [phaseOfLine(l)!.phase] : []))

describe('the phases of real start-ups', () => {
  it('weights loading with its shard progress, then the profile run and torch.compile (vllm#38820)', () => {
    const text = fixture('healthy-tp-vllm-38820.txt')
    expect(phases(text)).toEqual([
      'weights-loading',
      'weights-loading',
      'weights-loading',
      'weights-loading',
      'kv-cache-profiling',
      'compilation',
      'compilation',
    ])
    expect(phaseOfLine(text.split('\n')[1]!)?.progress).toBe('6/9 shards')
  })

  it("the KV cache, then FlashInfer's autotuner in its own log format (vllm#30515)", () => {
    expect(phases(fixture('kv-autotune-eugr-vllm-30515.txt'))).toEqual([
      'kv-cache-profiling',
      'kv-cache-profiling',
      'kv-cache-profiling',
      'kv-cache-profiling',
      'compilation',
    ])
  })

  it('a CUDA graph bar with a log line glued to it, and the end of the capture (vllm#25848)', () => {
    const lines = fixture('cuda-graphs-vllm-25848.txt').split('\n')
    expect(phaseOfLine(lines[0]!)).toEqual({ phase: 'cuda-graph-capture', progress: '65/67 graphs' })
    expect(phaseOfLine(lines[2]!)).toEqual({ phase: 'api-server', after: true })
  })

  it("lines behind docker's own timestamps keep vLLM's time (vllm#48214)", () => {
    const lines = fixture('torch-compile-vllm-48214.txt').split('\n')
    expect(phaseOfLine(lines[0]!)).toEqual({ phase: 'kv-cache-profiling', after: true })
    expect(lineStamp(lines[0]!)).toBe('07-08 22:40:03')
  })

  it("a line Ray forwarded from another node names that node's address; a failure line is one (vllm#7074)", () => {
    const [, , , gloo, worker] = gloo7074.split('\n')
    expect(rayLineIp(worker!)).toBe('10.41.0.8')
    expect(isFailureLine(gloo!)).toBe(true)
    expect(isFailureLine(worker!)).toBe(true)
    expect(lineStamp(worker!)).toBe('08-02 08:50:03')
    // As the lab's Ray prints it on a terminal: the prefix coloured.
    expect(rayLineIp('\u001b[36m(RayWorkerWrapper pid=282, ip=172.30.204.13)\u001b[0m INFO 12-05 17:27:22 [worker.py:88] Stand-in model')).toBe('172.30.204.13')
    expect(rayLineIp('(EngineCore_DP0 pid=9) (RayWorkerWrapper pid=282, ip=10.0.0.2) INFO 12-05 17:27:22 [worker.py:88] x')).toBe('10.0.0.2')
    expect(rayLineIp('(EngineCore_DP0 pid=387) INFO 03-08 16:44:29 [kv_cache_utils.py:1314] GPU KV cache size: 188,640 tokens')).toBeUndefined()
    expect(isFailureLine('(EngineCore_DP0 pid=387) INFO 03-08 16:44:29 [kv_cache_utils.py:1314] GPU KV cache size: 188,640 tokens')).toBe(false)
  })

  it('a line that marks no phase marks none', () => {
    expect(phaseOfLine('(Worker_TP0 pid=34322) INFO 05-06 21:00:00 [gpu_model_runner.py:5820] Encoder cache will be initialized')).toBeUndefined()
  })
})

const S = 1000
const budgets: PhaseBudgets = {
  config: 300,
  'distributed-init': 600,
  'weights-loading': 1800,
  compilation: 1200,
  'kv-cache-profiling': 600,
  'cuda-graph-capture': 600,
  'api-server': 300,
}
describe('the timeline of every node', () => {
  const ipOf = new Map([
    ['10.41.0.7', 'spark-a'],
    ['10.41.0.8', 'spark-b'],
  ])

  it('each phase with when it was entered and how long it took; the current one open', () => {
    const t = createStartupTimeline({ nodes: ['spark-a'], budgets })
    const lines = fixture('healthy-tp-vllm-38820.txt').split('\n')
    for (const [i, l] of lines.entries()) t.push('spark-a', `${l}\n`, i * S)
    const [a] = t.view()
    expect(a!.spans.map((s) => [s.phase, s.enteredAt, s.endedAt, s.progress])).toEqual([
      ['weights-loading', 0, 5 * S, '9/9 shards'],
      ['kv-cache-profiling', 5 * S, 7 * S, undefined],
      ['compilation', 7 * S, undefined, undefined],
    ])
    expect(timelineLines(t.view(), 20 * S)).toEqual([
      'spark-a: weights loading 5 s [9/9 shards] → KV cache profiling 2 s → torch.compile/autotune 13 s (still in it)',
    ])
    t.ready(30 * S)
    expect(t.view()[0]!.spans.at(-1)!.endedAt).toBe(30 * S)
    expect(t.stalls(10_000 * S)).toEqual([])
  })

  it('a node past its phase budget is stalled there, with its last lines; within budget it is not', () => {
    const t = createStartupTimeline({ nodes: ['spark-a', 'spark-b'], ipOf, budgets: { ...budgets, 'weights-loading': 60 } })
    t.push('spark-a', 'INFO 12-05 10:00:00 [api_server.py:1] non-default args: {}\n', 0)
    t.push('spark-a', '(RayWorkerWrapper pid=7, ip=10.41.0.8) INFO 12-05 10:00:05 [gpu_model_runner.py:1] Starting to load model /models/toy...\n', 5 * S)
    t.push('spark-a', '(RayWorkerWrapper pid=7, ip=10.41.0.8) Loading safetensors checkpoint shards:  20% Completed | 1/5 [00:02<00:09,  2.37s/it]\r', 6 * S)
    expect(t.stalls(65 * S)).toEqual([])
    const [stall] = t.stalls(66 * S)
    expect(stall).toMatchObject({ node: 'spark-b', phase: 'weights-loading', seconds: 61, budget: 60, progress: '1/5 shards' })
    expect(stall!.lastLines.at(-1)).toContain('1/5 [00:02<00:09')
    expect(stallSentence(stall!)).toBe('spark-b stalled in weights loading for 61 s (budget 60 s; at 1/5 shards)')
    // The head is still in config: its budget (300 s) is not spent.
    expect(
      t
        .view()
        .find((n) => n.node === 'spark-a')!
        .spans.map((s) => s.phase),
    ).toEqual(['config'])
  })

  it("the worker's failure is the headline, the head's cascade under it, though the head's line was read first", () => {
    const t = createStartupTimeline({ nodes: ['spark-a', 'spark-b'], ipOf, budgets })
    // The head's cascade (wording of vllm#17770) read in an earlier poll than the worker's line Ray forwarded late.
    t.push('spark-a', 'ERROR 08-02 08:50:09 [core.py:387] ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.\n', 1 * S)
    t.push('spark-a', `${gloo7074}\n`, 2 * S)
    const first = t.firstFailure()!
    expect(first.headline.node).toBe('spark-b')
    expect(first.headline.line).toContain('Gloo connectFullMesh failed')
    expect(first.cascade.map((c) => c.node)).toEqual(['spark-a'])
  })

  it("the same second: the line Ray forwarded from the worker before the head's own (it reaches the head's log later)", () => {
    const t = createStartupTimeline({ nodes: ['spark-a', 'spark-b'], ipOf, budgets })
    t.push('spark-a', '(EngineCore_DP0 pid=254) ERROR 12-05 17:31:53 [core.py:268] EngineCore failed to start.\n', 1 * S)
    t.push('spark-a', '(RayWorkerWrapper pid=7, ip=10.41.0.8) ERROR 12-05 17:31:53 [faults.py:40] Error executing method init_worker.\n', 2 * S)
    expect(t.firstFailure()!.headline.node).toBe('spark-b')
    expect(t.firstFailure()!.cascade.map((c) => c.node)).toEqual(['spark-a'])
  })

  it('lines without a time of their own: the order they were read in', () => {
    const t = createStartupTimeline({ nodes: ['spark-a', 'spark-b'], ipOf, budgets })
    t.push('spark-b', 'Traceback (most recent call last):\nRuntimeError: NCCL error: unhandled system error\n', 3 * S)
    t.push('spark-a', 'RuntimeError: the engine died\n', 4 * S)
    expect(t.firstFailure()!.headline).toMatchObject({ node: 'spark-b', line: 'Traceback (most recent call last):' })
  })

  it('bounded: an endless line without a newline is judged in pieces, and only the last lines are kept', () => {
    const t = createStartupTimeline({ nodes: ['n'], budgets })
    t.push('n', 'x'.repeat(200 * 1024), 0)
    for (let i = 0; i < 100; i++) t.push('n', `line ${i}\n`, 0)
    const [n] = t.view()
    expect(n!.lastLines.length).toBe(20)
    expect(n!.lastLines.every((l) => l.length <= 501)).toBe(true)
  })
})

describe('diagnose on logs a person has', () => {
  it("the worker's failure leads its cascade on the head, and each node's phases close the list (vllm#7074 with the head's ActorDiedError after it)", async () => {
    const { diagnose } = await import('../../src/preflight/offline-diagnosis.js')
    const head = [
      'INFO 08-02 08:49:50 [api_server.py:1] non-default args: {"tensor_parallel_size": 16}',
      gloo7074,
      'ERROR 08-02 08:50:09 [core.py:387] ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.',
    ].join('\n')
    const findings = diagnose({ logs: [{ source: 'head.log', text: head }] })
    expect(findings[0]).toMatchObject({ code: 'STARTUP_FIRST_FAILURE', node: '10.41.0.8' })
    expect(findings[0]!.evidence).toHaveProperty('then head.log at 08-02 08:50:09')
    expect(findings.at(-1)).toMatchObject({ code: 'STARTUP_TIMELINE', evidence: { 'head.log': 'config 13 s → NCCL/Gloo init 6 s (still in it)' } })
  })
})

describe("the driver's error names the worker it came from", () => {
  const ipOf = new Map([['172.30.204.13', 'spark-b']])
  // The lab's head log when spark-b's worker died in weights loading and the driver exited before
  // Ray forwarded the worker's own lines (the stand-in on real Ray 2.55.1, colours as printed).
  const head = [
    '(EngineCore_DP0 pid=276) ERROR 12-05 17:37:58 [core.py:268] EngineCore failed to start.',
    '(EngineCore_DP0 pid=276) ray.exceptions.RayTaskError(RuntimeError): \u001b[36mray::RayWorkerWrapper.init_worker()\u001b[39m (pid=112, ip=172.30.204.13, actor_id=049187ff04657992c4c2675f01000000, repr=<x>)',
    '(EngineCore_DP0 pid=276) RuntimeError: stand-in fault: rank 1 died in weights-loading (VLLM_STANDIN_DIE_IN)',
  ].join('\n')

  it("leads with that node, from the line that names it, when the worker's own line was not read", () => {
    const t = createStartupTimeline({ nodes: ['spark-a', 'spark-b'], ipOf, budgets })
    t.push('spark-a', `${head}\n`, 1 * S)
    const first = t.firstFailure()!
    expect(first.headline).toMatchObject({ node: 'spark-b', stamp: '12-05 17:37:58' })
    expect(first.headline.line).toContain('ray::RayWorkerWrapper.init_worker()')
    expect(first.cascade.map((c) => c.node)).toEqual(['spark-a'])
  })

  it("leads with the worker's own line once its log is read", () => {
    const t = createStartupTimeline({ nodes: ['spark-a', 'spark-b'], ipOf, budgets })
    t.push('spark-a', `${head}\n`, 1 * S)
    t.push('spark-b', "ERROR 12-05 17:37:58 [faults.py:35] Error executing method 'init_worker' in weights-loading on rank 1.\n", 2 * S)
    expect(t.firstFailure()!.headline).toMatchObject({ node: 'spark-b', line: expect.stringContaining('Error executing method') })
  })
})
