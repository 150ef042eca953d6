/**
 * `vllm.args` against the `vllm serve` flags of the release the manifest names (vllm.version, else
 * the image tag): `validate` and `plan` warn, naming the release; the deploy's image-contents check
 * warns again with the version the image reports. The flags compared are the contract's (read from
 * the wheels), so the test picks its flags from there rather than naming them.
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { VLLM_CONTRACTS, contractFor, unknownVllmFlags, vllmVersionOfImageTag } from '../../src/command/vllm-contract.js'
import { main } from '../../src/cli/cli-main.js'
import { parseManifest } from '../../src/manifest/load-manifest.js'
import { imageContentsFindings } from '../../src/preflight/checks/image-contents-checks.js'
import type { ImageContents } from '../../src/probe/image-contents-probe.js'

const oldest = VLLM_CONTRACTS[0]!
const newest = VLLM_CONTRACTS[VLLM_CONTRACTS.length - 1]!
/** A flag the newest release has and the oldest lacks (e.g. one added since). */
const added = newest.flags.flags.find((f) => f.startsWith('--') && !oldest.flags.flags.includes(f))!
/** A flag every release has. */
const everywhere = '--max-model-len'

const manifest = (ref: string, args: readonly string[], version?: string) => `version: 1
cluster: pair
fabric: { interfaces: [enp1s0f1np1], subnet: 192.168.200.0/24 }
nodes:
  - { name: spark-a, role: head, ssh: { host: 10.1.230.180 }, fabricIp: 192.168.200.12, gpus: 1 }
  - { name: spark-b, role: worker, ssh: { host: 10.1.230.181 }, fabricIp: 192.168.200.13, gpus: 1 }
image: { ref: "${ref}" }
vllm:
  model: Qwen/Qwen3-0.6B
  tensorParallelSize: 2
${version ? `  version: "${version}"\n` : ''}  args: [${args.map((a) => JSON.stringify(a)).join(', ')}]
`
const warningsOf = (text: string) => parseManifest(text, 'm.yml').warnings.filter((w) => w.code === 'VLLM_FLAG_NOT_IN_VERSION')

describe('vllm.args against the named release', () => {
  it(`finds a flag to test with: ${added} is in ${newest.vllm} and not in ${oldest.vllm}`, () => {
    expect(added).toBeDefined()
    expect(oldest.flags.flags).toContain(everywhere)
    expect(newest.flags.flags).toContain(everywhere)
  })

  it('warns at the argument, naming the version the image tag gives', () => {
    const w = warningsOf(manifest(`vllm/vllm-openai:v${oldest.vllm}`, [everywhere, '4096', added]))
    expect(w).toHaveLength(1)
    expect(w[0]).toMatchObject({ path: ['vllm', 'args', 2], line: 11 })
    expect(w[0]!.message).toContain(`${added}, which \`vllm serve\` of vLLM ${oldest.vllm} does not have`)
    expect(w[0]!.message).toContain(`the tag of image.ref vllm/vllm-openai:v${oldest.vllm}`)
    expect(warningsOf(manifest(`vllm/vllm-openai:v${newest.vllm}`, [everywhere, '4096', added]))).toEqual([])
  })

  it('vllm.version speaks when the tag does not; no version, no warning', () => {
    const w = warningsOf(manifest('registry.example/team/serving:latest', [added], oldest.vllm))
    expect(w.map((x) => x.message)).toEqual([expect.stringContaining(`vLLM ${oldest.vllm} does not have (version from vllm.version)`)])
    expect(warningsOf(manifest('registry.example/team/serving:latest', [added]))).toEqual([])
    // NGC's container release is not a vLLM version.
    expect(vllmVersionOfImageTag('nvcr.io/nvidia/vllm:26.08-py3')).toBeUndefined()
    expect(vllmVersionOfImageTag('vllm/vllm-openai:v0.24.0@sha256:' + 'a'.repeat(64))).toBe('0.24.0')
  })

  it('reads vLLM spellings: --flag_name, --flag=value, --no-flag; values are not flags', () => {
    const c = contractFor(newest.vllm)!
    expect(unknownVllmFlags(['--max_model_len=4096', '--no-enforce-eager', '--seed', '-1', '-tp', '2'], c)).toEqual([])
    expect(unknownVllmFlags(['--max-model-length', '8'], c)).toEqual([{ index: 0, flag: '--max-model-length' }])
  })

  it('a release between two contracts is read with the older one, and says so', () => {
    const between = `${oldest.vllm.split('.')[0]}.${Number(oldest.vllm.split('.')[1]) + 1}.0`
    expect(contractFor(between)?.vllm).toBe(oldest.vllm)
    const w = warningsOf(manifest(`vllm/vllm-openai:v${between}`, [added]))
    expect(w[0]?.message).toContain(`read as ${oldest.vllm}, the nearest release whose flags are known`)
    expect(contractFor('0.5.4')).toBeUndefined()
  })

  it('validate and plan print it (the CLI, exit 0)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vrd-flags-'))
    const path = join(dir, 'cluster.yml')
    writeFileSync(path, manifest(`vllm/vllm-openai:v${oldest.vllm}`, [added]))
    for (const cmd of ['validate', 'plan']) {
      let out = ''
      const code = await main([cmd, '--manifest', path], { out: (s) => (out += s), err: () => {}, env: {} })
      expect(code, cmd).toBe(0)
      expect(out, cmd).toContain(`vllm.args passes ${added}, which \`vllm serve\` of vLLM ${oldest.vllm} does not have`)
    }
  })
})

