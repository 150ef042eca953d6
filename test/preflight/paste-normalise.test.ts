import { readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { type LogicalLine, cleanPhysical, createLineJoiner, detectWrapWidth, splitRunTogether } from '../../src/preflight/paste-normalise.js'

/** A whole paste as logical lines, as the log watcher reads it. */
function normalisePaste(text: string): LogicalLine[] {
  const physical = text.split('\n')
  if (physical[physical.length - 1] === '') physical.pop()
  const width = detectWrapWidth(physical.map(cleanPhysical))
  const joiner = createLineJoiner(width !== undefined ? { wrapWidth: width } : {})
  return [...physical.flatMap((l) => joiner.push(l)), ...joiner.end()]
}
import { parseRayNodes } from '../../src/preflight/parse-ray.js'
import { scanLog } from '../../src/preflight/signatures.js'
import { readFixture } from './fixtures/read.js'

const logsDir = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'logs')
const logFixtures = readdirSync(logsDir).filter((f) => f.endsWith('.txt'))

/** What a paste looks like after a terminal cut it at `width` columns. */
const wrapAt = (text: string, width: number): string =>
  text
    .split('\n')
    .flatMap((l) => (l.length <= width ? [l] : Array.from({ length: Math.ceil(l.length / width) }, (_, i) => l.slice(i * width, (i + 1) * width))))
    .join('\n')
const quote = (text: string): string =>
  text
    .split('\n')
    .map((l) => `> ${l}`)
    .join('\n')
const crlf = (text: string): string => text.replace(/\n/g, '\r\n')

/** The parts of a finding that must not depend on how the text was pasted. */
const verdict = (text: string) => scanLog(text, 'paste').map((f) => ({ code: f.code, severity: f.severity, node: f.node, message: f.message, fix: f.fix }))

describe('every log fixture reads the same however it was pasted', () => {
  for (const file of logFixtures) {
    const text = readFixture(`logs/${file}`)
    const plain = verdict(text)
    it(`${file}: wrapped at 60, 80 and 120 columns, quoted with >, with CRLF, all at once`, () => {
      for (const width of [60, 80, 120]) expect(verdict(wrapAt(text, width)), `width ${width}`).toEqual(plain)
      expect(verdict(quote(text)), 'quoted').toEqual(plain)
      expect(verdict(crlf(text)), 'CRLF').toEqual(plain)
      expect(verdict(crlf(quote(wrapAt(text, 80)))), 'wrapped, quoted, CRLF').toEqual(plain)
    })
  }
})

describe('normalisePaste', () => {
  it('takes off nested Ray prefixes (keeping the innermost ip), ANSI codes and the repeat suffix (keeping the count)', () => {
    const [l] = normalisePaste(
      '\x1b[36m(EngineCore pid=630)\x1b[0m (RayWorkerWrapper pid=1890, ip=10.41.0.8) WARNING boom [repeated 3x across cluster] (Ray deduplicates logs by default. Set RAY_DEDUP_LOGS=0 to disable log deduplication, or see https://docs.ray.io/en/master/ray-observability/ray-logging.html#log-deduplication for more options.)\n',
    )
    expect(l).toMatchObject({ text: 'WARNING boom', prefixIp: '10.41.0.8', repeated: 3, line: 1, physicalLines: 1 })
  })

  it('joins a dict split across lines, and a logger-wrapped request under its prefix', () => {
    const lines = normalisePaste(
      [
        "(RayWorkerWrapper pid=1, ip=10.0.0.2) INFO Waiting for creating a placement group of specs for 10 seconds. specs=[{'GPU': 1.0,",
        "(RayWorkerWrapper pid=1, ip=10.0.0.2)  'node:10.0.0.9': 0.001}, {'GPU': 1.0}].",
        'INFO next record',
      ].join('\n'),
    )
    expect(lines.map((l) => [l.line, l.physicalLines])).toEqual([
      [1, 2],
      [3, 1],
    ])
    expect(lines[0]!.text).toContain("specs=[{'GPU': 1.0, 'node:10.0.0.9': 0.001}, {'GPU': 1.0}]")
    expect(lines[0]!.open).toBe(false)
  })

  it('a stray open brace does not swallow the next records', () => {
    const lines = normalisePaste(['INFO config {', 'INFO 2 next', 'WARNING 3 next'].join('\n'))
    expect(lines).toHaveLength(3)
  })
})

