/**
 * Reading what `docker ... inspect` prints. Pure: JSON text in, small typed views out.
 */

export interface ImageView {
  readonly id: string
  readonly labels: Readonly<Record<string, string>>
  readonly repoDigests: readonly string[]
  /** `repository:tag` names this image goes by. */
  readonly repoTags: readonly string[]
  readonly sizeBytes: number
}

export interface ContainerView {
  readonly name: string
  readonly id: string
  /** `running`, `exited`, `created`, ... */
  readonly state: string
  readonly running: boolean
  readonly imageId: string
  readonly labels: Readonly<Record<string, string>>
  /** Network name to this container's address and aliases on it. */
  readonly networks: Readonly<Record<string, { readonly ip: string; readonly aliases: readonly string[] }>>
}

export interface NetworkView {
  readonly name: string
  readonly subnets: readonly string[]
  readonly internal: boolean
  readonly bridge?: string
  readonly labels: Readonly<Record<string, string>>
}

type Json = Record<string, unknown>
const obj = (v: unknown): Json => (v && typeof v === 'object' ? (v as Json) : {})
const str = (v: unknown): string => (typeof v === 'string' ? v : '')
const labelsOf = (v: unknown): Record<string, string> =>
  Object.fromEntries(Object.entries(obj(v)).filter(([, x]) => typeof x === 'string')) as Record<string, string>

/** `docker ... inspect` prints a JSON array (even when some names were not found: `[]`). */
function parseArray(text: string): Json[] {
  const t = text.trim()
  if (!t) return []
  const parsed: unknown = JSON.parse(t)
  return Array.isArray(parsed) ? parsed.map(obj) : []
}

export function parseImageInspect(text: string): ImageView[] {
  return parseArray(text).map((i) => ({
    id: str(i.Id),
    labels: labelsOf(obj(i.Config).Labels),
    repoDigests: Array.isArray(i.RepoDigests) ? i.RepoDigests.map(str) : [],
    repoTags: Array.isArray(i.RepoTags) ? i.RepoTags.map(str) : [],
    sizeBytes: typeof i.Size === 'number' ? i.Size : 0,
  }))
}

export function parseContainerInspect(text: string): ContainerView[] {
  return parseArray(text).map((c) => {
    const state = obj(c.State)
    const nets = obj(obj(c.NetworkSettings).Networks)
    return {
      name: str(c.Name).replace(/^\//, ''),
      id: str(c.Id),
      state: str(state.Status) || 'unknown',
      running: state.Running === true,
      imageId: str(c.Image),
      labels: labelsOf(obj(c.Config).Labels),
      networks: Object.fromEntries(
        Object.entries(nets).map(([name, n]) => {
          const net = obj(n)
          // A stopped container has no IPAddress; the fixed address it asked for stays in IPAMConfig.
          const ip = str(net.IPAddress) || str(obj(net.IPAMConfig).IPv4Address)
          return [name, { ip, aliases: Array.isArray(net.Aliases) ? net.Aliases.map(str) : [] }]
        }),
      ),
    }
  })
}

export function parseNetworkInspect(text: string): NetworkView[] {
  return parseArray(text).map((n) => {
    const options = labelsOf(n.Options)
    const bridge = options['com.docker.network.bridge.name']
    return {
      name: str(n.Name),
      subnets: (Array.isArray(obj(n.IPAM).Config) ? (obj(n.IPAM).Config as unknown[]) : []).map((c) => str(obj(c).Subnet)),
      internal: n.Internal === true,
      ...(bridge ? { bridge } : {}),
      labels: labelsOf(n.Labels),
    }
  })
}
