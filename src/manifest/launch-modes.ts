/**
 * Which manifest keys each launch mode reads: the one table that decides, per `launch.mode`, whether
 * a key takes effect or is only written. A key a mode does not read is a warning from `validate`,
 * `plan` and `deploy` (`KEY_NOT_READ_IN_LAUNCH_MODE`, at the key's line), never a silent drop.
 * test/manifest/launch-modes.test.ts walks the schema and fails for any leaf key that some mode
 * neither reads nor lists here as ignored, so a key added later needs a decision in this file.
 *
 * Warn, not reject: the keys are valid and mean something to the other mode, so one manifest can
 * switch `launch.mode` (to try a script, or back to the built-in launcher) without deleting and
 * re-adding its settings; but the person is always told which of them change nothing now.
 *
 * A new launch mode is one row of LAUNCH_MODE_KEYS (the Record type and the test require it).
 * Pure.
 */
import { type ManifestPath, type PathIssue, pathLabel } from './manifest-error.js'
import type { LaunchSettings } from './schema.js'

export type LaunchMode = LaunchSettings['mode']

/** Why a mode does not read a key, and what to do instead. */
export interface IgnoredKey {
  readonly why: string
  readonly fix: string
}

export interface LaunchModeKeys {
  /** Leaf key patterns (`nodes[].ssh.host`, `[]` for any list index) this mode reads. */
  readonly reads: readonly string[]
  /** Leaf key patterns the schema allows in this mode that it does not read. */
  readonly ignores: Readonly<Record<string, IgnoredKey>>
}

/**
 * Read whatever starts the nodes: how to reach them (SSH), what they are (nodes, fabric: the host
 * checks, the preflight), the image and its distribution, vLLM (serve.sh runs `vllm serve` in the
 * head's container in every mode), the smoke gate and the rollout's own settings.
 */
const EVERY_MODE_READS = [
  'version',
  'cluster',
  'ssh.user',
  'ssh.port',
  'ssh.connectTimeoutSeconds',
  'ssh.commandTimeoutSeconds',
  'ssh.jumpHost.host',
  'ssh.jumpHost.port',
  'ssh.jumpHost.user',
  'ssh.jumpHost.hostKeys',
  'ssh.fabricCiphers',
  'fabric.interfaces',
  'fabric.subnet',
  'fabric.mtu',
  'fabric.linkSpeedGbps',
  'nodes[].name',
  'nodes[].role',
  'nodes[].ssh.host',
  'nodes[].ssh.port',
  'nodes[].ssh.user',
  'nodes[].ssh.hostKeys',
  'nodes[].fabricIp',
  'nodes[].gpus',
  'image.ref',
  'image.digest',
  'image.distribution',
  'image.relayLanding',
  'image.runnerArchiveCache',
  // The container every stage finds by name (VRD_CONTAINER for a script); secrets go to the release's secret.env.
  'container.name',
  'container.secretEnv',
  // The head's GCS port (VRD_RAY_PORT for a script; the port probe and the cluster proof).
  'ray.port',
  'vllm.model',
  'vllm.servedModelName',
  'vllm.tensorParallelSize',
  'vllm.pipelineParallelSize',
  'vllm.port',
  'vllm.args',
  // The release vllm.args is checked against (validate, plan, and the image-contents stage).
  'vllm.version',
  'vllm.env',
  'vllm.executorBackend',
  // The native rendezvous port: serve.sh's --master-port under mp, and the port probe.
  'vllm.masterPort',
  // Given to vllm serve as --kv-cache-memory-bytes in every mode (serve.sh); the fit reads it.
  'vllm.kvCacheMemoryBytes',
  // The fit before launch: plan's figures for each node.
  'fit.nodeMemory.unified',
  'fit.nodeMemory.bytes',
  'launch.mode',
  // The fabric-test stage runs before either launch, in throw-away containers of the release's image.
  'preflight.collective',
  'preflight.collectiveTimeoutSeconds',
  // The weights stage runs before either launch; a script gets model.path as VRD_MODEL_PATH.
  'model.path',
  'model.source.hub.repo',
  'model.source.hub.revision',
  'model.source.hub.endpoint',
  'model.source.hub.allowInsecure',
  'model.source.runner.dir',
  'model.source.nodes',
  'model.distribution',
  'model.streams',
  'smoke.readyTimeoutSeconds',
  'smoke.phaseBudgetSeconds.config',
  'smoke.phaseBudgetSeconds.distributedInit',
  'smoke.phaseBudgetSeconds.weightsLoading',
  'smoke.phaseBudgetSeconds.compilation',
  'smoke.phaseBudgetSeconds.kvCacheProfiling',
  'smoke.phaseBudgetSeconds.cudaGraphCapture',
  'smoke.phaseBudgetSeconds.apiServer',
  'smoke.requestTimeoutSeconds',
  'smoke.url',
  'smoke.apiKeySecret',
  'smoke.stream',
  'smoke.burst.requests',
  'smoke.burst.maxTokens',
  'smoke.metrics',
  'smoke.clusterProof',
  'smoke.prompts[].prompt',
  'smoke.prompts[].maxTokens',
  'smoke.prompts[].chat',
  'smoke.prompts[].expect.contains',
  'smoke.prompts[].expect.minCompletionTokens',
  'smoke.prompts[].expect.regex',
  'smoke.prompts[].expect.finishReason',
  'smoke.latency.maxTimeToFirstTokenMs',
  'smoke.latency.maxTotalMs',
  'smoke.latency.maxInterTokenMs',
  'smoke.latency.maxP95Ms',
  'smoke.latency.minTokensPerSecond',
  'smoke.regression.action',
  'smoke.regression.maxSlowdown',
  'deploy.onFailure',
  'deploy.lockTtlMinutes',
  'deploy.releasesKept',
  'deploy.teardownTimeoutSeconds',
  'deploy.memoryWatchdog.enabled',
  'deploy.memoryWatchdog.floorBytes',
  'deploy.memoryWatchdog.floorPercent',
  'deploy.memoryWatchdog.pressureFullAvg10Max',
  'deploy.memoryWatchdog.intervalSeconds',
] as const

