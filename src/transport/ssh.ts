import { NodeSSH } from 'node-ssh'
import type { Duplex } from 'node:stream'
import type { Channel } from 'ssh2'
import { type Cmd, argv, render, renderScript } from '../command/shell.js'
import { BoundedOutput } from './bounded-output.js'
import { type HostKeyPin, acceptingPins, fingerprint, keyMatches, keyType, preferredAlgorithms, revokedPin } from './host-keys.js'
import { fail, ok, type Problem, problem, type Result } from '../result/result.js'
import { type RunOptions, type RunResult, type Transport, releaseStdin } from './transport.js'

export interface SshEndpoint {
  readonly host: string
  readonly port: number
  readonly user: string
  /** Pins for this endpoint's host key. Connecting without any pin is refused. */
  readonly pins: readonly HostKeyPin[]
}

export interface SshTarget extends SshEndpoint {
  /** Node name, for messages. */
  readonly name: string
  readonly privateKey: string
  readonly passphrase?: string
  readonly jump?: SshEndpoint
  readonly connectTimeoutMs: number
}

/**
 * A connection failure a person can act on (not a bug): SSH_CONNECT_FAILED, the message says what to
 * change, evidence.node names the node.
 */
const cannotConnect = (message: string, node: string): Problem => problem('SSH_CONNECT_FAILED', message, message, { node })

const KILL_GRACE_S = 5
let runCounter = 0
/**
 * The remote command line: coreutils `timeout` (its own process group, which it signals as a
 * whole) renamed by `exec -a` to a token unique to this run, so a cancel can find exactly it. A
 * cancel that arrives before the process exists is not lost: the cancel leaves a marker file first,
 * and the wrapper does not start the command when the marker is there (see `cancelLine`).
 */
const WRAP =
  'if [ -e "/tmp/$0.cancel" ]; then rm -f "/tmp/$0.cancel"; echo "cancelled before it started" >&2; exit 130; fi; exec -a "$0" timeout -k "$1" "$2" bash -c "$3"'
/**
 * The cancel, run from a second exec: the marker first, then SIGTERM to every process whose
 * command line holds the token (the wrapper before its `exec`, or `timeout` after it, which passes
 * the TERM to the command's whole group). `[v]rd-run-…` matches the token but not pkill's own line.
 * So: the wrapper either sees the marker and never starts the command, or exists and gets the TERM.
 */
function cancelLine(token: string, sig: 'TERM' | 'KILL'): string {
  const pattern = `[${token[0]}]${token.slice(1)}`
  return sig === 'TERM'
    ? render(argv('sh', '-c', 'touch "/tmp/$1.cancel"; pkill -TERM -f "$2"; exit 0', 'sh', token, pattern))
    : render(argv('sh', '-c', 'pkill -KILL -f "$1"; rm -f "/tmp/$2.cancel"; exit 0', 'sh', pattern, token))
}
const CLIENT_SLACK_MS = (KILL_GRACE_S + 10) * 1000

type ExecOptions = Pick<RunOptions, 'stdin' | 'onStdout' | 'onStderr' | 'maxOutputBytes'> & {
  readonly timeoutMs: number
  readonly onChannel?: (c: Channel) => void
  readonly onOverLimit?: () => void
}

interface ExecOutput {
  readonly code: number | null
  readonly signal: string | null
  readonly stdout: string
  readonly stderr: string
  readonly outputCut?: 'stdout' | 'stderr'
}

/** A command that never ran to an exit status: why, as its stderr. */
const notStarted = (why: string, started: number, cancelled: boolean): RunResult => ({
  code: null,
  signal: null,
  stdout: '',
  stderr: `${why}\n`,
  durationMs: Date.now() - started,
  timedOut: false,
  ...(cancelled ? { cancelled: true } : {}),
})

function endpointLabel(e: SshEndpoint): string {
  return `${e.user}@${e.host}:${e.port}`
}

/**
 * Run commands on one node over SSH (node-ssh / ssh2, pure JS). Host keys are always verified
 * against pins. Every command is rendered by `renderScript` and wrapped in coreutils `timeout`
 * on the remote side, so nothing outlives its deadline even when the client disappears.
 */
export class SshTransport implements Transport {
  readonly label: string
  private ssh = new NodeSSH()
  private jumpSsh?: NodeSSH
  private lastError?: Error
  /** A new connection being opened after the old one went away (shared by the commands waiting on it). */
  private reopening?: Promise<Problem | undefined>
  private closed = false
  /** A channel could not be opened on the connection: it is dead even if its close has not arrived yet. */
  private stale = false

