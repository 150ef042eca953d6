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

describe('records printed to one width are no terminal cut (issue 36)', () => {
  // rfjakob/earlyoom#121 (2019, earlyoom 1.2): every `mem avail:` reading is 72 columns wide, and so is the kill line.
  const earlyoom = [
    'mem avail:  1860 of 13855 MiB (13 %), swap free:    0 of    0 MiB ( 0 %)',
    'mem avail:  1662 of 13855 MiB (11 %), swap free:    0 of    0 MiB ( 0 %)',
    'mem avail:  1524 of 13855 MiB (10 %), swap free:    0 of    0 MiB ( 0 %)',
    'low memory! at or below SIGTERM limits: mem 10 %, swap 10 %',
    'killing process 27541 "bash" with signal 15: badness 550, VmRSS 7609 MiB',
    'process 27541 exited after 1.9 seconds',
    'mem avail:  4626 of 13855 MiB (33 %), swap free:    0 of    0 MiB ( 0 %)',
  ]
  // noonghunna/club-3090#1322 (2026): nvidia-smi's table, every row 91 columns wide.
  const nvidiaSmi = [
    '+-----------------------------------------------------------------------------------------+',
    '| NVIDIA-SMI 610.57.04              KMD Version: 610.57.04     CUDA UMD Version: 13.3     |',
    '+-----------------------------------------+------------------------+----------------------+',
    '| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |',
    '| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |',
    '|                                         |                        |               MIG M. |',
    '|=========================================+========================+======================|',
    '|   0  NVIDIA GeForce RTX 5090        Off |   00000000:01:00.0 Off |                  N/A |',
    '|  0%   37C    P8             22W /  575W |   29340MiB /  32607MiB |      0%      Default |',
    '|                                         |                        |                  N/A |',
    '+-----------------------------------------+------------------------+----------------------+',
  ]
  // vllm-project/production-stack#800 (2026): `kubectl get pods`, its rows padded to one width.
  const kubectl = [
    'NAME                                            READY   STATUS             RESTARTS      AGE',
    'gpu-test                                        0/1     Completed          0             3h40m',
    'vllm-deployment-router-7bdd445bbd-7hvhm         0/1     CrashLoopBackOff   5 (13s ago)   3m42s',
    'vllm-opt125m-deployment-vllm-7cf788c496-zfnnj   1/1     Running            0             3m42s',
  ]
  // gpustack/gpustack#2077 (2025): `ray status`, its header, rules and node ids one width.
  const rayStatus = [
    '======== Autoscaler status: 2025-05-22 01:22:13.269592 ========',
    'Node status',
    '---------------------------------------------------------------',
    'Active:',
    ' 1 node_5c82b0c80d3ce224fd0547736ee5120c314b39f9241a7ca9efb7720e',
    ' 1 node_ca3471fabca1e19bc98f3c4b41dd0f2eade353cef3b1f45fba765d73',
    'Pending:',
    ' (no pending nodes)',
  ]

  it.each([
    ['earlyoom (readings and the kill line)', earlyoom],
    ['earlyoom, the excerpt of one reading and the kill line', earlyoom.slice(2, 6)],
    ['nvidia-smi', nvidiaSmi],
    ['kubectl get pods', kubectl],
    ['ray status', rayStatus],
  ])('%s: no width detected, every line read as printed', (_, lines) => {
    expect(lines.filter((l) => l.length === Math.max(...lines.map((x) => x.length))).length).toBeGreaterThanOrEqual(2)
    expect(detectWrapWidth(lines)).toBeUndefined()
    expect(normalisePaste(lines.join('\n')).map((l) => l.text)).toEqual(lines)
  })

  it('earlyoom: the kill is read with its victim, and the exit line stays its own', () => {
    const found = scanLog(earlyoom.slice(2, 6).join('\n'), 'earlyoom-121')
    expect(found.map((f) => [f.code, f.evidence['Killed process']])).toEqual([['OOM_KILLED', 'bash (pid 27541)']])
    expect(found[0]!.evidence['Memory available']).toBe('1524 of 13855 MiB')
  })

  it('a reading as wide as the cut inside a real terminal wrap is not joined to the record after it', () => {
    // A capture cut at 72 (earlyoom 1.8's kill line with its command line, Comfy-Org/ComfyUI#15276) with a reading exactly 72 wide:
    // the pieces join, the reading stays whole.
    const long =
      'sending SIGTERM to process 322603 uid 1000 "python3.13": oom_score 1282, VmRSS 29931 MiB, cmdline "/home/x/miniconda3/envs/comfy-env/bin/python3.13 main.py --listen 0.0.0.0 --reserve-vram=0.05 --use-sage-attention --fast"'
    const cut = [...wrapAt(long, 72).split('\n'), earlyoom[2]!, earlyoom[3]!]
    expect(detectWrapWidth(cut)).toBe(72)
    const joiner = createLineJoiner({ wrapWidth: 72 })
    expect([...cut.flatMap((l) => joiner.push(l)), ...joiner.end()].map((l) => l.text)).toEqual([long, earlyoom[2], earlyoom[3]])
  })

  it('near misses, still a terminal wrap: real cuts beside records of the width, and these pastes cut by a terminal', () => {
    // a pasted title line as wide as the cut, then a cut inside a word (lyogavin/airllm#137)
    const title = "# Source: https://github.com/lyogavin/airllm/issues/137 (the issue's title line)"
    const cutInWord = 'safetensors_rust.SafetensorError: Error while deserializing header: MetadataInco'
    expect([title.length, cutInWord.length]).toEqual([80, 80])
    expect(detectWrapWidth([title, cutInWord, 'mpleteBuffer'])).toBe(80)
    // a record 240 wide cut at 120 ends its second piece where the next record starts (`… skipping download.` / `Loading …`,
    // sgl-project/sglang#15426): that piece follows a cut, so it counts for no record
    const found =
      '[2025-12-23 14:18:01] Found local HF snapshot for meta-llama/Llama-3.1-8B-Instruct at /home/zhongdongmin/.cache/huggingface/hub/models--meta-llama--Llama-3.1-8B-Instruct/snapshots/0e9e39f249a16976918f6564b8830bc894c89659; skipping download.'
    expect(found.length).toBe(240)
    expect(detectWrapWidth([found.slice(0, 120), found.slice(120), 'Loading safetensors checkpoint shards:   0% Completed | 0/4 [00:00<?, ?it/s]'])).toBe(120)
    // each paste above cut by a terminal reads as printed
    for (const lines of [earlyoom, kubectl, rayStatus])
      for (const width of [50, 60]) {
        const text = lines.join('\n')
        expect(detectWrapWidth(wrapAt(text, width).split('\n')), `${width}: ${lines[0]}`).toBe(width)
        expect(
          normalisePaste(wrapAt(text, width)).map((l) => l.text),
          `${width}: ${lines[0]}`,
        ).toEqual(normalisePaste(text).map((l) => l.text))
      }
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

describe("an exception's message on a line of its own after the colon (issue 36, held-out batch 134)", () => {
  // DeepGEMM's DGException ("<name> error (<file>:<line>): <reason>", csrc/utils/exception.hpp) as a 2026 DGX Spark write-up
  // quotes it (ecohash-co/deepseek-v4-flash-dgx-spark-vllm027 docs/01-blockers.md): the reason broken onto the next line.
  const split = 'RuntimeError: Assertion error (deepgemm-src/csrc/apis/hyperconnection.hpp:56):\nUnsupported architecture\n'

  it('is joined to the exception, so the reason reads with it, in every module path and after a Ray prefix', () => {
    for (const text of [
      split,
      split.replace('RuntimeError', 'tvm.error.InternalError'),
      split.replace(/^/gm, '(EngineCore_DP0 pid=212) ').replace(/\(EngineCore_DP0 pid=212\) $/, ''),
    ]) {
      const lines = normalisePaste(text)
      expect(lines, text).toHaveLength(1)
      expect(lines[0]!.text).toMatch(/hyperconnection\.hpp:56\): Unsupported architecture$/)
      expect(
        scanLog(text, 'paste').map((f) => `${f.code}/${f.severity}`),
        text,
      ).toEqual(['GPU_ARCH_UNSUPPORTED/error'])
    }
  })

  it('a traceback, a record, a frame, an exception or a sentence with punctuation after the colon stays a line of its own', () => {
    for (const next of [
      'Traceback (most recent call last):',
      'INFO 05-03 10:00:00 [core.py:100] Shutting down',
      '  File "/usr/lib/python3.12/site-packages/vllm/engine.py", line 10, in run',
      'ValueError: bad value',
      'See the log above, for details: here',
      'Unsupported',
    ]) {
      const lines = normalisePaste(`RuntimeError: Worker failed with an error:\n${next}\n`)
      expect(lines, next).toHaveLength(2)
    }
  })

  it('a line that does not end on the colon keeps its next line apart', () => {
    expect(normalisePaste('RuntimeError: CUDA error: an illegal memory access was encountered\nCompile with torch for device-side assertions\n')).toHaveLength(
      2,
    )
  })
})
