/**
 * The options of `docker run` / `docker exec` / `podman run` read as docker's flag library (spf13/pflag)
 * reads them, for every reader of a container's command line: the manifest's `container.extraArgs`
 * (src/manifest/values.ts) and a launch script's `docker run` (src/script-check/container-run.ts).
 *
 * pflag's spellings, all of which docker accepts:
 * - long: `--env NAME=v`, `--env=NAME=v`, a flag without a value (`--rm`);
 * - short: `-e NAME=v`, `-eNAME=v`, `-e=NAME=v` (pflag drops the `=`), and a bundle of flags without a
 *   value ending in one with a value: `-de NAME=v`, `-teNAME=v`, `-qe=NAME=v`, `-itdeNAME=v`;
 * - `--` ends the options; the first word that is no option is the image (or the container).
 *
 * Generic over the item type (a string, or a script word that remembers where it was written): a
 * value is given as its item and the characters before it in that item.
 */

/** docker run's shorthands that take a value (docker/cli: run and create options). */
const SHORT_WITH_VALUE = new Set('a c e h l m p u v w'.split(' '))

/** Long options that take a value (docker run and create, podman run; the rest are booleans). */
const LONG_WITH_VALUE = new Set(
  (
    '--name --network --net --gpus --shm-size --volume --device --workdir --user --ipc --ulimit --cap-add --cap-drop --publish ' +
    '--runtime --restart --mount --label --memory --cpus --pid --hostname --add-host --security-opt --log-driver --log-opt --platform ' +
    '--env-file --cpuset-cpus --group-add --tmpfs --dns --uts --userns --stop-signal --stop-timeout --health-cmd --pull --detach-keys --cgroupns ' +
    '--memory-swap --storage-opt --sysctl --volumes-from --link --expose --label-file --cidfile --entrypoint --env --hooks-dir --pod ' +
    '--attach --cpu-shares --memory-reservation --kernel-memory --cpu-period --cpu-quota --cpuset-mems --blkio-weight --device-cgroup-rule ' +
    '--dns-option --dns-search --domainname --health-interval --health-retries --health-timeout --health-start-period --ip --ip6 --isolation ' +
    '--mac-address --network-alias --oom-score-adj --pids-limit --publish-all-ports --annotation --env-host --userns-remap --volume-driver'
  ).split(' '),
)

/**
 * Whether a word can only be an option of docker run itself, never the first word of a container's command: its long options
 * (less `--device`, which vLLM's own command line has had) and its common shorthands alone. A word of unknown value before
 * one is more options (`docker run -d $MOUNT_ARGS -e X=1 IMAGE`), not the image.
 */
export function isDockerOnlyOption(t: string): boolean {
  if (t.startsWith('--')) {
    const name = t.includes('=') ? t.slice(0, t.indexOf('=')) : t
    return name !== '--device' && (LONG_WITH_VALUE.has(name) || DOCKER_LONG_FLAGS.has(name))
  }
  return /^-(?:[ev]|[dit]{1,3})$/.test(t)
}

/** docker run's long options that take no value. */
const DOCKER_LONG_FLAGS = new Set([
  '--rm',
  '--privileged',
  '--init',
  '--detach',
  '--interactive',
  '--tty',
  '--read-only',
  '--no-healthcheck',
  '--oom-kill-disable',
])

/** The long form of each shorthand that takes a value, so readers match one name. */
const LONG_OF: Readonly<Record<string, string>> = {
  a: '--attach',
  c: '--cpu-shares',
  e: '--env',
  h: '--hostname',
  l: '--label',
  m: '--memory',
  p: '--publish',
  u: '--user',
  v: '--volume',
  w: '--workdir',
}

export interface DockerOption<T> {
  /** The long name (`--env` for `-e`, `-de`, `--env=`); a boolean shorthand keeps its own (`-d`). */
  readonly name: string
  /** The item the option is written in. */
  readonly flag: T
  /** The item holding the value, when it takes one (the same item when joined). */
  readonly valueItem?: T
  /** Characters of `valueItem` before the value (`--env=` → 6, `-deX=1` → 3; 0 when it is its own item). */
  readonly valueOffset?: number
  /** The value's text. */
  readonly value?: string
}

export interface DockerArgs<T> {
  readonly options: DockerOption<T>[]
  /** Index of the image (run) or container (exec); items.length when there is none. */
  readonly target: number
}

/**
 * Options until the image. `skip(item)`: an item that stands for unknown words (a script's `"$@"`)
 * and is neither an option nor the image.
 */
export function readDockerArgs<T>(items: readonly T[], text: (t: T) => string, skip: (t: T) => boolean = () => false): DockerArgs<T> {
  const options: DockerOption<T>[] = []
  let i = 0
  for (; i < items.length; i++) {
    const item = items[i]!
    if (skip(item)) continue
    const t = text(item)
    if (t === '--') {
      i++
      break
    }
    if (!t.startsWith('-') || t === '-') break
    if (t.startsWith('--')) {
      const eq = t.indexOf('=')
      const name = eq > 0 ? t.slice(0, eq) : t
      if (eq > 0) options.push({ name, flag: item, valueItem: item, valueOffset: eq + 1, value: t.slice(eq + 1) })
      else if (LONG_WITH_VALUE.has(name) && i + 1 < items.length) {
        const v = items[++i]!
        options.push({ name, flag: item, valueItem: v, valueOffset: 0, value: text(v) })
      } else options.push({ name, flag: item })
      continue
    }
    // A shorthand bundle: flags without a value, up to the first that takes one, which takes the rest.
    for (let c = 1; c < t.length; c++) {
      const ch = t[c]!
      if (!SHORT_WITH_VALUE.has(ch)) {
        options.push({ name: `-${ch}`, flag: item })
        continue
      }
      const name = LONG_OF[ch]!
      const rest = c + 1 < t.length ? (t[c + 1] === '=' ? c + 2 : c + 1) : -1
      if (rest >= 0) options.push({ name, flag: item, valueItem: item, valueOffset: rest, value: t.slice(rest) })
      else if (i + 1 < items.length) {
        const v = items[++i]!
        options.push({ name, flag: item, valueItem: v, valueOffset: 0, value: text(v) })
      }
      break
    }
  }
  return { options, target: i }
}