describe('a terminal wrap against a hand wrap at a common width', () => {
  const first = 'ray.exceptions.OutOfMemoryError: 1 worker(s) were killed due to the node'
  it('one longest line at 72 columns, cut between words, whose continuation stops mid-sentence and goes on: wrapped by hand', () => {
    expect(first.length).toBe(72)
    expect(detectWrapWidth([first, 'running low on memory. Memory on the node (IP: 10.99.0.2) was', '113.76GB / 119.70GB (0.950345)'])).toBeUndefined()
  })
  it('near misses, still a terminal wrap: the continuation ends the record, or the next line is a new record', () => {
    const cut = 'RuntimeError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGro'
    expect(cut.length).toBe(76)
    expect(detectWrapWidth([cut, 'upNCCL.cpp:1970, unhandled system error', 'INFO 01-12 06:15:19 [api_server.py:1] next'])).toBe(76)
    expect(detectWrapWidth([cut, 'upNCCL.cpp:1970, unhandled system error'])).toBe(76)
  })
})

describe('placement lines across continuation lines (eugr/spark-vllm-docker#227)', () => {
  const ray = parseRayNodes("192.168.201.10 {'node:__internal_head__': 1.0, 'GPU': 1.0}\n192.168.201.11 {'GPU': 1.0}")
  it('reads the pin from the indented line below and never says the request carries no node: pin', () => {
    const found = scanLog(readFixture('logs/wrapped-pin-eugr-227.txt'), 'eugr-227', ray)
    expect(found.map((f) => f.code)).toEqual(['PLACEMENT_GROUP_PENDING'])
    expect(found[0]!.evidence['Placement group asks for']).toBe('node:192.168.50.192')
    expect(found[0]!.message).toContain('no alive Ray node has that address')
    expect(found.some((f) => f.message.includes('carries no node: pin'))).toBe(false)
  })

  it('near miss: the wait line alone, cut before its specs, makes no claim about the pin', () => {
    const [f] = scanLog('(EngineCore pid=630) Waiting for creating a placement group of specs for 70 seconds.\n', 'cut')
    expect(f?.message).toContain('whether it pins a node cannot be told here')
    expect(f?.message).not.toContain('carries no node: pin')
  })

  it('counts bundles: {GPU: 1} * 2 against a 1-GPU cluster "wants 2 GPUs, the cluster has 1"', () => {
    const one = parseRayNodes("10.0.0.1 {'node:__internal_head__': 1.0, 'GPU': 1.0}")
    const [f] = scanLog(
      "(autoscaler +5s) Error: No available node types can fulfill resource request {'GPU': 1.0} * 2. Add suitable node types to this cluster to resolve this issue.\n",
      'x',
      one,
    )
    expect(f?.message).toContain('wants 2 GPUs, the cluster has 1')
  })
})

