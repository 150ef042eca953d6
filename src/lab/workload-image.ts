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
import { LabError } from './lab-error.js'
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
export function resolveWorkloadSource(dir?: string): { dir: string } {
  const wanted = dir ?? workloadSourceDir()
  if (existsSync(join(wanted, 'requirements.txt'))) return { dir: wanted }
  throw new LabError('bad-input', `${wanted} has no requirements.txt`, 'put the workload requirements (at least ray) in requirements.txt there')
}

const isPackage = (dir: string): boolean => existsSync(join(dir, 'pyproject.toml')) || existsSync(join(dir, 'setup.py'))

/** Build (when its hash changed) and push (when the registry lacks it) the workload image. */
export async function ensureWorkloadImage(
  ctx: LabContext,
  changed: string[],
  opts: Pick<BuildWorkloadOptions, 'workloadDir' | 'push' | 'force'> = {},
): Promise<LabWorkloadImage> {
  const src = resolveWorkloadSource(opts.workloadDir)
  const baseHash = await ensureRootfsImage(ctx, 'workload', changed)
  const recipe = existsSync(join(src.dir, 'Dockerfile')) ? join(src.dir, 'Dockerfile') : join(ctx.assets, 'workload.Dockerfile')
  const hash = contentHash({
    values: [RECIPE, baseHash, WHEEL_TARGET.pythonVersion, ...WHEEL_TARGET.platforms],
    files: [recipe],
    dirs: [src.dir],
    base: src.dir,
  })

  let image = opts.force ? undefined : await cachedImage(ctx, IMAGES.workload, hash)
  let built = false
  if (!image) {
    await buildImage(ctx, src.dir, recipe, hash)
    await keepByContent(ctx, IMAGES.workload, hash)
    image = await inspectImage(ctx, IMAGES.workload)
    built = true
    changed.push(`image ${IMAGES.workload}`)
  }
  if (!image)
    throw new LabError('command-failed', `${IMAGES.workload} is missing right after its build`, 'run docker image ls; build again with vllm-ray-deploy lab up')

  let pushed = false
  if (opts.push !== false) {
    pushed = await pushIfNeeded(ctx, image.repoDigests)
    if (pushed) changed.push(`registry ${workloadRefs.node}`)
  }
  const after = (await inspectImage(ctx, IMAGES.workload)) ?? image
  return {
    ref: workloadRefs.node,
    hostRef: workloadRefs.host,
    localRef: workloadRefs.local,
    id: after.id,
    hash,
    sourceDir: src.dir,
    built,
    pushed,
  }
}

async function buildImage(ctx: LabContext, srcDir: string, recipe: string, hash: string): Promise<void> {
  const started = Date.now()
  const python = process.env.VRD_LAB_PYTHON ?? 'python3'
  requireProgram(python, 'download the workload wheels')
  const ctxDir = join(ctx.paths.build, 'workload-context')
  await rm(ctxDir, { recursive: true, force: true })
  await mkdir(join(ctxDir, 'wheels'), { recursive: true })
  await mkdir(join(ctxDir, 'pkg'), { recursive: true })
  await mkdir(ctx.paths.wheels, { recursive: true })
  try {
    // Wheels, on this machine (PyPI is reachable here, not from the build).
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
    const wheels = downloadedFiles(dl.stdout)
    if (wheels.length === 0) throw new LabError('command-failed', 'pip download reported no files', undefined, dl.stdout.slice(-2000))
    for (const w of wheels) {
      const target = join(ctxDir, 'wheels', basename(w))
      await link(w, target).catch(() => copyFile(w, target))
    }

    // The stand-in's own source, and its wheel when it is a package (built from a copy, so
    // the build never writes into the source folder).
    await ctx.runner.step('copy the workload source', copyTree(srcDir, join(ctxDir, 'workload')))
    // The lab's own recipe installs the stand-in from pkg/; a workload Dockerfile does it itself.
    if (dirname(recipe) !== srcDir && isPackage(srcDir)) {
      const buildSrc = join(ctx.paths.build, 'workload-package-src')
      await rm(buildSrc, { recursive: true, force: true })
      await ctx.runner.step('copy the workload package', copyTree(srcDir, buildSrc))
      ctx.progress('workload: building the stand-in package as a wheel')
      await ctx.runner.step(
        'build the stand-in wheel',
        argv(python, '-m', 'pip', 'wheel', '--disable-pip-version-check', '--no-deps', '--wheel-dir', join(ctxDir, 'pkg'), buildSrc),
        { timeoutMs: 10 * MINUTE },
      )
      await rm(buildSrc, { recursive: true, force: true })
    }

    let dockerfile = await readFile(recipe, 'utf8')
    const fragment = join(srcDir, FRAGMENT_FILE)
    if (existsSync(fragment)) dockerfile += `\n# ---- ${FRAGMENT_FILE} from the workload folder\n${await readFile(fragment, 'utf8')}\n`
    await writeFile(join(ctxDir, 'Dockerfile'), dockerfile)

    ctx.progress(`workload: docker build --network none (${wheels.length} wheels)`)
    await ctx.runner.step(
      `build ${IMAGES.workload}`,
      ctx.docker.build({
        tag: IMAGES.workload,
        context: ctxDir,
        dockerfile: join(ctxDir, 'Dockerfile'),
        buildArgs: { BASE: IMAGES.workloadBase },
        labels: { [LABEL]: '1', [HASH_LABEL]: hash },
      }),
      { timeoutMs: 20 * MINUTE, heartbeatMs: 15_000 },
    )
  } finally {
    await rm(ctxDir, { recursive: true, force: true })
  }
  ctx.progress(`${IMAGES.workload} built in ${secs(started)}`)
}

/** Digest the lab registry holds for the workload tag, or undefined. */
async function registryDigest(): Promise<string | undefined> {
  const r = await httpStatus(`http://${REGISTRY.hostHost}/v2/${WORKLOAD_REPOSITORY}/manifests/${WORKLOAD_TAG}`, {
    method: 'HEAD',
    headers: { Accept: 'application/vnd.docker.distribution.manifest.v2+json' },
  })
  return r?.status === 200 ? (r.headers.get('docker-content-digest') ?? undefined) : undefined
}

async function pushIfNeeded(ctx: LabContext, repoDigests: readonly string[]): Promise<boolean> {
  const inRegistry = await registryDigest()
  const repo = `${REGISTRY.hostHost}/${WORKLOAD_REPOSITORY}@`
  const local = repoDigests.find((d) => d.startsWith(repo))?.slice(repo.length)
  if (inRegistry && local === inRegistry) return false
  const started = Date.now()
  ctx.progress(`workload: pushing to the lab registry as ${workloadRefs.host}`)
  await ctx.runner.step('tag the workload image for the registry', ctx.docker.tag(IMAGES.workload, workloadRefs.host))
  await ctx.runner.step(`push ${workloadRefs.host}`, ctx.docker.push(workloadRefs.host), {
    timeoutMs: 20 * MINUTE,
    heartbeatMs: 15_000,
    fix: 'the lab registry must be running: vllm-ray-deploy lab up',
  })
  ctx.progress(`workload: pushed in ${secs(started)}`)
  return true
}