describe('the deploy checks again with the version the image reports', () => {
  const contents = (version: string): ImageContents =>
    ({
      python: '3.12.3',
      executable: '/usr/bin/python3',
      ray: { module: true, cli: '/usr/bin/ray', version: '2.55.1' },
      vllm: { module: true, cli: '/usr/bin/vllm', version },
      torch: { version: '2.11.0', nccl: '2.28.9' },
    }) as unknown as ImageContents
  const input = (version: string, args: readonly string[], stated?: { version: string; from: string }) => ({
    executor: 'ray',
    imageRef: 'registry.example/team/serving:latest',
    imageId: 'sha256:' + 'b'.repeat(64),
    node: 'spark-a',
    probe: { ok: true as const, value: contents(version) },
    vllmArgs: args,
    ...(stated && { statedVersion: stated }),
  })

  it('VLLM_FLAG_NOT_IN_VERSION (a warning) names the flag and the image’s version', () => {
    const f = imageContentsFindings(input(oldest.vllm, ['--max-model-len', '8192', added]))
    expect(f.map((x) => [x.code, x.severity])).toEqual([['VLLM_FLAG_NOT_IN_VERSION', 'warning']])
    expect(f[0]!.message).toContain(`${added}, which \`vllm serve\` of vLLM ${oldest.vllm}`)
    expect(imageContentsFindings(input(newest.vllm, [added]))).toEqual([])
  })

  it('the flags the tool passes itself are checked too, and said to be the tool’s', () => {
    const f = imageContentsFindings({
      ...input(oldest.vllm, ['--max-model-len', '8']),
      serveWords: ['--tensor-parallel-size', '2', added, '--max-model-len', '8'],
    })
    expect(f.map((x) => x.code)).toEqual(['VLLM_FLAG_NOT_IN_VERSION'])
    expect(f[0]!.message).toContain(`The tool passes ${added} (for vllm.executorBackend ray)`)
    // A flag in both vllm.args and the serve words is reported once, as the user's.
    const both = imageContentsFindings({ ...input(oldest.vllm, [added]), serveWords: [added] })
    expect(both.map((x) => x.message)).toEqual([expect.stringContaining(`vllm.args passes ${added}`)])
  })

  it('VLLM_VERSION_NOT_STATED when the manifest named another release than the image holds', () => {
    const f = imageContentsFindings(input(`${newest.vllm}+cu130`, [], { version: oldest.vllm, from: 'vllm.version' }))
    expect(f.map((x) => x.code)).toEqual(['VLLM_VERSION_NOT_STATED'])
    expect(f[0]!.message).toContain(`holds vLLM ${newest.vllm}+cu130, but the manifest names ${oldest.vllm}`)
  })
})
