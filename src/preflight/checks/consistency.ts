/** Every node runs the same image, hence the same Ray, vLLM and Python. */

import type { Finding } from '../finding.js'
import type { CheckContext, ClusterNode } from './check-context.js'

const withContainer = (ctx: CheckContext): ClusterNode[] => ctx.nodes.filter((n) => n.facts?.container)

const short = (id: string): string => (id.length > 19 ? `${id.slice(0, 19)}…` : id)

const withSha = (digest: string): string => (digest.startsWith('sha256:') ? digest : `sha256:${digest}`)

/** `registry:5000/repo:tag@sha256:…` → `registry:5000/repo` (a tag colon comes after the last slash). */
function repositoryOf(ref: string): string {
  const name = ref.split('@')[0] ?? ref
  const colon = name.lastIndexOf(':')
  return colon > name.lastIndexOf('/') ? name.slice(0, colon) : name
}

/** IMAGE_MISMATCH: image IDs differ across nodes, or differ from the manifest's digest. */
export function imageMismatch(ctx: CheckContext): Finding[] {
  const nodes = withContainer(ctx)
  const findings: Finding[] = []
  const withId = nodes.filter((n) => n.facts?.container?.imageId)
  const ids = new Set(withId.map((n) => n.facts?.container?.imageId))
  const wanted = ctx.expected?.image ?? 'the manifest image'
  if (ids.size > 1) {
    findings.push({
      code: 'IMAGE_MISMATCH',
      severity: 'error',
      node: null,
      message: `The nodes run ${ids.size} different images, so their Ray, vLLM and Python may differ.`,
      evidence: Object.fromEntries(
        withId.map((n) => [`${n.name} image`, `${n.facts?.container?.imageRef ?? '?'} (${short(n.facts?.container?.imageId ?? '')})`]),
      ),
      fix: `Put the same image on every node (pull or load ${wanted} on each, then recreate the containers); compare with docker image inspect --format '{{.Id}}'.`,
    })
  }
  const digest = ctx.expected?.imageDigest
  if (!digest) return findings
  const want = withSha(digest)
  for (const n of nodes) {
    const c = n.facts?.container
    if (!c) continue
    const refDigest = /@(sha256:[0-9a-f]+)/.exec(c.imageRef ?? '')?.[1]
    if (refDigest === want || c.imageId === want) continue
    if (!refDigest && !c.imageId) continue
    const definite = refDigest !== undefined
    findings.push({
      code: 'IMAGE_MISMATCH',
      severity: definite ? 'error' : 'warning',
      node: n.name,
      message: definite
        ? `${n.name} runs ${c.imageRef}, not the manifest's digest ${short(want)}.`
        : `${n.name} runs image ${short(c.imageId ?? '')} from ${c.imageRef ?? 'an unknown reference'}, which cannot be confirmed as the manifest's digest ${short(want)}.`,
      evidence: {
        [`${n.name} image reference`]: c.imageRef ?? '(unknown)',
        [`${n.name} image ID`]: c.imageId ?? '(unknown)',
        'Manifest digest': want,
      },
      fix: `On ${n.name} recreate the container from ${repositoryOf(ctx.expected?.image ?? c.imageRef ?? '<image>')}@${want} so Docker checks the digest.`,
    })
  }
  return findings
}

type Component = 'ray' | 'vllm' | 'python' | 'torch' | 'nccl'
const LABEL: Record<Component, string> = { ray: 'Ray', vllm: 'vLLM', python: 'Python', torch: 'torch', nccl: 'NCCL' }
const majorMinor = (v: string): string => v.split('.').slice(0, 2).join('.')

/** VERSION_SKEW: Ray / vLLM / Python / torch / NCCL versions differ across the node containers. */
export function versionSkew(ctx: CheckContext): Finding[] {
  const nodes = withContainer(ctx)
  const findings: Finding[] = []
  for (const component of ['ray', 'vllm', 'python', 'torch', 'nccl'] as const) {
    const known = nodes.flatMap((n) => {
      const v = n.facts?.container?.versions[component]
      return v ? [{ node: n.name, version: v }] : []
    })
    const versions = new Set(known.map((k) => k.version))
    if (versions.size < 2) continue
    // Python patch releases differ harmlessly more often than not; a major.minor split never does.
    const patchOnly = component === 'python' && new Set([...versions].map(majorMinor)).size === 1
    findings.push({
      code: 'VERSION_SKEW',
      severity: patchOnly ? 'warning' : 'error',
      node: null,
      message: `${LABEL[component]} versions differ across the nodes (${[...versions].join(' vs ')})${component === 'ray' || component === 'python' ? ', and Ray refuses to join nodes whose Ray or Python versions differ' : ''}.`,
      evidence: Object.fromEntries(known.map((k) => [`${k.node} ${LABEL[component]}`, k.version])),
      fix: `Run one image everywhere (see IMAGE_MISMATCH), or pin ${component === 'python' ? 'the same Python' : component === 'nccl' ? 'the same nvidia-nccl wheel' : `${component}==<one version>`} in the image used on every node.`,
    })
  }
  return findings
}
