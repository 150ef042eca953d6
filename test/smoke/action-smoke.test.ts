/**
 * `command: smoke` through the Action entry as a runner starts it (`node dist/index.js`, INPUT_*),
 * against a loopback head (real sshd whose sessions see the fake head's docker shim) and a fake
 * vLLM at smoke.url. Needs a local `npm run build` (dist/ is never committed).
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { runActionAsync } from '../support/action.js'
import { type LoopbackSshd, startLoopbackSshd } from '../support/sshd.js'
import { type FakeVllm, startFakeVllm } from './support/fake-vllm.js'

let sshd: LoopbackSshd
let fake: FakeVllm
const KEY = 'sk-action-0a1b2c3d4e5f'

beforeAll(async () => {
  fake = await startFakeVllm({ apiKey: KEY })
  sshd = await startLoopbackSshd({ setEnv: fake.shimEnv })
})
afterAll(async () => {
  await fake?.stop()
  await sshd?.stop()
})

function manifestFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'vrd-smoke-action-'))
  const path = join(dir, 'cluster.yml')
  writeFileSync(
    path,
    [
      'version: 1',
      'cluster: loop',
      `ssh: {user: root, port: ${sshd.port}}`,
      'fabric: {interfaces: [lo], subnet: 127.0.0.0/8}',
      'nodes:',
      `  - {name: head, role: head, ssh: {host: 127.0.0.1, hostKeys: ["${sshd.hostPublicKey}"]}, fabricIp: 127.0.0.1, gpus: 1}`,
      'image: {ref: img}',
      `vllm: {model: vrd-lab/tiny-random, servedModelName: tiny-random, tensorParallelSize: 1, port: ${fake.port}}`,
      `smoke: {url: "${fake.url}", apiKeySecret: VLLM_API_KEY, readyTimeoutSeconds: 20, requestTimeoutSeconds: 10, clusterProof: false, burst: {requests: 3, maxTokens: 8}}`,
      '',
    ].join('\n'),
  )
  return path
}

it('writes verdict, model, ttft-ms, itl-ms, tokens-per-second and p95-ms, and a job summary with the latency table; the key is masked', async () => {
  const r = await runActionAsync({ command: 'smoke', manifest: manifestFile(), 'ssh-private-key': sshd.clientKey }, { VLLM_API_KEY: KEY })
  expect(r.stderr).toBe('')
  expect(r.status, r.stdout).toBe(0)
  expect(r.outputs).toMatchObject({ verdict: 'passed', result: 'passed', model: 'tiny-random', 'error-count': '0' })
  for (const k of ['ttft-ms', 'itl-ms', 'tokens-per-second', 'p95-ms']) expect(Number(r.outputs[k]), k).toBeGreaterThan(0)
  expect(r.summary).toMatch(
    /^### ✅ passed: smoke test of loop: passed[\s\S]*Smoke test of loop: passed[\s\S]*\| time to first token \| [\d.]+ ms \|[\s\S]*\| p50 \/ p95 latency \(burst of 3\) \|/,
  )
  expect(r.stdout).toContain(`::add-mask::${KEY}`)
  expect(r.stdout.split('\n').filter((l) => l.includes(KEY))).toEqual([`::add-mask::${KEY}`])
})

it('a failing smoke: verdict failed, one annotation per finding, exit code set', async () => {
  const r = await runActionAsync({ command: 'smoke', manifest: manifestFile(), 'ssh-private-key': sshd.clientKey }, {})
  expect(r.status).toBe(1)
  expect(r.outputs.verdict).toBe('failed')
  expect(r.stdout).toMatch(
    /::error title=SMOKE_UNAUTHORIZED on the cluster::smoke.apiKeySecret names VLLM_API_KEY, but that environment variable is empty or unset/,
  )
  expect(r.summary).toContain('Smoke test of loop: failed')
})
