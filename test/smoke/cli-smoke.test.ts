/** `vllm-ray-deploy smoke` through the CLI's own entry (main), with the credentials preflight takes. */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { main } from '../../src/cli/cli-main.js'
import { type LoopbackSshd, startLoopbackSshd } from '../support/sshd.js'
import { type FakeVllm, startFakeVllm } from './support/fake-vllm.js'

let sshd: LoopbackSshd
let fake: FakeVllm
let dir: string

beforeAll(async () => {
  fake = await startFakeVllm({ listedModel: 'Qwen/Qwen3-8B' })
  sshd = await startLoopbackSshd({ setEnv: fake.shimEnv })
  dir = mkdtempSync(join(tmpdir(), 'vrd-smoke-cli-'))
  writeFileSync(join(dir, 'key'), sshd.clientKey)
  writeFileSync(join(dir, 'known_hosts'), sshd.knownHosts)
  writeFileSync(
    join(dir, 'cluster.yml'),
    [
      'version: 1',
      'cluster: loop',
      `ssh: {user: root, port: ${sshd.port}}`,
      'fabric: {interfaces: [lo], subnet: 127.0.0.0/8}',
      'nodes:',
      '  - {name: head, role: head, ssh: {host: 127.0.0.1}, fabricIp: 127.0.0.1, gpus: 1}',
      'image: {ref: img}',
      `vllm: {model: vrd-lab/tiny-random, servedModelName: tiny-random, tensorParallelSize: 1, port: ${fake.port}}`,
      'smoke: {readyTimeoutSeconds: 20, requestTimeoutSeconds: 10, clusterProof: false}',
      '',
    ].join('\n'),
  )
})
afterAll(async () => {
  await fake?.stop()
  await sshd?.stop()
})

async function cli(...args: string[]) {
  let out = ''
  let err = ''
  const code = await main(args, { out: (s) => (out += s), err: (s) => (err += s), env: {} })
  return { code, out, err }
}

it('--json, --ssh-key and --known-hosts: exit 1 with the finding, through the default SSH tunnel', async () => {
  const r = await cli('smoke', '--manifest', join(dir, 'cluster.yml'), '--ssh-key', join(dir, 'key'), '--known-hosts', join(dir, 'known_hosts'), '--json')
  expect(r.code).toBe(1)
  const j = JSON.parse(r.out) as { verdict: string; via: string; findings: { code: string; message: string }[] }
  expect(j.verdict).toBe('failed')
  expect(j.via).toBe(`SSH tunnel through head to 127.0.0.1:${fake.port}`)
  expect(j.findings.map((f) => f.code)).toEqual(['SMOKE_MODEL_MISSING'])
  expect(r.err).toMatch(/smoke: waiting for vLLM on head/)
})

it('without a key it is a usage error (exit 2) naming the flag', async () => {
  const r = await cli('smoke', '--manifest', join(dir, 'cluster.yml'))
  expect(r.code).toBe(2)
  expect(r.err).toMatch(/smoke needs an SSH private key: --ssh-key FILE or \$VRD_SSH_PRIVATE_KEY/)
})
