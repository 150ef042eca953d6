import { describe, expect, test } from 'vitest'
import { didYouMean } from '../../src/manifest/did-you-mean.js'
import { parseImageReference } from '../../src/manifest/image-reference.js'
import { cidrContains, parseCidr, parseIpv4 } from '../../src/net/ipv4.js'
import { parseManifest } from '../../src/manifest/load-manifest.js'
import type { ManifestError } from '../../src/manifest/manifest-error.js'
import { BASE, withLine } from './fixtures/base-manifest.js'

const where = ({ code, line, col, path }: ManifestError) => ({ code, line, col, path })
const errorsOf = (text: string) => parseManifest(text, 'cluster.yml').errors

describe('value formats are checked where they are written', () => {
  test('an IPv4 address with three parts', () => {
    const errors = errorsOf(withLine(BASE, 15, '    fabricIp: 192.168.200.13', '    fabricIp: 192.168.200'))
    expect(errors.map(where)).toEqual([{ code: 'INVALID_IPV4', line: 15, col: 15, path: ['nodes', 1, 'fabricIp'] }])
    expect(errors[0]?.message).toBe(
      'nodes[1].fabricIp: expected an IPv4 address like 192.168.200.12, got "192.168.200" (it has 3 parts; an IPv4 address has 4)',
    )
  })

  test('an IPv4 address YAML reads as a number', () => {
    const errors = errorsOf(withLine(BASE, 15, '    fabricIp: 192.168.200.13', '    fabricIp: 192.168'))
    expect(errors).toMatchObject([
      { code: 'WRONG_TYPE', line: 15, col: 15, message: 'nodes[1].fabricIp: expected an IPv4 address like 192.168.200.12, got the number 192.168' },
    ])
  })

  test('a CIDR block with host bits set suggests the network address', () => {
    const errors = errorsOf(withLine(BASE, 5, '  subnet: 192.168.200.0/24', '  subnet: 192.168.200.12/24'))
    expect(errors.map(where)).toEqual([{ code: 'INVALID_CIDR', line: 5, col: 11, path: ['fabric', 'subnet'] }])
    expect(errors[0]?.fix).toBe('write the network address: 192.168.200.0/24')
  })

  test('a CIDR block without a prefix', () => {
    const errors = errorsOf(withLine(BASE, 5, '  subnet: 192.168.200.0/24', '  subnet: 192.168.200.0'))
    expect(errors).toMatchObject([{ code: 'INVALID_CIDR', line: 5, col: 11 }])
    expect(errors[0]?.message).toContain('(it has no "/prefix" part)')
  })

  test('interface names: too long, with "/" or ":"', () => {
    const errors = errorsOf(withLine(BASE, 4, '  interfaces: [enp1s0f1np1]', '  interfaces: [enp1s0f1np1-extra, eth0/1, eth0:1]'))
    // "  interfaces: [" is 15 characters; the items start at cols 16, 35 and 43.
    expect(errors.map(where)).toEqual([
      { code: 'INVALID_INTERFACE_NAME', line: 4, col: 16, path: ['fabric', 'interfaces', 0] },
      { code: 'INVALID_INTERFACE_NAME', line: 4, col: 35, path: ['fabric', 'interfaces', 1] },
      { code: 'INVALID_INTERFACE_NAME', line: 4, col: 43, path: ['fabric', 'interfaces', 2] },
    ])
    expect(errors[0]?.message).toContain('(it is 17 characters long; Linux allows at most 15)')
  })

  test('environment variable names in env maps (at the key) and in secretEnv', () => {
    const text = `${BASE}container:\n  env:\n    HF-HOME: /cache\n  secretEnv: [2FA_TOKEN]\n`
    const errors = errorsOf(text)
    expect(errors.map(where)).toEqual([
      { code: 'INVALID_ENV_NAME', line: 24, col: 5, path: ['container', 'env', 'HF-HOME'] },
      { code: 'INVALID_ENV_NAME', line: 25, col: 15, path: ['container', 'secretEnv', 0] },
    ])
    expect(errors.map((error) => error.fix)).toEqual(['rename it to HF_HOME', 'rename it to _2FA_TOKEN'])
  })

  test('image references: capitals in the repository, bad tag, short digest', () => {
    const line = '  ref: hellohal2064/vllm-qwen3.5-gb10:latest'
    expect(errorsOf(withLine(BASE, 18, line, '  ref: HelloHal2064/vllm:latest'))).toMatchObject([
      { code: 'INVALID_IMAGE_REF', line: 18, col: 8, message: expect.stringContaining('(the repository path must be lowercase, but has "HelloHal2064")') },
    ])
    expect(errorsOf(withLine(BASE, 18, line, '  ref: org/vllm:-bad'))).toMatchObject([{ code: 'INVALID_IMAGE_REF', line: 18, col: 8 }])
    expect(errorsOf(withLine(BASE, 18, line, '  ref: org/vllm@sha256:abc'))).toMatchObject([{ code: 'INVALID_IMAGE_REF', line: 18, col: 8 }])
    expect(errorsOf(withLine(BASE, 18, line, '  ref: org/vllm\n  digest: md5:abc'))).toMatchObject([{ code: 'INVALID_DIGEST', line: 19, col: 11 }])
  })

  test('ports out of range', () => {
    const errors = errorsOf(`${BASE}ssh:\n  port: 0\nray:\n  port: 70000\n`)
    expect(errors).toMatchObject([
      { code: 'OUT_OF_RANGE', line: 23, col: 9, message: 'ssh.port: expected a whole number from 1 to 65535, got the number 0' },
      { code: 'OUT_OF_RANGE', line: 25, col: 9, message: 'ray.port: expected a whole number from 1 to 65535, got the number 70000' },
    ])
  })

  test('host key pins: SHA256 fingerprints and public key lines pass, MD5 fingerprints do not', () => {
    const pins = (value: string) => errorsOf(withLine(BASE, 9, '    ssh: { host: 10.1.230.180 }', `    ssh: { host: 10.1.230.180, hostKeys: [${value}] }`))
    expect(pins('"SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s"')).toEqual([])
    expect(pins('"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl"')).toEqual([])
    // "    ssh: { host: 10.1.230.180, hostKeys: [" is 42 characters.
    expect(pins('"16:27:ac:a5:76:28:2d:36:63:1b:56:4d:eb:df:a6:48"')).toMatchObject([
      {
        code: 'INVALID_HOST_KEY',
        line: 9,
        col: 43,
        path: ['nodes', 0, 'ssh', 'hostKeys', 0],
        message: expect.stringContaining('MD5 fingerprints are not accepted'),
      },
    ])
  })

  test('user@host in an SSH host is split for you', () => {
    const errors = errorsOf(withLine(BASE, 9, '    ssh: { host: 10.1.230.180 }', '    ssh: { host: root@10.1.230.180 }'))
    expect(errors).toMatchObject([{ code: 'INVALID_HOST', line: 9, col: 18, fix: 'write host: 10.1.230.180 and user: root' }])
  })

  test('container.gpus takes "all", a count or device=...', () => {
    for (const fine of ['all', '2', 'device=0,1']) expect(errorsOf(`${BASE}container:\n  gpus: ${fine}\n`)).toEqual([])
    expect(errorsOf(`${BASE}container:\n  gpus: some\n`)).toMatchObject([
      { line: 23, col: 9, message: 'container.gpus: expected "all", a GPU count like 1, or "device=0,1", got the string "some"' },
    ])
  })
})

