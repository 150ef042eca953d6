/**
 * Does the vLLM in a container pin placement-group bundle 0 to the driver's IP?
 *
 * Background (from vLLM's sources and issues):
 * - vLLM's classic Ray executor (`RayDistributedExecutor`, and the V0 `RayGPUExecutor` before it)
 *   builds its placement group as `[{GPU: 1}] * world_size` and then adds
 *   `specs[0]["node:<get_ip()>"] = 0.001`, where `get_ip()` is `VLLM_HOST_IP` if set, else the
 *   source address of a UDP "connect" to 8.8.8.8 (the default-route address). If no Ray node has
 *   that `NodeManagerAddress`, the group is infeasible and vLLM waits (10, 30, 70 ... s) until
 *   `PG_WAIT_TIMEOUT` (1800 s today) and then raises "Cannot provide a placement group ...".
 * - `RayExecutorV2` (vLLM PR #36836) calls `initialize_ray_cluster(..., require_gpu_on_driver=False)`:
 *   no `node:` pin and no driver-GPU check. It is selected by `VLLM_USE_RAY_V2_EXECUTOR_BACKEND=1`.
 *
 * Which release does what is a table read from the published wheels (`EXECUTOR_RELEASES`, each row
 * with where it was read; test/contract/extract.sh `facts` reads a wheel's vllm/envs.py,
 * vllm/v1/executor/ and the `f"node:{...}"` pins with `ast`; test/contract/executor-facts.json holds
 * what it read and test/contract/vllm-pin-table.test.ts holds this table to it).
 */

import { compareVllmVersions, parseVllmVersion, type VllmVersion } from '../command/vllm-contract.js'

export interface PinVerdict {
  /** true: classic executor, bundle 0 pinned to `node:<vLLM IP>`; false: no pin; undefined: cannot tell. */
  readonly pins: boolean | undefined
  /** Which executor that means, in a few words, for messages. */
  readonly executor: string
  /** Why, citing the version and variable that decided it. */
  readonly reason: string
}

type Version = VllmVersion

/** What a range of releases does, from `from` up to the next row's `from`. */
export interface ExecutorRelease {
  /** The first release of the range. */
  readonly from: Version
  /** The classic executor pins bundle 0 to `node:<get_ip()>`. */
  readonly pins: boolean
  /** `VLLM_USE_RAY_V2_EXECUTOR_BACKEND`'s default in vllm/envs.py; null: the release has no such variable. */
  readonly v2Default: '0' | '1' | null
  /** `RayDistributedExecutor` (the classic executor) exists; without it `ray` always runs RayExecutorV2. */
  readonly classic: boolean
  /** The wheels this row was read from, and what in them. */
  readonly read: string
}

/** Every release from 0.5.3.post1 to 0.34.0, read from its wheel (PyPI, `pip download --no-deps`). */
export const EXECUTOR_RELEASES: readonly ExecutorRelease[] = [
  {
    from: [0, 0, 0],
    pins: false,
    v2Default: null,
    classic: true,
    read: 'vllm 0.5.3.post1 and 0.5.4 wheels: vllm/executor/ray_utils.py initialize_ray_cluster adds no node: resource (RayGPUExecutor in ray_gpu_executor.py)',
  },
  {
    from: [0, 5, 5],
    pins: true,
    v2Default: null,
    classic: true,
    read: 'vllm 0.5.5 wheel: vllm/executor/ray_utils.py initialize_ray_cluster adds f"node:{current_ip}" to bundle 0; the same pin (vllm/v1/executor/ray_utils.py from 0.9) in every wheel read up to 0.19.1 (0.6.0 … 0.16.0 one per minor, 0.17.0 … 0.19.1 each), none of which has VLLM_USE_RAY_V2_EXECUTOR_BACKEND',
  },
  {
    from: [0, 20, 0],
    pins: true,
    v2Default: '0',
    classic: true,
    read: 'vllm 0.20.0, 0.20.1, 0.20.2 wheels: vllm/envs.py VLLM_USE_RAY_V2_EXECUTOR_BACKEND default "0", vllm/v1/executor/ray_executor_v2.py beside ray_executor.py; the classic pin unchanged',
  },
  {
    from: [0, 21, 0],
    pins: true,
    v2Default: '1',
    classic: true,
    read: 'vllm 0.21.0 … 0.32.0 wheels (every release): VLLM_USE_RAY_V2_EXECUTOR_BACKEND default "1"; the classic executor (ray_executor.py) and its pin remain for =0',
  },
  {
    from: [0, 33, 0],
    pins: false,
    v2Default: null,
    classic: false,
    read: 'vllm 0.33.0 and 0.34.0 wheels: no vllm/v1/executor/ray_executor.py, no VLLM_USE_RAY_V2_EXECUTOR_BACKEND, Executor.get_class maps ray to RayExecutorV2, and ray_utils.py adds no node: pin',
  },
]

