/** What each node holds before and after a rollout: release pointers and the running container. */
import type { Manifest } from '../manifest/schema.js'
import { releaseIdProblem } from '../manifest/values.js'
import { readNodeState } from '../plan/release-commands.js'
import { type Transport, outcome } from '../transport/transport.js'

export interface ContainerState {
  readonly id: string
  readonly running: boolean
  readonly startedAt: string
  readonly imageId: string
  /** The container's io.vllm-ray-deploy.release label ('' for a container this tool did not start). */
  readonly release: string
}

export interface NodeState {
  readonly node: string
  readonly current?: string
  readonly previous?: string
  /** current's fingerprint and image ID. */
  readonly fingerprint?: string
  readonly imageId?: string
  /** current's image-contents record (its image-contents.json, one line; src/deploy/image-contents-memo.ts reads it). */
  readonly imageContentsRecord?: string
  /** The container ID recorded when current was activated. */
  readonly currentContainer?: string
  readonly container?: ContainerState
  /** Every release directory on the node, newest first. */
  readonly releases: readonly string[]
  /** Those of them that did not pass their gates (a failed or cancelled deploy marked them). */
  readonly failed?: readonly string[]
  /** The state could not be read. */
  readonly error?: string
  /** Values the node reported that are not what they claim (a `previous` link to `..`): left out of the state above. */
  readonly problems?: readonly string[]
}

/** Parse the `key=value` lines of readNodeState (pure; exported for tests). */
export function parseNodeState(node: string, stdout: string): NodeState {
  const state: { -readonly [K in keyof NodeState]: NodeState[K] } = { node, releases: [] }
  const releases: string[] = []
  const failed: string[] = []
  const problems: string[] = []
  for (const line of stdout.split('\n')) {
    const eq = line.indexOf('=')
    if (eq < 0) continue
    const key = line.slice(0, eq)
    const value = line.slice(eq + 1).trim()
    // A link or label a node reports becomes a path and argv again: the same release-id check as --release.
    if ((key === 'current' || key === 'previous' || key === 'release' || key === 'failed-release') && value && releaseIdProblem(value)) {
      problems.push(`${key} ${releaseIdProblem(value)}`)
      continue
    }
    if (key === 'current' && value) state.current = value
    else if (key === 'previous' && value) state.previous = value
    else if (key === 'fingerprint' && value) state.fingerprint = value
    else if (key === 'image-id' && value) state.imageId = value
    else if (key === 'image-contents' && value) state.imageContentsRecord = value
    else if (key === 'current-container' && value) state.currentContainer = value
    else if (key === 'release' && value) releases.push(value)
    else if (key === 'failed-release' && value) failed.push(value)
    else if (key === 'container') {
      const [id = '', running = '', startedAt = '', imageId = '', release = ''] = value.split(' ')
      const label = release === '<no' || releaseIdProblem(release) ? '' : release
      state.container = { id, running: running === 'true', startedAt, imageId, release: label }
    }
  }
  state.releases = releases
  if (failed.length > 0) state.failed = failed
  if (problems.length > 0) state.problems = problems
  return state
}

export async function readNodeStates(m: Manifest, transports: ReadonlyMap<string, Transport>): Promise<Map<string, NodeState>> {
  const entries = await Promise.all(
    m.nodes.map(async (n): Promise<[string, NodeState]> => {
      const t = transports.get(n.name)
      if (!t) return [n.name, { node: n.name, releases: [], error: `no connection to ${n.name}` }]
      const r = await t.run(readNodeState(m), { timeoutMs: 60_000 })
      if (r.code !== 0) return [n.name, { node: n.name, releases: [], error: `reading the release state: ${outcome(r)}: ${r.stderr.trim().slice(-300)}` }]
      return [n.name, parseNodeState(n.name, r.stdout)]
    }),
  )
  return new Map(entries)
}

/** The release every node's `current` names, or undefined when they disagree or none has one. */
export function commonCurrent(states: ReadonlyMap<string, NodeState>): NodeState | undefined {
  const all = [...states.values()]
  const first = all[0]
  if (!first?.current || all.some((s) => s.current !== first.current || s.fingerprint !== first.fingerprint)) return undefined
  return first
}

/**
 * A node's container in words: running or stopped, and the release it runs. The release is the
 * container's label; a container without one (a launch script's own `docker run`) is the release
 * whose activation recorded this very container, and otherwise the release is said to be unknown.
 */
export function containerState(s: NodeState): string {
  if (!s.container) return 'no container'
  const what = s.container.running ? 'running' : 'stopped'
  const recorded = s.currentContainer !== undefined && s.currentContainer === s.container.id ? s.current : undefined
  const release = s.container.release || recorded
  return release ? `${what} ${release}` : `${what}, release unknown (the container has no release label)`
}
