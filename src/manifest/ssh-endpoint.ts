/** Where a node is reached over SSH: its own user and port when it sets them, else the cluster's. Pure. */

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
