import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, test } from 'vitest'
import { parse as parseYaml } from 'yaml'
import { expectationFromManifest } from '../../src/manifest/expectation.js'
import { loadManifestFile, parseManifest } from '../../src/manifest/load-manifest.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { BASE } from './fixtures/base-manifest.js'

/** Any part of T: the values this test names, checked with toMatchObject. */
type DeepPartial<T> = T extends readonly (infer U)[] ? readonly DeepPartial<U>[] : T extends object ? { readonly [K in keyof T]?: DeepPartial<T[K]> } : T

interface JsonNode {
  readonly properties?: Record<string, JsonNode>
  readonly default?: unknown
}

const EXAMPLE = fileURLToPath(new URL('../../src/manifest/examples/dgx-spark-pair.yml', import.meta.url))

describe('the DGX Spark pair example', () => {
  test('validates', async () => {
    const { manifest, errors } = await loadManifestFile(EXAMPLE)
    expect(errors).toEqual([])
    expect(manifest?.cluster).toBe('spark-pair')
    expect(manifest?.nodes.map((node) => [node.name, node.role, node.ssh.host, node.fabricIp])).toEqual([
      ['spark-a', 'head', '10.1.230.180', '192.168.200.12'],
      ['spark-b', 'worker', '10.1.230.181', '192.168.200.13'],
    ])
    expect(manifest?.vllm).toMatchObject({ model: 'Qwen/Qwen3.5-122B-A10B-FP8', tensorParallelSize: 2, executorBackend: 'ray' })
  })

  test('gives the preflight expectation', async () => {
    const { manifest } = await loadManifestFile(EXAMPLE)
    expect(expectationFromManifest(manifest!)).toEqual({
      cluster: 'spark-pair',
      nodes: [
        { name: 'spark-a', role: 'head', sshHost: '10.1.230.180', fabricIp: '192.168.200.12', gpus: 1, sshUser: manifest!.ssh.user, sshPort: 22 },
        { name: 'spark-b', role: 'worker', sshHost: '10.1.230.181', fabricIp: '192.168.200.13', gpus: 1, sshUser: manifest!.ssh.user, sshPort: 22 },
      ],
      fabricInterfaces: ['enp1s0f1np1'],
      fabricSubnet: '192.168.200.0/24',
      tensorParallelSize: 2,
      pipelineParallelSize: 1,
      image: 'hellohal2064/vllm-qwen3.5-gb10:latest',
      containerName: 'vllm-ray',
      rayPort: 6379,
      // The example's vllm.args set --gpu-memory-utilization 0.85.
      gpuMemoryUtilization: 0.85,
      containerEnv: manifest!.container.env,
      // The built-in launcher's docker run --gpus all (container.gpus), nothing else in container.extraArgs.
      gpuRequest: { known: true, gpus: 'all', cdiDevices: [] },
    })
  })
})