  private constructor(readonly target: SshTarget) {
    this.label = `${target.name} (${endpointLabel(target)})`
  }

  /** A connected transport, or the SSH_CONNECT_FAILED Problem saying why not (host key, key, auth, network). */
  static async connect(target: SshTarget): Promise<Result<SshTransport>> {
    const t = new SshTransport(target)
    const failed = await t.open()
    if (!failed) return ok(t)
    await t.close()
    return fail(failed)
  }

  private verifier(endpoint: SshEndpoint, seen: { key?: Buffer }) {
    return (key: Buffer): boolean => {
      seen.key = key
      return keyMatches(key, endpoint.pins) !== undefined
    }
  }

  /** Connect `ssh` to one endpoint; undefined when it is up, else why not. */
  private async connectOne(ssh: NodeSSH, endpoint: SshEndpoint, sock?: unknown): Promise<Problem | undefined> {
    if (acceptingPins(endpoint.pins).length === 0) {
      return cannotConnect(
        `no host key pinned for ${endpointLabel(endpoint)}: add its fingerprint to the manifest (hostKeys) or pass known_hosts ` +
          `(get it on the host with: ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub)`,
        this.target.name,
      )
    }
    const seen: { key?: Buffer } = {}
    const algorithms = preferredAlgorithms(endpoint.pins)
    try {
      await ssh.connect({
        host: endpoint.host,
        port: endpoint.port,
        username: endpoint.user,
        privateKey: this.target.privateKey,
        passphrase: this.target.passphrase,
        readyTimeout: this.target.connectTimeoutMs,
        keepaliveInterval: 10_000,
        keepaliveCountMax: 3,
        hostVerifier: this.verifier(endpoint, seen),
        ...(algorithms ? { algorithms: { serverHostKey: algorithms as never } } : {}),
        ...(sock ? { sock: sock as never } : {}),
      })
    } catch (err) {
      return this.whyNot(err as Error & { level?: string; code?: string }, endpoint, seen)
    }
    // ssh2 emits socket errors after `ready`; without a listener they crash the process.
    ssh.connection?.on('error', (error: Error) => {
      this.lastError = error
    })
    return undefined
  }

  /** Why ssh2 refused a connection, in words that say what to change. */
  private whyNot(e: Error & { level?: string; code?: string }, endpoint: SshEndpoint, seen: { key?: Buffer }): Problem {
    const revoked = seen.key && revokedPin(seen.key, endpoint.pins)
    if (seen.key && revoked) {
      return cannotConnect(
        `host key of ${endpointLabel(endpoint)} (${keyType(seen.key)} ${fingerprint(seen.key)}) is marked @revoked in ${revoked.source}: not connecting`,
        this.target.name,
      )
    }
    if (seen.key && keyMatches(seen.key, endpoint.pins) === undefined) {
      return cannotConnect(
        `host key of ${endpointLabel(endpoint)} does not match any pin: server presented ${keyType(seen.key)} ${fingerprint(seen.key)}, ` +
          `pinned ${endpoint.pins.map((p) => p.fingerprint ?? `${p.keyType} key from ${p.source}`).join(', ')}. ` +
          `If the host was reinstalled on purpose, update the pin; otherwise do not connect.`,
        this.target.name,
      )
    }
    if (/privateKey|private key|private openssh key|passphrase|bad decrypt/i.test(e.message)) {
      return cannotConnect(
        `the SSH private key cannot be used (${e.message}): give the key's text (-----BEGIN OPENSSH PRIVATE KEY----- ...), not its path, and its passphrase if it has one (the Action's ssh-key-passphrase input; the CLI's --ssh-key-passphrase FILE or $VRD_SSH_KEY_PASSPHRASE)`,
        this.target.name,
      )
    }
    if (e.level === 'client-authentication') {
      return cannotConnect(`authentication as ${endpoint.user} on ${endpoint.host}:${endpoint.port} failed: the private key was refused`, this.target.name)
    }
    const why = e.code ?? e.message
    return cannotConnect(`cannot connect to ${endpointLabel(endpoint)}: ${why}`, this.target.name)
  }

