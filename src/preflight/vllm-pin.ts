/**
 * Does the vLLM in a container pin placement-group bundle 0 to the driver's IP?
 *
 * Background (from vLLM's sources and issues, cited inline):
 * - vLLM's classic Ray executor (`RayDistributedExecutor`, and the V0 `RayGPUExecutor` before it)
 *   builds its placement group as `[{GPU: 1}] * world_size` and then adds
 *   `specs[0]["node:<get_ip()>"] = 0.001`, where `get_ip()` is `VLLM_HOST_IP` if set, else the
 *   source address of a UDP "connect" to 8.8.8.8 (the default-route address). If no Ray node has
 *   that `NodeManagerAddress`, the group is infeasible and vLLM waits (10, 30, 70 ... s) until
 *   `PG_WAIT_TIMEOUT` (1800 s today) and then raises "Cannot provide a placement group ...".
 * - `RayExecutorV2` (vLLM PR #36836, merged 2026-03) calls
 *   `initialize_ray_cluster(..., require_gpu_on_driver=False)`: no `node:` pin and no driver-GPU
 *   check. It uses `ray.util.get_node_ip_address()`, which is Ray's own identity for the node.
 *   It is selected by `VLLM_USE_RAY_V2_EXECUTOR_BACKEND=1`.
 *
 * What is NOT certain, and how this function deals with it:
 * - The pin arrived in August 2024 (issue #6956 proposed it on 2024-07-30; issue #7815, the first
 *   "No available node types can fulfill resource request {'node:<IP>': 0.001 ...}" report, is from
 *   2024-08-23). vLLM 0.5.3.post1 (issue #7074, 2024-08-02) shows no pin. The first release with
 *   it is taken to be 0.5.4 [UNCONFIRMED: could be 0.5.5].
 * - The V2 flag was introduced with default `0`. The first release carrying it is taken to be
 *   0.18.0 (the first release after the 2026-03 merge) [UNCONFIRMED]. With a known older version the
 *   flag does not exist, so it cannot switch anything: the answer is then "unknown" rather than a
 *   guess either way.
 * - When the default flipped to `1` is unconfirmed: SkyRL reports "vllm 0.23.0 ... where v2 is the
 *   default"; NeMo-RL reports "In vllm 0.25.1 ... default to 1". From 0.25.1 on this function says
 *   "does not pin"; between 0.23.0 and 0.25.1 it says "unknown"; before 0.23.0 it says "pins".
 * An unknown answer (`pins: undefined`) makes the checks warn instead of fail.
 */

export interface PinVerdict {
  /** true: classic executor, bundle 0 pinned to `node:<vLLM IP>`; false: no pin; undefined: cannot tell. */
  readonly pins: boolean | undefined
  /** Which executor that means, in a few words, for messages. */
  readonly executor: string
  /** Why, citing the version and variable that decided it. */
  readonly reason: string
}

type Version = readonly [number, number, number]

/** The release that first pins bundle 0 to the driver node [UNCONFIRMED: 0.5.4 or 0.5.5]. */
const FIRST_PINNING: Version = [0, 5, 4]
/** First release assumed to read VLLM_USE_RAY_V2_EXECUTOR_BACKEND (PR #36836, 2026-03) [UNCONFIRMED]. */
const FIRST_WITH_V2_FLAG: Version = [0, 18, 0]
/** SkyRL: V2 is the default in 0.23.0 [UNCONFIRMED]. */
const V2_DEFAULT_REPORTED: Version = [0, 23, 0]
/** NeMo-RL: the flag defaults to 1 in 0.25.1 [UNCONFIRMED, but two downstream reports agree by here]. */
const V2_DEFAULT_BY: Version = [0, 25, 1]

const FLAG = 'VLLM_USE_RAY_V2_EXECUTOR_BACKEND'
const CLASSIC = 'classic RayDistributedExecutor'
const V2 = 'RayExecutorV2'

/**
 * Read `0.17.1`, `v0.5.3.post1`, `0.25.1rc2.dev14+gabc123` as [major, minor, patch]. Pre-release
 * and dev suffixes are ignored, so `0.25.1rc2` counts as 0.25.1 (close enough for these cut-offs).
 */
export function parseVllmVersion(text: string | undefined): Version | undefined {
  const m = /^\s*v?(\d+)\.(\d+)(?:\.(\d+))?/.exec(text ?? '')
  if (!m) return undefined
  return [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)]
}

function compare(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0)
    if (d !== 0) return d
  }
  return 0
}

const show = (v: Version): string => v.join('.')

/** The flag as vLLM reads it (`env_with_choices`/bool parsing): 1/true → on, 0/false → off. */
function readFlag(env: Readonly<Record<string, string>>): boolean | undefined {
  const raw = env[FLAG]?.trim().toLowerCase()
  if (raw === undefined || raw === '') return undefined
  if (raw === '1' || raw === 'true') return true
  if (raw === '0' || raw === 'false') return false
  return undefined
}

export function vllmPinsDriverNode(version: string | undefined, env: Readonly<Record<string, string>>): PinVerdict {
  const v = parseVllmVersion(version)
  const flag = readFlag(env)
  const flagText = env[FLAG] === undefined ? `${FLAG} unset` : `${FLAG}=${env[FLAG]}`

  if (v !== undefined && compare(v, FIRST_PINNING) < 0) {
    return {
      pins: false,
      executor: 'pre-pin Ray executor',
      reason: `vLLM ${version} predates the node pin (added Aug 2024, ~${show(FIRST_PINNING)}); it fails instead with "Ray does not allocate any GPUs on the driver node" when the group misses the driver`,
    }
  }
  if (flag === true) {
    if (v !== undefined && compare(v, FIRST_WITH_V2_FLAG) < 0) {
      return {
        pins: undefined,
        executor: `${CLASSIC} (probably)`,
        reason: `${flagText}, but vLLM ${version} is older than the release assumed to add that flag (${show(FIRST_WITH_V2_FLAG)}), so it is probably ignored`,
      }
    }
    return { pins: false, executor: V2, reason: `${flagText} selects ${V2}, which adds no node: pin (require_gpu_on_driver=False)` }
  }
  if (flag === false) {
    return { pins: true, executor: CLASSIC, reason: `${flagText} keeps the ${CLASSIC}, which pins bundle 0 to node:<vLLM IP>` }
  }
  if (v === undefined) {
    return {
      pins: undefined,
      executor: 'unknown executor',
      reason: `vLLM version unknown and ${flagText}: the classic executor pins bundle 0, RayExecutorV2 does not`,
    }
  }
  if (compare(v, V2_DEFAULT_BY) >= 0) {
    return {
      pins: false,
      executor: `${V2} (version default)`,
      reason: `vLLM ${version} defaults ${FLAG} to 1 (reported for ${show(V2_DEFAULT_BY)}+), so ${V2} runs and adds no node: pin`,
    }
  }
  if (compare(v, V2_DEFAULT_REPORTED) >= 0) {
    return {
      pins: undefined,
      executor: `${V2} or ${CLASSIC}`,
      reason: `vLLM ${version} is in the range where the ${FLAG} default flipped to 1 (reported between ${show(V2_DEFAULT_REPORTED)} and ${show(V2_DEFAULT_BY)}); set ${FLAG} explicitly to know`,
    }
  }
  return {
    pins: true,
    executor: CLASSIC,
    reason: `vLLM ${version} with ${flagText} runs the ${CLASSIC}, which pins bundle 0 to node:<vLLM IP>`,
  }
}
