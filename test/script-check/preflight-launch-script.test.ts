/**
 * `preflight` with `launch.mode: script` reads the launch script before anything else and prints
 * its fixes (here the nodes are unreachable on purpose: the script findings come regardless).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { preflightTask } from '../../src/tasks/preflight.js'
import { newClientKey } from '../support/sshd.js'

describe('preflight with launch.mode: script', () => {
  it("reports the incident script's two bugs beside the (unreachable) nodes, and hands back the patch as fix-file", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vrd-pre-script-'))
    writeFileSync(join(dir, 'spark-vllm-qwen35.sh'), readFileSync(join(__dirname, 'fixtures', 'spark-vllm-qwen35.sh'), 'utf8'))
    const manifest = readFileSync('src/manifest/examples/dgx-spark-pair.yml', 'utf8')
      .replace('launch:\n  mode: builtin', 'launch:\n  mode: script\n  path: spark-vllm-qwen35.sh')
      .replace('host: 10.1.230.180', 'host: 127.0.0.1\n      port: 1')
      .replace('host: 10.1.230.181', 'host: 127.0.0.2\n      port: 1')
    expect(manifest).toContain('mode: script')
    writeFileSync(join(dir, 'cluster.yml'), manifest)
    const r = await preflightTask(join(dir, 'cluster.yml'), { credentials: { privateKey: newClientKey() } })
    expect(r.exitCode).toBe(1)
    const codes = (r.json as { findings: { code: string }[] }).findings.map((f) => f.code)
    expect(codes).toEqual(expect.arrayContaining(['SCRIPT_HEAD_IDENTITY_UNPINNED', 'SCRIPT_VLLM_HOST_IP_OVERRIDE', 'NODE_UNREACHABLE']))
    const fix = r.files.find((f) => f.output === 'fix-file')
    expect(fix?.content).toContain('--node-ip-address=192.168.200.12')
    expect(r.text).toContain('Launch script fixes as one patch')
  })
})