  /** Connect (through the jump host when there is one); undefined when up, else why not. */
  private async open(): Promise<Problem | undefined> {
    const { jump } = this.target
    if (!jump) return this.connectOne(this.ssh, this.target)
    this.jumpSsh = new NodeSSH()
    const jumpFailed = await this.connectOne(this.jumpSsh, jump)
    if (jumpFailed) return jumpFailed
    let sock: Channel
    try {
      sock = await this.jumpSsh.forwardOut('127.0.0.1', 0, this.target.host, this.target.port)
    } catch (err) {
      return cannotConnect(`jump host ${endpointLabel(jump)} cannot reach ${this.target.host}:${this.target.port}: ${(err as Error).message}`, this.target.name)
    }
    return this.connectOne(this.ssh, this.target, sock)
  }

  /**
   * The connection went away (the node rebooted, a link dropped, sshd restarted): one new connection,
   * with the same pins, before the next command. Only a command that has not started goes on it, so
   * nothing runs twice; a command that was running when the connection went away ended without an
   * exit status and says so. A node that does not answer gives the connect Problem (undefined when
   * the connection is up), which the command's result carries.
   */
  private async ensureConnected(): Promise<Problem | undefined> {
    // node-ssh counts a connection still in its handshake as connected: a command waits for the new one.
    if (this.reopening) return this.reopening
    if (this.closed || (this.ssh.isConnected() && !this.stale)) return undefined
    this.stale = false
    this.reopening = (async () => {
      this.ssh.dispose()
      this.jumpSsh?.dispose()
      this.ssh = new NodeSSH()
      this.jumpSsh = undefined
      this.lastError = undefined
      return this.open()
    })().finally(() => {
      this.reopening = undefined
    })
    return this.reopening
  }

  async run(cmd: Cmd, opts: RunOptions): Promise<RunResult> {
    const started = Date.now()
    const seconds = Math.max(1, Math.ceil(opts.timeoutMs / 1000))
    const token = `vrd-run-${process.pid}-${++runCounter}-${Math.random().toString(36).slice(2, 10)}`
    const line = render(argv('bash', '-c', WRAP, token, String(KILL_GRACE_S), String(seconds), renderScript(cmd)))
    let channel: Channel | undefined
    let clientTimedOut = false
    let cancelled = false
    let stopping = false
    const deadline = setTimeout(() => {
      clientTimedOut = true
      channel?.close()
    }, opts.timeoutMs + CLIENT_SLACK_MS)
    let killTimer: NodeJS.Timeout | undefined
    /**
     * Stop this run: SIGTERM to it from a second exec on the same connection (sshd's own `signal`
     * request needs a privilege-separated session child and is refused for many logins); SIGKILL
     * after the grace, and the channel closed. Used by a cancel and by an output past the limit.
     */
    const stop = () => {
      if (stopping) return
      stopping = true
      void this.exec(cancelLine(token, 'TERM'), { timeoutMs: 10_000 }).catch(() => {})
      killTimer = setTimeout(() => {
        void this.exec(cancelLine(token, 'KILL'), { timeoutMs: 10_000 }).catch(() => {})
        channel?.close()
      }, KILL_GRACE_S * 1000)
    }
    const cancel = () => {
      cancelled = true
      stop()
    }
    if (opts.signal?.aborted) cancelled = true
    opts.signal?.addEventListener('abort', cancel, { once: true })
    try {
      if (cancelled) return { code: null, signal: null, stdout: '', stderr: 'cancelled before it started\n', durationMs: 0, timedOut: false, cancelled }
      const execOpts = {
        ...opts,
        onChannel: (c: Channel) => {
          channel = c
        },
        onOverLimit: stop,
      }
      const ran = await this.execReconnecting(line, execOpts, () => cancelled)
      if (!ran.ok) return notStarted(ran.problem.message, started, cancelled)
      const r = ran.value
      // coreutils timeout exits 124 when the deadline passed (137 after the KILL grace).
      const timedOut = !cancelled && !r.outputCut && (clientTimedOut || r.code === 124 || (r.code === 137 && Date.now() - started >= opts.timeoutMs))
      const lost = r.code === null && !clientTimedOut && !cancelled && !r.outputCut ? (this.lastError ? ` (${this.lastError.message})` : '') : ''
      return {
        code: timedOut || cancelled || r.outputCut ? null : r.code,
        signal: r.signal,
        stdout: r.stdout,
        stderr: r.stderr + lost + (cancelled ? 'cancelled\n' : ''),
        durationMs: Date.now() - started,
        timedOut,
        ...(cancelled ? { cancelled: true } : {}),
        ...(r.outputCut ? { outputCut: r.outputCut } : {}),
      }
    } catch (err) {
      return notStarted((err as Error).message, started, cancelled)
    } finally {
      clearTimeout(deadline)
      clearTimeout(killTimer)
      // The run has ended (its channel closed): a marker its wrapper never read is removed.
      if (stopping) void this.exec(render(argv('rm', '-f', `/tmp/${token}.cancel`)), { timeoutMs: 10_000 }).catch(() => {})
      opts.signal?.removeEventListener('abort', cancel)
      releaseStdin(opts.stdin)
    }
  }

