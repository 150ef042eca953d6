/**
 * The argv of `docker run` / `podman run` / `docker exec` read as those tools read it: options (with
 * or without a value, joined or separate) wherever they stand before the image, `-e`/`--env` in all
 * its spellings, `--entrypoint`, then the image and the command the container runs. Arguments that
 * stand for the script's own, unknown arguments (`"$@"` at the top level) are skipped, not taken
 * for the image.
 */

import { isDockerOnlyOption, readDockerArgs } from '../command/docker-args.js'
import { sliceVal, type Arg } from './model.js'

/** One `-e` of the command line: the argument it stands in, and NAME=value or NAME alone (the value is mapped to where it was written). */
export interface EnvOption {
  readonly arg: Arg
  readonly name: string
  /** undefined: `-e NAME` passes the caller's NAME on. */
  readonly value?: Arg
}

export interface ContainerArgv {
  readonly env: EnvOption[]
  /** `--env-file FILE` paths, in order (docker reads them before the `-e` options, which win). */
  readonly envFiles: Arg[]
  readonly entrypoint?: Arg
  /** `--name` (run): what later `docker exec`s call the container. */
  readonly name?: Arg
  /** `--network` / `--net` (run). */
  readonly network?: string
  /** The image (run) or container (exec). */
  readonly target?: Arg
  readonly command: Arg[]
}

function envOption(arg: Arg, text: Arg): EnvOption | undefined {
  const m = /^([A-Za-z_]\w*)(=?)/.exec(text.val.text)
  if (!m) return undefined
  if (!m[2]) return { arg, name: m[1]! }
  return { arg, name: m[1]!, value: { ...text, val: sliceVal(text.val, m[0].length) } }
}

/** Options (read by the one docker argv reader, src/command/docker-args.ts), then the image or container, then its command. */
export function readContainerArgv(args: readonly Arg[]): ContainerArgv {
  const env: EnvOption[] = []
  const envFiles: Arg[] = []
  let entrypoint: Arg | undefined
  let name: Arg | undefined
  let network: string | undefined
  // Words of unknown value before an option only docker run has stand for options (`$MOUNT_ARGS $NCCL_ENV -e …`), as `"$@"` does; so
  // does an empty word among them (`… $MOUNTS $NCCL_IB_ENV --entrypoint bash …` with NCCL_IB_ENV="" unquoted, no word to docker:
  // tenhkspark's start-worker.sh, held-out25).
  const spread = new Set<Arg>()
  for (let i = args.length - 1; i >= 0; i--) {
    const a = args[i]!
    const next = args[i + 1]
    const optionsAfter = next !== undefined && (spread.has(next) || isDockerOnlyOption(next.val.text))
    const standsIn = !a.val.known ? !a.val.text.startsWith('-') : a.val.text === ''
    if (a.rest || (standsIn && optionsAfter)) spread.add(a)
  }
  const read = readDockerArgs(
    args,
    (a) => a.val.text,
    (a) => spread.has(a),
  )
  for (const o of read.options) {
    if (!o.valueItem) continue
    const value: Arg = o.valueOffset ? { ...o.valueItem, val: sliceVal(o.valueItem.val, o.valueOffset) } : o.valueItem
    if (o.name === '--env') {
      const e = envOption(o.flag, value)
      if (e) env.push(e)
    }
    if (o.name === '--entrypoint') entrypoint = value
    if (o.name === '--env-file') envFiles.push(value)
    if (o.name === '--name') name = value
    if (o.name === '--network' || o.name === '--net') network = value.val.text
  }
  const target = args[read.target]
  return {
    env,
    envFiles,
    ...(entrypoint ? { entrypoint } : {}),
    ...(name ? { name } : {}),
    ...(network ? { network } : {}),
    ...(target ? { target } : {}),
    command: args.slice(read.target + 1),
  }
}

const SSH_WITH_VALUE = new Set('-b -c -D -E -e -F -I -i -J -L -l -m -O -o -p -Q -R -S -W -w -B'.split(' '))

/**
 * Where ssh's destination is in `ssh [options] destination [command…]` (ssh(1): the first argument that is no option or an
 * option's value). A variable of unknown value expanded alone (`ssh $SSH_OPTS "$host" "cmd"`, SSH_OPTS an input with a
 * default of options) is read as options when exactly two words follow it, the destination and one command string: read
 * as the destination, the real one would become the remote command's first word. Followed by one word it is the
 * destination (`ssh $HOST "cmd"`), and so with more (`ssh $HOST ray start …`).
 */
function sshDestination(args: readonly Arg[]): number {
  let i = 0
  for (; i < args.length; i++) {
    const a = args[i]!
    const t = a.val.text
    if (!a.val.known && /^\$\{?[A-Za-z_]\w*\}?$/.test(t) && args.length - i - 1 === 2) continue
    if (!t.startsWith('-')) break
    if (SSH_WITH_VALUE.has(t)) i++
  }
  return i
}

/** `ssh [options] host command…`: the command words, which the remote shell runs as one string. */
export function sshCommand(args: readonly Arg[]): Arg[] {
  return args.slice(sshDestination(args) + 1)
}

/** `ssh [options] host …`: the destination as written (`user@` dropped), '' when there is none. */
export function sshHost(args: readonly Arg[]): string {
  return (args[sshDestination(args)]?.val.text ?? '').replace(/^[^@]*@/, '')
}

/** `bash [options] -c SCRIPT …`: the script argument. */
export function shellScriptArg(args: readonly Arg[]): Arg | undefined {
  const ci = args.findIndex((a) => /^-\w*c\w*$/.test(a.val.text) && !a.val.text.startsWith('--'))
  return ci >= 0 ? args[ci + 1] : undefined
}
