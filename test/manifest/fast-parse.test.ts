/**
 * The manifest's fast path (src/manifest/fast-parse.ts, its plan generated from the zod schema)
 * against the zod parse: on every manifest in the repository (examples, fixtures, the YAML blocks
 * of README and docs, manifests written in the tests, the lab's) and on variants generated from the
 * plan (each key absent, each value of a sample set per type: every enum value, bounds and one past
 * them, wrong types, NUL, NaN), the fast path either returns exactly zod's output (same values,
 * same key order, same types) or gives up, and it gives up on every document zod rejects, so every
 * error still comes from zod. parseManifestText (what loadManifestFile runs) returns exactly what
 * parseManifest returns.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { stringify } from 'yaml'
import { fastParse, type PlanNode } from '../../src/manifest/fast-parse.js'
import { manifestPlan, renderManifestPlan } from '../../src/manifest/fast-plan.js'
import { parseManifestText } from '../../src/manifest/manifest-file.js'
import { MANIFEST_PLAN } from '../../src/manifest/manifest-plan.generated.js'
import { parseManifest } from '../../src/manifest/parse.js'
import { readManifestYaml } from '../../src/manifest/parse-stages.js'
import { ManifestSchema } from '../../src/manifest/schema.js'
import { renderLabManifest } from '../../src/lab/lab-manifest.js'
import { nativeLabManifest } from '../../src/lab/native-manifest.js'
import { BASE } from './fixtures/base-manifest.js'

const walk = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => {
    const p = join(dir, f)
    return f === 'node_modules' || f.startsWith('.') ? [] : statSync(p).isDirectory() ? walk(p) : [p]
  })

/** Every YAML block of the README and the docs. */
const markdownBlocks = (): [string, string][] =>
  ['README.md', ...walk('docs').filter((f) => f.endsWith('.md'))].flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(/```ya?ml\n([\s\S]*?)```/g)].map((m, i): [string, string] => [`${file} block ${i + 1}`, m[1]!]),
  )

/** Manifests the tests write out whole (template literals without interpolation that start at `version:`). */
const testManifests = (): [string, string][] =>
  walk('test')
    .filter((f) => f.endsWith('.ts'))
    .flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/`(version: 1\n[^`$]*)`/g)].map((m, i): [string, string] => [`${file} literal ${i + 1}`, m[1]!]))

const LAB = renderLabManifest({
  nodes: [
    { name: 'node-1', role: 'head', sshHost: 'vrd-lab-node-1', fabricIp: '10.77.0.11', gpus: 0, hostKey: 'SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s' },
    {
      name: 'node-2',
      role: 'worker',
      sshHost: 'vrd-lab-node-2',
      fabricIp: '10.77.0.12',
      gpus: 0,
      hostKey: 'SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s',
    },
  ] as never,
  sshUser: 'root',
  sshPort: 22,
  fabricInterface: 'eth1',
  fabricSubnet: '10.77.0.0/24',
  imageRef: 'vrd-lab/vllm:latest',
})

/** Every optional section present: the variants below reach each key under them. */
const FULL = `version: 1
cluster: full
ssh:
  user: deploy
  port: 2222
  connectTimeoutSeconds: 5
  commandTimeoutSeconds: 600
  jumpHost: { host: bastion.example.com, port: 22, user: jump, hostKeys: ["SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s"] }
  fabricCiphers: [aes128-gcm@openssh.com]
fabric: { interfaces: [enp1s0f1np1], subnet: 192.168.200.0/24, mtu: 9000, linkSpeedGbps: 200 }
nodes:
  - { name: a, role: head, ssh: { host: 10.0.0.1, port: 22, user: root, hostKeys: [] }, fabricIp: 192.168.200.12, gpus: 1 }
  - { name: b, role: worker, ssh: { host: 10.0.0.2 }, fabricIp: 192.168.200.13, gpus: 1 }
image: { ref: "registry:5000/team/vllm:v0.11.0", digest: "sha256:${'0'.repeat(64)}", distribution: relay }
container:
  name: c1
  gpus: "device=0,1"
  shmSize: 16g
  devices: [/dev/infiniband]
  volumes: ["/a:/b:ro"]
  extraArgs: [--ulimit, memlock=-1, 3, true]
  env: { A: 1, B: "x", C: false }
  secretEnv: [HF_TOKEN]
ray: { port: 6379, dashboard: true, dashboardPort: 8265, objectStoreMemoryBytes: 1000000, extraArgs: [--num-cpus, 4] }
vllm:
  model: Qwen/Qwen3.5-122B-A10B-FP8
  servedModelName: qwen
  tensorParallelSize: 2
  pipelineParallelSize: 1
  port: 8000
  args: [--max-model-len, 32768]
  env: { VLLM_X: 1 }
  version: 0.11.0
  kvCacheMemoryBytes: 1000000000
model:
  path: /var/lib/vrd/models/qwen
  source: { hub: { repo: Qwen/Qwen3.5-122B-A10B-FP8, revision: "0123456789abcdef0123456789abcdef01234567", endpoint: "https://hf-mirror.example.com", allowInsecure: false } }
  distribution: each
  streams: 2
