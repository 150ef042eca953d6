/**
 * The diagnostics bundle (issue 39): bounded, and no secret in it — planted secrets in the logs, in
 * the manifest's env and in the findings, each checked absent from every file.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { BUNDLE_BYTES, bundleFiles, effectiveManifest, parseNodeLogs, scrubSecrets } from '../../src/deploy/diagnostics-bundle.js'
import type { RolloutReport } from '../../src/deploy/rollout-types.js'
import { parseManifest } from '../../src/manifest/load-manifest.js'
import type { Manifest } from '../../src/manifest/schema.js'

const base = parseManifest(readFileSync('src/manifest/examples/dgx-spark-pair.yml', 'utf8'), 'm.yml').manifest!

// Planted: shaped like the real thing, found nowhere else.
const HF = 'hf_PlantedTokenAbcdefghijklmnopqrstuv12'
const GH = 'ghp_PlantedGithubToken0123456789abcdefABCD'
const PW = 'planted-password-7Qz'
const API = 'sk-planted-api-key-99x'
const AWS = 'AKIAPLANTED000000000'
const AWS_SECRET = 'plantedAwsSecretKey/abc+def'
const SSH_KEY = ['-----BEGIN OPENSSH PRIVATE KEY-----', 'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQPLANTEDKEYLINE', '-----END OPENSSH PRIVATE KEY-----'].join(
  '\n',
)
const PLANTED = [HF, GH, PW, API, AWS, AWS_SECRET, 'PLANTEDKEYLINE', 'url-pass-planted']

const m: Manifest = {
  ...base,
  container: { ...base.container, env: { ...base.container.env, HF_TOKEN: HF, DB_PASSWORD: PW, NCCL_SOCKET_IFNAME: 'enp1s0f0np0' } },
}

const engineLog = [
  'INFO 12-05 10:00:00 [api_server.py:1] non-default args: {"model": "/models/toy", "api_key": "' + API + '"}',
  `(RayWorkerWrapper pid=7, ip=192.168.200.13) INFO 12-05 10:00:01 [hub.py:1] HF_TOKEN=${HF} AWS_ACCESS_KEY_ID=${AWS} AWS_SECRET_ACCESS_KEY=${AWS_SECRET}`,
  `INFO 12-05 10:00:02 [x.py:1] vllm serve --api-key ${API} --hf-token=${HF}`,
  'INFO 12-05 10:00:03 [x.py:1] fetching https://deploy:url-pass-planted@git.example.com/models.git',
  `INFO 12-05 10:00:04 [x.py:1] Authorization: Bearer ${API} token ${GH}`,
  SSH_KEY,
  'ERROR 12-05 10:00:05 [core.py:387] RuntimeError: NCCL error: unhandled system error',
].join('\n')

const report: RolloutReport = {
  command: 'deploy',
  result: 'failed',
  release: 'r1',
  changed: true,
  rolledBack: false,
  failure: { stage: 'vllm', reason: 'spark-b stalled in weights loading for 75 s (budget 60 s)' },
  findings: [
    {
      code: 'STARTUP_PHASE_STALLED',
      severity: 'error',
      node: 'spark-b',
      message: 'spark-b stalled in weights loading for 75 s (budget 60 s).',
      evidence: { 'spark-b last lines': `Starting to load model /models/toy...\nHF_TOKEN=${HF}` },
      fix: 'Look at the storage.',
    },
    {
      code: 'STARTUP_TIMELINE',
      severity: 'info',
      node: null,
      message: 'phases',
      evidence: { 'spark-a': 'config 3 s', 'spark-b': 'weights loading 75 s (still in it)' },
      fix: '-',
    },
  ],
  nodes: [],
  durationMs: 1,
}

const logs = new Map([
  [
    'spark-a',
    new Map([
      ['engine.log', engineLog],
      ['ray/raylet.out', `raylet ok password=${PW}`],
    ]),
  ],
  ['spark-b', new Map([['ray/worker-abc-01.out', `(RayWorkerWrapper) Starting to load model\n${SSH_KEY}`]])],
])

describe('the diagnostics bundle', () => {
  const files = bundleFiles({ m, report, logs, why: 'failed', now: new Date('2026-12-05T10:00:00Z') })
  const all = files.map((f) => f.content).join('\n')

  it("holds both nodes' logs, the findings, the timeline, the effective manifest, and bundle.json indexing them", () => {
    expect(files.map((f) => f.path)).toEqual([
      'findings.json',
      'timeline.txt',
      'manifest.effective.json',
      'nodes/spark-a/engine.log',
      'nodes/spark-a/ray/raylet.out',
      'nodes/spark-b/ray/worker-abc-01.out',
      'bundle.json',
    ])
    const index = JSON.parse(files.at(-1)!.content)
    expect(index).toMatchObject({ cluster: m.cluster, release: 'r1', result: 'failed', why: 'failed', failure: report.failure })
    expect(index.files.map((f: { path: string }) => f.path)).toEqual(files.slice(0, -1).map((f) => f.path))
    expect(files.find((f) => f.path === 'timeline.txt')!.content).toContain('spark-b stalled in weights loading for 75 s')
    expect(files.find((f) => f.path === 'nodes/spark-a/engine.log')!.content).toContain('RuntimeError: NCCL error: unhandled system error')
  })

  it.each(PLANTED)('no planted secret in any file: %s', (secret) => {
    expect(all).not.toContain(secret)
  })

  it('keeps what is not a secret: the env names, ordinary values, the secret variables by name', () => {
    const effective = JSON.stringify(effectiveManifest(m))
    expect(effective).toContain('"NCCL_SOCKET_IFNAME":"enp1s0f0np0"')
    expect(effective).toContain('"HF_TOKEN":"***"')
    expect(effective).toContain('"DB_PASSWORD":"***"')
    expect(scrubSecrets('--tokenizer /models/toy --max-model-len 4096 tokens: 188,640')).toBe('--tokenizer /models/toy --max-model-len 4096 tokens: 188,640')
  })

  it('stays under its bound: the largest logs lose their oldest part, named in the index', () => {
    const huge = new Map([
      ['spark-a', new Map([['engine.log', `OLDEST\n${'x'.repeat(3 * 1024 * 1024)}\nNEWEST line`]])],
      ['spark-b', new Map([['engine.log', `OLDEST\n${'y'.repeat(3 * 1024 * 1024)}\nNEWEST line`]])],
    ])
    const big = bundleFiles({ m, report, logs: huge, why: 'failed', now: new Date() })
    const size = big.reduce((n, f) => n + Buffer.byteLength(f.content), 0)
    expect(size).toBeLessThanOrEqual(BUNDLE_BYTES)
    const a = big.find((f) => f.path === 'nodes/spark-a/engine.log')!.content
    expect(a.endsWith('NEWEST line')).toBe(true)
    expect(a).not.toContain('OLDEST')
    expect(JSON.parse(big.at(-1)!.content).files.find((f: { path: string }) => f.path === 'nodes/spark-a/engine.log').cut).toMatch(/oldest \d+ bytes were cut/)
  })

  it("reads a node's logs from the command's output; a name that is not a log name is dropped", () => {
    const read = parseNodeLogs('@@file engine.log\nline 1\nline 2\n@@file ray/raylet.out\nraylet\n@@file ../../etc/passwd\nroot\n')
    expect([...read]).toEqual([
      ['engine.log', 'line 1\nline 2\n'],
      ['ray/raylet.out', 'raylet\n'],
    ])
  })
})
