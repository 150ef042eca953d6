/**
 * Simple commands, on paper: functions called with their arguments, `exit`/`return`/`shift`,
 * `source`/`.` of a file (evaluate.ts follows it),
 * command prefixes (`VAR=… cmd`, `env VAR=… cmd`, `exec env VAR=… cmd`, `sudo`, `nohup`, `srun` and
 * other wrappers), `ray start` itself, `docker run`/`podman run` and `docker exec` with their
 * environment, and the strings that another shell runs (`bash -c`, `sh -c`, `ssh host "…"`).
 */

import type { Node } from './bash-ast.js'
import type { ComposeService } from './compose.js'
import { type ContainerArgv, readContainerArgv, shellScriptArg, sshCommand, sshHost } from './container-run.js'
import { concatJoin } from './expand.js'
import { WATCHED, concatVals, sliceVal, writtenAt, type Arg, type Assignment, type Span, type Val, type Watched } from './model.js'
import { serveArgsStart } from '../preflight/native-launch.js'
import { rayStart } from './ray-start.js'
import { vllmServe } from './vllm-serve.js'
import { type Container, containerKey, type State, type Var } from './state.js'

/** A variable set for one command (`NAME=value cmd`, `env NAME=value cmd`), with the word that set it. */
export interface Prefix {
  readonly val: Val
  readonly span: Span
  /** The value's own word (`NAME=value cmd`), when written in one piece. */
  readonly valueAt?: { readonly start: number; readonly end: number }
}

/** What commands need from the evaluator. */
export interface Interp {
  lookup(s: State, name: string): Var | undefined
  callFunction(fn: Node, args: Arg[], s: State, at: Span, stdin?: Val): State[]
  /**
   * Run a string in a nested shell whose environment is `env`; its `ray start`s join the path's, and
   * so do the containers it starts. `host`: the ssh destination it runs on (absent: this path's host).
   */
  runNested(script: Val, env: ReadonlyMap<string, Var>, s: State, inContainer: boolean, at: Span, host?: string, args?: Arg[], stdin?: Val): void
  /** `bash FILE args`, `./FILE.sh args`: a script file in the repository (or one this path wrote), run by a child shell. */
  runScriptFile(file: Arg, args: Arg[], env: ReadonlyMap<string, Var>, s: State, at: Span): void
  /** Whether a loop is being run around the command (`break`/`continue` count only there). */
  inLoop(): boolean
  /** `eval WORDS`: the words joined with blanks, read and run by this shell, on this path. */
  evalText(script: Val, s: State, at: Span): State[]
  /** `source FILE [args]` / `. FILE`: the file's commands in this shell, on this path. */
  sourceFile(file: Arg | undefined, args: Arg[], s: State, at: Span): State[]
  /** The services of the compose files given with `-f` (else the default names), from here-documents the script wrote or the repository. */
  composeServices(s: State, files: readonly Val[], env: (name: string) => Val | undefined): Map<string, ComposeService>
  /** An `env_file:` of a compose service, by its path as written. */
  composeEnvFile(s: State, svc: ComposeService, path: Val): Val | undefined
  /** Where a value was written (start -1 when not one run of text; `otherwise` the line when no character was). */
  spanOfVal(v: Val, otherwise: number): Span
  /** The script's text in its one index space (the script and the files it sources): what spans index. */
  scriptText(): string
}

/** `docker compose` options before the subcommand that take a value. */
const COMPOSE_GLOBAL_WITH_VALUE = new Set(['-p', '--project-name', '--project-directory', '--env-file', '--profile', '--ansi', '--progress', '--parallel'])
/** Options of `compose up`/`create`/`start` that take a value. */
const COMPOSE_UP_WITH_VALUE = new Set(['--scale', '-t', '--timeout', '--wait-timeout', '--pull', '--exit-code-from', '--attach', '--no-attach'])

/** The services `compose up` names (none: all). */
function composeServiceArgs(rest: readonly Arg[]): string[] {
  const out: string[] = []
  for (let i = 0; i < rest.length; i++) {
    const t = rest[i]!.val.text
    if (t.startsWith('-')) {
      if (COMPOSE_UP_WITH_VALUE.has(t)) i++
      continue
    }
    out.push(t)
  }
  return out
}

/** tmux commands that start a pane running a shell-command, and their options that take a value (tmux.1). */
const TMUX_SPAWNS = new Set(['new-session', 'new', 'new-window', 'neww', 'split-window', 'splitw', 'respawn-pane', 'respawnp', 'respawn-window', 'respawnw'])
const TMUX_SPAWN_VALUED = new Set(['-c', '-e', '-F', '-n', '-s', '-t', '-x', '-y', '-f', '-l', '-p'])
const WRAPPERS = new Set(['sudo', 'nohup', 'time', 'command', 'nice', 'setsid', 'stdbuf', 'timeout', 'srun', 'numactl', 'taskset', 'exec', 'builtin'])
const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh'])
/** Commands whose words are text, never a command they run. */
const PRINTS = new Set(['echo', 'printf', 'logger'])
const sameVal = (a: Val, b: Val) => a.text === b.text && JSON.stringify(a.map ?? null) === JSON.stringify(b.map ?? null)

