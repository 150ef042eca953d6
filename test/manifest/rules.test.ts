import { describe, expect, test } from 'vitest'
import { parseManifest } from '../../src/manifest/load-manifest.js'
import type { ManifestError } from '../../src/manifest/manifest-error.js'
import { partsOfManifest } from '../../src/manifest/parts.js'
import { checkManifestRules } from '../../src/manifest/semantic.js'
import { BASE, withLine, withLines } from './fixtures/base-manifest.js'

const where = ({ code, line, col, path }: ManifestError) => ({ code, line, col, path })
const errorsOf = (text: string) => parseManifest(text, 'cluster.yml').errors

describe('cross-field rules, each located at the offending value', () => {
  test('the base fixture breaks no rule', () => {
    const { manifest, errors } = parseManifest(BASE, 'cluster.yml')
    expect(errors).toEqual([])
    expect(checkManifestRules(partsOfManifest(manifest!))).toEqual([])
  })

  test('no head: reported at the node list', () => {
    const errors = errorsOf(withLine(BASE, 8, '    role: head', '    role: worker'))
    // The list starts with the "-" of its first item: line 7, col 3.
    expect(errors.map(where)).toEqual([{ code: 'NO_HEAD', line: 7, col: 3, path: ['nodes'] }])
  })

  test('two heads: reported at the second head, naming both', () => {
    const errors = errorsOf(withLine(BASE, 13, '    role: worker', '    role: head'))
    expect(errors.map(where)).toEqual([{ code: 'MULTIPLE_HEADS', line: 13, col: 11, path: ['nodes', 1, 'role'] }])
    expect(errors[0]?.fix).toBe('set role: worker on spark-b (or on spark-a)')
  })

  test('a node list with an invalid node does not claim there is no head', () => {
    const errors = errorsOf(withLine(BASE, 8, '    role: head', '    role: boss'))
    expect(errors.map((error) => error.code)).toEqual(['INVALID_VALUE'])
  })

  test('duplicate node names', () => {
    const errors = errorsOf(withLine(BASE, 12, '  - name: spark-b', '  - name: spark-a'))
    expect(errors.map(where)).toEqual([{ code: 'DUPLICATE_NODE_NAME', line: 12, col: 11, path: ['nodes', 1, 'name'] }])
    expect(errors[0]?.message).toBe('node name "spark-a" in nodes[1] is already used by nodes[0]')
  })

  test('duplicate SSH address (host and effective port)', () => {
    const errors = errorsOf(withLine(BASE, 14, '    ssh: { host: 10.1.230.181 }', '    ssh: { host: 10.1.230.180 }'))
    // "    ssh: { host: " is 17 characters: the host starts at col 18.
    expect(errors.map(where)).toEqual([{ code: 'DUPLICATE_SSH_ADDRESS', line: 14, col: 18, path: ['nodes', 1, 'ssh', 'host'] }])
    expect(errors[0]?.message).toBe('nodes[1] "spark-b" has the same SSH address 10.1.230.180:22 as nodes[0] "spark-a"')
  })

  test('the same host on different SSH ports is two nodes', () => {
    const text = withLine(BASE, 14, '    ssh: { host: 10.1.230.181 }', '    ssh: { host: 10.1.230.180, port: 2222 }')
    expect(errorsOf(text)).toEqual([])
  })

  test('duplicate fabric IP', () => {
    const errors = errorsOf(withLine(BASE, 15, '    fabricIp: 192.168.200.13', '    fabricIp: 192.168.200.12'))
    expect(errors.map(where)).toEqual([{ code: 'DUPLICATE_FABRIC_IP', line: 15, col: 15, path: ['nodes', 1, 'fabricIp'] }])
  })

  test('fabric IP outside the fabric subnet', () => {
    const errors = errorsOf(withLine(BASE, 10, '    fabricIp: 192.168.200.12', '    fabricIp: 10.1.230.180'))
    expect(errors.map(where)).toEqual([{ code: 'FABRIC_IP_OUTSIDE_SUBNET', line: 10, col: 15, path: ['nodes', 0, 'fabricIp'] }])
  })

  test('fabric IP that is the broadcast address of the subnet', () => {
    const errors = errorsOf(withLine(BASE, 15, '    fabricIp: 192.168.200.13', '    fabricIp: 192.168.200.255'))
    expect(errors.map(where)).toEqual([{ code: 'FABRIC_IP_RESERVED', line: 15, col: 15, path: ['nodes', 1, 'fabricIp'] }])
    expect(errors[0]?.message).toContain('is the broadcast address of 192.168.200.0/24')
  })

  test('TP x PP larger than the GPUs of all nodes, with the numbers', () => {
    const errors = errorsOf(withLine(BASE, 21, '  tensorParallelSize: 2', '  tensorParallelSize: 2\n  pipelineParallelSize: 2'))
    expect(errors.map(where)).toEqual([{ code: 'PARALLELISM_EXCEEDS_GPUS', line: 21, col: 23, path: ['vllm', 'tensorParallelSize'] }])
    expect(errors[0]?.message).toBe('tensorParallelSize 2 x pipelineParallelSize 2 needs 4 GPUs, but the nodes have 2 in total (spark-a 1, spark-b 1)')
  })

  test('Ray and vLLM on the same port: shown at the port that is written when the other is a default', () => {
    const errors = errorsOf(`${BASE}ray:\n  port: 8000\n`)
    // vllm.port is the default 8000, so the error points at ray.port (line 23, col 9).
    expect(errors.map(where)).toEqual([{ code: 'PORT_CONFLICT', line: 23, col: 9, path: ['vllm', 'port'] }])
    expect(errors[0]?.message).toBe('vllm.port 8000 is the same port as ray.port; both listen on the head node')
  })

  test('the dashboard port counts only when the dashboard is on', () => {
    expect(errorsOf(`${BASE}ray:\n  dashboardPort: 6379\n`)).toEqual([])
    const errors = errorsOf(`${BASE}ray:\n  dashboard: true\n  dashboardPort: 6379\n`)
    expect(errors.map(where)).toEqual([{ code: 'PORT_CONFLICT', line: 24, col: 18, path: ['ray', 'dashboardPort'] }])
  })

  test('an image digest that contradicts the digest in the reference', () => {
    const a = 'a'.repeat(64)
    const b = 'b'.repeat(64)
    const text = withLine(BASE, 18, '  ref: hellohal2064/vllm-qwen3.5-gb10:latest', `  ref: hellohal2064/vllm-qwen3.5-gb10@sha256:${a}\n  digest: sha256:${b}`)
    expect(errorsOf(text).map(where)).toEqual([{ code: 'IMAGE_DIGEST_CONFLICT', line: 19, col: 11, path: ['image', 'digest'] }])
  })

  test('a secret listed twice, or also given a value in container.env', () => {
    const text = `${BASE}container:\n  env: { HF_TOKEN: abc }\n  secretEnv: [HF_TOKEN, HF_TOKEN]\n`
    expect(errorsOf(text).map(where)).toEqual([
      // "  env: { " is 9 characters: the key starts at col 10.
      { code: 'SECRET_ENV_ALSO_SET', line: 23, col: 10, path: ['container', 'env', 'HF_TOKEN'] },
      // "  secretEnv: [HF_TOKEN, " is 24 characters.
      { code: 'DUPLICATE_SECRET_ENV', line: 24, col: 25, path: ['container', 'secretEnv', 1] },
    ])
  })

  test('flags the manifest sets itself do not belong in argument lists', () => {
    const text = withLines(`${BASE}ray:\n  extraArgs: [--node-ip-address, 10.1.230.180]\n`, [
      [21, '  tensorParallelSize: 2', '  tensorParallelSize: 2\n  args: [--max-model-len, 8192, --tensor-parallel-size=2]'],
    ])
    const errors = errorsOf(text)
    expect(errors.map(where)).toEqual([
      // "  args: [--max-model-len, 8192, " is 32 characters.
      { code: 'MANAGED_FLAG_IN_ARGS', line: 22, col: 33, path: ['vllm', 'args', 2] },
      // "  extraArgs: [" is 14 characters.
      { code: 'MANAGED_FLAG_IN_ARGS', line: 24, col: 15, path: ['ray', 'extraArgs', 0] },
    ])
    expect(errors.map((error) => error.message)).toEqual([
      'vllm.args sets --tensor-parallel-size, which this tool sets from vllm.tensorParallelSize',
      'ray.extraArgs sets --node-ip-address, which this tool sets from nodes[].fabricIp',
    ])
  })

  test('VLLM_HOST_IP cannot be one value for every node', () => {
    const errors = errorsOf(`${BASE}container:\n  env:\n    VLLM_HOST_IP: 192.168.200.12\n`)
    expect(errors.map(where)).toEqual([{ code: 'PER_NODE_ENV', line: 24, col: 5, path: ['container', 'env', 'VLLM_HOST_IP'] }])
  })

  test('NCCL/Gloo socket interfaces must be fabric interfaces (NCCL prefixes and exclusions are understood; Gloo takes exact names)', () => {
    const fine = `${BASE}container:\n  env:\n    NCCL_SOCKET_IFNAME: enp1s0\n    GLOO_SOCKET_IFNAME: enp1s0f1np1\n`
    expect(errorsOf(fine)).toEqual([])
    // Gloo reads "^docker" as an interface named "^docker": not a fabric interface.
    const gloo = errorsOf(`${BASE}container:\n  env:\n    GLOO_SOCKET_IFNAME: ^docker,lo\n`)
    expect(gloo.map((e) => [e.code, e.message])).toEqual([
      ['SOCKET_IFNAME_NOT_FABRIC', 'GLOO_SOCKET_IFNAME=^docker,lo in container.env names ^docker, lo, which is not among fabric.interfaces (enp1s0f1np1)'],
    ])
    const errors = errorsOf(`${BASE}container:\n  env:\n    NCCL_SOCKET_IFNAME: eth0\n`)
    // "    NCCL_SOCKET_IFNAME: " is 24 characters.
    expect(errors.map(where)).toEqual([{ code: 'SOCKET_IFNAME_NOT_FABRIC', line: 24, col: 25, path: ['container', 'env', 'NCCL_SOCKET_IFNAME'] }])
    expect(errors[0]?.fix).toBe('set NCCL_SOCKET_IFNAME to enp1s0f1np1 or remove it')
  })

  test('a smoke expectation that maxTokens makes impossible', () => {
    const text = `${BASE}smoke:\n  prompts:\n    - prompt: hi\n      maxTokens: 4\n      expect: { minCompletionTokens: 10 }\n`
    // "      expect: { minCompletionTokens: " is 37 characters.
    expect(errorsOf(text).map(where)).toEqual([
      { code: 'SMOKE_EXPECT_UNREACHABLE', line: 26, col: 38, path: ['smoke', 'prompts', 0, 'expect', 'minCompletionTokens'] },
    ])
  })
})
