/**
 * The SSH settings as the rest of the tool applies them, each rule in one place. Pure.
 * - Where a node is reached: its own user and port when it sets them, else the cluster's.
 * - How long one remote command may run: `ssh.commandTimeoutSeconds` bounds every command the
 *   tool runs on a node (plan steps, the facts probe, the vLLM watch's polls); a step's own,
 *   shorter timeout still applies. Image transfers, which have no natural bound, get exactly it.
 */

export interface SshDefaults {
  readonly user: string
  readonly port: number
}

export interface NodeSshSettings {
  readonly ssh: { readonly host: string; readonly user?: string | undefined; readonly port?: number | undefined }
}

export interface SshEndpointOf {
  readonly host: string
  readonly user: string
  readonly port: number
}

/** The effective SSH user and port of a node (the one rule for the plan, the transport and the manifest rules). */
export const sshEndpointOf = (defaults: SshDefaults, node: NodeSshSettings): SshEndpointOf => ({
  host: node.ssh.host,
  user: node.ssh.user ?? defaults.user,
  port: node.ssh.port ?? defaults.port,
})

/** `root@10.1.230.180:22` */
export const describeSshEndpoint = (e: SshEndpointOf): string => `${e.user}@${e.host}:${e.port}`

/** A command's timeout under the manifest's bound: its own when shorter, else `ssh.commandTimeoutSeconds`. */
export const boundedTimeoutSeconds = (ssh: { readonly commandTimeoutSeconds: number }, ownSeconds: number): number =>
  Math.min(ownSeconds, ssh.commandTimeoutSeconds)
