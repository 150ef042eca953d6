/** From a manifest and the credentials given to the tool, the SSH target of each node. Pure. */
import type { Manifest, ManifestNode } from '../manifest/schema.js'
import { sshEndpointOf } from '../manifest/ssh-settings.js'
import { type HostKeyPin, parsePin, pinsFromKnownHosts } from './host-keys.js'
import type { SshEndpoint, SshTarget } from './ssh.js'

export interface SshCredentials {
  /** Private key text (never from the manifest: from the action input or a file given to the CLI). */
  readonly privateKey: string
  readonly passphrase?: string
  /** known_hosts text, used for hosts the manifest pins no key for. */
  readonly knownHosts?: string
}

function pins(listed: readonly string[], where: string, host: string, port: number, knownHosts?: string): HostKeyPin[] {
  const fromManifest = listed.flatMap((text, i) => parsePin(text, `${where}[${i}]`) ?? [])
  return fromManifest.length > 0 ? fromManifest : knownHosts ? pinsFromKnownHosts(knownHosts, host, port) : []
}

export function sshTargetFor(m: Manifest, node: ManifestNode, creds: SshCredentials): SshTarget {
  const index = m.nodes.indexOf(node)
  const { port, user } = sshEndpointOf(m.ssh, node)
  const jh = m.ssh.jumpHost
  const jump: SshEndpoint | undefined = jh && {
    host: jh.host,
    port: jh.port,
    user: jh.user ?? m.ssh.user,
    pins: pins(jh.hostKeys, 'ssh.jumpHost.hostKeys', jh.host, jh.port, creds.knownHosts),
  }
  return {
    name: node.name,
    host: node.ssh.host,
    port,
    user,
    pins: pins(node.ssh.hostKeys, `nodes[${index}].ssh.hostKeys`, node.ssh.host, port, creds.knownHosts),
    privateKey: creds.privateKey,
    ...(creds.passphrase && { passphrase: creds.passphrase }),
    ...(jump && { jump }),
    connectTimeoutMs: m.ssh.connectTimeoutSeconds * 1000,
  }
}
