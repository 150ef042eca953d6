import { describe, expect, test } from 'vitest'
import { parseManifest } from '../../src/manifest/load-manifest.js'
import { BASE, withLine } from './fixtures/base-manifest.js'

const errorsOf = (text: string) => parseManifest(text, 'cluster.yml').errors
const codes = (text: string) => errorsOf(text).map((e) => e.code)
const MP = `${BASE}  executorBackend: mp\n`

describe('vllm.executorBackend: ray (default) or mp (native multi-node)', () => {
  test('ray stays the default; mp is accepted with TP x PP = nodes x GPUs', () => {
    expect(parseManifest(BASE, 'cluster.yml').manifest?.vllm).toMatchObject({ executorBackend: 'ray', masterPort: 29501 })
    const { manifest, errors } = parseManifest(`${MP}  masterPort: 29600\n`, 'cluster.yml')
    expect(errors).toEqual([])
    expect(manifest?.vllm).toMatchObject({ executorBackend: 'mp', masterPort: 29600 })
  })

  test('another backend is refused with the choices', () => {
    const [e] = errorsOf(`${BASE}  executorBackend: uni\n`)
    expect(e?.path).toEqual(['vllm', 'executorBackend'])
    expect(e?.message).toMatch(/ray.*mp/)
  })

  test('mp: TP x PP smaller than nodes x GPUs is refused with both numbers; ray allows it', () => {
    const tp1 = (t: string) => withLine(t, 21, '  tensorParallelSize: 2', '  tensorParallelSize: 1')
    expect(codes(tp1(BASE))).toEqual([])
    const [e] = errorsOf(tp1(MP))
    expect(e).toMatchObject({ code: 'NATIVE_PARALLELISM_MISMATCH', path: ['vllm', 'tensorParallelSize'], line: 21 })
    expect(e?.message).toContain('= 1 to equal 2 nodes x 1 GPUs = 2')
  })

  test('mp: nodes with different GPU counts are refused; TP x PP = 3 across 1 + 2 GPUs is fine under ray', () => {
    const uneven = (t: string) => withLine(withLine(t, 16, '    gpus: 1', '    gpus: 2'), 21, '  tensorParallelSize: 2', '  tensorParallelSize: 3')
    expect(codes(uneven(BASE))).toEqual([])
    expect(codes(uneven(MP))).toEqual(['NATIVE_UNEVEN_GPUS'])
  })

  test('Ray-only keys under mp are refused (not warned: they would do nothing), each at its own line', () => {
    const errors = errorsOf(`${MP}ray:\n  port: 6400\n  dashboard: true\n  extraArgs: [--num-cpus=4]\n`)
    expect(errors.map((e) => [e.code, e.path])).toEqual([
      ['EXECUTOR_KEY_UNUSED', ['ray', 'port']],
      ['EXECUTOR_KEY_UNUSED', ['ray', 'dashboard']],
      ['EXECUTOR_KEY_UNUSED', ['ray', 'extraArgs']],
    ])
    expect(errors[0]?.fix).toBe('remove ray.port, or set vllm.executorBackend: ray')
  })

  test('vllm.masterPort under ray is refused; under mp it must not collide with vllm.port', () => {
    expect(codes(`${BASE}  masterPort: 29600\n`)).toEqual(['EXECUTOR_KEY_UNUSED'])
    expect(codes(`${MP}  masterPort: 8000\n`)).toEqual(['PORT_CONFLICT'])
    // Under mp the Ray port is not opened, so vllm.port may reuse 6379.
    expect(codes(`${MP}  port: 6379\n`)).toEqual([])
  })

  test('the flags the native launcher sets are refused in vllm.args, in every spelling', () => {
    for (const flag of ['--nnodes=2', '-n', '--node-rank', '--master-addr=10.0.0.1', '--master-port', '--headless']) {
      const errors = errorsOf(`${MP}  args: ["${flag}"]\n`)
      expect(
        errors.map((e) => e.code),
        flag,
      ).toEqual(['MANAGED_FLAG_IN_ARGS'])
    }
  })
})
