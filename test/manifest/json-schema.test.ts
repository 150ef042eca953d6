import { z } from 'zod'
import { describe, expect, test } from 'vitest'
import { cidrBlock, envName, hostKeyPin, imageDigest, imageReference, interfaceName, ipv4Address, sshHost } from '../../src/manifest/formats.js'
import { manifestJsonSchema, renderManifestJsonSchema } from '../../src/manifest/json-schema.js'

type Json = { [key: string]: unknown }

/** Every schema node under `properties` (the fields a person writes), with its key path. */
function fields(schema: Json, path = ''): [string, Json][] {
  const own = Object.entries((schema['properties'] as Record<string, Json> | undefined) ?? {}).flatMap(([key, child]) => {
    const at = path === '' ? key : `${path}.${key}`
    return [[at, child] as [string, Json], ...fields(child, at)]
  })
  const items = schema['items'] as Json | undefined
  const options = (schema['oneOf'] as Json[] | undefined) ?? []
  return [...own, ...(items ? fields(items, `${path}[]`) : []), ...options.flatMap((option) => fields(option, path))]
}

describe('the manifest JSON Schema', () => {
  const schema = manifestJsonSchema() as Json

  test('every field has a description for editors and the reference', () => {
    const undocumented = fields(schema)
      .filter(([, child]) => typeof child['description'] !== 'string' || child['description'] === '')
      .map(([path]) => path)
    expect(undocumented).toEqual([])
  })

  test('requires only what has no default, and allows x- keys at the top level', () => {
    expect(schema['required']).toEqual(['version', 'cluster', 'fabric', 'nodes', 'image', 'vllm'])
    expect(schema['additionalProperties']).toBe(false)
    expect(Object.keys(schema['patternProperties'] as Json)).toEqual(['^x-'])
  })

  test('carries no meaningless safe-integer bounds', () => {
    expect(renderManifestJsonSchema()).not.toContain(String(Number.MAX_SAFE_INTEGER))
  })

  test('is pretty-printed with a final newline', () => {
    const text = renderManifestJsonSchema()
    expect(text.endsWith('}\n')).toBe(true)
    expect(text.split('\n')[1]).toMatch(/^ {2}"\$schema"/)
  })
})

describe('the patterns editors see agree with the validator', () => {
  const cases: [string, () => z.ZodType, string[]][] = [
    ['IPv4 address', ipv4Address, ['192.168.200.12', '0.0.0.0', '192.168.200', '192.168.200.256', '01.2.3.4', '1.2.3.4.5']],
    ['CIDR block', cidrBlock, ['192.168.200.0/24', '10.0.0.0/8', '10.0.0.0/33', '10.0.0.0', '10.0.0.0/-1']],
    ['interface name', interfaceName, ['enp1s0f1np1', 'eth0', 'ib0.8001', 'a'.repeat(16), 'eth0/1', 'eth0:1', 'a b', '', '.', '..']],
    ['env name', envName, ['HF_TOKEN', '_X', 'a1', '1A', 'A-B', 'A B', '']],
    [
      'image reference',
      imageReference,
      ['a/b', 'ubuntu:22.04', 'localhost:5000/x/y:z', 'org/Image', 'org//x', 'org/x:.t', `x@sha256:${'a'.repeat(64)}`, 'x@sha256:ab'],
    ],
    ['digest', imageDigest, [`sha256:${'a'.repeat(64)}`, `sha256:${'A'.repeat(64)}`, 'sha256:abc']],
    [
      'host key',
      hostKeyPin,
      [
        'SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s',
        'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl host',
        'SHA256:short',
        'ssh-dss AAAAB3',
      ],
    ],
    ['SSH host', sshHost, ['10.1.230.180', 'spark-a.lab', 'root@spark-a', 'a b', '']],
  ]

  test.each(cases)('%s', (_name, format, samples) => {
    const pattern = new RegExp((z.toJSONSchema(format()) as Json)['pattern'] as string)
    for (const sample of samples) {
      expect(pattern.test(sample), JSON.stringify(sample)).toBe(format().safeParse(sample).success)
    }
  })
})