  /**
   * The command on the connection, reopened first when it went away. When no channel opened (so the
   * command never started) and the connection is what failed, once more on a new connection. A
   * channel the server refused on a live connection (sshd's MaxSessions) is this command's failure
   * only: the commands running on it go on.
   */
  private async execReconnecting(line: string, execOpts: ExecOptions, cancelled: () => boolean): Promise<Result<ExecOutput>> {
    const down = await this.ensureConnected()
    if (down) return fail(problem('SSH_CONNECTION_LOST', `the connection to ${this.target.name} went away and a new one failed: ${down.message}`))
    const tried = (): Promise<Result<ExecOutput>> => this.exec(line, execOpts).then(ok, (err: Error) => fail(problem('SSH_EXEC_FAILED', err.message)))
    const first = await tried()
    if (first.ok || cancelled() || this.closed || /channel open failure/i.test(first.problem.message)) return first
    this.stale = true
    const again = await this.ensureConnected()
    if (again) {
      const message = `the connection to ${this.target.name} went away (${first.problem.message}) and a new one failed: ${again.message}`
      return fail(problem('SSH_CONNECTION_LOST', message))
    }
    return tried()
  }

  /**
   * One exec channel, its output streamed through `BoundedOutput` (node-ssh's `execCommand` keeps
   * every byte, which a node writing without end turns into a crash). Past the limit the output is
   * dropped and `onOverLimit` asked to stop the command.
   */
  private exec(line: string, opts: ExecOptions): Promise<ExecOutput> {
    const connection = this.ssh.connection
    if (!connection) return Promise.reject(new Error('not connected'))
    return new Promise((resolve, reject) => {
      connection.exec(line, (err, ch) => {
        if (err) {
          reject(err)
          return
        }
        opts.onChannel?.(ch)
        const out = new BoundedOutput('stdout', opts.maxOutputBytes)
        const errOut = new BoundedOutput('stderr', opts.maxOutputBytes)
        let cut: 'stdout' | 'stderr' | undefined
        const take = (o: BoundedOutput, chunk: Buffer, live?: (s: string) => void) => {
          const text = o.push(chunk)
          if (text && live) live(text)
          if (o.over && !cut) {
            cut = o.name
            opts.onOverLimit?.()
          }
        }
        ch.on('data', (c: Buffer) => take(out, c, opts.onStdout))
        ch.stderr.on('data', (c: Buffer) => take(errOut, c, opts.onStderr))
        ch.on('error', () => {})
        if (opts.stdin === undefined) ch.end()
        else if (typeof opts.stdin === 'string') ch.end(opts.stdin)
        else opts.stdin.pipe(ch, { end: true })
        let code: number | null = null
        let signal: string | null = null
        ch.on('exit', (c: number | null, s?: string) => {
          code = c ?? null
          signal = s ?? null
        })
        ch.on('close', () => resolve({ code, signal, stdout: out.text(), stderr: errOut.text(), ...(cut ? { outputCut: cut } : {}) }))
      })
    })
  }

  async forwardTcp(host: string, port: number): Promise<Result<Duplex>> {
    const refused = (why: string) =>
      fail(
        problem(
          'SSH_FORWARD_REFUSED',
          `${this.target.name} cannot open a connection to ${host}:${port} for us (${why}): is anything listening there, and does its sshd allow TCP forwarding (AllowTcpForwarding)?`,
        ),
      )
    const down = await this.ensureConnected()
    if (down) return refused(down.message)
    try {
      return ok(await this.ssh.forwardOut('127.0.0.1', 0, host, port))
    } catch (err) {
      return refused((err as Error).message)
    }
  }

  async close(): Promise<void> {
    this.closed = true
    this.ssh.dispose()
    this.jumpSsh?.dispose()
  }
}