describe('parseImageReference follows the docker reference grammar', () => {
  test.each([
    ['hellohal2064/vllm-qwen3.5-gb10', { repository: 'hellohal2064/vllm-qwen3.5-gb10' }],
    ['ubuntu:22.04', { repository: 'ubuntu', tag: '22.04' }],
    ['localhost:5000/team/vllm:v1', { registry: 'localhost:5000', repository: 'team/vllm', tag: 'v1' }],
    ['ghcr.io/org/a__b/c-d.e:T_1', { registry: 'ghcr.io', repository: 'org/a__b/c-d.e', tag: 'T_1' }],
    [`vllm/vllm-openai@sha256:${'f'.repeat(64)}`, { repository: 'vllm/vllm-openai', digest: `sha256:${'f'.repeat(64)}` }],
    [`r.example:443/x:t@sha256:${'0'.repeat(64)}`, { registry: 'r.example:443', repository: 'x', tag: 't', digest: `sha256:${'0'.repeat(64)}` }],
  ])('accepts %s', (text, expected) => {
    expect(parseImageReference(text)).toEqual({ ok: true, value: expected })
  })

  test.each([
    ['', 'it is empty'],
    ['org/Image', 'the repository path must be lowercase, but has "Image"'],
    ['org//image', 'it has an empty path component (a leading, trailing or doubled "/")'],
    ['org/image/', 'it has an empty path component (a leading, trailing or doubled "/")'],
    ['org/-image', 'the path component "-image" may only hold a-z, 0-9 and single ".", "_", "__" or "-" separators between them'],
    ['org/image:.tag', 'the tag ".tag" may only hold letters, digits, "_", "." and "-", and must not start with "." or "-"'],
    [`org/image:${'t'.repeat(129)}`, 'the tag is 129 characters long; at most 128 are allowed'],
    ['org/image@sha256:abc', 'the digest "sha256:abc" is not sha256: followed by 64 lowercase hex digits'],
    ['https://ghcr.io/org/image', 'it starts with a URL scheme; write the registry host without it'],
    ['org/image name', 'it contains whitespace'],
  ])('rejects %j', (text, reason) => {
    expect(parseImageReference(text)).toMatchObject({ ok: false, problem: { message: reason } })
  })
})

