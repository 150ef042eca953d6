/**
 * The image-contents check and the probe's parser: the probe program run for real by this machine's
 * python3 (no Ray, no vLLM here), the stand-in image's answer, a stock-vLLM-0.19-like image without
 * Ray, and outputs that are not the probe's document (each a finding, never an exception).
 */
import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { contentsSummary, imageContentsFindings } from '../../../src/preflight/checks/image-contents-checks.js'
import { IMAGE_CONTENTS_PY, type ImageContents, parseImageContents } from '../../../src/probe/image-contents-probe.js'
import { STANDIN_CONTENTS } from '../../deploy/support/sim-cluster.js'

const IMAGE = { imageRef: 'vllm/vllm-openai:v0.19.0', imageId: `sha256:${'b'.repeat(64)}`, node: 'spark-a' }
const standin = STANDIN_CONTENTS as ImageContents
const rayless: ImageContents = { ...standin, ray: { module: false, version: null, cli: null } }
const check = (contents: ImageContents, executor = 'ray') => imageContentsFindings({ ...IMAGE, executor, probe: { ok: true, value: contents } })
const codes = (fs: { code: string }[]) => fs.map((f) => f.code)

describe('the probe program, run by a real python3', () => {
  it("prints one document its parser accepts, with this interpreter's version and no Ray", () => {
    const r = spawnSync('python3', ['-c', IMAGE_CONTENTS_PY], { encoding: 'utf8' })
    expect(r.status, r.stderr).toBe(0)
    const parsed = parseImageContents(r.stdout)
    expect(parsed.ok, JSON.stringify(parsed)).toBe(true)
    if (!parsed.ok) return
    const version = spawnSync('python3', ['-c', 'import platform; print(platform.python_version())'], { encoding: 'utf8' }).stdout.trim()
    expect(parsed.value.python).toBe(version)
    expect(parsed.value.ray.module).toBe(spawnSync('python3', ['-c', 'import ray'], { encoding: 'utf8' }).status === 0)
    // What this machine's python3 holds, checked as an image would be.
    expect(codes(check(parsed.value))).toContain('IMAGE_LACKS_VLLM')
  })
})

describe('image contents against the executor', () => {
  it('the stand-in image (Ray and vLLM) gives no finding, and its versions read in one line', () => {
    expect(check(standin)).toEqual([])
    expect(contentsSummary(standin)).toBe('vLLM 0.17.0+standin, Ray 2.55.1, torch (none), Python 3.11.2')
  })

  it('an image without Ray under the Ray executor is IMAGE_LACKS_RAY with the image, its ID and what the probe found', () => {
    const [f, ...rest] = check(rayless)
    expect(rest).toEqual([])
    expect(f).toMatchObject({ code: 'IMAGE_LACKS_RAY', severity: 'error', node: 'spark-a' })
    expect(f!.evidence).toMatchObject({
      image: IMAGE.imageRef,
      'image ID': IMAGE.imageId,
      'ray module': 'no',
      'ray command': '(none)',
      'vllm version': '0.17.0+standin',
    })
    expect(f!.message).toContain('the `ray` module and the `ray` command missing')
    expect(f!.fix).toContain('ray[default]')
    expect(f!.fix).toContain('vLLM 0.17.0+standin')
    expect(f!.fix).toContain('native multi-node')
  })

  it('the module without its command (ray start would exit 127) is also IMAGE_LACKS_RAY', () => {
    const f = check({ ...standin, ray: { ...standin.ray, cli: null } })
    expect(codes(f)).toEqual(['IMAGE_LACKS_RAY'])
    expect(f[0]!.message).toContain('the `ray` command missing')
  })

  it('an image without Ray is fine for an executor that does not use Ray', () => {
    expect(check(rayless, 'mp')).toEqual([])
  })

  it('an image without vLLM is IMAGE_LACKS_VLLM, whatever the executor', () => {
    const novllm = { ...standin, vllm: { module: false, version: null, cli: null } }
    expect(codes(check(novllm))).toEqual(['IMAGE_LACKS_VLLM'])
    expect(codes(check({ ...rayless, vllm: novllm.vllm }))).toEqual(['IMAGE_LACKS_RAY', 'IMAGE_LACKS_VLLM'])
  })

  it('torch and its NCCL version, or why NCCL could not be read, are in the evidence', () => {
    const withTorch = { ...rayless, torch: { version: '2.9.0+cu130', nccl: '2.27.7' } }
    expect(check(withTorch)[0]!.evidence["torch's NCCL"]).toBe('2.27.7')
    expect(contentsSummary(withTorch)).toContain('torch 2.9.0+cu130 (NCCL 2.27.7)')
    const cpu = { ...rayless, torch: { version: '2.9.0+cpu', nccl: null, ncclError: 'RuntimeError: NCCL not built' } }
    expect(check(cpu)[0]!.evidence["torch's NCCL"]).toBe('RuntimeError: NCCL not built')
  })
})

describe("the probe's output is checked, and a bad one is IMAGE_PROBE_FAILED", () => {
  const failed = (stdout: string) => {
    const probe = parseImageContents(stdout)
    expect(probe.ok).toBe(false)
    return imageContentsFindings({ ...IMAGE, executor: 'ray', probe })
  }

  it.each([
    ['empty output', '', 'empty output'],
    ['a Python traceback', 'Traceback (most recent call last):\n  File "<string>", line 1\nSyntaxError: invalid syntax', 'printed no JSON'],
    ['JSON of another shape', '{"python": "3.12.3"}', 'probe: '],
    ['a field of the wrong type', JSON.stringify({ ...standin, ray: { ...standin.ray, module: 'yes' } }), 'ray.module'],
    ['an unknown field', JSON.stringify({ ...standin, extra: 1 }), 'extra'],
    ['an over-long value', JSON.stringify({ ...standin, python: 'x'.repeat(5000) }), 'python'],
  ])('%s', (_what, stdout, says) => {
    const [f, ...rest] = failed(stdout)
    expect(rest).toEqual([])
    expect(f).toMatchObject({ code: 'IMAGE_PROBE_FAILED', severity: 'error', node: 'spark-a' })
    expect(f!.evidence.error).toContain(says)
    expect(f!.evidence['image ID']).toBe(IMAGE.imageId)
  })

  it('the last line is the document (a warning printed before it is ignored)', () => {
    const parsed = parseImageContents(`WARNING: something\n${JSON.stringify(standin)}\n`)
    expect(parsed.ok).toBe(true)
  })
})
