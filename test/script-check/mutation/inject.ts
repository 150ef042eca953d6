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

function occurrences(text: string): Occurrence[] {
  const out: Occurrence[] = []
  const re = /\bray start\b/g
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const lineStart = text.lastIndexOf('\n', m.index) + 1
    const before = text.slice(lineStart, m.index)
    if (before.trimStart().startsWith('#')) continue
    let end = logicalEnd(text, m.index)
    const region = text.slice(m.index, end)
    const tail = /\s*(?:&|;)?\s*$/.exec(region)
    end -= tail ? tail[0].length : 0
    const role = /(?:^|\s)--head\b/.test(region) ? 'head' : /(?:^|\s)--address\b/.test(region) ? 'worker' : 'shared'
    const quotes = (before.match(/["']/g) ?? []).length
    out.push({ at: m.index, end, role, direct: quotes % 2 === 0 && !/[=]$/.test(before.trim()) })
  }
  return out
}

/** A `+=" --head …"` (or `--address`) line that adds the role to a shared command string. */
function appendLine(text: string, flag: '--head' | '--address'): { start: number; end: number } | undefined {
  const re = new RegExp(`^[^#\\n]*\\+=\\s*["'][^"'\\n]*${flag}\\b[^\\n]*$`, 'm')
  const m = re.exec(text)
  return m ? { start: m.index, end: m.index + m[0].length } : undefined
}

/** Start of the logical command an index is in (continuation lines followed back, indentation skipped). */
function commandStart(text: string, i: number): number {
  let ls = text.lastIndexOf('\n', i - 1) + 1
  while (ls > 1 && text[ls - 2] === '\\') ls = text.lastIndexOf('\n', ls - 2) + 1
  return ls + /^[ \t]*/.exec(text.slice(ls))![0].length
}

function insert(text: string, at: number, s: string): string {
  return text.slice(0, at) + s + text.slice(at)
}

/** A command that can be wrapped in one double-quoted string (no quotes, substitutions or lists in it). */
const wrappable = (cmd: string): boolean => !/["'`]|\$\(|&&|\|\||[;|#]/.test(cmd)

function headPin(text: string, o: Occurrence | undefined, append: { start: number; end: number } | undefined): string {
  const strip = (s: string) => s.replace(/\s--node-ip-address(?:=|\s+)(?:"[^"]*"|\S+)/g, '')
  if (o && o.role === 'head') return text.slice(0, o.at) + strip(text.slice(o.at, o.end)) + text.slice(o.end)
  if (append) return text.slice(0, append.start) + strip(text.slice(append.start, append.end)) + text.slice(append.end)
  return text
}

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
      if (style === 'prefix' || style === 'env' || style === 'exec env') {
        const word = style === 'prefix' ? assign : `${style} ${assign}`
        if (style === 'exec env' && !o.direct && !/["']$/.test(text.slice(0, o.at))) continue
        // A ray start run by a launcher (`srun … ray start`) takes the setting before the launcher's command.
        const at = o.direct ? commandStart(text, o.at) : o.at
        text = insert(text, at, word)
        injected = [lineOf(text, at)]
        roleLines = lineRange(text, roleRange.start + (roleRange.start >= at ? word.length : 0), roleRange.end + (roleRange.end >= at ? word.length : 0))
      } else if (style === 'export' || style === 'source') {
        if (inContainer || !o.direct) continue
        const start = commandStart(text, o.at)
        const lineStart = text.lastIndexOf('\n', start - 1) + 1
        const indent = text.slice(lineStart, start)
        // The source style: a settings file the role's section reads (`. ./vrd-settings.sh`) exports the value.
        const line = style === 'export' ? `${indent}export VLLM_HOST_IP=${ip}\n` : `${indent}. ./${SETTINGS_FILE}\n`
        if (style === 'source') files = { [SETTINGS_FILE]: `# settings of this node\nexport VLLM_HOST_IP=${ip}\n` }
        // Only where the command begins its line (an `if`/`case` section, a loop body, or the top level).
        if (indent.trim() !== '') continue
        reachesOthers = occ.some((x) => x.at > o.at) && !/^\s/.test(line)
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
      out.push({ bug, style, text, injectedLines: injected, roleLines, shared: !own || reachesOthers, files })
    }
  }
  return out
}
