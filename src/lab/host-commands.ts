/**
 * Commands the lab runs on this machine besides docker: the egress guard (iptables), rootfs
 * building (debootstrap, chroot, tar), keys (ssh-keygen) and wheels (pip). Pure data.
 */
import { type Argv, type Cmd, argv, pipe, withEnv } from '../command/shell.js'
import { INSTANCE, type LabNetwork } from './layout.js'

export const GUARD_CHAIN = 'DOCKER-USER'
/** The comment that marks this lab instance's rules (`vrd-lab-egress-guard` for instance 1). */
export const GUARD_COMMENT = INSTANCE.guardComment

/**
 * The egress guard: nothing that enters this machine from a lab bridge may be forwarded to any
 * other interface. Node-to-node traffic stays on the bridge; this machine talks to the nodes
 * directly (INPUT/OUTPUT, not FORWARD), so the guard never gets in the way of the lab itself.
 * One rule per bridge, as the rule spec without the chain operation.
 */
export function guardRules(networks: readonly LabNetwork[], comment = GUARD_COMMENT): string[][] {
  return networks.map((n) => ['-i', n.bridge, '!', '-o', n.bridge, '-m', 'comment', '--comment', comment, '-j', 'DROP'])
}

const iptables = (...args: string[]): Argv => argv('iptables', '-w', '5', ...args)

export const iptablesCommands = {
  /** Exit 0 when the rule is present. */
  check: (rule: readonly string[]) => iptables('-C', GUARD_CHAIN, ...rule),
  /** Insert at the top, before docker's own RETURN. */
  insert: (rule: readonly string[]) => iptables('-I', GUARD_CHAIN, '1', ...rule),
  remove: (rule: readonly string[]) => iptables('-D', GUARD_CHAIN, ...rule),
  list: () => iptables('-S', GUARD_CHAIN),
}

/**
 * Rules of `iptables -S <chain>` output that carry the lab's comment, as specs ready for `-D`.
 * iptables prints our rules without quotes (the comment has no spaces), so splitting on
 * whitespace is exact for them.
 */
export function labRulesIn(listing: string, chain = GUARD_CHAIN, comment = GUARD_COMMENT): string[][] {
  return listing
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith(`-A ${chain} `) && l.split(/\s+/).includes(comment))
    .map((l) => l.split(/\s+/).slice(2))
}

export interface DebootstrapSpec {
  readonly suite: string
  readonly target: string
  readonly mirror: string
  readonly cacheDir: string
}

/**
 * What runs inside a chroot gets this machine's environment: a `$TMPDIR` of the host (a test run's
 * own temp folder) names no directory in the new root, and dpkg's maintainer scripts then fail on
 * mktemp. Every command that runs programs in a chroot (debootstrap's second stage, chroot) gets
 * the root's own /tmp.
 */
const IN_ROOT_ENV = { TMPDIR: '/tmp' }

export const debootstrap = (s: DebootstrapSpec): Argv =>
  withEnv(IN_ROOT_ENV, 'debootstrap', '--variant=minbase', `--cache-dir=${s.cacheDir}`, s.suite, s.target, s.mirror)

/** Run a program inside a rootfs tree. */
export const chroot = (root: string, ...args: string[]): Argv => withEnv(IN_ROOT_ENV, 'chroot', root, ...args)

export const copyTree = (source: string, target: string): Argv => argv('cp', '-a', '--', source, target)

/** `tar` of a directory's contents, numeric owners, to stdout. */
export const tarDir = (dir: string): Argv => argv('tar', '-C', dir, '--numeric-owner', '-cf', '-', '.')

/** `tar -C dir -cf - . | <importer>` (the importer reads the tarball on stdin). */
export const tarInto = (dir: string, importer: Cmd): Cmd => pipe(tarDir(dir), importer)

export const sshKeygen = (path: string, comment: string): Argv => argv('ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-C', comment, '-f', path)

export interface PipDownloadSpec {
  readonly python: string
  readonly requirements: readonly string[]
  readonly dest: string
  readonly pythonVersion: string
  readonly platforms: readonly string[]
  /** Extra requirement specifiers downloaded alongside the files (e.g. build tools). */
  readonly extra?: readonly string[]
}

/** Wheels for the workload, for a given interpreter and platform, binary only. */
export const pipDownload = (s: PipDownloadSpec): Argv =>
  argv(
    s.python,
    '-m',
    'pip',
    'download',
    '--disable-pip-version-check',
    '--progress-bar',
    'off',
    '--only-binary=:all:',
    '--python-version',
    s.pythonVersion,
    ...s.platforms.flatMap((p) => ['--platform', p]),
    ...s.requirements.flatMap((r) => ['-r', r]),
    ...(s.extra ?? []),
    '-d',
    s.dest,
  )
