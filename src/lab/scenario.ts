/**
 * Lab scenarios: the lab's own cluster brought up by a launch script, the way users with their own
 * scripts do it (`launch.mode: script`). `healthy` is wired right; `seed-bug` is the incident (Ray
 * head without --node-ip-address, VLLM_HOST_IP on the fabric); `worker-override` is its second bug
 * (a stale VLLM_HOST_IP in the worker section); `worker-stalls-loading` and `worker-dies-loading` are
 * wired right with the stand-in's fault in the worker's weights loading (issue 39). The run goes through the deploy's own stages (the one
 * deploy plan) up to the point where Ray has every node; `serve` then starts vLLM and watches it.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { type StartedUntilRay, startUntilRay } from '../deploy/rollout.js'
import { type WatchResult, watchVllmStartup } from '../preflight/watch-vllm.js'
import { loadManifestFile } from '../manifest/manifest-file.js'
import type { Manifest } from '../manifest/schema.js'
import { headOf, startVllm } from '../plan/node-commands.js'
import { SshTransport } from '../transport/ssh.js'
import { sshTargetFor } from '../transport/targets.js'
import type { Transport } from '../transport/transport.js'
import { ok } from '../result/result.js'
import { type LabResult, labFail } from './lab-problem.js'
import { labPaths, repoRoot, resolveLabDir } from './paths.js'

export const SCENARIOS = ['healthy', 'seed-bug', 'worker-override', 'worker-stalls-loading', 'worker-dies-loading'] as const
export type ScenarioName = (typeof SCENARIOS)[number]

export interface ScenarioOptions {
  readonly dir?: string
  /** Also start `vllm serve` on the head and watch it (health or a failure signature). */
  readonly serve?: boolean
  readonly serveDeadlineMs?: number
  readonly onProgress?: (message: string) => void
  /** Run this launch script text instead of the scenario's own (e.g. the scenario patched by `diagnose --fix-out`). */
  readonly script?: string
}

export interface ScenarioResult {
  readonly scenario: ScenarioName
  readonly manifestPath: string
  readonly launchScript: string
  readonly execution: StartedUntilRay
  readonly vllm?: WatchResult & { readonly started: boolean }
}

function scenarioDir(): LabResult<string> {
  const root = repoRoot()
  if (!root) return labFail('not-ready', 'cannot find the lab scenarios (src/lab/scenarios) above this program')
  return ok(join(root, 'src', 'lab', 'scenarios'))
}

/** One self-contained launch script: common.sh followed by the scenario body. */
export function scenarioScript(name: ScenarioName): LabResult<string> {
  const found = scenarioDir()
  if (!found.ok) return found
  const dir = found.value
  const common = readFileSync(join(dir, 'common.sh'), 'utf8')
  const body = readFileSync(join(dir, `${name}.sh`), 'utf8')
    .split('\n')
    .filter((l) => !l.startsWith('. "$(dirname "$0")/common.sh"'))
  const [shebang, ...rest] = body
  return ok([shebang, `# Generated from src/lab/scenarios/common.sh + ${name}.sh`, common, ...rest].join('\n'))
}

