/**
 * The incident's two bugs, injected into a real launch script as text, in each syntactic style a
 * script may use, with no help from the checker: where each role's `ray start` is, is read from the
 * text alone (its logical command, `\` continuations followed; a `+=` line that adds `--head` or
 * `--address` to a command string), so the test cannot agree with the checker by construction.
 *
 * - head: the head's `ray start` loses any `--node-ip-address` while VLLM_HOST_IP (the fabric IP
 *   10.99.0.1) reaches it.
 * - worker: the worker's section sets VLLM_HOST_IP to another address (10.99.0.2).
 */

export const FABRIC_IP = '10.99.0.1'
export const OTHER_IP = '10.99.0.2'

export type Style = 'prefix' | 'env' | 'exec env' | 'export' | 'docker -e' | 'bash -c' | 'ssh' | 'docker exec' | 'docker exec ps' | 'source' | 'compose run'
export const STYLES: readonly Style[] = [
  'prefix',
  'env',
  'exec env',
  'export',
  'docker -e',
  'bash -c',
  'ssh',
  'docker exec',
  'docker exec ps',
  'source',
  'compose run',
]

/** The file the `source` style writes the setting to, and the compose file of the `compose run` style (beside the script). */
export const SETTINGS_FILE = 'vrd-settings.sh'
export const COMPOSE_FILE = 'vrd-compose.yml'

export interface Mutant {
  readonly bug: 'head' | 'worker'
  readonly style: Style
  readonly text: string
  /** 1-based lines of the mutated text where the injected VLLM_HOST_IP was written. */
  readonly injectedLines: readonly number[]
  /** 1-based lines of the mutated text that belong to the role's `ray start` (where a pin may go). */
  readonly roleLines: readonly number[]
  /** The head's ray start is the worker's too (run_cluster.sh builds one command string): the injected value reaches both roles. */
  readonly shared: boolean
  /** Files beside the script that the mutant reads (a sourced settings file, a compose file), by name: the value is injected there. */
  readonly files: Readonly<Record<string, string>>
}

interface Occurrence {
  /** Index of `ray start`. */
  readonly at: number
  /** End of its logical command (before the newline, a trailing `&` or `;`). */
  readonly end: number
  readonly role: 'head' | 'worker' | 'shared'
  /** `ray start` begins a command (not inside a string). */
  readonly direct: boolean
  /** A serve built in an array (`cmd=(vllm serve …)`): where the command that runs it (`exec "${cmd[@]}"`) begins. */
  readonly runAt?: number
}

const lineOf = (text: string, i: number): number => text.slice(0, i).split('\n').length
const lineRange = (text: string, from: number, to: number): number[] => {
  const out: number[] = []
  for (let l = lineOf(text, from); l <= lineOf(text, to); l++) out.push(l)
  return out
}

/** End of the logical line that index i is on (`\` + newline continues it). */
function logicalEnd(text: string, i: number): number {
  let j = i
  for (;;) {
    const nl = text.indexOf('\n', j)
    if (nl < 0) return text.length
    if (text[nl - 1] === '\\') j = nl + 1
    else return nl
  }
}

/**
 * Whether index i is inside a quoted string that began on an earlier line (a multi-line `bash -lc "…"`
 * body): bash's quotes read from the top, comments, backslashes and here-document bodies skipped.
 */
function inMultiLineString(text: string, i: number): boolean {
  return stringOpenedOn(text, i) !== undefined
}