/** The newest release read for the table; a newer one is taken to behave as the last row. */
const NEWEST_READ: Version = [0, 34, 0]

function releaseRow(v: Version): ExecutorRelease {
  return [...EXECUTOR_RELEASES].reverse().find((r) => compare(v, r.from) >= 0) ?? EXECUTOR_RELEASES[0]!
}

const FLAG = 'VLLM_USE_RAY_V2_EXECUTOR_BACKEND'
const CLASSIC = 'classic RayDistributedExecutor'
const V2 = 'RayExecutorV2'

/** Read as [major, minor, patch] (src/command/vllm-contract.ts). */
export { parseVllmVersion }

const compare = compareVllmVersions

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

  if (v === undefined) {
    if (flag === true) return { pins: false, executor: V2, reason: `${flagText} selects ${V2}, which adds no node: pin (require_gpu_on_driver=False)` }
    if (flag === false) return { pins: true, executor: CLASSIC, reason: `${flagText} keeps the ${CLASSIC}, which pins bundle 0 to node:<vLLM IP>` }
    return {
      pins: undefined,
      executor: 'unknown executor',
      reason: `vLLM version unknown and ${flagText}: the classic executor pins bundle 0, RayExecutorV2 does not`,
    }
  }
  const row = releaseRow(v)
  const newer = compare(v, NEWEST_READ) > 0 ? ` (newer than ${show(NEWEST_READ)}, the newest release read: taken to behave as it)` : ''
  if (!row.classic) {
    return {
      pins: false,
      executor: `${V2} (the only Ray executor)`,
      reason: `vLLM ${version}${newer} has no classic executor and no ${FLAG}${env[FLAG] !== undefined ? ` (${flagText} is ignored)` : ''}: Ray runs ${V2}, which adds no node: pin`,
    }
  }
  if (!row.pins) {
    return {
      pins: false,
      executor: 'pre-pin Ray executor',
      reason: `vLLM ${version} predates the node pin (first in 0.5.5); it fails instead with "Ray does not allocate any GPUs on the driver node" when the group misses the driver`,
    }
  }
  if (row.v2Default === null) {
    return {
      pins: true,
      executor: CLASSIC,
      reason: `vLLM ${version} has only the ${CLASSIC} (${FLAG} first exists in 0.20.0${env[FLAG] !== undefined ? `, so ${flagText} is ignored` : ''}), which pins bundle 0 to node:<vLLM IP>`,
    }
  }
  const v2 = flag ?? row.v2Default === '1'
  const why = flag === undefined ? `${FLAG} unset (vLLM ${version}${newer} defaults it to ${row.v2Default})` : flagText
  return v2
    ? {
        pins: false,
        executor: flag === undefined ? `${V2} (version default)` : V2,
        reason: `${why} selects ${V2}, which adds no node: pin (require_gpu_on_driver=False)`,
      }
    : { pins: true, executor: CLASSIC, reason: `${why} keeps the ${CLASSIC}, which pins bundle 0 to node:<vLLM IP>` }
}