describe('defaults', () => {
  test('a minimal manifest comes back with these defaults applied', () => {
    const { manifest, errors } = parseManifest(BASE, 'cluster.yml')
    expect(errors).toEqual([])
    // Matched, not equal: a key added later is held by the next test (its schema default applied), not by a line here.
    const expected = {
      version: 1,
      cluster: 'pair',
      ssh: { user: 'root', port: 22, connectTimeoutSeconds: 20, commandTimeoutSeconds: 1800 },
      fabric: { interfaces: ['enp1s0f1np1'], subnet: '192.168.200.0/24' },
      nodes: [
        { name: 'spark-a', role: 'head', ssh: { host: '10.1.230.180', hostKeys: [] }, fabricIp: '192.168.200.12', gpus: 1 },
        { name: 'spark-b', role: 'worker', ssh: { host: '10.1.230.181', hostKeys: [] }, fabricIp: '192.168.200.13', gpus: 1 },
      ],
      image: { ref: 'hellohal2064/vllm-qwen3.5-gb10:latest', distribution: 'pull' },
      container: { name: 'vllm-ray', gpus: 'all', devices: [], volumes: [], extraArgs: [], env: {}, secretEnv: [] },
      ray: { port: 6379, dashboard: false, dashboardPort: 8265, extraArgs: [] },
      vllm: {
        model: 'Qwen/Qwen3.5-122B-A10B-FP8',
        tensorParallelSize: 2,
        pipelineParallelSize: 1,
        port: 8000,
        args: [],
        env: {},
        executorBackend: 'ray',
        masterPort: 29501,
      },
      launch: { mode: 'builtin' },
      smoke: {
        readyTimeoutSeconds: 1800,
        phaseBudgetSeconds: {
          config: 300,
          distributedInit: 600,
          weightsLoading: 1800,
          compilation: 1200,
          kvCacheProfiling: 600,
          cudaGraphCapture: 600,
          apiServer: 300,
        },
        requestTimeoutSeconds: 120,
        stream: true,
        burst: { requests: 0, maxTokens: 32 },
        metrics: true,
        clusterProof: true,
        prompts: [{ prompt: 'Say hello.', maxTokens: 16, chat: false, expect: { minCompletionTokens: 1 } }],
        latency: {},
        regression: { action: 'warn', maxSlowdown: 1.5 },
      },
      deploy: { onFailure: 'rollback', lockTtlMinutes: 60, releasesKept: 3, teardownTimeoutSeconds: 60, scriptCheck: 'warn' },
      preflight: { collective: true, collectiveTimeoutSeconds: 45 },
      fit: {},
    } satisfies DeepPartial<Manifest>
    expect(manifest).toMatchObject(expected)
  })

  test('every default the JSON Schema declares is what parsing gives a key the manifest leaves out', () => {
    const { manifest } = parseManifest(BASE, 'cluster.yml')
    const schema = JSON.parse(readFileSync('src/manifest/cluster-manifest.schema.json', 'utf8')) as JsonNode
    const given = parseYaml(BASE) as Record<string, unknown>
    const checked: string[] = []
    /** Each object-valued schema node under `node`, against the parsed `value` and what the manifest wrote (`raw`). */
    const walk = (node: JsonNode, value: unknown, raw: unknown, path: string): void => {
      for (const [key, child] of Object.entries(node.properties ?? {})) {
        const v = (value as Record<string, unknown> | undefined)?.[key]
        const r = (raw as Record<string, unknown> | undefined)?.[key]
        if (r === undefined && 'default' in child && !(typeof child.default === 'object' && child.default !== null)) {
          expect(v, `${path}${key}`).toEqual(child.default)
          checked.push(`${path}${key}`)
        }
        if (child.properties && v !== undefined) walk(child, v, r, `${path}${key}.`)
      }
    }
    walk(schema, manifest, given, '')
    expect(checked).toContain('deploy.releasesKept')
    expect(checked.length).toBeGreaterThan(25)
  })

  test('defaults inside lists and optional sections: jump host port, smoke prompt fields, script launch', () => {
    const text = `${BASE}ssh:\n  jumpHost: { host: bastion }\nlaunch:\n  mode: script\n  path: launch.sh\nsmoke:\n  prompts:\n    - prompt: hi\n`
    const { manifest, errors } = parseManifest(text, 'cluster.yml')
    expect(errors).toEqual([])
    expect(manifest?.ssh.jumpHost).toEqual({ host: 'bastion', port: 22, hostKeys: [] })
    expect(manifest?.launch).toEqual({ mode: 'script', path: 'launch.sh', args: [], env: {} })
    expect(manifest?.smoke.prompts).toEqual([{ prompt: 'hi', maxTokens: 32, chat: false, expect: {} }])
  })

  test('numbers and booleans in env maps and argument lists are taken as their text', () => {
    const text = `${BASE}container:\n  env: { NCCL_IB_GID_INDEX: 3, NCCL_DEBUG: INFO, FLAG: true }\n  extraArgs: [--ulimit, memlock=-1]\n`
    const { manifest } = parseManifest(text, 'cluster.yml')
    expect(manifest?.container.env).toEqual({ NCCL_IB_GID_INDEX: '3', NCCL_DEBUG: 'INFO', FLAG: 'true' })
  })
})

describe('loadManifestFile', () => {
  test('a missing file is one located error, not an exception', async () => {
    const { manifest, errors } = await loadManifestFile('/nonexistent/cluster.yml')
    expect(manifest).toBeUndefined()
    expect(errors).toEqual([expect.objectContaining({ code: 'FILE_NOT_FOUND', file: '/nonexistent/cluster.yml', line: 1, col: 1, path: [] })])
  })

  test('a directory is one located error too', async () => {
    const { errors } = await loadManifestFile(fileURLToPath(new URL('.', import.meta.url)))
    expect(errors).toMatchObject([{ code: 'FILE_UNREADABLE', line: 1, col: 1 }])
  })
})
