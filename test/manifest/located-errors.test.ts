import { describe, expect, test } from 'vitest'
import { parseManifest } from '../../src/manifest/load-manifest.js'
import type { ManifestError } from '../../src/manifest/manifest-error.js'
import { BASE, withLine, withLines } from './fixtures/base-manifest.js'

/** The parts of an error a position test compares. */
const where = ({ code, line, col, path }: ManifestError) => ({ code, line, col, path })

describe('parseManifest reports every mistake at its line and column', () => {
  test('three independent mistakes come back together, in file order, each at its own position', () => {
    const text = withLines(BASE, [
      [9, '    ssh: { host: 10.1.230.180 }', '    ssh: { host: 10.1.230.180, prot: 22 }'], // unknown key: "prot" starts at col 32
      [13, '    role: worker', '    role: head'], // a second head: value at col 11
      [15, '    fabricIp: 192.168.200.13', '    fabricIp: 192.168.201.13'], // outside 192.168.200.0/24: value at col 15
    ])
    const { manifest, errors } = parseManifest(text, 'cluster.yml')

    expect(manifest).toBeUndefined()
    expect(errors.map(where)).toEqual([
      { code: 'UNKNOWN_KEY', line: 9, col: 32, path: ['nodes', 0, 'ssh', 'prot'] },
      { code: 'MULTIPLE_HEADS', line: 13, col: 11, path: ['nodes', 1, 'role'] },
      { code: 'FABRIC_IP_OUTSIDE_SUBNET', line: 15, col: 15, path: ['nodes', 1, 'fabricIp'] },
    ])
    expect(errors.map((error) => error.message)).toEqual([
      'unknown key "prot" in nodes[0].ssh; did you mean "port"?',
      'nodes[1] "spark-b" is a second head; nodes[0] "spark-a" is already the head, and exactly one node must be',
      'fabric IP 192.168.201.13 of nodes[1] "spark-b" is outside the fabric subnet 192.168.200.0/24 (192.168.200.0 to 192.168.200.255)',
    ])
    expect(errors.every((error) => error.file === 'cluster.yml')).toBe(true)
  })

  test('a misspelt required key is one error with a suggestion, and the rules still check its value', () => {
    const text = withLine(BASE, 15, '    fabricIp: 192.168.200.13', '    fabricIP: 192.168.201.13')
    const { errors } = parseManifest(text, 'cluster.yml')

    expect(errors.map(where)).toEqual([
      { code: 'UNKNOWN_KEY', line: 15, col: 5, path: ['nodes', 1, 'fabricIP'] },
      { code: 'FABRIC_IP_OUTSIDE_SUBNET', line: 15, col: 15, path: ['nodes', 1, 'fabricIp'] },
    ])
    expect(errors[0]?.message).toBe('unknown key "fabricIP" in nodes[1]; did you mean "fabricIp"?')
    expect(errors[0]?.fix).toBe('rename "fabricIP" to "fabricIp"')
  })

  test('an unknown key with no close match lists the keys allowed there', () => {
    const text = withLine(BASE, 21, '  tensorParallelSize: 2', '  tensorParallelSize: 2\n  quantization: fp8')
    const { errors } = parseManifest(text, 'cluster.yml')

    expect(errors.map(where)).toEqual([{ code: 'UNKNOWN_KEY', line: 22, col: 3, path: ['vllm', 'quantization'] }])
    expect(errors[0]?.message).toBe('unknown key "quantization" in vllm')
    expect(errors[0]?.fix).toBe(
      'remove "quantization"; allowed keys here: model, servedModelName, tensorParallelSize, pipelineParallelSize, port, args, env, executorBackend, version, kvCacheMemoryBytes, masterPort',
    )
  })

  test('duplicate keys are errors at the second key, reported along with schema errors', () => {
    const text = withLines(BASE, [
      [2, 'cluster: pair', 'cluster: my pair'], // not a valid name: value at col 10
      [11, '    gpus: 1', '    gpus: 1\n    gpus: 2'], // the duplicate is line 12, col 5
    ])
    const { errors } = parseManifest(text, 'cluster.yml')

    expect(errors.map(where)).toEqual([
      { code: 'INVALID_NAME', line: 2, col: 10, path: ['cluster'] },
      { code: 'DUPLICATE_KEY', line: 12, col: 5, path: ['nodes', 0, 'gpus'] },
    ])
    expect(errors[1]?.message).toBe('duplicate key "gpus" in nodes[0], first written at line 11')
  })

  test('a YAML syntax error is located and stops there (the recovered tree is a guess)', () => {
    const text = withLine(BASE, 4, '  interfaces: [enp1s0f1np1]', '  interfaces: [enp1s0f1np1')
    const { manifest, errors } = parseManifest(text, 'cluster.yml')

    expect(manifest).toBeUndefined()
    // The parser notices the unclosed "[" where the next key begins: line 5, col 3.
    expect(errors.map(where)).toEqual([{ code: 'YAML_BAD_INDENT', line: 5, col: 3, path: [] }])
    expect(errors[0]?.message).toMatch(/^YAML: .*end with a \]/)
  })

  test('a tab used for indentation is located at the tab', () => {
    const text = withLine(BASE, 8, '    role: head', '\trole: head')
    const { errors } = parseManifest(text, 'cluster.yml')

    expect(errors[0]).toMatchObject({ code: 'YAML_TAB_AS_INDENT', line: 8, col: 1, fix: 'indent with spaces' })
  })

  test('a missing key points at the mapping that should hold it: its key, or the list item', () => {
    const text = withLines(BASE, [
      [5, '  subnet: 192.168.200.0/24', ''], // fabric.subnet missing → the "fabric:" key, 3:1
      [11, '    gpus: 1', ''], // nodes[0].gpus missing → the item's mapping, which starts at "name" 7:5
    ])
    const { errors } = parseManifest(text, 'cluster.yml')

    expect(errors.map(where)).toEqual([
      { code: 'MISSING_KEY', line: 3, col: 1, path: ['fabric', 'subnet'] },
      { code: 'MISSING_KEY', line: 7, col: 5, path: ['nodes', 0, 'gpus'] },
    ])
    expect(errors.map((error) => error.message)).toEqual(['missing required key "subnet" in fabric', 'missing required key "gpus" in nodes[0]'])
    expect(errors[1]?.fix).toBe('add "gpus:" (Number of GPUs on this node that vLLM may use.)')
  })

  test('a missing section points at the top-level mapping', () => {
    const text = withLines(BASE, [
      [17, 'image:', ''],
      [18, '  ref: hellohal2064/vllm-qwen3.5-gb10:latest', ''],
    ])
    const { errors } = parseManifest(text, 'cluster.yml')

    expect(errors.map(where)).toEqual([{ code: 'MISSING_KEY', line: 1, col: 1, path: ['image'] }])
    expect(errors[0]?.message).toBe('missing required key "image" at the top level')
  })

  test('a key written with no value is reported at the key', () => {
    const text = withLine(BASE, 20, '  model: Qwen/Qwen3.5-122B-A10B-FP8', '  model:')
    const { errors } = parseManifest(text, 'cluster.yml')

    expect(errors.map(where)).toEqual([{ code: 'WRONG_TYPE', line: 20, col: 3, path: ['vllm', 'model'] }])
    expect(errors[0]?.message).toBe('vllm.model: expected a string, got an empty value')
  })

  test('wrong types and values name the key, what was expected and what was given', () => {
    const text = withLines(BASE, [
      [11, '    gpus: 1', '    gpus: two'],
      [13, '    role: worker', '    role: wroker'],
    ])
    const { errors } = parseManifest(text, 'cluster.yml')

    expect(errors).toMatchObject([
      {
        code: 'WRONG_TYPE',
        line: 11,
        col: 11,
        message: 'nodes[0].gpus: expected a whole number of at least 0, got the string "two"',
      },
      {
        code: 'INVALID_VALUE',
        line: 13,
        col: 11,
        message: 'nodes[1].role: expected "head" or "worker", got the string "wroker"; did you mean "worker"?',
        fix: 'use "worker"',
      },
    ])
  })

  test('a key that belongs to another launch mode says which mode allows it', () => {
    const text = `${BASE}launch:\n  mode: builtin\n  path: launch.sh\n`
    const { errors } = parseManifest(text, 'cluster.yml')

    expect(errors).toMatchObject([{ code: 'UNKNOWN_KEY', line: 24, col: 3, message: 'key "path" in launch is only allowed with mode: script' }])
  })

  test('an unknown launch mode is located at the mode value', () => {
    const text = `${BASE}launch:\n  mode: scrip\n`
    const { errors } = parseManifest(text, 'cluster.yml')

    expect(errors).toMatchObject([
      { code: 'INVALID_VALUE', line: 23, col: 9, message: 'launch.mode: expected "builtin" or "script", got the string "scrip"', fix: 'use mode: script' },
    ])
  })

  test('top-level x- keys are ignored, and a mistake inside an anchor is located where the anchor is written', () => {
    const merged = withLine(BASE, 9, '    ssh: { host: 10.1.230.180 }', '    ssh: { <<: *ssh, host: 10.1.230.180 }')
    const ok = parseManifest(`x-ssh: &ssh { port: 2222 }\n${merged}`, 'cluster.yml')
    expect(ok.errors).toEqual([])
    expect(ok.manifest?.nodes[0]?.ssh.port).toBe(2222)

    // Line 1, "prot" after "x-ssh: &ssh { " (14 characters): col 15.
    const broken = parseManifest(`x-ssh: &ssh { prot: 2222 }\n${merged}`, 'cluster.yml')
    expect(broken.errors.map(where)).toEqual([{ code: 'UNKNOWN_KEY', line: 1, col: 15, path: ['nodes', 0, 'ssh', 'prot'] }])
  })

  test('an unknown top-level key mentions the x- prefix', () => {
    const { errors } = parseManifest(`common: 1\n${BASE}`, 'cluster.yml')

    expect(errors).toMatchObject([{ code: 'UNKNOWN_KEY', line: 1, col: 1, path: ['common'] }])
    expect(errors[0]?.fix).toContain('top-level keys starting with "x-" are allowed')
  })

  test('an empty file is one error at 1:1', () => {
    expect(parseManifest('', 'empty.yml').errors.map(where)).toEqual([{ code: 'EMPTY_MANIFEST', line: 1, col: 1, path: [] }])
    expect(parseManifest('# only a comment\n', 'empty.yml').errors.map(where)).toEqual([{ code: 'EMPTY_MANIFEST', line: 1, col: 1, path: [] }])
  })

  test('a file that is not a mapping is one error at its start', () => {
    expect(parseManifest('\n- a\n- b\n', 'list.yml').errors).toMatchObject([
      { code: 'WRONG_TYPE', line: 2, col: 1, message: 'expected a mapping (key: value lines), got a list' },
    ])
  })

  test('errors are sorted by position whatever stage found them', () => {
    // Edited bottom-up so the earlier line numbers stay those of BASE.
    const text = withLines(BASE, [
      [21, '  tensorParallelSize: 2', '  tensorParallelSize: 0'],
      [11, '    gpus: 1', '    gpus: 1\n    gpus: 1'],
      [8, '    role: head', '    role: worker'], // no head at all
      [1, 'version: 1', 'version: 2'],
    ])
    const { errors } = parseManifest(text, 'cluster.yml')
    const positions = errors.map(({ line, col }) => line * 1000 + col)

    expect(positions).toEqual([...positions].sort((a, b) => a - b))
    expect(errors.map((error) => error.code)).toEqual(['INVALID_VALUE', 'NO_HEAD', 'DUPLICATE_KEY', 'OUT_OF_RANGE'])
  })

  test('bad input of any shape never throws, and every error has a 1-based position', () => {
    const inputs = [
      '\u0000',
      '[',
      '{a: *missing}',
      '- - -',
      ': :',
      'version: 1\n---\nversion: 1\n',
      'a: &x [*x]',
      'nodes: [1, "x", null, {}]\n',
      'nodes:\n  - ssh: 5\n    fabricIp: [1]\n    gpus: 1.5\n',
      '%YAML 9.9\n---\na: 1\n',
      'x'.repeat(10_000),
    ]
    for (const input of inputs) {
      const { manifest, errors } = parseManifest(input, 'weird.yml')
      expect(manifest, JSON.stringify(input)).toBeUndefined()
      expect(errors.length, JSON.stringify(input)).toBeGreaterThan(0)
      for (const error of errors) {
        expect(error.line).toBeGreaterThanOrEqual(1)
        expect(error.col).toBeGreaterThanOrEqual(1)
        expect(error.message).not.toBe('')
      }
    }
  })
})

describe('line endings', () => {
  test('CRLF files get the same positions as LF files', () => {
    const text = withLine(BASE, 15, '    fabricIp: 192.168.200.13', '    fabricIp: 192.168.201.13')
    const lf = parseManifest(text, 'cluster.yml').errors.map(where)
    const crlf = parseManifest(text.replace(/\n/g, '\r\n'), 'cluster.yml').errors.map(where)
    expect(lf).toEqual([{ code: 'FABRIC_IP_OUTSIDE_SUBNET', line: 15, col: 15, path: ['nodes', 1, 'fabricIp'] }])
    expect(crlf).toEqual(lf)
  })

  test('a byte-order mark does not shift the columns of line 1', () => {
    const errors = parseManifest(`\ufeff${withLine(BASE, 1, 'version: 1', 'version: 3')}`, 'cluster.yml').errors
    expect(errors.map(where)).toEqual([{ code: 'INVALID_VALUE', line: 1, col: 10, path: ['version'] }])
  })
})