/** The built-in launcher's `docker run` options (src/plan/node-commands.ts runNodeContainer). */
const CONTAINER_RUN_OPTIONS = ['container.gpus', 'container.shmSize', 'container.devices', 'container.volumes', 'container.extraArgs', 'container.env'] as const
/** The built-in launcher's `ray start` options (src/plan/node-commands.ts rayStartArgs). */
const RAY_START_OPTIONS = ['ray.dashboard', 'ray.dashboardPort', 'ray.objectStoreMemoryBytes', 'ray.extraArgs'] as const

const byScript = (key: string, what: string): IgnoredKey => ({
  why: `your launch script starts the container and Ray, so ${key} (${what}) does not reach it`,
  fix: `pass what the script needs through launch.env or launch.args and use it in the script, then remove ${key}; or use launch.mode: builtin`,
})

const SCRIPT_IGNORES: Readonly<Record<string, IgnoredKey>> = {
  'container.gpus': byScript('container.gpus', "the built-in launcher's docker run --gpus"),
  'container.shmSize': byScript('container.shmSize', "the built-in launcher's docker run --shm-size"),
  'container.devices': byScript('container.devices', "the built-in launcher's docker run --device"),
  'container.volumes': byScript('container.volumes', "the built-in launcher's docker run --volume"),
  'container.extraArgs': byScript('container.extraArgs', "the built-in launcher's further docker run arguments"),
  'container.env': byScript('container.env', "the built-in launcher's docker run --env; the script is not given it"),
  'ray.dashboard': byScript('ray.dashboard', "the built-in launcher's ray start --include-dashboard"),
  'ray.dashboardPort': byScript('ray.dashboardPort', "the built-in launcher's ray start --dashboard-port"),
  'ray.objectStoreMemoryBytes': byScript('ray.objectStoreMemoryBytes', "the built-in launcher's ray start --object-store-memory"),
  'ray.extraArgs': byScript('ray.extraArgs', "the built-in launcher's further ray start arguments; only the port probe reads the ports they pin"),
}

export const LAUNCH_MODE_KEYS: Readonly<Record<LaunchMode, LaunchModeKeys>> = {
  builtin: {
    reads: [...EVERY_MODE_READS, ...CONTAINER_RUN_OPTIONS, ...RAY_START_OPTIONS],
    ignores: {
      'deploy.scriptCheck': {
        why: 'it sets how the launch script is checked before a deploy, and the built-in launcher runs no script',
        fix: 'remove deploy.scriptCheck, or set launch.mode: script',
      },
    },
  },
  script: {
    reads: [...EVERY_MODE_READS, 'launch.path', 'launch.allowOutsideRepository', 'launch.args', 'launch.env', 'deploy.scriptCheck'],
    ignores: SCRIPT_IGNORES,
  },
}

/** Every path written in `data` that a pattern names (`nodes[].ssh.host` → `['nodes', 0, 'ssh', 'host']`, …). */
function concretePaths(data: unknown, pattern: string): ManifestPath[] {
  const parts = pattern.split('.').flatMap((part) => (part.endsWith('[]') ? [part.slice(0, -2), '[]'] : [part]))
  let found: { path: (string | number)[]; value: unknown }[] = [{ path: [], value: data }]
  for (const part of parts) {
    found = found.flatMap(({ path, value }) => {
      if (part === '[]') return Array.isArray(value) ? value.map((item, index) => ({ path: [...path, index], value: item })) : []
      if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, part)) return []
      return [{ path: [...path, part], value: (value as Record<string, unknown>)[part] }]
    })
  }
  return found.map(({ path }) => path)
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/** The launch mode the data selects (the schema's default when `launch` or its mode is not written), if it names one. */
export function launchModeOf(data: unknown): LaunchMode | undefined {
  const launch = isRecord(data) ? data['launch'] : undefined
  const mode = launch === undefined ? 'builtin' : isRecord(launch) ? launch['mode'] : undefined
  return typeof mode === 'string' && Object.hasOwn(LAUNCH_MODE_KEYS, mode) ? (mode as LaunchMode) : undefined
}

/**
 * A warning for every key written in the manifest (raw YAML data, so defaults do not count) that
 * its launch mode does not read. Nothing when the mode itself is not valid (the schema says so).
 */
export function keysNotReadByLaunchMode(data: unknown): PathIssue[] {
  const mode = launchModeOf(data)
  if (mode === undefined) return []
  return Object.entries(LAUNCH_MODE_KEYS[mode].ignores).flatMap(([pattern, { why, fix }]) =>
    concretePaths(data, pattern).map(
      (path): PathIssue => ({
        code: 'KEY_NOT_READ_IN_LAUNCH_MODE',
        message: `${pathLabel(path)} is not read with launch.mode: ${mode}: ${why}`,
        path,
        anchor: 'key',
        fix,
      }),
    ),
  )
}
