/**
 * The workload image: the vLLM stand-in (src/lab/workload/) with Ray, for the lab nodes to pull
 * from the lab registry.
 *
 *   1. vrd-lab/workload-base (debootstrap minbase + python3, venv, iproute2, procps, curl)
 *   2. wheels of requirements.txt downloaded on this machine (cp311, manylinux x86_64), cached
 *   3. the stand-in as a wheel, when it is a package (pyproject.toml / setup.py)
 *   4. `docker build --network none`: offline install into /opt/venv. The recipe is the
 *      workload folder's own `Dockerfile` when it has one (same context layout: wheels/,
 *      workload/), else src/lab/assets/workload.Dockerfile (which also takes pkg/, the
 *      stand-in prebuilt as a wheel); an optional `Dockerfile.fragment` is appended
 *   5. push to the lab registry (127.0.0.1:5000 from here = 172.30.230.5:5000 for the nodes)
 *
 * Cached by a content hash of the workload folder, requirements and recipe (image label and
 * content tag, images.ts contentRef: reused by every clone and lab instance with the same content).
 */
import { existsSync } from 'node:fs'
import { copyFile, link, mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { argv } from '../command/shell.js'
import { HASH_LABEL, contentHash } from './content-hash.js'
import type { LabContext } from './lab-context.js'
import { cachedImage, ensureRootfsImage, inspectImage, keepByContent, secs } from './images.js'
import { copyTree, pipDownload } from './host-commands.js'
import { ok } from '../result/result.js'
import { type LabResult, labFail } from './lab-problem.js'
import type { LabOptions, LabWorkloadImage } from './lab-types.js'
import { IMAGES, LABEL, REGISTRY, WORKLOAD_REPOSITORY, WORKLOAD_TAG } from './layout.js'
import { workloadSourceDir } from './paths.js'
import { httpStatus } from './probes.js'
import { requireProgram } from './preconditions.js'

const RECIPE = 'vrd-lab-workload-1'
const MINUTE = 60_000

/** The interpreter and platforms the wheels are for: the image's python3 (bookworm: 3.11). */
export const WHEEL_TARGET = {
  pythonVersion: '3.11',
  platforms: ['manylinux2014_x86_64', 'manylinux_2_17_x86_64'],
} as const

export const FRAGMENT_FILE = 'Dockerfile.fragment'

export interface BuildWorkloadOptions extends LabOptions {
  /** Folder of the stand-in; default src/lab/workload (or $VRD_LAB_WORKLOAD). */
  readonly workloadDir?: string
  /** Push to the lab registry (needs `lab up`'s registry running). Default true. */
  readonly push?: boolean
  /** Rebuild even when the cached image's hash matches. */
  readonly force?: boolean
}

export const workloadRefs = {
  local: IMAGES.workload,
  host: `${REGISTRY.hostHost}/${WORKLOAD_REPOSITORY}:${WORKLOAD_TAG}`,
  node: `${REGISTRY.nodeHost}/${WORKLOAD_REPOSITORY}:${WORKLOAD_TAG}`,
} as const

/** Wheel files pip reports for this requirements set (new downloads and cache hits alike). */
export function downloadedFiles(pipOutput: string): string[] {
  const out = new Set<string>()
  for (const line of pipOutput.split('\n')) {
    const m = /^\s*(?:Saved|File was already downloaded)\s+(\S+)\s*$/.exec(line)
    if (m) out.add(m[1]!)
  }
  return [...out]
}

/** The stand-in's folder (src/lab/workload unless another is given). */
export function resolveWorkloadSource(dir?: string): LabResult<{ dir: string }> {
  const wanted = dir ?? workloadSourceDir()
  if (existsSync(join(wanted, 'requirements.txt'))) return ok({ dir: wanted })
  return labFail('bad-input', `${wanted} has no requirements.txt`, 'put the workload requirements (at least ray) in requirements.txt there')
}

const isPackage = (dir: string): boolean => existsSync(join(dir, 'pyproject.toml')) || existsSync(join(dir, 'setup.py'))

/** Build (when its hash changed) and push (when the registry lacks it) the workload image. */
export async function ensureWorkloadImage(
  ctx: LabContext,
  changed: string[],
  opts: Pick<BuildWorkloadOptions, 'workloadDir' | 'push' | 'force'> = {},
): Promise<LabResult<LabWorkloadImage>> {
  const source = resolveWorkloadSource(opts.workloadDir)
  if (!source.ok) return source
  const src = source.value
  const baseHash = await ensureRootfsImage(ctx, 'workload', changed)
  if (!baseHash.ok) return baseHash
  const recipe = existsSync(join(src.dir, 'Dockerfile')) ? join(src.dir, 'Dockerfile') : join(ctx.assets, 'workload.Dockerfile')
  const hash = contentHash({
    values: [RECIPE, baseHash.value, WHEEL_TARGET.pythonVersion, ...WHEEL_TARGET.platforms],
    files: [recipe],
    dirs: [src.dir],
    base: src.dir,
  })

  const cached = opts.force ? ok(undefined) : await cachedImage(ctx, IMAGES.workload, hash)
  if (!cached.ok) return cached
  let image = cached.value
  let built = false
  if (!image) {
    const build = await buildImage(ctx, src.dir, recipe, hash)
    if (!build.ok) return build
    const kept = await keepByContent(ctx, IMAGES.workload, hash)
    if (!kept.ok) return kept
    image = await inspectImage(ctx, IMAGES.workload)
    built = true
    changed.push(`image ${IMAGES.workload}`)
  }
  if (!image)
    return labFail('command-failed', `${IMAGES.workload} is missing right after its build`, 'run docker image ls; build again with vllm-ray-deploy lab up')

  let pushed = false
  if (opts.push !== false) {
    const push = await pushIfNeeded(ctx, image.repoDigests)
    if (!push.ok) return push
    pushed = push.value
    if (pushed) changed.push(`registry ${workloadRefs.node}`)
  }
  const after = (await inspectImage(ctx, IMAGES.workload)) ?? image
  return ok({
    ref: workloadRefs.node,
    hostRef: workloadRefs.host,
    localRef: workloadRefs.local,
    id: after.id,
    hash,
    sourceDir: src.dir,
    built,
    pushed,
  })
}

async function buildImage(ctx: LabContext, srcDir: string, recipe: string, hash: string): Promise<LabResult<void>> {
  const started = Date.now()
  const python = process.env.VRD_LAB_PYTHON ?? 'python3'
  const pip = requireProgram(python, 'download the workload wheels')
  if (!pip.ok) return pip
  const ctxDir = join(ctx.paths.build, 'workload-context')
  await rm(ctxDir, { recursive: true, force: true })
  await mkdir(join(ctxDir, 'wheels'), { recursive: true })
  await mkdir(join(ctxDir, 'pkg'), { recursive: true })
  await mkdir(ctx.paths.wheels, { recursive: true })
  try {
    const built = await buildInContext(ctx, { srcDir, recipe, hash, python, ctxDir })
    if (!built.ok) return built
  } finally {
    await rm(ctxDir, { recursive: true, force: true })
  }
  ctx.progress(`${IMAGES.workload} built in ${secs(started)}`)
  return ok(undefined)
}

interface WorkloadBuild {
  readonly srcDir: string
  readonly recipe: string
  readonly hash: string
  readonly python: string
  /** The docker build context being filled: wheels/, pkg/, workload/, Dockerfile. */
  readonly ctxDir: string
}

/** Fill the build context (wheels, the stand-in, its wheel, the Dockerfile) and run `docker build`. */
async function buildInContext(ctx: LabContext, b: WorkloadBuild): Promise<LabResult<void>> {
  const { srcDir, recipe, python, ctxDir } = b
  const wheels = await downloadWheels(ctx, srcDir, python, ctxDir)
  if (!wheels.ok) return wheels

  // The stand-in's own source, and its wheel when it is a package (built from a copy, so
  // the build never writes into the source folder).
  const copied = await ctx.runner.step('copy the workload source', copyTree(srcDir, join(ctxDir, 'workload')))
  if (!copied.ok) return copied
  // The lab's own recipe installs the stand-in from pkg/; a workload Dockerfile does it itself.
  if (dirname(recipe) !== srcDir && isPackage(srcDir)) {
    const pkg = await buildStandinWheel(ctx, srcDir, python, join(ctxDir, 'pkg'))
    if (!pkg.ok) return pkg
  }

  let dockerfile = await readFile(recipe, 'utf8')
  const fragment = join(srcDir, FRAGMENT_FILE)
  if (existsSync(fragment)) dockerfile += `\n# ---- ${FRAGMENT_FILE} from the workload folder\n${await readFile(fragment, 'utf8')}\n`
  await writeFile(join(ctxDir, 'Dockerfile'), dockerfile)

  ctx.progress(`workload: docker build --network none (${wheels.value} wheels)`)
  const built = await ctx.runner.step(
    `build ${IMAGES.workload}`,
    ctx.docker.build({
      tag: IMAGES.workload,
      context: ctxDir,
      dockerfile: join(ctxDir, 'Dockerfile'),
      buildArgs: { BASE: IMAGES.workloadBase },
      labels: { [LABEL]: '1', [HASH_LABEL]: b.hash },
    }),
    { timeoutMs: 20 * MINUTE, heartbeatMs: 15_000 },
  )
  return built.ok ? ok(undefined) : built
}

/** Wheels of requirements.txt, downloaded on this machine (PyPI is reachable here, not from the build) into the context's wheels/; how many. */
async function downloadWheels(ctx: LabContext, srcDir: string, python: string, ctxDir: string): Promise<LabResult<number>> {
  ctx.progress(`workload: downloading wheels for ${join(srcDir, 'requirements.txt')} (cp311, manylinux x86_64)`)
  const dl = await ctx.runner.step(
    'download the workload wheels',
    pipDownload({
      python,
      requirements: [join(srcDir, 'requirements.txt')],
      dest: ctx.paths.wheels,
      ...WHEEL_TARGET,
    }),
    { timeoutMs: 20 * MINUTE, heartbeatMs: 15_000, fix: `check that PyPI is reachable and that ${python} -m pip works (apt-get install -y python3-pip)` },
  )
  if (!dl.ok) return dl
  const wheels = downloadedFiles(dl.value.stdout)
  if (wheels.length === 0) return labFail('command-failed', 'pip download reported no files', undefined, dl.value.stdout.slice(-2000))
  for (const w of wheels) {
    const target = join(ctxDir, 'wheels', basename(w))
    await link(w, target).catch(() => copyFile(w, target))
  }
  return ok(wheels.length)
}

/** The stand-in as a wheel in `pkgDir`, built from a copy of its source. */
async function buildStandinWheel(ctx: LabContext, srcDir: string, python: string, pkgDir: string): Promise<LabResult<void>> {
  const buildSrc = join(ctx.paths.build, 'workload-package-src')
  await rm(buildSrc, { recursive: true, force: true })
  const copied = await ctx.runner.step('copy the workload package', copyTree(srcDir, buildSrc))
  if (!copied.ok) return copied
  ctx.progress('workload: building the stand-in package as a wheel')
  const wheel = await ctx.runner.step(
    'build the stand-in wheel',
    argv(python, '-m', 'pip', 'wheel', '--disable-pip-version-check', '--no-deps', '--wheel-dir', pkgDir, buildSrc),
    { timeoutMs: 10 * MINUTE },
  )
  if (!wheel.ok) return wheel
  await rm(buildSrc, { recursive: true, force: true })
  return ok(undefined)
}

/** Digest the lab registry holds for the workload tag, or undefined. */
async function registryDigest(): Promise<string | undefined> {
  const r = await httpStatus(`http://${REGISTRY.hostHost}/v2/${WORKLOAD_REPOSITORY}/manifests/${WORKLOAD_TAG}`, {
    method: 'HEAD',
    headers: { Accept: 'application/vnd.docker.distribution.manifest.v2+json' },
  })
  return r?.status === 200 ? (r.headers.get('docker-content-digest') ?? undefined) : undefined
}

async function pushIfNeeded(ctx: LabContext, repoDigests: readonly string[]): Promise<LabResult<boolean>> {
  const inRegistry = await registryDigest()
  const repo = `${REGISTRY.hostHost}/${WORKLOAD_REPOSITORY}@`
  const local = repoDigests.find((d) => d.startsWith(repo))?.slice(repo.length)
  if (inRegistry && local === inRegistry) return ok(false)
  const started = Date.now()
  ctx.progress(`workload: pushing to the lab registry as ${workloadRefs.host}`)
  const tagged = await ctx.runner.step('tag the workload image for the registry', ctx.docker.tag(IMAGES.workload, workloadRefs.host))
  if (!tagged.ok) return tagged
  const pushed = await ctx.runner.step(`push ${workloadRefs.host}`, ctx.docker.push(workloadRefs.host), {
    timeoutMs: 20 * MINUTE,
    heartbeatMs: 15_000,
    fix: 'the lab registry must be running: vllm-ray-deploy lab up',
  })
  if (!pushed.ok) return pushed
  ctx.progress(`workload: pushed in ${secs(started)}`)
  return ok(true)
}
