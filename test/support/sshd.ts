import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** A real OpenSSH server on 127.0.0.1 with its own host key and one authorized client key. */
export interface LoopbackSshd {
  readonly port: number
  readonly user: string
  readonly clientKey: string
  /** `ssh-ed25519 AAAA...` */
  readonly hostPublicKey: string
  /** known_hosts line for [127.0.0.1]:port */
  readonly knownHosts: string
  stop(): Promise<void>
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
    s.on('error', reject)
  })
}

export const SSHD = '/usr/sbin/sshd'

/**
 * Set in every session, so that a session is the tool's command and nothing of this machine's login
 * set-up. Bash reads ~/.bashrc when sshd starts it, unless it is a nested shell (SHLVL ≥ 1 before it
 * starts): the user's shell here is root's, and a developer machine's ~/.bashrc does anything. On the
 * CI image it runs `pyenv init`, whose `pyenv rehash` costs about 0.1 s of CPU per command, and waits
 * 60 s per command once a killed session leaves pyenv's lock file behind (a cancel test kills
 * sessions on purpose): one such lock stalled the whole unit pass. A real node's ~/.bashrc still runs;
 * the lab's nodes (src/lab) have a plain one.
 */
const SESSION_ENV: Readonly<Record<string, string>> = { SHLVL: '1' }

/** `setEnv`: variables sshd sets in every session (sshd_config SetEnv), e.g. a PATH with test shims first. */
export async function startLoopbackSshd(
  opts: { readonly setEnv?: Readonly<Record<string, string>>; readonly extraConfig?: readonly string[] } = {},
): Promise<LoopbackSshd> {
  const dir = mkdtempSync(join(tmpdir(), 'vrd-sshd-'))
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'host_key')])
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'client_key')])
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(join(dir, 'client_key.pub')))
  mkdirSync('/run/sshd', { recursive: true })
  const port = await freePort()
  writeFileSync(
    join(dir, 'sshd_config'),
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${join(dir, 'host_key')}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PermitRootLogin prohibit-password',
      'StrictModes no',
      'UsePAM no',
      `PidFile ${join(dir, 'sshd.pid')}`,
      'LogLevel ERROR',
      `SetEnv ${Object.entries({ ...SESSION_ENV, ...opts.setEnv })
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')}`,
      ...(opts.extraConfig ?? []),
      '',
    ].join('\n'),
  )
  const proc: ChildProcess = spawn(SSHD, ['-D', '-e', '-f', join(dir, 'sshd_config')], { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  proc.stderr?.on('data', (c) => (stderr += c))
  // Wait for the port to accept connections, or for sshd to exit (it failed): no cap on the number of
  // tries, so a slow machine only takes longer (the hook's own timeout still bounds a hang).
  const { connect } = await import('node:net')
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1')
      s.on('connect', () => {
        s.destroy()
        resolve(true)
      })
      s.on('error', () => resolve(false))
    })
    if (ok) break
    if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`sshd did not start: ${stderr}`)
    await new Promise((r) => setTimeout(r, 50))
  }
  const hostPublicKey = readFileSync(join(dir, 'host_key.pub'), 'utf8').trim().split(' ').slice(0, 2).join(' ')
  return {
    port,
    user: 'root',
    clientKey: readFileSync(join(dir, 'client_key'), 'utf8'),
    hostPublicKey,
    knownHosts: `[127.0.0.1]:${port} ${hostPublicKey}\n`,
    async stop() {
      proc.kill('SIGTERM')
      await new Promise((r) => (proc.exitCode !== null ? r(null) : proc.on('exit', r)))
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** A fresh ed25519 private key in OpenSSH format (what ssh2 reads), not authorized anywhere. */
export function newClientKey(): string {
  const dir = mkdtempSync(join(tmpdir(), 'vrd-key-'))
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'k')])
  const key = readFileSync(join(dir, 'k'), 'utf8')
  rmSync(dir, { recursive: true, force: true })
  return key
}