/** A file `lab up` writes into the lab dir (its key, its known_hosts), or what to run when it is not there. */
function readLabFile(path: string): LabResult<string> {
  try {
    return ok(readFileSync(path, 'utf8'))
  } catch (e) {
    return labFail('not-ready', `cannot read the lab's ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, 'vllm-ray-deploy lab up')
  }
}

/** Open one SSH transport per node with the lab's key and pinned host keys. */
export async function labTransports(m: Manifest, dir?: string): Promise<LabResult<Map<string, Transport>>> {
  const root = resolveLabDir(dir)
  if (!root.ok) return root
  const paths = labPaths(root.value)
  const privateKey = readLabFile(paths.sshKey)
  if (!privateKey.ok) return privateKey
  const knownHosts = readLabFile(paths.knownHosts)
  if (!knownHosts.ok) return knownHosts
  const keys = { privateKey: privateKey.value, knownHosts: knownHosts.value }
  const entries = await Promise.all(m.nodes.map(async (n) => [n.name, await SshTransport.connect(sshTargetFor(m, n, keys))] as const))
  const transports = new Map(entries.flatMap(([name, r]) => (r.ok ? [[name, r.value as Transport] as const] : [])))
  const failed = entries.flatMap(([name, r]) => (r.ok ? [] : [`${name}: ${r.problem.message}`]))
  if (failed.length === 0) return ok(transports)
  await Promise.all([...transports.values()].map((t) => t.close()))
  return labFail('not-ready', `cannot reach every lab node over SSH: ${failed.join('; ')}`, 'vllm-ray-deploy lab up')
}

export async function loadLabManifest(dir?: string): Promise<LabResult<{ manifest: Manifest; path: string }>> {
  const root = resolveLabDir(dir)
  if (!root.ok) return root
  const path = labPaths(root.value).manifest
  const { manifest, errors } = await loadManifestFile(path)
  if (!manifest) {
    return labFail('not-ready', `the lab's manifest ${path} is missing or invalid${errors[0] ? `: ${errors[0].message}` : ''}`, 'vllm-ray-deploy lab up')
  }
  return ok({ manifest, path })
}

export async function runLabScenario(name: ScenarioName, opts: ScenarioOptions = {}): Promise<LabResult<ScenarioResult>> {
  const loaded = await loadLabManifest(opts.dir)
  if (!loaded.ok) return loaded
  const { manifest, path } = loaded.value
  const root = resolveLabDir(opts.dir)
  if (!root.ok) return root
  const script = opts.script !== undefined ? ok(opts.script) : scenarioScript(name)
  if (!script.ok) return script
  mkdirSync(join(root.value, 'scenarios'), { recursive: true })
  const launchScript = join(root.value, 'scenarios', `${name}.sh`)
  writeFileSync(launchScript, script.value, { mode: 0o755 })
  const m: Manifest = { ...manifest, launch: { mode: 'script', path: launchScript, args: [], env: {} } }
  const opened = await labTransports(m, opts.dir)
  if (!opened.ok) return opened
  const transports = opened.value
  try {
    // The deploy's own stages (image, release files, stop previous, launch, every node in Ray), no gates.
    const execution = await startUntilRay({
      manifest: m,
      manifestPath: path,
      transports,
      env: process.env,
      release: `lab-${name}`,
      who: 'vllm-ray-deploy lab',
      ...(opts.onProgress && { onProgress: opts.onProgress }),
    })
    if (!opts.serve || !execution.ok) return ok({ scenario: name, manifestPath: path, launchScript, execution })
    return ok({ scenario: name, manifestPath: path, launchScript, execution, vllm: await serveAndWatch(m, transports, opts) })
  } finally {
    await Promise.all([...transports.values()].map((t) => t.close()))
  }
}

/**
 * `vllm serve` on the head of the cluster a scenario left running (runLabScenario without `serve`),
 * watched as runLabScenario's `serve` watches it: for a test that first inspects the cluster before
 * vLLM starts, then starts vLLM on that same cluster.
 */
export async function serveLabScenario(opts: Omit<ScenarioOptions, 'serve' | 'script'> = {}): Promise<LabResult<NonNullable<ScenarioResult['vllm']>>> {
  const loaded = await loadLabManifest(opts.dir)
  if (!loaded.ok) return loaded
  const { manifest } = loaded.value
  const opened = await labTransports(manifest, opts.dir)
  if (!opened.ok) return opened
  const transports = opened.value
  try {
    return ok(await serveAndWatch(manifest, transports, opts))
  } finally {
    await Promise.all([...transports.values()].map((t) => t.close()))
  }
}

async function serveAndWatch(m: Manifest, transports: Map<string, Transport>, opts: ScenarioOptions): Promise<NonNullable<ScenarioResult['vllm']>> {
  const head = transports.get(headOf(m).name)!
  opts.onProgress?.(`== vllm: start vllm serve on ${headOf(m).name} and watch its log`)
  const start = await head.run(startVllm(m), { timeoutMs: 60_000 })
  if (start.code !== 0) {
    return { started: false, ready: false, findings: [], waitedMs: 0, reason: `vllm serve did not start: ${start.stderr.trim()}`, logTail: '', timeline: [] }
  }
  const watch = await watchVllmStartup(head, m, {
    deadlineMs: opts.serveDeadlineMs ?? 180_000,
    nodes: transports,
    ...(opts.onProgress && { onProgress: opts.onProgress }),
  })
  return { started: true, ...watch }
}