launch: { mode: builtin }
smoke:
  readyTimeoutSeconds: 900
  phaseBudgetSeconds: { config: 10, distributedInit: 10, weightsLoading: 10, compilation: 10, kvCacheProfiling: 10, cudaGraphCapture: 10, apiServer: 10 }
  requestTimeoutSeconds: 60
  apiKeySecret: API_KEY
  stream: false
  burst: { requests: 4, maxTokens: 8 }
  metrics: false
  clusterProof: false
  prompts:
    - { prompt: hi, maxTokens: 4, chat: true, expect: { contains: h, minCompletionTokens: 1, regex: "^h", finishReason: stop } }
  latency: { maxTimeToFirstTokenMs: 1000, maxTotalMs: 2000, maxInterTokenMs: 100, maxP95Ms: 3000, minTokensPerSecond: 1.5 }
  regression: { action: fail, maxSlowdown: 2 }
deploy:
  onFailure: stop
  lockTtlMinutes: 30
  releasesKept: 2
  teardownTimeoutSeconds: 30
  memoryWatchdog: { enabled: on, floorBytes: 1000, floorPercent: 2.5, pressureFullAvg10Max: 50, intervalSeconds: 5 }
  scriptCheck: block
preflight: { collective: false, collectiveTimeoutSeconds: 30 }
fit: { nodeMemory: { unified: true, bytes: 130662000000 } }
`
const SCRIPT = BASE.replace('vllm:\n', 'launch: { mode: script, path: launch.sh, allowOutsideRepository: true, args: [a, 1], env: { X: y } }\nvllm:\n')

const CORPUS: [string, string][] = [
  ...walk('src/manifest/examples').map((f): [string, string] => [f, readFileSync(f, 'utf8')]),
  ['test/fixtures/three-mistakes.yml', readFileSync('test/fixtures/three-mistakes.yml', 'utf8')],
  ...markdownBlocks(),
  ...testManifests(),
  ['lab manifest', LAB],
  ['lab manifest, native', nativeLabManifest(LAB)],
  ['BASE', BASE],
  ['FULL', FULL],
  ['SCRIPT', SCRIPT],
]

/** zod's answer and the fast path's for the same data; the fast path may only give up or agree. */
function compare(data: unknown): 'fast' | 'zod' {
  const zod = ManifestSchema.safeParse(data, { jitless: true })
  const fast = fastParse(MANIFEST_PLAN, data)
  if (!zod.success) {
    expect(fast, 'the fast path accepted what zod rejects').toBeUndefined()
    return 'zod'
  }
  if (fast === undefined) {
    // The one construct the plan leaves to zod (see the plan test below).
    expect((data as { smoke?: { url?: unknown } }).smoke?.url, 'the fast path gave up on a valid manifest').toBeDefined()
    return 'zod'
  }
  expect(fast.value).toStrictEqual(zod.data)
  expect(JSON.stringify(fast.value)).toBe(JSON.stringify(zod.data))
  return 'fast'
}

const dataOf = (text: string): unknown => {
  const stage = readManifestYaml(text, 'm.yml')
  return 'done' in stage ? undefined : stage.data
}

const ABSENT = Symbol('absent')
const STRINGS = [
  '',
  ' ',
  'x',
  'a\0b',
  'a/b',
  'a..b',
  'user@host',
  'spark-a',
  '1',
  'all',
  'device=0',
  'device=',
  '192.168.200.12',
  '192.168.200.0/24',
  '10.0.0.256',
  'SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s',
  'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl',
  'aa:bb:cc:dd:ee:ff:00:11:22:33:44:55:66:77:88:99',
  '/dev/infiniband',
  '/a:/b',
  '/a/./b',
  '16g',
  'HF_TOKEN',
  'http://mirror',
  'https://mirror',
  'org/name',
  'main',
  `sha256:${'a'.repeat(64)}`,
  'vllm/vllm-openai:v0.11.0',
  '0.11.0',
  '[',
  'aes128-gcm@openssh.com',
  'x'.repeat(64),
]
const COMMON: unknown[] = [null, 'text', 7, true, [], {}]
/** Each string field tries a different 8 of STRINGS (the machine is shared: every string on every field is 5x the time). */
let rotation = 0
const someStrings = (): string[] => {
  rotation += 5
  return Array.from({ length: 8 }, (_, i) => STRINGS[(rotation + i * 4) % STRINGS.length]!)
}

function unwrap(node: PlanNode): PlanNode {
  if (node.t === 'optional' || node.t === 'default' || node.t === 'prefault') return unwrap(node.inner)
  if (node.t === 'pipe') return unwrap(node.in)
  return node
}

/** Values worth trying where `node` is: every literal, each bound and one past it, wrong types. */
function samples(node: PlanNode): unknown[] {
  const n = unwrap(node)
  const bounds = (n.checks ?? []).flatMap((c) => ('n' in c ? [c.n - 1, c.n, c.n + 1] : []))
  switch (n.t) {
    case 'literal':
      return [...n.values, 'zzz', ...COMMON]
    case 'string':
      return [...someStrings(), ...bounds.filter((b) => b >= 0 && b < 100).map((b) => 'y'.repeat(b)), 5, null, []]
    case 'number':
      return [0, 1, -1, 1.5, 2 ** 53, Number.NaN, Number.POSITIVE_INFINITY, ...bounds, '1', ...COMMON]
    case 'boolean':
      return [true, false, 'true', 0, ...COMMON]
    case 'array':
      return [
        [],
        ['x'],
        [1],
        [null],
        ...samples(n.element)
          .slice(0, 3)
          .map((s) => [s]),
        'x',
        ...COMMON,
      ]
    case 'record':
      return [{}, { A: 'x' }, { A: 1 }, { A: false }, { A: null }, { '1A': 'x' }, { 'A-B': 'x' }, { A: 'a\0b' }, ...COMMON]
    case 'union':
      return n.options.flatMap((o) => samples(o).slice(0, 12))
    default:
      return COMMON
  }
}

function withValue(data: unknown, path: readonly string[], value: unknown): unknown {
  const copy = structuredClone(data) as Record<string, unknown>
  let at = copy
  for (const key of path.slice(0, -1)) {
    if (typeof at[key] !== 'object' || at[key] === null) at[key] = {}
    at = at[key] as Record<string, unknown>
  }
  const last = path[path.length - 1]!
  if (value === ABSENT) delete at[last]
  else at[last] = value
  return copy
}

/** One variant per key of every object the plan reaches from `data` (absent sections included), per sample value. */
function* variants(node: PlanNode, data: unknown, path: readonly string[]): Generator<readonly [readonly string[], unknown]> {
  const n = unwrap(node)
  if (n.t === 'array' && Array.isArray(data) && data.length > 0) {
    // The first element's keys, through the array index.
    for (const [inner, value] of variants(n.element, data[0], [])) yield [[...path, '0', ...inner], value]
    return
  }
  if (n.t === 'union') {
    for (const option of n.options) yield* variants(option, data, path)
    return
  }
  if (n.t !== 'object') return
  const here = typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as Record<string, unknown>) : {}
  for (const field of n.fields) {
    const at = [...path, field.key]
    yield [at, ABSENT]
    for (const value of samples(field.node)) yield [at, value]
    yield* variants(field.node, here[field.key], at)
  }
}

describe('the manifest fast path against zod', () => {
  it('the generated plan is what the schema renders, and leaves only smoke.url to zod', () => {
    expect(MANIFEST_PLAN).toEqual(manifestPlan())
    expect(renderManifestPlan()).toContain('export const MANIFEST_PLAN')
    expect([...JSON.stringify(MANIFEST_PLAN).matchAll(/"what":"([^"]*)"/g)].map((m) => m[1])).toEqual(['string url'])
  })

  it('finds the repository manifests', () => {
    const names = CORPUS.map(([name]) => name)
    expect(names).toContain('src/manifest/examples/dgx-spark-pair.yml')
    expect(names.filter((n) => n.includes('README.md') || n.startsWith('docs')).length).toBeGreaterThan(3)
    expect(names.filter((n) => n.includes(' literal ')).length).toBeGreaterThanOrEqual(2)
  })

  it('on every manifest of the repository: the same output as zod, or zod decides', async () => {
    const answers = { fast: 0, zod: 0 }
    for (const [name, text] of CORPUS) {
      const data = dataOf(text)
      if (data !== undefined) answers[compare(data)]++
      expect(await parseManifestText(text, name), name).toStrictEqual(parseManifest(text, name))
    }
    // The example, the lab's, BASE and FULL at least are valid and take the fast path.
    expect(answers.fast).toBeGreaterThanOrEqual(5)
  })

  it.each([
    ['the example', readFileSync('src/manifest/examples/dgx-spark-pair.yml', 'utf8')],
    ['FULL', FULL],
    ['SCRIPT', SCRIPT],
    ['the lab manifest', LAB],
  ])('on every generated variant of %s: the same output as zod, or zod decides; invalid ones always reach zod', async (_name, text) => {
    const base = dataOf(text)
    expect(ManifestSchema.safeParse(base).success).toBe(true)
    const answers = { fast: 0, zod: 0 }
    let i = 0
    for (const [path, value] of variants(MANIFEST_PLAN, base, [])) {
      const data = withValue(base, path, value)
      answers[compare(data)]++
      // The whole result through the text, for a sample of the variants (the YAML stage is the same code on both paths).
      if (i++ % 60 === 0 && typeof value !== 'number') {
        const yaml = stringify(data)
        expect(await parseManifestText(yaml, 'v.yml')).toStrictEqual(parseManifest(yaml, 'v.yml'))
      }
    }
    expect(answers.fast).toBeGreaterThan(100)
    expect(answers.zod).toBeGreaterThan(100)
  })
})