/** Where the line begins on which the multi-line quoted string around index i opened (undefined: i is in none). */
function stringOpenedOn(text: string, i: number): number | undefined {
  let q: '' | "'" | '"' = ''
  let openedOn = -1
  let heredoc: string | undefined
  for (let j = 0; j < i; j++) {
    const c = text[j]!
    if (heredoc !== undefined) {
      // The body runs to the line that is the delimiter.
      const end = text.indexOf('\n', j)
      const line = text.slice(j, end < 0 ? text.length : end)
      if (line.trim() === heredoc) heredoc = undefined
      j = end < 0 ? text.length : end
      continue
    }
    if (q === "'") {
      if (c === "'") q = ''
    } else if (q === '"') {
      if (c === '\\') j++
      else if (c === '"') q = ''
    } else if (c === '\\') j++
    else if (c === '#' && (j === 0 || /\s/.test(text[j - 1]!))) j = Math.max(j, text.indexOf('\n', j) - 1)
    else if (c === "'" || c === '"') {
      q = c
      openedOn = text.lastIndexOf('\n', j)
    } else if (c === '<' && text[j + 1] === '<' && text[j + 2] !== '<') {
      const h = /^<<-?\s*['"]?(\w+)['"]?/.exec(text.slice(j))
      if (h) {
        const nl = text.indexOf('\n', j)
        if (nl < 0 || nl >= i) return undefined
        heredoc = h[1]!
        j = nl
      }
    }
  }
  return q !== '' && openedOn !== text.lastIndexOf('\n', i - 1) ? openedOn + 1 : undefined
}

function occurrences(text: string): Occurrence[] {
  const out: Occurrence[] = []
  // `ray start`, or Ray's CLI run as its module (`python -m ray.scripts.scripts start`, the `ray` console script's module).
  // (Ray's own options may come before the subcommand: `ray --logging-level info start …`, ALCF's Aurora job.)
  const re = /\b(?:ray|python[\d.]*\s+-m\s+ray\.scripts\.scripts)(?:\s+--log(?:ging)?-[\w-]+(?:=|\s+)\S+)*\s+start\b/g
  for (let m = re.exec(text); m; m = re.exec(text)) {
    // Ray run by its path (`/root/.local/bin/ray start`, OpenRLHF's Slurm example): the command word starts at the path, where a setting goes.
    const path = /(?:^|(?<=[\s"'`(=;&|]))[\w.~${}/-]*\/$/.exec(text.slice(text.lastIndexOf('\n', m.index) + 1, m.index))?.[0] ?? ''
    const at = m.index - path.length
    const lineStart = text.lastIndexOf('\n', at) + 1
    const before = text.slice(lineStart, at)
    if (before.trimStart().startsWith('#')) continue
    let end = logicalEnd(text, m.index)
    const region = text.slice(m.index, end)
    const tail = /\s*(?:&|;)?\s*$/.exec(region)
    end -= tail ? tail[0].length : 0
    const role = /(?:^|\s)--head\b/.test(region) ? 'head' : /(?:^|\s)--address\b/.test(region) ? 'worker' : 'shared'
    // A command printed for the reader (`echo "ray start --address=$HEAD_IP:6379"`, the instructions a head script prints for its
    // workers): no start runs there.
    if (/^(?:echo|printf)\b/.test(text.slice(commandStart(text, at), at))) continue
    const quotes = (before.match(/["']/g) ?? []).length
    out.push({ at, end, role, direct: quotes % 2 === 0 && !/[=]$/.test(before.trim()) && !inMultiLineString(text, at) })
  }
  return out
}

/** A `+=" --head …"` (or `--address`) line that adds the role to a shared command string. */
function appendLine(text: string, flag: '--head' | '--address'): { start: number; end: number } | undefined {
  const re = new RegExp(`^[^#\\n]*\\+=\\s*["'][^"'\\n]*${flag}\\b[^\\n]*$`, 'm')
  const m = re.exec(text)
  return m ? { start: m.index, end: m.index + m[0].length } : undefined
}

/**
 * Start of the simple command an index is in: its logical line (continuation lines followed back, indentation
 * skipped), after the last `&&`, `||`, `;` or `|` outside quotes before the index (`ulimit -s N && apptainer exec … ray
 * start`: the command is the apptainer's, and a setting written before `ulimit` is ulimit's alone).
 */
function commandStart(text: string, i: number): number {
  let ls = text.lastIndexOf('\n', i - 1) + 1
  while (ls > 1 && text[ls - 2] === '\\') ls = text.lastIndexOf('\n', ls - 2) + 1
  let from = ls
  let q = ''
  for (let j = ls; j < i; j++) {
    const c = text[j]!
    if (q) {
      if (c === q) q = ''
      else if (c === '\\' && q === '"') j++
    } else if (c === '\\') j++
    else if (c === '"' || c === "'") q = c
    else if ((c === '&' || c === '|') && text[j + 1] === c) from = ++j + 1
    else if (c === ';' || c === '|') from = j + 1
  }
  // Inside a string the command began outside: the logical line's start, as before.
  if (q) from = ls
  return from + /^[ \t]*/.exec(text.slice(from))![0].length
}

/** Index i moved past bash's reserved words that may begin a command (`until`, `while`, `if`, `!`, …). */
function afterReserved(text: string, i: number): number {
  return i + /^(?:(?:until|while|if|elif|then|do|else|!|\{|time)[ \t]+)*/.exec(text.slice(i))![0].length
}

/** Length of the `exec ` words just before index i on its line (`exec ray start`), 0 if none. */
function execBefore(text: string, i: number): number {
  const m = /(?:^|[\s;&|(])((?:exec\s+)+)$/.exec(text.slice(text.lastIndexOf('\n', i - 1) + 1, i))
  return m ? m[1]!.length : 0
}

function insert(text: string, at: number, s: string): string {
  return text.slice(0, at) + s + text.slice(at)
}

/** A command that can be wrapped in one double-quoted string (no quotes, substitutions or lists in it). */
const wrappable = (cmd: string): boolean => !/["'`]|\$\(|&&|\|\||[;|#]/.test(cmd)

function headPin(text: string, o: Occurrence | undefined, append: { start: number; end: number } | undefined, shared: Occurrence | undefined): string {
  // The value ends at a blank or at the quote that closes a string around the command; an unquoted `$(hostname -I)` is one value
  // (ocean-oss/ray-jupyter-app's startup.sh, held-out26).
  // A pin alone on a continuation line (`… \` / `--node-ip-address '${IP}' \` / `…`) goes with its line's continuation, so
  // the lines around it stay one command (removing the word alone left `… \ \`, an escaped blank: one more argument).
  const strip = (s: string) =>
    s
      .replace(/\\\n[ \t]*--node-ip-address(?:=|[ \t]+)(?:"[^"]*"|'[^']*'|\$\([^()\n]*\)|[^\s"']+)[ \t]*(?=\\\n)/g, '')
      .replace(/\s--node-ip-address(?:=|\s+)(?:"[^"]*"|\$\([^()\n]*\)|[^\s"]+)/g, '')
  if (o && o.role === 'head') return text.slice(0, o.at) + strip(text.slice(o.at, o.end)) + text.slice(o.end)
  if (!append) return text
  const appended = text.slice(0, append.start) + strip(text.slice(append.start, append.end)) + text.slice(append.end)
  // The pin is in the command both roles build on (`CMD="ray start --node-ip-address=…"; CMD+=" --head"`): the head loses it there.
  if (appended !== text || !shared || shared.at > append.start) return appended
  return text.slice(0, shared.at) + strip(text.slice(shared.at, shared.end)) + text.slice(shared.end)
}

/**
 * Whether a line inserted at `from` (in a branch or not) reaches the ray start at `to` after it: bash's
 * `if`/`case` are no scope, so it does unless `to` is in a sibling branch (an `else`, `elif` or another
 * case item of a construct around `from`, before that construct closes), in another function's body,
 * or sets VLLM_HOST_IP itself.
 */
function reaches(text: string, from: number, to: number): boolean {
  let depth = 0
  let sibling = false
  for (const raw of text.slice(from, to).split('\n').slice(1)) {
    const line = raw.trim().replace(/\s+#.*$/, '')
    if (line.startsWith('#')) continue
    // The later start's own setting (its section's, its command's) is what it gets.
    if (/\bVLLM_HOST_IP=/.test(line)) return false
    // A start in another function's body runs when that function is called, not after this line.
    if (/^(?:function\s+)?[A-Za-z_][\w-]*\s*\(\s*\)/.test(line)) return false
    const opens = (line.match(/(?:^|[;&|]\s*)(?:if|case|while|until|for)\b/g) ?? []).length
    const closes = (line.match(/(?:^|;\s*|\s)(?:fi|esac|done)\b\s*(?:[;&|)]|$)/g) ?? []).length
    if (depth === 0 && (/^(?:else|elif)\b/.test(line) || /;;\s*$/.test(line))) sibling = true
    depth += opens - closes
    // Out of the construct around the insertion: what follows it runs after it on every path.
    if (depth < 0) {
      depth = 0
      sibling = false
    }
  }
  return !sibling
}

/**
 * A start that ssh runs on another host (`ssh "$W" "ray start …"`, or a string `CMD="ray start …"` whose every use is an ssh
 * command's): a shell there, whose environment is not this one's exports (ssh passes none of them by default).
 */
/** A call of one of the script's functions whose body runs ssh (`n0() { ssh $SSHOPTS $NODE0 "$@"; }`): what it runs is on another host. */
function viaSshFunction(text: string, at: number): boolean {
  const name = /^\s*([A-Za-z_][\w-]*)\s/.exec(text.slice(at))?.[1]
  if (!name) return false
  const body = new RegExp(`(?:^|\\n)\\s*(?:function\\s+)?${name}\\s*\\(\\)\\s*\\{([^}]*)\\}`).exec(text)?.[1]
  return body !== undefined && /(?:^|[\s;&|(])ssh\s/.test(body)
}

function remote(text: string, x: Occurrence): boolean {
  const lineStart = text.lastIndexOf('\n', x.at - 1) + 1
  if (/(?:^|[\s;&|(])ssh\s/.test(text.slice(lineStart, x.at))) return true
  // The string on a line of its own after `ssh HOST \` (slime's workers): the lines joined by `\` are one command.
  let joined = lineStart
  while (joined > 1 && text[joined - 2] === '\\') joined = text.lastIndexOf('\n', joined - 2) + 1
  if (/(?:^|[\s;&|(])ssh\s/.test(text.slice(joined, x.at))) return true
  // A line of a multi-line string an ssh command runs (`ssh "$w" "bash -l -c '…\n ray start …'"`, ALCF's Aurora job).
  const opened = stringOpenedOn(text, x.at)
  if (opened !== undefined && /(?:^|[\s;&|(])ssh\s/.test(text.slice(opened, text.indexOf('\n', opened)))) return true
  const name = /^\s*(?:local\s+|export\s+)?([A-Za-z_]\w*)=["']$/.exec(text.slice(lineStart, x.at))?.[1]
  if (!name) return false
  const uses = text.split('\n').filter((l) => !l.trimStart().startsWith('#') && new RegExp(`\\$\\{?${name}\\b`).test(l))
  return uses.length > 0 && uses.every((l) => /(?:^|[\s;&|(])ssh\s/.test(l))
}

/** A launcher's own VLLM_HOST_IP for the command it runs. */
const OWN_SETTING = /(?:^|\s)(?:-e|--env)[ =]["']?VLLM_HOST_IP=|\b(?:SINGULARITY|APPTAINER)ENV_VLLM_HOST_IP=/

/** Every mutant of one script: each bug in each style that fits the script. */
export function mutants(original: string): Mutant[] {
  const out: Mutant[] = []
  for (const bug of ['head', 'worker'] as const) {
    const flag = bug === 'head' ? '--head' : '--address'
    const ip = bug === 'head' ? FABRIC_IP : OTHER_IP
    for (const style of STYLES) {
      let text =
        bug === 'head'
          ? headPin(
              original,
              occurrences(original).find((o) => o.role === 'head'),
              appendLine(original, '--head'),
              occurrences(original).find((o) => o.role === 'shared'),
            )
          : original
      const occ = occurrences(text)
      const own = occ.find((o) => o.role === bug)
      const shared = occ.find((o) => o.role === 'shared')
      // The worker's bug needs a ray start of its own; the head's may share one with the worker.
      const o = own ?? (bug === 'head' ? shared : undefined)
      if (!o) continue
      const append = own ? undefined : appendLine(text, flag)
      if (!own && !append) continue
      const roleRange = own ? { start: own.at, end: own.end } : append!
      const inContainer = /\b(?:docker|podman) run\b/.test(text)
      let injected: number[] = []
      let roleLines: number[] = []
      // An exported value reaches every ray start after it that no branch separates from it (a script that starts both roles).
      let reachesOthers = false
      let files: Record<string, string> = {}
      const assign = `VLLM_HOST_IP=${ip} `
      // A container launcher that sets VLLM_HOST_IP itself for the start (`singularity exec --env VLLM_HOST_IP=… IMAGE ray start`, `-e`,
      // SINGULARITYENV_/APPTAINERENV_) gives it that one: a value this shell sets or exports does not reach Ray (held-out15's BSC job).
      const hostStyle = style === 'prefix' || style === 'env' || style === 'exec env' || style === 'export' || style === 'source'
      if (hostStyle && OWN_SETTING.test(text.slice(commandStart(text, o.at), o.at))) continue
      // A start a function of the script runs over ssh (`n0() { ssh $SSHOPTS $NODE0 "$@"; }`, `n0 "… ray start …"`): ssh passes none of
      // this shell's variables (held-out19's ROCm pair).
      if (hostStyle && viaSshFunction(text, commandStart(text, o.at))) continue
      if (style === 'prefix' || style === 'env' || style === 'exec env') {
        const word = style === 'prefix' ? assign : `${style} ${assign}`
        if (style === 'exec env' && !o.direct && !/["']$/.test(text.slice(0, o.at))) continue
        // After a launcher that runs a command (`uv --project P run ray start`, `conda run -n e ray start`) a `NAME=v` word is the command's
        // name, not an assignment (held-out22's Slurm template); `env NAME=v` is one there.
        if (
          style === 'prefix' &&
          /\b(?:uv|conda|pixi|poetry|pipenv|micromamba|mamba)\b[^\n;&|]*\brun\s+$/.test(text.slice(text.lastIndexOf('\n', o.at - 1) + 1, o.at))
        )
          continue
        // A ray start run by a launcher (`srun … ray start`) takes the setting before the launcher's command; one a
        // nested shell replaces itself with (`exec ray start`) takes a prefix before the `exec` (`exec NAME=v cmd` is no bash).
        // A launcher that is a container (`docker run … IMAGE ray start`, `podman exec C ray start`) passes none of the host
        // shell's variables to the start (only its own -e): a setting before it does not reach Ray.
        if (o.direct && /\b(?:docker|podman)\s+(?:run|exec)\b/.test(text.slice(commandStart(text, o.at), o.at))) continue
        // A start that is the condition of a loop or an `if` (`until ray start …; do`) takes the setting after the reserved
        // word: `NAME=v until …` runs a command named `until`.
        const at = o.direct ? afterReserved(text, commandStart(text, o.at)) : style === 'prefix' ? o.at - execBefore(text, o.at) : o.at
        text = insert(text, at, word)
        injected = [lineOf(text, at)]
        roleLines = lineRange(text, roleRange.start + (roleRange.start >= at ? word.length : 0), roleRange.end + (roleRange.end >= at ? word.length : 0))
      } else if (style === 'export' || style === 'source') {
        // A ray start that begins a line of a multi-line string another shell runs (`docker exec c bash -lc "…"`) takes an
        // export on the line before it, in that shell; a settings file on the host is not there.
        const ownLine = !o.direct && style === 'export' && inMultiLineString(text, o.at) && commandStart(text, o.at) === o.at - execBefore(text, o.at)
        if (!ownLine && (inContainer || !o.direct)) continue
        const start = commandStart(text, o.at)
        const lineStart = text.lastIndexOf('\n', start - 1) + 1
        const indent = text.slice(lineStart, start)
        // The source style: a settings file the role's section reads (`. ./vrd-settings.sh`) exports the value.
        const line = style === 'export' ? `${indent}export VLLM_HOST_IP=${ip}\n` : `${indent}. ./${SETTINGS_FILE}\n`
        if (style === 'source') files = { [SETTINGS_FILE]: `# settings of this node\nexport VLLM_HOST_IP=${ip}\n` }
        // Only where the command begins its line (an `if`/`case` section, a loop body, or the top level).
        if (indent.trim() !== '') continue
        // Another role's start (or one both roles share): a second start of the same role getting the value is no second role.
        reachesOthers = !ownLine && occ.some((x) => x.at > o.at && x.role !== bug && reaches(text, lineStart, x.at) && !remote(text, x))
        text = insert(text, lineStart, line)
        injected = [lineOf(text, lineStart)]
        roleLines = lineRange(text, roleRange.start + line.length, roleRange.end + line.length)
      } else if (style === 'docker -e') {
        const runs = [...text.matchAll(/\b(?:docker|podman) run\b/g)]
        const cmdStart = (() => {
          // The docker run of the role's logical command, or the script's only one.
          let i = o.at
          for (;;) {
            const ls = text.lastIndexOf('\n', i - 1)
            if (ls <= 0 || text[ls - 1] !== '\\') return ls + 1
            i = ls
          }
        })()
        const inCmd = runs.filter((r) => r.index! >= cmdStart && r.index! < o.at)
        const run = inCmd[inCmd.length - 1] ?? (runs.length === 1 && !own ? runs[0] : undefined)
        if (!run) continue
        // A run that sets VLLM_HOST_IP itself keeps its own: docker takes the last `-e` of a name, and ours goes first (held-out11's
        // AWS head, published with `-e VLLM_HOST_IP=$HEAD_IP` and the seed incident's unpinned head).
        if (/(?:^|\s)(?:-e|--env)[ =]VLLM_HOST_IP=/.test(text.slice(run.index!, o.at))) continue
        const at = run.index! + run[0].length
        const word = ` -e VLLM_HOST_IP=${ip}`
        text = insert(text, at, word)
        injected = [lineOf(text, at)]
        roleLines = lineRange(text, roleRange.start + (roleRange.start >= at ? word.length : 0), roleRange.end + (roleRange.end >= at ? word.length : 0))
      } else if (style === 'docker exec' || style === 'docker exec ps' || style === 'compose run') {
        // The DGX Spark style: an idle container started with the value, the role's ray start exec'd into it afterwards.
        const start = commandStart(text, o.at)
        if (inContainer || !o.direct || !own || start !== o.at) continue
        const lineStart = text.lastIndexOf('\n', start - 1) + 1
        const indent = text.slice(lineStart, start)
        if (indent.trim() !== '') continue
        if (style === 'compose run') {
          // The compose style: the service's environment gives the value; the role's ray start runs in a fresh container of it.
          const run = `docker compose -f ${COMPOSE_FILE} run --rm node `
          files = { [COMPOSE_FILE]: `services:\n  node:\n    image: img\n    network_mode: host\n    environment:\n      - VLLM_HOST_IP=${ip}\n` }
          text = insert(text, start, run)
          injected = []
          roleLines = lineRange(text, roleRange.start, roleRange.end + run.length)
        } else {
          const run = `${indent}docker run -d --name vrd-mut --network host -e VLLM_HOST_IP=${ip} img sleep infinity\n`
          const exec = style === 'docker exec' ? 'docker exec vrd-mut ' : 'docker exec "$(docker ps -q --filter name=vrd-mut)" '
          text = insert(insert(text, start, exec), lineStart, run)
          injected = [lineOf(text, lineStart)]
          roleLines = lineRange(text, roleRange.start + run.length, roleRange.end + run.length + exec.length)
        }
      } else {
        if (!o.direct || !own || !wrappable(text.slice(o.at, o.end))) continue
        const open = style === 'bash -c' ? `bash -c "${assign}` : `ssh node-x "${assign}`
        text = `${text.slice(0, o.at)}${open}${text.slice(o.at, o.end)}"${text.slice(o.end)}`
        injected = [lineOf(text, o.at)]
        roleLines = lineRange(text, o.at, o.end + open.length + 1)
      }
      // A start kept in a variable and run where it is expanded (`export RAY_CMD_HEAD="ray start …"`, `srun … ${RAY_CMD_HEAD}`): the lines
      // that expand it are the role's too (the pin may go there), and as bare words there a `NAME=v` prefix is no assignment but the
      // command's name, no bug (held-out22's MeluXina job).
      const carrier = carrierOf(text, own?.at ?? roleRange.start)
      if (carrier && style === 'prefix' && carrier.bare) continue
      if (carrier) roleLines = [...new Set([...roleLines, ...carrier.lines])]
      out.push({ bug, style, text, injectedLines: injected, roleLines, shared: !own || reachesOthers, files })
    }
  }
  return out
}

/** The variable whose quoted value holds the text at `at` (`NAME="…ray start…"` on that line), the lines that expand it, and whether every one runs it as bare words. */
function carrierOf(text: string, at: number): { lines: number[]; bare: boolean } | undefined {
  const lineStart = text.lastIndexOf('\n', at - 1) + 1
  const name = /^\s*(?:export\s+|local\s+)?([A-Za-z_]\w*)=["']/.exec(text.slice(lineStart, at))?.[1]
  if (!name) return undefined
  const ref = new RegExp(`\\$\\{?${name}\\b(?!=)`)
  const uses = text
    .split('\n')
    .flatMap((l, i) => (!l.trimStart().startsWith('#') && ref.test(l) && !new RegExp(`^\\s*(?:export\\s+)?${name}=`).test(l) ? [i + 1] : []))
  if (uses.length === 0) return undefined
  const lines = text.split('\n')
  // (not inside double quotes, a shell's -c string, eval, ssh or tmux: there the words are read again as a command line)
  const bare = uses.every((n) => {
    const line = lines[n - 1]!
    const at = line.search(ref)
    const quoted = (line.slice(0, at).replace(/\\"/g, '').match(/"/g)?.length ?? 0) % 2 === 1
    return !quoted && !/(?:^|[\s;&|(])(?:(?:ba|z|k|da)?sh\s+-\w*c\w*|eval|ssh|tmux|screen)\s/.test(line)
  })
  return { lines: uses, bare }
}

/**
 * vLLM's native multi-node mode (`vllm serve … --nnodes/--node-rank/--master-addr/--headless`, no Ray):
 * the incident's bugs there, with a manifest whose head has the fabric IP 10.99.0.1.
 *
 * - master-addr: the worker's (or the shared) serve is given `--master-addr 10.99.0.2`, not the
 *   head's fabric IP (style `flag`), or loses `--master-addr` and falls back to vLLM's 127.0.0.1
 *   (style `dropped`).
 * - host-ip: the worker's serve gets VLLM_HOST_IP=10.99.0.1, the head's fabric IP, which vLLM
 *   advertises as its own (styles `prefix`, `export`, `apptainer --env`, `docker -e`, as fit).
 *
 * A script whose only native serve is the head's (node rank 0, a per-node script of a pair) takes the
 * same bugs there: its `--master-addr` another address or dropped (rank 0 then binds vLLM's 127.0.0.1),
 * and VLLM_HOST_IP=10.99.0.2, not its own fabric IP.
 */
export interface NativeMutant {
  readonly bug: 'master-addr' | 'host-ip'
  readonly style: 'flag' | 'dropped' | 'prefix' | 'export' | 'apptainer --env' | 'docker -e'
  readonly text: string
  readonly injectedLines: readonly number[]
  readonly roleLines: readonly number[]
  /** Nodes of the manifest the mutant is checked against (the script's literal --nnodes, else 2). */
  readonly nodes: number
  /**
   * The manifest's head fabric IP: the script's literal `--master-addr` where it writes one (the author's head), or the literal a
   * variable it names holds (`HEAD=10.0.0.1`, `HEAD="${NODES[0]}"` with `NODES=(10.0.0.1 …)`), else 10.99.0.1.
   */
  readonly headIp: string
  /** The manifest's fabric interface: the script's own literal NCCL_SOCKET_IFNAME where it sets one. */
  readonly ifname?: string
}

/** A literal IP, or the literal IP a `$NAME` / `${NAME}` / `${ARR[0]}` the script assigns once holds. */
function literalIp(text: string, word: string | undefined): string | undefined {
  const ref = word === undefined ? null : /^\$\{?([A-Za-z_]\w*)(\[0\])?\}?$/.exec(word)
  if (!ref) return word
  const assigned = [...text.matchAll(new RegExp(`^[ \\t]*(?:export[ \\t]+)?${ref[1]}=(.*)$`, 'gm'))].map((m) => m[1]!.trim())
  if (assigned.length !== 1) return undefined
  const value = assigned[0]!.replace(/^"(.*)"$/, '$1')
  if (ref[2]) return /^\(\s*(\d{1,3}(?:\.\d{1,3}){3})\b/.exec(value)?.[1]
  return /^\$\{[A-Za-z_]\w*\[0\]\}$/.test(value) ? literalIp(text, value) : /^\d{1,3}(?:\.\d{1,3}){3}$/.test(value) ? value : undefined
}

const SERVE = /\bvllm serve\b|-m (?:vllm\.entrypoints\.openai\.api_server|dynamo\.vllm)\b/g
const NATIVE_FLAG = /(?:^|\s)--(?:nnodes|node-rank|headless|master-addr)\b/
/** A `--headless` serve that places data-parallel engines, with no --nnodes/--node-rank: vLLM's data-parallel mode, not the native one. */
const dataParallelHeadless = (region: string): boolean =>
  !/(?:^|\s)--(?:nnodes|node-rank)\b/.test(region) && /(?:^|\s)(?:--data-parallel-(?:rank|start-rank|size-local|address|rpc-port)|-dp[nrlap])\b/.test(region)

/** Flags only vLLM's serve takes: with native flags in a `docker run` without `--entrypoint`, the image's entrypoint is the serve. */
const SERVE_ONLY_FLAG =
  /(?:^|\s)--(?:distributed-executor-backend|tensor-parallel-size|pipeline-parallel-size|headless|served-model-name|max-model-len|gpu-memory-utilization)\b/
const DOCKER_RUN = /\b(?:docker|podman) run\b/g

/** The native serves of a script: each logical command, its role by literal flags (the worker's `--headless` or rank ≥ 1). */
const EXTERNAL_LAUNCHER = /--distributed-executor-backend[= ]+["']?external_launcher\b/

function serveOccurrences(text: string): Occurrence[] {
  const out: Occurrence[] = []
  // `docker run … IMAGE MODEL --nnodes … --master-addr …` whose serve is the image's entrypoint (vLLM's image: `vllm serve`).
  for (let m = DOCKER_RUN.exec(text); m; m = DOCKER_RUN.exec(text)) {
    const lineStart = text.lastIndexOf('\n', m.index) + 1
    if (text.slice(lineStart, m.index).trimStart().startsWith('#')) continue
    let end = logicalEnd(text, m.index)
    const region = text.slice(m.index, end)
    if (
      !NATIVE_FLAG.test(region) ||
      dataParallelHeadless(region) ||
      !SERVE_ONLY_FLAG.test(region) ||
      /--entrypoint\b/.test(region) ||
      new RegExp(SERVE.source).test(region)
    )
      continue
    const tail = /\s*(?:&|;)?\s*$/.exec(region)
    end -= tail ? tail[0].length : 0
    const role = /(?:^|\s)--headless\b|--node-rank[= ]+[1-9]/.test(region) ? 'worker' : /--node-rank[= ]+0\b/.test(region) ? 'head' : 'shared'
    out.push({ at: m.index, end, role, direct: !inMultiLineString(text, m.index) })
  }
  for (let m = SERVE.exec(text); m; m = SERVE.exec(text)) {
    const lineStart = text.lastIndexOf('\n', m.index) + 1
    if (text.slice(lineStart, m.index).trimStart().startsWith('#')) continue
    const array = arrayRun(text, lineStart, m.index)
    let end = array?.end ?? logicalEnd(text, m.index)
    const region = text.slice(m.index, end)
    // (torchrun's ranks running vLLM with the external_launcher executor: torchrun's rendezvous, neither Ray nor the native mode)
    if (!NATIVE_FLAG.test(region) || dataParallelHeadless(region) || EXTERNAL_LAUNCHER.test(region)) continue
    const tail = /\s*(?:&|;)?\s*$/.exec(region)
    end -= tail ? tail[0].length : 0
    const role = /(?:^|\s)--headless\b|--node-rank[= ]+[1-9]/.test(region) ? 'worker' : /--node-rank[= ]+0\b/.test(region) ? 'head' : 'shared'
    out.push({ at: m.index, end, role, direct: !inMultiLineString(text, m.index), ...(array ? { runAt: array.runAt } : {}) })
  }
  return out
}

/**
 * A serve whose words are an array's (`cmd=(vllm serve "$MODEL"` then more words on the next lines, up to the `)`): the
 * array's end, and where the command that runs it begins (`exec "${cmd[@]}"`, or `"${cmd[@]}"` alone), if one does.
 */
function arrayRun(text: string, lineStart: number, at: number): { end: number; runAt: number } | undefined {
  const name = /^\s*(?:local\s+|declare\s+(?:-a\s+)?)?([A-Za-z_]\w*)=\(\s*$/.exec(text.slice(lineStart, at))?.[1]
  if (!name) return undefined
  let q = ''
  let end = -1
  for (let j = at; j < text.length && end < 0; j++) {
    const c = text[j]!
    if (q) {
      if (c === q) q = ''
      else if (c === '\\' && q === '"') j++
    } else if (c === '\\') j++
    else if (c === '"' || c === "'") q = c
    else if (c === ')') end = j
  }
  if (end < 0) return undefined
  const run = new RegExp(`^[ \\t]*(?:exec[ \\t]+)?"\\$\\{${name}\\[@\\]\\}"`, 'm').exec(text.slice(end))
  return run ? { end, runAt: end + run.index + (run[0].length - run[0].trimStart().length) } : undefined
}

export function nativeMutants(original: string): NativeMutant[] {
  const occ = serveOccurrences(original)
  const o = occ.find((x) => x.role === 'worker') ?? occ.find((x) => x.role === 'shared') ?? occ.find((x) => x.role === 'head')
  if (!o) return []
  // (the serve's own words, else the array or settings the script builds them in: `ARGS=(… --nnodes 4 …)`, `exec vllm serve "${ARGS[@]}"`)
  const nodes = Number(/--nnodes[= ]+(\d+)\b/.exec(original.slice(o.at, o.end))?.[1] ?? /--nnodes[= ]+(\d+)\b/.exec(original)?.[1] ?? 2)
  const master = /(\s--master-addr)(=|\s+)("[^"]*"|[^\s"\\]+)/.exec(original.slice(o.at, o.end))
  // A literal --master-addr is the author's head: the manifest's head is there, so the published script fits it.
  const literal = literalIp(original, master?.[3]?.replace(/^"|"$/g, ''))
  const headIp = literal && /^\d{1,3}(?:\.\d{1,3}){3}$/.test(literal) && literal !== OTHER_IP ? literal : FABRIC_IP
  // The fabric interface the script names itself (NCCL_SOCKET_IFNAME=…), so the published script fits its manifest.
  const ifname = /\bNCCL_SOCKET_IFNAME=["']?([A-Za-z][\w.-]*)/.exec(original)?.[1]
  // The worker is given the head's fabric IP; the head (the script's only serve) an address other than its own.
  const hostIp = o.role === 'head' ? OTHER_IP : headIp
  // A serve built in an array runs where `"${cmd[@]}"` is a command: settings go there; its lines and the array's are the role's.
  const start = o.runAt ?? commandStart(original, o.at)
  const command = o.runAt === undefined ? original.slice(start, o.end) : original.slice(start, logicalEnd(original, start))
  const role = o.runAt === undefined ? lineRange(original, start, o.end) : [...lineRange(original, o.at, o.end), lineOf(original, start)]
  const out: NativeMutant[] = []
  if (master) {
    const at = o.at + master.index
    const flagged = `${original.slice(0, at)}${master[1]}${master[2]}${OTHER_IP}${original.slice(at + master[0].length)}`
    out.push({
      bug: 'master-addr',
      style: 'flag',
      text: flagged,
      injectedLines: [lineOf(original, at + 1)],
      roleLines: role,
      nodes,
      headIp,
      ...(ifname ? { ifname } : {}),
    })
    const dropped = `${original.slice(0, at)}${original.slice(at + master[0].length)}`
    const droppedRole =
      o.runAt === undefined
        ? lineRange(dropped, start, o.end - master[0].length)
        : [...lineRange(dropped, o.at, o.end - master[0].length), lineOf(dropped, start - master[0].length)]
    out.push({ bug: 'master-addr', style: 'dropped', text: dropped, injectedLines: [], roleLines: droppedRole, nodes, headIp, ...(ifname ? { ifname } : {}) })
  }
  // A container started with --cleanenv (apptainer) or by docker gets none of this shell's variables; nor does a process
  // `docker exec`/`podman exec` starts in one (the container's environment and the exec's own -e only).
  const cleanEnv = /\b(?:apptainer|singularity)\s+exec\b[^\n]*?(?:\\\n[^\n]*?)*?(?:--cleanenv|--containall|\s-[eC]\b)/.test(command)
  const inDocker = /\b(?:docker|podman) (?:run|exec)\b/.test(command)
  const add = (style: NativeMutant['style'], at: number, word: string): void => {
    const text = insert(original, at, word)
    const shift = (i: number) => i + (i >= at ? word.length : 0)
    out.push({
      bug: 'host-ip',
      style,
      text,
      injectedLines: [lineOf(text, at + (word.startsWith('\n') ? 1 : 0))],
      roleLines:
        o.runAt === undefined ? lineRange(text, shift(start), shift(o.end)) : [...lineRange(text, shift(o.at), shift(o.end)), lineOf(text, shift(start))],
      nodes,
      headIp,
      ...(ifname ? { ifname } : {}),
    })
  }
  const assign = `VLLM_HOST_IP=${hostIp}`
  // A serve kept in a variable (`VLLM_CMD="vllm serve …"`): a prefix on the assignment is no environment for anything, and an
  // export reaches the serve only if this shell runs the string; a container's launcher running it (`docker run … -lc "$VLLM_CMD"`)
  // passes it none (held-out9/makiisthenes-run_vllm_mp_persistent.sh).
  const kept = /^\s*(?:export\s+|local\s+|readonly\s+)?([A-Za-z_]\w*)=/.exec(command)?.[1]
  const keptInContainer = kept !== undefined && new RegExp(`\\b(?:docker|podman) (?:run|exec)\\b[^\\n]*(?:\\\\\\n[^\\n]*)*\\$\\{?${kept}\\b`).test(original)
  if (!cleanEnv && !inDocker && kept === undefined) add('prefix', start, `${assign} `)
  const lineStart = original.lastIndexOf('\n', start - 1) + 1
  if (!cleanEnv && !inDocker && !keptInContainer && original.slice(lineStart, start).trim() === '' && o.direct)
    add('export', lineStart, `${original.slice(lineStart, start)}export ${assign}\n`)
  const app = /\b(?:apptainer|singularity)\s+exec\b/.exec(command)
  if (app) add('apptainer --env', start + app.index + app[0].length, ` --env ${assign}`)
  const docker = /\b(?:docker|podman) run\b/.exec(command)
  // After the command's own `-e VLLM_HOST_IP=…`, if it has one: docker takes the last setting of a name.
  const own = [...command.matchAll(/(?:^|\s)(?:-e|--env)[= ]+"?VLLM_HOST_IP=(?:"[^"]*"|[^\s"\\]*)"?/g)].pop()
  if (own) add('docker -e', start + own.index! + own[0].length, ` -e ${assign}`)
  else if (docker) add('docker -e', start + docker.index + docker[0].length, ` -e ${assign}`)
  return out
}
