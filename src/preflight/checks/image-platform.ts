/**
 * The release's image against each node's CPU architecture (the image gate, src/deploy/image-gate.ts):
 * an image built for linux/amd64 cannot run on an arm64 node (a GB10 / DGX Spark, a GH200) — its
 * programs die with "exec format error", or run under emulation far too slowly to serve. The trap is
 * common: a GitHub-hosted runner is x86_64, so the image it builds and then sends by `load` or `relay`
 * is amd64 unless built with `--platform linux/arm64`; and `docker pull` of a single-platform image of
 * another architecture succeeds with only a warning. Read where the image is (this machine's docker
 * before anything is sent, each node's after delivery) and compared with `uname -m` from the host
 * facts, so the deploy stops before any transfer or container start.
 */
import type { Finding } from '../finding.js'

/** What `docker image inspect --format IMAGE_IDENTITY_FORMAT` printed: the image ID, and its platform when docker gave one. */
export interface ImageIdentity {
  readonly id: string
  /** `<os>/<arch>`, e.g. `linux/arm64`. */
  readonly platform?: string
}

/** One line "<id> <os>/<arch>" (src/plan/release-commands.ts IMAGE_IDENTITY_FORMAT); an ID alone is read as the ID. */
export function parseImageIdentity(stdout: string): ImageIdentity | undefined {
  const [id, platform] = stdout.trim().split(/\s+/)
  if (!id) return undefined
  return platform && /^[\w.-]+\/[\w.-]+$/.test(platform) ? { id, platform } : { id }
}

/** `uname -m` in the architecture names images are published under (Go's GOARCH, which docker uses). */
export function imageArchOfMachine(machine: string): string {
  const m = machine.trim().toLowerCase()
  if (m === 'aarch64' || m === 'arm64' || m === 'armv8l') return 'arm64'
  if (m === 'x86_64' || m === 'amd64') return 'amd64'
  if (/^armv[67]/.test(m)) return 'arm'
  if (/^i[3-6]86$/.test(m)) return '386'
  return m
}

/** Where an image's platform was read: this machine (the source of `load` and `relay`) or a node. */
export interface ImageSeenAt {
  /** The node the image is on, or null for this machine. */
  readonly node: string | null
  readonly platform: string
}

export interface NodeMachine {
  readonly node: string
  /** `uname -m`; a node whose facts lack it is not judged. */
  readonly machine?: string
}

/**
 * IMAGE_PLATFORM_MISMATCH for every node whose CPU architecture is not the image's: against the copy
 * on this machine (every node it would be sent to) or against the node's own copy.
 */
export function imagePlatformFindings(image: string, seen: ImageSeenAt, nodes: readonly NodeMachine[]): Finding[] {
  const arch = seen.platform.split('/')[1]
  if (!arch) return []
  const judged = seen.node === null ? nodes : nodes.filter((n) => n.node === seen.node)
  return judged.flatMap((n): Finding[] => {
    if (!n.machine) return []
    const wanted = imageArchOfMachine(n.machine)
    if (wanted === arch) return []
    const where = seen.node === null ? "this machine's copy, which the deploy would send" : `the copy on ${n.node}`
    return [
      {
        code: 'IMAGE_PLATFORM_MISMATCH',
        severity: 'error',
        node: n.node,
        message: `${image} is built for ${seen.platform} (${where}), but ${n.node} is ${n.machine} (linux/${wanted}): its programs cannot run there ("exec format error"), or only under emulation, far too slowly to serve.`,
        evidence: { image, 'image platform': seen.platform, [`${n.node} CPU`]: `${n.machine} (linux/${wanted})`, 'read from': where },
        fix: `Build or pull ${image} for linux/${wanted}: docker buildx build --platform linux/${wanted} (a GitHub-hosted runner is x86_64, so an image it builds for arm64 nodes such as a DGX Spark needs --platform linux/arm64 and QEMU, or an arm64 runner), or a multi-arch image (docker buildx imagetools inspect ${image} lists its platforms) with image.distribution: pull, so each node pulls its own.`,
      },
    ]
  })
}
