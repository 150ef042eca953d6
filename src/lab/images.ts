/**
 * The lab's images, built from nothing on this machine (no container registry is reachable):
 *
 *   debootstrap bookworm minbase (cached tree) ─┬─ chroot: node packages ──── import → vrd-lab/node-base
 *                                               │     └─ docker build --network none (assets) → vrd-lab/node
 *                                               ├─ chroot: python3 & co ───── import → vrd-lab/workload-base
 *                                               └─ chroot: docker-registry ── binary + libs → vrd-lab/registry
 *
 * Each image carries a content hash label and a content tag (contentRef); a cached image is reused
 * exactly when its hash still matches what it is made of, whichever clone or lab instance built it.
 */
import { existsSync } from 'node:fs'
import { copyFile, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { HASH_LABEL, contentHash } from './content-hash.js'
import type { LabContext } from './lab-context.js'
import { type ImageView, parseImageInspect } from './docker-inspect.js'
import { chroot, copyTree, debootstrap, tarInto } from './host-commands.js'
import { IMAGES, LABEL } from './layout.js'
import { ok } from '../result/result.js'
import { type LabResult, labFail } from './lab-problem.js'

/** Bumped when the recipe changes in a way the hashed files do not show. */
const RECIPE = 'vrd-lab-images-1'
const SUITE = 'bookworm'

export type RootfsProfile = 'node' | 'workload' | 'registry'

/** Packages of each chroot profile (recommends off). */
export const PROFILE_PACKAGES: Readonly<Record<RootfsProfile, readonly string[]>> = {
  node: [
    'openssh-server',
    'docker.io',
    'python3',
    'iproute2',
    'iptables',
    'procps',
    'sudo',
    'curl',
    'ca-certificates',
    'less',
    'iputils-ping',
    'netcat-openbsd',
    'jq',
  ],
  workload: ['python3', 'python3-venv', 'iproute2', 'procps', 'curl', 'ca-certificates'],
  registry: ['docker-registry'],
}

const MINUTE = 60_000

export async function inspectImage(ctx: LabContext, ref: string): Promise<ImageView | undefined> {
  const r = await ctx.runner.probe(ctx.docker.imageInspect(ref))
  if (r.code !== 0) return undefined
  return parseImageInspect(r.stdout)[0]
}

/**
 * An image's content tag: its own name tagged `h-<hash of what it is made of>`. The lab's images
 * go by fixed names (vrd-lab/node:latest), which every clone, branch and lab instance on this
 * docker shares: one that builds other content moves the name, and the next `lab up` of the
 * first would build its own content again. Under its content tag each build stays findable, so
 * any clone or instance whose content hashes the same takes it back (a `docker tag`, no build).
 */
export const contentRef = (ref: string, hash: string): string => `${ref.replace(/:[^:/]*$/, '')}:h-${hash}`

/**
 * The image `ref` as made from content `hash`, when docker holds it: under `ref` itself (given its
 * content tag too, for images built before content tags), or under its content tag only, which is
 * then tagged `ref` again. Undefined: it must be built.
 */
export async function cachedImage(ctx: LabContext, ref: string, hash: string): Promise<LabResult<ImageView | undefined>> {
  const byHash = contentRef(ref, hash)
  const current = await inspectImage(ctx, ref)
  if (current?.labels[HASH_LABEL] === hash) {
    if (!current.repoTags.includes(byHash)) {
      const tagged = await keepByContent(ctx, ref, hash)
      if (!tagged.ok) return tagged
    }
    return ok(current)
  }
  const kept = await inspectImage(ctx, byHash)
  if (kept?.labels[HASH_LABEL] !== hash) return ok(undefined)
  const tagged = await ctx.runner.step(`tag ${byHash} as ${ref}`, ctx.docker.tag(byHash, ref), { timeoutMs: MINUTE })
  if (!tagged.ok) return tagged
  ctx.progress(`${ref}: the build of this content already in docker (${byHash}), reused`)
  return ok(kept)
}

/** After a build: the image under its content tag as well (cachedImage finds it there). */
export async function keepByContent(ctx: LabContext, ref: string, hash: string): Promise<LabResult<void>> {
  const tagged = await ctx.runner.step(`tag ${ref} as ${contentRef(ref, hash)}`, ctx.docker.tag(ref, contentRef(ref, hash)), { timeoutMs: MINUTE })
  return tagged.ok ? ok(undefined) : tagged
}

/** The debootstrap tree every image starts from, built once and kept in the cache. */
export async function ensureMinbase(ctx: LabContext): Promise<LabResult<string>> {
  const { paths } = ctx
  const done = `${paths.minbaseRootfs}.complete`
  if (existsSync(done) && existsSync(paths.minbaseRootfs)) return ok(paths.minbaseRootfs)
  const tmp = `${paths.minbaseRootfs}.partial`
  await rm(tmp, { recursive: true, force: true })
  await rm(paths.minbaseRootfs, { recursive: true, force: true })
  await mkdir(dirname(tmp), { recursive: true })
  await mkdir(paths.debCache, { recursive: true })
  const started = Date.now()
  ctx.progress(`debootstrap ${SUITE} minbase from ${ctx.mirror} (about 25 s cold)`)
  const boot = await ctx.runner.step(`debootstrap ${SUITE}`, debootstrap({ suite: SUITE, target: tmp, mirror: ctx.mirror, cacheDir: paths.debCache }), {
    timeoutMs: 20 * MINUTE,
    heartbeatMs: 15_000,
    fix: `check that ${ctx.mirror} is reachable from this machine`,
  })
  if (!boot.ok) return boot
  await rename(tmp, paths.minbaseRootfs)
  await writeFile(done, `${new Date().toISOString()}\n`)
  ctx.progress(`debootstrap done in ${secs(started)}`)
  return ok(paths.minbaseRootfs)
}

export const profileHash = (ctx: LabContext, profile: RootfsProfile): string =>
  contentHash({
    values: [RECIPE, SUITE, ctx.mirror, profile, ...PROFILE_PACKAGES[profile]],
    files: [join(ctx.assets, 'rootfs-setup.sh'), ...(profile === 'registry' ? [join(ctx.assets, 'registry-config.yml')] : [])],
    base: ctx.assets,
  })

const IMPORT_CHANGES: Readonly<Record<RootfsProfile, readonly string[]>> = {
  node: ['ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'CMD ["/bin/bash"]'],
  workload: ['ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'CMD ["/bin/bash"]'],
  registry: ['EXPOSE 5000', 'CMD ["/usr/bin/docker-registry", "serve", "/etc/docker/registry/config.yml"]'],
}

const PROFILE_IMAGE: Readonly<Record<RootfsProfile, string>> = {
  node: IMAGES.nodeBase,
  workload: IMAGES.workloadBase,
  registry: IMAGES.registry,
}

/** Build (or reuse) the image of one chroot profile. Returns its content hash. */
export async function ensureRootfsImage(ctx: LabContext, profile: RootfsProfile, changed: string[]): Promise<LabResult<string>> {
  const ref = PROFILE_IMAGE[profile]
  const hash = profileHash(ctx, profile)
  const cached = await cachedImage(ctx, ref, hash)
  if (!cached.ok) return cached
  if (cached.value) return ok(hash)

  const minbase = await ensureMinbase(ctx)
  if (!minbase.ok) return minbase
  const work = join(ctx.paths.build, `rootfs-${profile}`)
  const started = Date.now()
  await rm(work, { recursive: true, force: true })
  await mkdir(ctx.paths.build, { recursive: true })
  try {
    const built = await buildRootfsImage(ctx, profile, minbase.value, work, hash)
    if (!built.ok) return built
    const kept = await keepByContent(ctx, ref, hash)
    if (!kept.ok) return kept
  } finally {
    await rm(work, { recursive: true, force: true })
  }
  ctx.progress(`${ref} built in ${secs(started)}`)
  changed.push(`image ${ref}`)
  return ok(hash)
}

/** The chroot of one profile in `work`, from the minbase tree, imported as its image. */
async function buildRootfsImage(ctx: LabContext, profile: RootfsProfile, minbase: string, work: string, hash: string): Promise<LabResult<void>> {
  const ref = PROFILE_IMAGE[profile]
  ctx.progress(`${ref}: installing ${PROFILE_PACKAGES[profile].join(' ')} in a chroot`)
  const copied = await ctx.runner.step(`copy the minbase tree for ${profile}`, copyTree(minbase, work), { timeoutMs: 5 * MINUTE })
  if (!copied.ok) return copied
  await writeFile(join(work, 'etc', 'resolv.conf'), await readFile('/etc/resolv.conf'))
  await copyFile(join(ctx.assets, 'rootfs-setup.sh'), join(work, 'tmp', 'vrd-lab-rootfs-setup.sh'))
  const installed = await ctx.runner.step(
    `install the ${profile} packages in the chroot`,
    chroot(work, '/bin/sh', '/tmp/vrd-lab-rootfs-setup.sh', profile, ctx.mirror, ...PROFILE_PACKAGES[profile]),
    { timeoutMs: 20 * MINUTE, heartbeatMs: 15_000, fix: `check that ${ctx.mirror} is reachable from this machine` },
  )
  if (!installed.ok) return installed
  let tree = work
  if (profile === 'registry') {
    tree = join(work, 'vrd-lab-export')
    await copyFile(join(ctx.assets, 'registry-config.yml'), join(tree, 'etc', 'docker', 'registry', 'config.yml'))
  }
  const changes = [...IMPORT_CHANGES[profile], `LABEL ${LABEL}=1`, `LABEL ${HASH_LABEL}=${hash}`]
  const imported = await ctx.runner.step(`import ${ref}`, tarInto(tree, ctx.docker.importImage(ref, changes)), { timeoutMs: 10 * MINUTE })
  return imported.ok ? ok(undefined) : imported
}

/** vrd-lab/node: node-base plus the lab's init, fake GPU tools, runtime wrapper and sshd settings. */
export async function ensureNodeImage(ctx: LabContext, changed: string[]): Promise<LabResult<ImageView>> {
  const baseHash = await ensureRootfsImage(ctx, 'node', changed)
  if (!baseHash.ok) return baseHash
  const files = [
    'node.Dockerfile',
    'node-init.sh',
    'runc-lab',
    'nvidia-smi',
    'gpu-memory',
    'vrd-lab-memory',
    'nvidia-container-runtime-hook',
    'earlyoom',
    'sshd_config',
  ]
  const hash = contentHash({ values: [RECIPE, baseHash.value], files: files.map((f) => join(ctx.assets, f)), base: ctx.assets })
  const cached = await cachedImage(ctx, IMAGES.node, hash)
  if (!cached.ok) return cached
  if (cached.value) return ok(cached.value)
  const started = Date.now()
  ctx.progress(`${IMAGES.node}: adding the lab's files (docker build --network none)`)
  const build = await ctx.runner.step(
    `build ${IMAGES.node}`,
    ctx.docker.build({
      tag: IMAGES.node,
      context: ctx.assets,
      dockerfile: join(ctx.assets, 'node.Dockerfile'),
      buildArgs: { BASE: IMAGES.nodeBase },
      labels: { [LABEL]: '1', [HASH_LABEL]: hash },
    }),
    { timeoutMs: 10 * MINUTE },
  )
  if (!build.ok) return build
  const kept = await keepByContent(ctx, IMAGES.node, hash)
  if (!kept.ok) return kept
  ctx.progress(`${IMAGES.node} built in ${secs(started)}`)
  changed.push(`image ${IMAGES.node}`)
  const built = await inspectImage(ctx, IMAGES.node)
  if (!built)
    return labFail('command-failed', `${IMAGES.node} is missing right after its build`, 'run docker image ls; build again with vllm-ray-deploy lab up')
  return ok(built)
}

export async function ensureRegistryImage(ctx: LabContext, changed: string[]): Promise<LabResult<void>> {
  const hash = await ensureRootfsImage(ctx, 'registry', changed)
  return hash.ok ? ok(undefined) : hash
}

export const secs = (since: number): string => `${((Date.now() - since) / 1000).toFixed(1)} s`