/** apptainer/singularity options that take a value as the next word. */
const APPTAINER_WITH_VALUE = new Set(
  '-B --bind --mount -H --home -W --workdir --pwd -o --overlay --network --network-args --security --env-file --hostname --app --scratch -S --dns --cpus --memory --apply-cgroups'.split(
    ' ',
  ),
)

export class Commands {
  /** Inside `env -i …` or `apptainer … --cleanenv`: the command gets none of this shell's exported variables. */
  private clean = false

  constructor(private readonly it: Interp) {}

  /** Run with an empty inherited environment (only the command's own settings). */
  private cleanly(fn: () => State[]): State[] {
    const was = this.clean
    this.clean = true
    try {
      return fn()
    } finally {
      this.clean = was
    }
  }

  /** `stdin`: a here-document the command reads (`bash <<EOF`, `ssh host bash -s <<'EOF'`). */
  run(argv: Arg[], prefix: Map<string, Prefix>, s: State, at: Span, stdin?: Val): State[] {
    const name = (argv[0]?.val.text ?? '').replace(/^.*\//, '')
    const rest = argv.slice(1)
    const fn = s.funcs.get(name)
    if (fn) return this.it.callFunction(fn, rest, s, at, stdin)
    switch (name) {
      case 'source':
      case '.':
        return this.it.sourceFile(rest[0], rest.slice(1), s, at)
      // `eval "${RAY_START_CMD} ${ADDITIONAL_ARGS[@]} &"` (a copy of vLLM's run_cluster.sh without Docker, held-out17)
      case 'eval':
        return rest.length > 0 ? this.it.evalText(concatJoin(rest.map((a) => a.val)), s, at) : [s]
      case 'break':
      case 'continue':
        if (this.it.inLoop()) s.loopExit = name
        return [s]
      case 'exit':
        s.done = true
        return [s]
      case 'return':
        s.returning = true
        return [s]
      case 'shift': {
        const f = s.frames[s.frames.length - 1]!
        const n = rest[0]?.val.known ? Number(rest[0].val.text) || 1 : 1
        if (f.rest && n > f.args.length) f.shifted += n - f.args.length
        f.args.splice(0, n)
        return [s]
      }
      case 'env':
        return this.env(rest, prefix, s, at, stdin)
      case 'apptainer':
      case 'singularity':
        if (rest[0]?.val.text === 'exec') return this.apptainer(rest, prefix, s, at, stdin)
        break
      case 'ray': {
        const args = rayStartOptionsAt(argv, 0)
        if (args >= 0) s.starts.push(rayStart(s, argv.slice(args), this.hostEnv(s, prefix, at), at, false))
        return [s]
      }
      case 'docker':
      case 'podman':
      case 'nvidia-docker':
        if (rest[0]?.val.text === 'compose') this.compose(s, rest.slice(1), prefix, at, stdin)
        else this.container(s, rest, at, stdin)
        return [s]
      case 'docker-compose':
      case 'podman-compose':
        this.compose(s, rest, prefix, at, stdin)
        return [s]
      case 'ssh':
        this.ssh(s, rest, at, stdin)
        return [s]
      case 'tmux':
        this.tmux(s, rest, prefix, at)
        return [s]
    }
    if (SHELLS.has(name)) return this.shell(rest, prefix, s, at, stdin)
    // `./start-node.sh args`: a script file run directly.
    if (/\.(?:ba)?sh$/.test(argv[0]?.val.text ?? '') && argv[0]!.val.text.includes('/')) {
      this.it.runScriptFile(argv[0]!, rest, this.shellEnv(s, prefix, at), s, at)
      return [s]
    }
    // `vllm serve …` (the console script or `python -m vllm.entrypoints…`), directly or after a launcher
    // (`uv run`, `apptainer exec IMAGE`, `conda run`): vLLM's native multi-node mode.
    const serve = WRAPPERS.has(name) ? -1 : serveAt(argv)
    if (serve >= 0) {
      s.starts.push(vllmServe(s, argv.slice(serve), this.hostEnv(s, prefix, at), at, false, this.it.scriptText()))
      return [s]
    }
    if (WRAPPERS.has(name)) {
      const out = this.run(stripOptions(name, rest), prefix, s, at, stdin)
      // `exec cmd` replaces the shell: nothing after it runs.
      if (name === 'exec' && rest.length > 0) for (const x of out) x.done = true
      return out
    }
    // Any other command that carries `ray start` in its argv (a launcher such as `uv run`, `conda run`).
    const launched = rayBehindLauncher(argv)
    if (launched) return this.run(launched, prefix, s, at)
    // Ray's CLI run as its module (`python -m ray.scripts.scripts start …`, after a launcher too): the `ray` console script is
    // `ray=ray.scripts.scripts:main` (ray-project/ray python/setup.py, console_scripts), the same `ray start`.
    const cli = PRINTS.has(name) ? -1 : rayModuleStart(argv)
    if (cli >= 0) {
      s.starts.push(rayStart(s, argv.slice(cli + 1), this.hostEnv(s, prefix, at), at, false))
      return [s]
    }
    // A launcher that runs a shell with a command string (`shifter --image=IMG bash -c "…"`, `uv run bash -lc "…"`,
    // `enroot start IMG bash -c "…"`) or ssh: that command, as if written alone. Not for a command that only prints
    // its words.
    const runs = (a: Arg, i: number): boolean => {
      const word = a.val.text.replace(/^.*\//, '')
      return i > 0 && !a.rest && ((SHELLS.has(word) && shellScriptArg(argv.slice(i + 1)) !== undefined) || word === 'ssh')
    }
    const inner = PRINTS.has(name) ? -1 : argv.findIndex(runs)
    return inner > 0 ? this.run(argv.slice(inner), prefix, s, at, stdin) : [s]
  }

  /** `bash -c STRING`, `bash FILE args`, `bash` / `bash -s` reading its input. */
  private shell(rest: Arg[], prefix: Map<string, Prefix>, s: State, at: Span, stdin?: Val): State[] {
    // A file operand is what the shell runs; its input is read as the script only without one (`bash`, `bash -s ARGS`).
    const operand = rest.findIndex((a) => !a.val.text.startsWith('-'))
    const fromInput = operand < 0 || rest.slice(0, operand).some((a) => /^-[a-z]*s[a-z]*$/.test(a.val.text))
    const script = shellScriptArg(rest)?.val ?? (fromInput ? stdin : undefined)
    const file = script ? -1 : operand
    if (script) this.it.runNested(script, this.shellEnv(s, prefix, at), s, false, at)
    else if (file >= 0 && !rest[file]!.rest) this.it.runScriptFile(rest[file]!, rest.slice(file + 1), this.shellEnv(s, prefix, at), s, at)
    return [s]
  }

  private env(rest: Arg[], prefix: Map<string, Prefix>, s: State, at: Span, stdin?: Val): State[] {
    let i = 0
    let clean = false
    while (i < rest.length && /^-/.test(rest[i]!.val.text)) {
      const t = rest[i]!.val.text
      if (t === '-i' || t === '-' || t === '--ignore-environment') clean = true
      i += t === '-u' ? 2 : 1
    }
    if (clean) {
      const own = new Map<string, Prefix>()
      for (; i < rest.length; i++) {
        const m = /^([A-Za-z_]\w*)=/.exec(rest[i]!.val.text)
        if (!m) break
        own.set(m[1]!, { val: sliceVal(rest[i]!.val, m[0].length), span: rest[i]!.span })
      }
      const after = rest.slice(i)
      return this.cleanly(() => this.run(after, own, s, at, stdin))
    }
    for (; i < rest.length; i++) {
      const m = /^([A-Za-z_]\w*)=/.exec(rest[i]!.val.text)
      if (!m) break
      prefix.set(m[1]!, { val: sliceVal(rest[i]!.val, m[0].length), span: rest[i]!.span })
    }
    return this.run(rest.slice(i), prefix, s, at, stdin)
  }

  /**
   * `apptainer exec [options] IMAGE command…` (and singularity): the command runs with this shell's
   * environment (none under `--cleanenv`/`-e`/`--containall`/`-C`) and the `--env NAME=value[,…]`
   * settings on top, which win.
   */
  private apptainer(rest: Arg[], prefix: Map<string, Prefix>, s: State, at: Span, stdin?: Val): State[] {
    const env = new Map(prefix)
    let clean = false
    let i = 1
    for (; i < rest.length; i++) {
      const a = rest[i]!
      const t = a.val.text
      if (a.rest || !t.startsWith('-')) break
      if (t === '-e' || t === '--cleanenv' || t === '-C' || t === '--containall') clean = true
      const m = /^--env(=)?/.exec(t)
      const value = m ? (m[1] ? sliceVal(a.val, 6) : rest[i + 1]?.val) : undefined
      if (m && value) {
        // `--env A=1,B=2`: each setting, its value mapped to where it was written (a patch may rewrite it). A lone
        // `--env NAME=value` spans its words, so a patch may drop it as it drops `docker run -e NAME=value`.
        const parts = value.text.split(',')
        const last = m[1] ? a : rest[i + 1]!
        const whole =
          parts.length === 1 && a.span.start >= 0 && last.span.start >= 0 ? { start: a.span.start, end: last.span.end, line: last.span.line } : undefined
        let from = 0
        for (const part of parts) {
          const kv = /^([A-Za-z_]\w*)=/.exec(part)
          if (kv) {
            const val = sliceVal(value, from + kv[0].length, from + part.length)
            const w = writtenAt(val)
            env.set(kv[1]!, { val, span: whole ?? { start: -1, end: -1, line: last.span.line }, ...(w ? { valueAt: w } : {}) })
          }
          from += part.length + 1
        }
        if (!m[1]) i++
        continue
      }
      if (APPTAINER_WITH_VALUE.has(t)) i++
    }
    const command = rest.slice(i + 1)
    return clean ? this.cleanly(() => this.run(command, env, s, at, stdin)) : this.run(command, env, s, at, stdin)
  }

  /** The watched variables a process started from this shell gets: exported ones and command prefixes. */
  hostEnv(s: State, prefix: Map<string, Prefix>, at: Span): Map<Watched, Assignment> {
    const env = new Map<Watched, Assignment>()
    for (const name of WATCHED) {
      const p = prefix.get(name)
      const v = this.it.lookup(s, name)
      if (p) {
        const previous = v?.kind === 'scalar' ? v.assignment : undefined
        env.set(name, {
          name,
          val: p.val,
          span: p.span.start >= 0 ? p.span : at,
          kind: 'prefix',
          inBranch: s.branch > 0,
          ...(previous ? { previous } : {}),
          ...(p.span.start >= 0 ? { removable: { start: p.span.start, end: p.span.end } } : {}),
          ...(p.valueAt ? { valueAt: p.valueAt } : {}),
        })
      } else if (v?.kind === 'scalar' && v.exported && !this.clean) env.set(name, v.assignment)
    }
    return env
  }

  /** Everything a nested shell on this host inherits: exported variables and the command's prefixes. */
  private shellEnv(s: State, prefix: Map<string, Prefix>, at: Span): Map<string, Var> {
    const vars = new Map<string, Var>()
    const scopes = this.clean ? [] : [s.globals, ...s.frames.map((f) => f.locals)]
    for (const scope of scopes) for (const [k, v] of scope) if (v.kind === 'scalar' && v.exported) vars.set(k, v)
    for (const [k, a] of this.hostEnv(s, prefix, at)) vars.set(k, { kind: 'scalar', val: a.val, exported: true, assignment: a })
    for (const [k, p] of prefix)
      if (!vars.has(k))
        vars.set(k, { kind: 'scalar', val: p.val, exported: true, assignment: { name: k, val: p.val, span: p.span, kind: 'prefix', inBranch: s.branch > 0 } })
    return vars
  }

  /**
   * `docker run …` / `docker exec …`: a container's environment is its `-e` options only. A container
   * started with `--name` is remembered on the path (State.containers), and a later `docker exec` into
   * it (by name, by a variable holding the name, or by `$(docker ps …)`) runs with the environment it
   * was started with, under the exec's own `-e` options.
   */
  private container(s: State, rest: Arg[], at: Span, stdin?: Val): void {
    const sub = rest[0]?.val.text === 'container' ? rest.slice(1) : rest
    const verb = sub[0]?.val.text
    if (verb !== 'run' && verb !== 'exec') return
    const argv = readContainerArgv(sub.slice(1))
    const into = verb === 'exec' && argv.target ? execTarget(s, argv.target.val) : undefined
    const env = this.optionEnv(s, argv, into?.env ?? new Map())
    if (verb === 'run' && argv.name && argv.name.val.text !== '') {
      const name = argv.name.val.text
      s.containers.set(containerKey(s.host, name), { name, host: s.host, env, line: at.line, ...(argv.network ? { network: argv.network } : {}) })
    }
    this.startIn(s, env, [...(argv.entrypoint ? [argv.entrypoint] : []), ...argv.command], at, stdin, into, verb === 'run' && !argv.entrypoint)
  }

  /** A container's environment: `base` (the container exec'd into, or a compose service's), then `--env-file` files, then `-e` options. */
  private optionEnv(s: State, argv: ContainerArgv, base: ReadonlyMap<Watched, Assignment>): Map<Watched, Assignment> {
    const env = new Map<Watched, Assignment>(base)
    // `--env-file FILE` the script wrote from a here-document: each `NAME=value` line, where it was written.
    for (const file of argv.envFiles) {
      const body = file.val.known ? s.files.get(file.val.text) : undefined
      if (body) for (const a of envFileSettings(body, s, file.span.line)) env.set(a.name as Watched, a)
    }
    for (const e of argv.env) {
      if (!(WATCHED as readonly string[]).includes(e.name)) continue
      const name = e.name as Watched
      const shell = this.it.lookup(s, name)
      const shellAssign = shell?.kind === 'scalar' ? shell.assignment : undefined
      // `-e NAME` and `-e NAME=$NAME` pass the shell's variable on: it was set where the shell set it.
      if (!e.value || (shell?.kind === 'scalar' && sameVal(shell.val, e.value.val))) {
        if (shellAssign && (e.value || (shell?.kind === 'scalar' && shell.exported))) env.set(name, shellAssign)
        continue
      }
      const previous = shellAssign && shellAssign.val.text !== e.value.val.text ? shellAssign : undefined
      const from = e.arg.span
      const to = e.value.span
      const removable = from.start >= 0 && to.start >= from.start ? { start: from.start, end: Math.max(from.end, to.end) } : undefined
      env.set(name, {
        name,
        val: e.value.val,
        span: e.value.span,
        kind: 'docker -e',
        inBranch: s.branch > 0,
        ...(s.frames.length > 1 ? { inFunction: true } : {}),
        ...(previous ? { previous } : {}),
        ...(removable ? { removable } : {}),
      })
    }
    return env
  }

  /** A container's command (`ray start`, `vllm serve`, or a shell running a string) with its environment; starts found in it are marked as run in `into`. */
  private startIn(
    s: State,
    env: Map<Watched, Assignment>,
    command: Arg[],
    at: Span,
    stdin: Val | undefined,
    into: Container | undefined,
    imageEntrypoint = false,
  ): void {
    const before = s.starts.length
    const exe = (command[0]?.val.text ?? '').replace(/^.*\//, '')
    const rayAt = command.findIndex((a, i) => isRayCli(a) && rayStartOptionsAt(command, i) >= 0)
    const serve = serveAt(command)
    const noShellBefore = (i: number) => command.slice(0, i).every((a) => !SHELLS.has(a.val.text.replace(/^.*\//, '')))
    if (rayAt >= 0 && noShellBefore(rayAt))
      s.starts.push(rayStart(s, command.slice(rayStartOptionsAt(command, rayAt)), withPrefixes(env, command.slice(0, rayAt), s), at, true))
    else if (serve >= 0 && noShellBefore(serve))
      s.starts.push(vllmServe(s, command.slice(serve), withPrefixes(env, command.slice(0, serve), s), at, true, this.it.scriptText()))
    else if (SHELLS.has(exe)) {
      const script = shellScriptArg(command.slice(1))?.val ?? stdin
      if (script) this.it.runNested(script, asVars(env), s, true, at)
    } else if (imageEntrypoint && servedByEntrypoint(command)) s.starts.push(vllmServe(s, command, env, at, true, this.it.scriptText()))
    if (into) for (let i = before; i < s.starts.length; i++) s.starts[i] = { ...s.starts[i]!, container: { name: into.name, line: into.line } }
  }

  /**
   * `docker compose [-f FILE]… up|create|start [SERVICE…]`, `… run [-e …] SERVICE [CMD…]`, `… exec [-e …] SERVICE CMD…`
   * (and `docker-compose`): each service's container gets the compose file's `environment:` and
   * `env_file:` (read from the repository, or from a here-document the script wrote), its command
   * runs with them, and a later `compose exec SERVICE` or `docker exec` of its container runs with
   * them too (State.containers, by the service and by its container name).
   */
  private compose(s: State, args: Arg[], prefix: Map<string, Prefix>, at: Span, stdin?: Val): void {
    const files: Val[] = []
    let i = 0
    for (; i < args.length && args[i]!.val.text.startsWith('-'); i++) {
      const t = args[i]!.val.text
      if ((t === '-f' || t === '--file') && args[i + 1]) files.push(args[++i]!.val)
      else if (t.startsWith('--file=')) files.push(sliceVal(args[i]!.val, 7))
      else if (COMPOSE_GLOBAL_WITH_VALUE.has(t)) i++
    }
    const verb = args[i]?.val.text ?? ''
    const rest = args.slice(i + 1)
    const shell = this.shellEnv(s, prefix, at)
    const services = this.it.composeServices(s, files, (name) => {
      const v = shell.get(name)
      return v?.kind === 'scalar' ? v.val : undefined
    })
    const key = (svc: string) => containerKey(s.host, `\u0002compose:${svc}`)
    if (verb === 'up' || verb === 'create' || verb === 'start' || verb === 'restart') {
      const named = composeServiceArgs(rest)
      for (const svc of services.values()) {
        if (named.length > 0 && !named.includes(svc.name)) continue
        const env = this.composeEnv(s, svc, at)
        const c: Container = { name: svc.containerName ?? svc.name, host: s.host, env, line: at.line, ...(svc.networkMode ? { network: svc.networkMode } : {}) }
        s.containers.set(key(svc.name), c)
        if (svc.containerName) s.containers.set(containerKey(s.host, svc.containerName), c)
        if (verb !== 'create') this.startIn(s, new Map(env), this.composeCommand(s, svc, [], undefined, at), at, undefined, c)
      }
      return
    }
    if (verb !== 'run' && verb !== 'exec') return
    const argv = readContainerArgv(rest)
    const svc = argv.target ? services.get(argv.target.val.text) : undefined
    // A service the check has no file for: its command still runs, with the options' environment only.
    if (!svc) {
      this.startIn(s, this.optionEnv(s, argv, new Map()), argv.command, at, stdin, undefined)
      return
    }
    const running = verb === 'exec' ? s.containers.get(key(svc.name)) : undefined
    const into: Container = running ?? { name: svc.containerName ?? svc.name, host: s.host, env: this.composeEnv(s, svc, at), line: at.line }
    const env = this.optionEnv(s, argv, into.env)
    this.startIn(s, env, this.composeCommand(s, svc, argv.command, verb === 'run' ? argv.entrypoint : undefined, at, verb === 'exec'), at, stdin, into)
  }

  /** The service's watched settings as the container gets them: `env_file:` files first, then `environment:`, which wins. */
  private composeEnv(s: State, svc: ComposeService, at: Span): Map<Watched, Assignment> {
    const env = new Map<Watched, Assignment>()
    for (const f of svc.envFiles) {
      const body = this.it.composeEnvFile(s, svc, f)
      if (body) for (const a of envFileSettings(body, s, this.it.spanOfVal(f, at.line).line)) env.set(a.name as Watched, a)
    }
    for (const e of svc.env) {
      if (!(WATCHED as readonly string[]).includes(e.name)) continue
      const valueAt = writtenAt(e.val)
      const span = this.it.spanOfVal(e.val, at.line)
      env.set(e.name as Watched, {
        name: e.name,
        val: e.val,
        span,
        kind: 'compose',
        inBranch: s.branch > 0,
        // Emptied rather than dropped (an empty VLLM_HOST_IP is vLLM's "unset"; edits keep the line count).
        ...(valueAt ? { valueAt, removable: valueAt } : {}),
      })
    }
    return env
  }

  /** The words a service's container runs: `run`/`exec`'s own command, else the file's entrypoint and command. */
  private composeCommand(s: State, svc: ComposeService, given: Arg[], entrypoint: Arg | undefined, at: Span, execOnly = false): Arg[] {
    if (execOnly) return given
    const asArg = (val: Val): Arg => {
      const span = this.it.spanOfVal(val, at.line)
      return { val, span: svc.commandEditable ? span : { start: -1, end: -1, line: span.line }, depth: s.frames.length, nested: true }
    }
    const entry = entrypoint ? [entrypoint] : (svc.entrypoint ?? []).map(asArg)
    return [...entry, ...(given.length > 0 ? given : (svc.command ?? []).map(asArg))]
  }

  /**
   * tmux's commands (tmux(1), OpenBSD/tmux `tmux.1`): `new-session`/`new-window`/`split-window`/`respawn-pane`/`respawn-window`
   * with a shell-command run it in a new pane's shell ("shell-command … passed to the shell", default-shell `-c`), with the
   * environment the server gives its panes (this shell's exports, the server being started by the script's first
   * `new-session`) and the command's own `-e VARIABLE=value` settings on top. `send-keys [-t pane] 'text' Enter` types the text
   * into a shell already running in a pane, which runs it at `Enter`/`C-m`: a shell with none of this shell's variables, as
   * ssh's. Several commands in one invocation are separated by a `;` word.
   */
  private tmux(s: State, rest: Arg[], prefix: Map<string, Prefix>, at: Span): void {
    let i = 0
    // Global options before the command (`-L socket`, `-S path`, `-f file` take a value).
    while (i < rest.length && rest[i]!.val.text.startsWith('-')) i += /^-[LSfT]$/.test(rest[i]!.val.text) ? 2 : 1
    const words = rest.slice(i)
    for (let from = 0; from < words.length; ) {
      let to = words.findIndex((a, j) => j >= from && (a.val.text === ';' || a.val.text === '\\;'))
      if (to < 0) to = words.length
      this.tmuxCommand(s, words.slice(from, to), prefix, at)
      from = to + 1
    }
  }

  private tmuxCommand(s: State, words: Arg[], prefix: Map<string, Prefix>, at: Span): void {
    const cmd = words[0]?.val.text ?? ''
    const args = words.slice(1)
    if (TMUX_SPAWNS.has(cmd)) {
      const env = new Map(prefix)
      let i = 0
      // getopt: flags may be grouped (`-dP`); a flag that takes a value takes the rest of its word (`-eNAME=v`) or the next.
      for (; i < args.length && !args[i]!.rest && /^-[A-Za-z]/.test(args[i]!.val.text); i++) {
        const a = args[i]!
        const t = a.val.text
        const k = [...t.slice(1)].findIndex((c) => TMUX_SPAWN_VALUED.has(`-${c}`))
        if (k < 0) continue
        const own = t.length > k + 2
        const value = own ? sliceVal(a.val, k + 2) : args[i + 1]?.val
        const last = own ? a : args[i + 1]
        if (!own) i++
        const kv = t[k + 1] === 'e' && value ? /^([A-Za-z_]\w*)=/.exec(value.text) : null
        if (!kv || !last) continue
        // `-e NAME=v` spans its words, so a patch may drop the setting whole.
        const whole =
          k === 0 && a.span.start >= 0 && last.span.start >= 0
            ? { start: a.span.start, end: last.span.end, line: last.span.line }
            : { start: -1, end: -1, line: last.span.line }
        const val = sliceVal(value!, kv[0].length)
        const w = writtenAt(val)
        env.set(kv[1]!, { val, span: whole, ...(w ? { valueAt: w } : {}) })
      }
      const command = args.slice(i)
      if (command.length === 0) return
      const script = command.length === 1 ? command[0]!.val : concatJoin(command.map((a) => a.val))
      this.it.runNested(script, this.shellEnv(s, env, at), s, false, at)
      return
    }
    if (cmd === 'send-keys' || cmd === 'send') {
      let i = 0
      let literal = false
      for (; i < args.length && /^-[A-Za-z]+$/.test(args[i]!.val.text); i++) {
        const t = args[i]!.val.text
        if (t.includes('l')) literal = true
        if (/[tN]$/.test(t)) i++
      }
      if (literal) return
      // Each run of words up to an Enter key is one line the pane's shell reads.
      let line: Arg[] = []
      for (const a of args.slice(i)) {
        if (/^(?:Enter|C-m|KPEnter)$/.test(a.val.text)) {
          if (line.length > 0) this.it.runNested(concatVals(line.map((x) => x.val)), new Map(), s, false, at)
          line = []
        } else line.push(a)
      }
    }
  }

  /** `ssh host "…"`: the remote shell runs the words as one string, with none of this shell's variables. */
  private ssh(s: State, rest: Arg[], at: Span, stdin?: Val): void {
    const words = sshCommand(rest)
    // `ssh host <<EOF` and `ssh host bash -s <<EOF`: the remote shell reads the here-document.
    const shell = words.length === 0 || (SHELLS.has(words[0]!.val.text.replace(/^.*\//, '')) && !shellScriptArg(words.slice(1)))
    const host = sshHost(rest)
    if (shell && stdin) this.it.runNested(stdin, new Map(), s, false, at, host)
    // A remote command reads what is piped in (`… | ssh host 'cat > f && bash f'`).
    else if (words.length > 0) this.it.runNested(concatJoin(words.map((w) => w.val)), new Map(), s, false, at, host, undefined, stdin)
  }
}

/**
 * The container a `docker exec` names, among those this path started on its host: by the name as
 * expanded (a literal, or a variable's value, symbolic or not), or, for `$(docker ps -q …)`, the one
 * whose name the command substitution mentions, else the only one.
 */
function execTarget(s: State, target: Val): Container | undefined {
  const byName = s.containers.get(containerKey(s.host, target.text))
  if (byName) return byName
  if (!/^\$\((?:sudo\s+)?(?:docker|podman)\s+(?:container\s+)?(?:ps|ls)\b/.test(target.text)) return undefined
  const here = [...s.containers.values()].filter((c) => c.host === s.host)
  const named = here.filter((c) => target.text.includes(c.name))
  return named.length === 1 ? named[0] : here.length === 1 ? here[0] : undefined
}

/** The watched `NAME=value` lines of an env file (docker's format: no quotes, `#` comments), mapped to where the script wrote them. */
function envFileSettings(body: Val, s: State, line: number): Assignment[] {
  const out: Assignment[] = []
  let at = 0
  for (const text of body.text.split('\n')) {
    const m = /^([A-Za-z_]\w*)=(.*?)\s*$/.exec(text)
    if (m && (WATCHED as readonly string[]).includes(m[1]!)) {
      const val = sliceVal(body, at + m[1]!.length + 1, at + m[1]!.length + 1 + m[2]!.length)
      const valueAt = writtenAt(val)
      const start = body.map?.[at] ?? -1
      out.push({
        name: m[1]!,
        val,
        span: { start, end: start >= 0 ? start + text.length : -1, line },
        kind: 'env file',
        inBranch: s.branch > 0,
        // Emptied rather than dropped (an empty VLLM_HOST_IP is vLLM's "unset"; edits keep the line count).
        ...(valueAt ? { valueAt, removable: valueAt } : {}),
      })
    }
    at += text.length + 1
  }
  return out
}

/** Index of `start` in `python[3[.N]] [-u …] -m ray.scripts.scripts start` among a command's words (-1: none). */
export function rayModuleStart(argv: readonly Arg[]): number {
  const m = argv.findIndex((a, i) => a.val.text === 'ray.scripts.scripts' && argv[i - 1]?.val.text === '-m' && rayStartOptionsAt(argv, i) >= 0)
  if (m < 2) return -1
  const py = argv.slice(0, m - 1).findLastIndex((a) => /^python(?:\d+(?:\.\d+)?)?$/.test(a.val.text.replace(/^.*\//, '')))
  return py >= 0 && argv.slice(py + 1, m - 1).every((a) => a.val.text.startsWith('-')) ? rayStartOptionsAt(argv, m) - 1 : -1
}

/** Where `vllm serve`'s own arguments start in a command's words (-1: none). */
function serveAt(argv: readonly Arg[]): number {
  const direct = serveArgsStart(argv, (a) => a.val.text)
  if (direct >= 0) return direct
  const i = argv.findIndex((a, j) => j > 0 && a.val.text.replace(/^.*\//, '') === 'vllm' && argv[j + 1]?.val.text === 'serve')
  if (i > 0) return i + 2
  // A framework's own entry point that passes vLLM's serve flags through (prime-rl's `uv run inference @ infer.toml
  // --data-parallel-address … --headless`): flags only vLLM's data-parallel serve takes make it a serve.
  return argv.some((a) => DATA_PARALLEL_SERVE_ONLY.test(a.val.text)) ? 1 : -1
}

/** vLLM's data-parallel flags across nodes (vllm/engine/arg_utils.py); SGLang's and trainers' launchers name theirs otherwise. */
const DATA_PARALLEL_SERVE_ONLY = /^--data-parallel-(?:address|start-rank|size-local|rpc-port)(?:=|$)/

/**
 * The words from the `ray start` another command carries on (a launcher such as `uv run`, `conda run`), or from the `env` that launcher runs
 * before it (`uv run env VLLM_HOST_IP=… ray start`: its assignments reach Ray); undefined when no `ray start` follows the first word.
 */
function rayBehindLauncher(argv: readonly Arg[]): Arg[] | undefined {
  const ray = argv.findIndex((a, i) => i > 0 && isRayCli(a) && rayStartOptionsAt(argv, i) >= 0)
  if (ray <= 0) return undefined
  const envAt = argv.findIndex((a, i) => i > 0 && i < ray && a.val.text === 'env')
  const viaEnv = envAt > 0 && argv.slice(envAt + 1, ray).every((a) => /^[A-Za-z_]\w*=/.test(a.val.text) || /^-/.test(a.val.text))
  return argv.slice(viaEnv ? envAt : ray)
}

/** Ray's console script, by its name or a path to it (`/opt/ray/bin/ray start`, a venv's `bin/ray`, in a container too). */
const isRayCli = (a: Arg): boolean => a.val.text.replace(/^.*\//, '') === 'ray'

/** Flags only vLLM's serve takes (never torchrun's or a training script's launcher's). */
const SERVE_ONLY =
  /^--(?:distributed-executor-backend|tensor-parallel-size|pipeline-parallel-size|data-parallel-size|headless|served-model-name|max-model-len|gpu-memory-utilization)(?:=|$)/

/**
 * A `docker run IMAGE ARGS…` with no `--entrypoint` whose ARGS are a serve's (a model, then vLLM's own flags) and
 * that names vLLM's native multi-node mode: the image's entrypoint is vLLM's serve. vLLM's image says so itself
 * (vllm-project/vllm docker/Dockerfile @ dead20b: `FROM vllm-openai-base AS vllm-openai` / `ENTRYPOINT ["vllm",
 * "serve"]`; earlier `ENTRYPOINT ["python3", "-m", "vllm.entrypoints.openai.api_server"]`, the same arguments), and
 * DGX Spark images built on it keep it. ARGS that begin with a program (`torchrun …`, `python …`) are not.
 */
function servedByEntrypoint(command: readonly Arg[]): boolean {
  const first = command[0]?.val
  if (!first || command.length < 2) return false
  const model = first.text.startsWith('-') || first.text.includes('/') || !first.known
  return model && command.some((a) => /^--(?:nnodes|node-rank|master-addr)(?:=|$)/.test(a.val.text)) && command.some((a) => SERVE_ONLY.test(a.val.text))
}

/** Leading options of a wrapper (`sudo -E -u user`, `timeout 60`, `srun -N1 -w host`). */
function stripOptions(name: string, rest: Arg[]): Arg[] {
  let i = 0
  const valued = name === 'sudo' ? /^-[ugChDpRrT]$/ : name === 'srun' ? /^-[A-Za-z]$/ : /^$/
  while (i < rest.length && rest[i]!.val.text.startsWith('-')) i += valued.test(rest[i]!.val.text) ? 2 : 1
  if (name === 'timeout' && /^\d/.test(rest[i]?.val.text ?? '')) i++
  return rest.slice(i)
}

/** `env NAME=v ray start` (or `NAME=v` words) in a container's command: those reach Ray too. */
function withPrefixes(env: Map<Watched, Assignment>, before: Arg[], s: State): Map<Watched, Assignment> {
  const out = new Map(env)
  for (const a of before) {
    const m = /^([A-Za-z_]\w*)=/.exec(a.val.text)
    if (!m || !(WATCHED as readonly string[]).includes(m[1]!)) continue
    const name = m[1] as Watched
    const previous = out.get(name)
    out.set(name, {
      name,
      val: sliceVal(a.val, m[0].length),
      span: a.span,
      kind: 'prefix',
      inBranch: s.branch > 0,
      ...(previous ? { previous } : {}),
      ...(a.span.start >= 0 ? { removable: { start: a.span.start, end: a.span.end } } : {}),
    })
  }
  return out
}

const asVars = (env: ReadonlyMap<Watched, Assignment>): Map<string, Var> =>
  new Map([...env].map(([k, a]) => [k, { kind: 'scalar', val: a.val, exported: true, assignment: a } as Var]))

/**
 * Where `ray start`'s own arguments begin for the `ray` word at `at` (-1: that is no `ray start`). The options of Ray's command group may
 * come before the subcommand (ray-project/ray python/ray/scripts/scripts.py `cli`: `--logging-level`, `--logging-format`, and the log style
 * options `--log-style`, `--log-color`): `ray --logging-level info start --head …` (ALCF's Aurora job, held-out15).
 */
function rayStartOptionsAt(argv: readonly Arg[], at: number): number {
  let i = at + 1
  while (i < argv.length && /^--(?:logging-level|logging-format|log-style|log-color)(?:=|$)/.test(argv[i]!.val.text))
    i += argv[i]!.val.text.includes('=') ? 1 : 2
  return argv[i]?.val.text === 'start' ? i + 1 : -1
}