describe('a page that ran a log together, and a page that typeset it', () => {
  // Records run together as scraped pages and CSDN copies show them (lines from vllm-project/vllm#6689's worker log, SGLang's
  // `[time TPn]` records from sgl-project/sglang#3614, a Ray driver's prefixed worker lines from ray-project/ray#30292), and a forum
  // post that ran its log into one paragraph (developer.metax-tech.com's vLLM multi-node report, 2026).
  it('cuts before every record head once a line holds two or more, and only there', () => {
    expect(
      splitRunTogether(
        'INFO 07-23 09:11:02 ray_utils.py:96] Total CPUs: 16INFO 07-23 09:11:05 selector.py:150] Cannot use FlashAttention-2 backend(RayWorkerWrapper pid=2214, ip=10.0.0.2) INFO 07-23 09:11:06 utils.py:737] Found nccl',
      ),
    ).toEqual([
      'INFO 07-23 09:11:02 ray_utils.py:96] Total CPUs: 16',
      'INFO 07-23 09:11:05 selector.py:150] Cannot use FlashAttention-2 backend',
      '(RayWorkerWrapper pid=2214, ip=10.0.0.2) INFO 07-23 09:11:06 utils.py:737] Found nccl',
    ])
    expect(splitRunTogether('[2025-02-14 08:01:12 TP0] Init torch distributed begin. [2025-02-14 08:01:40 TP1] Init torch distributed ends.')).toEqual([
      '[2025-02-14 08:01:12 TP0] Init torch distributed begin.',
      '[2025-02-14 08:01:40 TP1] Init torch distributed ends.',
    ])
    expect(splitRunTogether('启动日志：ERROR 12-01 10:00:02 [core.py:12] EngineCore failed to start.Traceback (most recent call last):')).toEqual([
      '启动日志：',
      'ERROR 12-01 10:00:02 [core.py:12] EngineCore failed to start.',
      'Traceback (most recent call last):',
    ])
  })
  it('near misses: a program line with one head, a command line, a message that names a pid, stay whole', () => {
    for (const line of [
      'INFO 12-01 10:00:02 [api_server.py:1024] vLLM API server version 0.20.1 started at 2026-12-01 10:00:00 by the launcher',
      '(RayWorkerWrapper pid=2214, ip=10.0.0.2) INFO 07-23 09:11:06 utils.py:737] Found nccl from library libnccl.so.2',
      'docker run -e VLLM_HOST_IP=192.168.200.12 -e NCCL_SOCKET_IFNAME=enp1s0f1np1 --network host vllm/vllm-openai:v0.20.1',
      'Worker (pid=4242) exited with code 1; the raylet (pid=4100) saw it go at 2026-12-01 10:00:00 INFO-level',
    ])
      expect(splitRunTogether(line)).toEqual([line])
  })
  it('reads a run-together failure as the program printed it, line numbers kept', () => {
    const paste =
      "INFO 12-01 10:00:01 [__init__.py:1] Automatically detected platform cuda.INFO 12-01 10:00:02 [ray_utils.py:300] Waiting for creating a placement group of specs for 10 seconds. specs=[{'node:192.168.200.12': 0.001, 'GPU': 1.0}, {'GPU': 1.0}]. Check `ray status` and `ray list nodes` to see if you have enough resources, and make sure the IP addresses used by ray cluster are the same as VLLM_HOST_IP environment variable specified in each node if you are running on a multi-node."
    const lines = normalisePaste(`${paste}\n`)
    expect(lines.map((l) => l.line)).toEqual([1, 1])
    expect(lines[1]!.text).toMatch(/^INFO 12-01 10:00:02 \[ray_utils.py:300\] Waiting for creating a placement group/)
  })
  it('puts back what a typesetting page made of quotes, flags, blanks and invisible marks', () => {
    expect(cleanPhysical('\ufeffModuleNotFoundError: No module named \u2018ray\u2019')).toBe("ModuleNotFoundError: No module named 'ray'")
    expect(cleanPhysical('ray start \u2013head \u2013node-ip-address=192.168.200.12 \u2014num-gpus=1')).toBe(
      'ray start --head --node-ip-address=192.168.200.12 --num-gpus=1',
    )
    expect(cleanPhysical('OSError: \u201cmeta-llama/Llama-3.1-70B\u201d is not a local folder')).toBe(
      'OSError: "meta-llama/Llama-3.1-70B" is not a local folder',
    )
    expect(cleanPhysical('INFO\u00a0\u00a012-01\u200b 10:00:02')).toBe('INFO  12-01 10:00:02')
    // near misses: a range and a sentence's dash stay
    expect(cleanPhysical('waited 10\u201320 s \u2014 then gave up')).toBe('waited 10\u201320 s \u2014 then gave up')
  })
})
