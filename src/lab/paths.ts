/**
 * Where the lab keeps its files on this machine, and where it finds its own assets.
 *
 * Lab state (keys, caches, rootfs trees, the generated manifest) lives in the lab dir:
 * `opts.dir`, else `$VRD_LAB_DIR`, else `<repo>/.lab` (gitignored; `<repo>/.lab-<N>` for lab
 * instance N, see layout.ts). The build cache (Debian packages, the minbase tree, wheels) is the
 * lab dir's `cache/`, except that every instance with a default lab dir shares `<repo>/.lab/cache`:
 * the images it feeds are shared too.
 */
import { existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { fail, ok } from '../result/result.js'
import { type LabResult, labFail } from './lab-problem.js'
import { INSTANCE, INSTANCE_PROBLEM } from './layout.js'

export interface LabPaths {
  readonly root: string
  /** Client key the tool (and the tests) log in with. 0600. */
  readonly sshKey: string
  readonly sshPublicKey: string
  /** Every node's pinned host key, by mgmt IP (plus hostname and fabric names). */
  readonly knownHosts: string
  /** `ssh -F <this> spark-a` works; also what `docker -H ssh://spark-a` needs. */
  readonly sshConfig: string
  readonly manifest: string
  /** LabInfo of the last successful `up`, as JSON. */
  readonly state: string
  /** Bind-mounted read-only into every node at /etc/vrd-lab. */
  readonly nodeFiles: string
  /** `<nodeFiles>/cluster`: authorized_keys, client key and known_hosts shared by all nodes. */
  readonly clusterFiles: string
  readonly cache: string
  readonly debCache: string
  readonly minbaseRootfs: string
  readonly wheels: string
  /** Scratch: chroot trees and docker build contexts, removed after each build. */
  readonly build: string
  readonly lock: string
  /**
   * Held while the images are checked or built: they are this machine's docker images, shared by
   * every lab instance, so the lock is one per machine (`/tmp`, whatever `$TMPDIR` says), not per lab dir.
   */
  readonly imagesLock: string
}

/** Directory of one node's own files (its host key) under nodeFiles. */
export const nodeFilesDir = (paths: LabPaths, node: string): string => join(paths.nodeFiles, node)

export function labPaths(root: string, cache: string = join(root, 'cache')): LabPaths {
  const nodeFiles = join(root, 'nodes')
  return {
    root,
    sshKey: join(root, 'id_ed25519'),
    sshPublicKey: join(root, 'id_ed25519.pub'),
    knownHosts: join(root, 'known_hosts'),
    sshConfig: join(root, 'ssh_config'),
    manifest: join(root, 'manifest.yml'),
    state: join(root, 'lab.json'),
    nodeFiles,
    clusterFiles: join(nodeFiles, 'cluster'),
    cache,
    debCache: join(cache, 'debs'),
    minbaseRootfs: join(cache, 'rootfs', 'bookworm-minbase'),
    wheels: join(cache, 'wheels'),
    build: join(root, 'build'),
    lock: join(root, 'lock'),
    imagesLock: '/tmp/vrd-lab-images.lock',
  }
}

const here = dirname(fileURLToPath(import.meta.url))

/**
 * The repository root: the nearest directory above this module holding `src/lab/assets`
 * (works from the sources and from a bundle in `dist/`).
 */
export function repoRoot(): string | undefined {
  let dir = here
  for (;;) {
    if (existsSync(join(dir, 'src', 'lab', 'assets'))) return dir
    const up = dirname(dir)
    if (up === dir) return undefined
    dir = up
  }
}

/**
 * The lab dir: `dir`, else `$VRD_LAB_DIR`, else this instance's under the repository. A bad
 * `$VRD_LAB_INSTANCE` is a Problem even with a lab dir given: the lab's names, networks and
 * gateway would be another instance's, so every lab command (each starts here) refuses it.
 */
export function resolveLabDir(dir?: string): LabResult<string> {
  if (INSTANCE_PROBLEM) return fail(INSTANCE_PROBLEM)
  if (dir) return ok(resolve(dir))
  const fromEnv = process.env.VRD_LAB_DIR
  if (fromEnv) return ok(resolve(fromEnv))
  return ok(join(repoRoot() ?? process.cwd(), INSTANCE.dirName))
}

/**
 * The build cache for a lab dir: its own `cache/` when the dir was chosen (`opts.dir`, `$VRD_LAB_DIR`),
 * else the one every default lab dir shares, `<repo>/.lab/cache`.
 */
export function labCacheDir(dir?: string): string {
  const chosen = dir || process.env.VRD_LAB_DIR
  if (chosen) return join(resolve(chosen), 'cache')
  return join(repoRoot() ?? process.cwd(), '.lab', 'cache')
}

/** The lab's assets: scripts and Dockerfiles that run inside images and containers. */
export function assetsDir(): LabResult<string> {
  const fromEnv = process.env.VRD_LAB_ASSETS
  if (fromEnv) return ok(resolve(fromEnv))
  const root = repoRoot()
  if (!root) return labFail('not-ready', `cannot find src/lab/assets above ${here}`, 'set VRD_LAB_ASSETS to its path')
  return ok(join(root, 'src', 'lab', 'assets'))
}

/** The vLLM stand-in delivered in src/lab/workload (may not exist yet). */
export function workloadSourceDir(): string {
  const fromEnv = process.env.VRD_LAB_WORKLOAD
  if (fromEnv) return resolve(fromEnv)
  return join(repoRoot() ?? process.cwd(), 'src', 'lab', 'workload')
}

/**
 * The docker client to use: `$VRD_DOCKER`, else `/usr/bin/docker` when it exists (Debian's
 * docker.io, matching the daemon), else `docker` from PATH.
 */
export function dockerBinary(): string {
  const fromEnv = process.env.VRD_DOCKER
  if (fromEnv) return fromEnv
  return existsSync('/usr/bin/docker') ? '/usr/bin/docker' : 'docker'
}