describe('IPv4 and CIDR', () => {
  test('parses addresses and rejects leading zeros and large parts', () => {
    expect(parseIpv4('192.168.200.12')).toEqual({ ok: true, value: 0xc0a8c80c })
    expect(parseIpv4('192.168.200.012')).toMatchObject({ ok: false, problem: { message: '"012" is not a number from 0 to 255' } })
    expect(parseIpv4('192.168.300.1')).toMatchObject({ ok: false, problem: { message: '300 is larger than 255' } })
  })

  test('subnet membership at the edges of a block, including /0 and /32', () => {
    const ip = (text: string) => (parseIpv4(text) as { value: number }).value
    const cidr = (text: string) => (parseCidr(text) as { value: { network: number; prefix: number } }).value
    expect(cidrContains(cidr('192.168.200.0/24'), ip('192.168.200.255'))).toBe(true)
    expect(cidrContains(cidr('192.168.200.0/24'), ip('192.168.201.0'))).toBe(false)
    expect(cidrContains(cidr('0.0.0.0/0'), ip('255.255.255.255'))).toBe(true)
    expect(cidrContains(cidr('10.0.0.1/32'), ip('10.0.0.1'))).toBe(true)
    expect(cidrContains(cidr('10.0.0.1/32'), ip('10.0.0.2'))).toBe(false)
    expect(cidrContains(cidr('128.0.0.0/1'), ip('200.1.1.1'))).toBe(true)
  })

  test('rejects bad prefixes', () => {
    expect(parseCidr('10.0.0.0/33')).toMatchObject({ ok: false, problem: { message: 'the prefix "33" is not a number from 0 to 32' } })
  })
})

describe('didYouMean', () => {
  test('matches ignoring case, "-" and "_", and small typos including swapped letters', () => {
    expect(didYouMean('fabricIP', ['fabricIp', 'gpus'])).toBe('fabricIp')
    expect(didYouMean('fabric_ip', ['fabricIp', 'gpus'])).toBe('fabricIp')
    expect(didYouMean('prot', ['port', 'user'])).toBe('port')
    expect(didYouMean('tensorParalelSize', ['tensorParallelSize', 'pipelineParallelSize'])).toBe('tensorParallelSize')
  })

  test('stays quiet when nothing is close', () => {
    expect(didYouMean('quantization', ['model', 'port', 'args'])).toBeUndefined()
  })

  test('a NUL in an argument or an environment value is refused where it is written', () => {
    const text = `${BASE}container:\n  extraArgs: ["--ipc=host", "a\\0b"]\n  env: { NCCL_DEBUG: "INFO\\0" }\n`
    const errors = errorsOf(text)
    expect(errors.map((e) => e.path)).toEqual([
      ['container', 'extraArgs', 1],
      ['container', 'env', 'NCCL_DEBUG'],
    ])
    for (const e of errors) expect(e.message).toMatch(/contains a NUL character/)
  })
})
