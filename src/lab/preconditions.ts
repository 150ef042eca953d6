/**
 * What the lab needs from this machine, checked before anything is changed. The lab installs
 * nothing by itself: a missing piece is an error that says exactly what to run.
 */
import { accessSync, constants } from 'node:fs'
import { delimiter, isAbsolute, join } from 'node:path'
import type { LabContext } from './lab-context.js'
import { LabError, tail } from './lab-error.js'

/** Full path of a program as PATH would find it, or undefined. */
export function findProgram(name: string, path = process.env.PATH ?? ''): string | undefined {
  const candidates = isAbsolute(name)
    ? [name]
    : path
        .split(delimiter)
        .filter(Boolean)
        .map((d) => join(d, name))
  for (const c of candidates) {
    try {
      accessSync(c, constants.X_OK)
      return c
    } catch {
      // not here
    }
  }
  return undefined
}

const PACKAGE_OF: Readonly<Record<string, string>> = {
  debootstrap: 'debootstrap',
  iptables: 'iptables',
  'ssh-keygen': 'openssh-client',
  chroot: 'coreutils',
  tar: 'tar',
}

export function requireProgram(name: string, why: string): string {
  const found = findProgram(name)
  if (found) return found
  const pkg = PACKAGE_OF[name] ?? name
  throw new LabError('missing-tool', `${name} is not installed; the lab needs it to ${why}`, `apt-get install -y ${pkg}`)
}

export function requireRoot(): void {
  if (typeof process.getuid === 'function' && process.getuid() !== 0) {
    throw new LabError(
      'not-root',
      'the lab needs root on this machine (debootstrap, chroot, iptables for the egress guard)',
      'run it as root, e.g. sudo -E vllm-ray-deploy lab up',
    )
  }
}

/** Docker client present and its daemon answering; returns the server version. */
export async function requireDocker(ctx: LabContext): Promise<string> {
  if (!findProgram(ctx.dockerBin)) {
    throw new LabError(
      'missing-tool',
      `docker is not installed (looked for ${ctx.dockerBin}; set VRD_DOCKER to use another client)`,
      'apt-get install -y docker.io debootstrap',
    )
  }
  const r = await ctx.runner.probe(ctx.docker.serverVersion(), 20_000)
  if (r.code !== 0 || !r.stdout.trim()) {
    throw new LabError(
      'docker-unreachable',
      `the docker daemon is not answering (${ctx.dockerBin} version)`,
      'start it: dockerd > /var/log/dockerd.log 2>&1 &   (or: systemctl start docker)',
      tail(r.stderr || r.stdout, 5),
    )
  }
  return r.stdout.trim()
}

/** Everything `lab up` may use; checked up front so a missing tool fails before any change. */
export async function requireUpTools(ctx: LabContext): Promise<string> {
  requireRoot()
  const version = await requireDocker(ctx)
  requireProgram('iptables', 'install the egress guard')
  requireProgram('ssh-keygen', 'make the SSH keys')
  requireProgram('debootstrap', 'build the node images from Debian packages')
  requireProgram('chroot', 'install packages into the image trees')
  requireProgram('tar', 'turn image trees into docker images')
  return version
}
