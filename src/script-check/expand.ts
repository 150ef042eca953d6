/**
 * Words as the shell expands them, on paper: literals and quotes, `$NAME`, `${NAME:-default}`,
 * positional arguments (unknown at the script's top level), `"$@"` and `"${arr[@]}"` (one field
 * each), and field splitting of unquoted text. Every character keeps the script index it was
 * written at (model.ts Val.map); what the script cannot know stays symbolic (`${NAME}`, `$(…)`).
 */

import { OP, bool, child, children, nodeType, num, spanOf, str, type Node, type ParsedScript } from './bash-ast.js'
import { asHole, concatVals, expandedAt, HOLE_TOKEN, sliceVal, type Arg, type Span, type Val } from './model.js'
import { unescapeLiteral, type Positions } from './source-map.js'
import type { State, Var } from './state.js'

/** What the expander reads from the evaluator: the text, where it sits in the script, and variables. */
export interface Scope {
  readonly script: ParsedScript
  readonly text: string
  readonly pos: Positions
  lookup(s: State, name: string): Var | undefined
  /** The environment is known (a nested shell's: what its caller passed); at the top level it is not, so unset variables stay symbolic. */
  readonly envKnown: boolean
  /** In a string another shell runs: the values its caller computed, by the token that stands for each in the text (model.ts Val.holes). */
  readonly holes?: ReadonlyMap<string, Val>
  /** In another shell: names its caller assigned without exporting, which are unset here. */
  readonly unexported?: ReadonlySet<string>
  /** What a call of one of the script's functions prints (`CMD="$(make_cmd 1 --headless)"`), where every path prints the same; else undefined. */
  printed?(s: State, stmt: Node): Val | undefined
}

/** A field of an expanded word: its segments, or a whole argument passed on by `"$@"`. */
type Field = { readonly segs: readonly Val[] } | { readonly arg: Arg }

const sym = (text: string): Val => ({ text, known: false, map: Array<number>(text.length).fill(-1) })

export class Expander {
  constructor(private readonly sc: Scope) {}

  /** The node's range in the evaluated text (byte offsets turned into string indices). */
  range(n: Node): { start: number; end: number } {
    const s = spanOf(this.sc.script, n)
    return { start: s.start, end: s.end }
  }
  span(n: Node): Span {
    const r = this.range(n)
    return this.sc.pos.span(r.start, r.end)
  }
  src(n: Node): string {
    const r = this.range(n)
    return this.sc.text.slice(r.start, r.end)
  }
  /** The node's own source text as a value mapped to where it was written (`$(mgmt_ip)`). */
  private asWritten(n: Node): Val {
    const r = this.range(n)
    const map = this.sc.pos.mapRange(r.start, r.end)
    return { text: this.sc.text.slice(r.start, r.end), known: false, map, after: this.sc.pos.afterRange(r.start, r.end) }
  }

  private positional(s: State, name: string): Val | Field[] {
    const frame = s.frames[s.frames.length - 1]!
    const a = frame.args[Number(name) - 1]
    if (a) return a.val
    return frame.rest ? sym(`\${${Number(name) - frame.args.length + frame.shifted}}`) : { text: '', known: true, map: [] }
  }

  private allArgs(s: State, n: Node, quoted: boolean, name: string): Field[] {
    const frame = s.frames[s.frames.length - 1]!
    const restArg: Arg = { val: sym('${@}'), span: this.span(n), depth: s.frames.length, nested: this.sc.pos.nested, rest: true }
    const args = frame.rest ? [...frame.args, restArg] : frame.args
    if (quoted && name === '@') return args.map((arg) => ({ arg }))
    return [{ segs: [frame.rest ? sym('${@}') : concatJoin(args.map((a) => a.val))] }]
  }

  private paramSegs(s: State, n: Node, quoted: boolean): Field[] | Val {
    const name = str(child(n, 'Param')!, 'Value')
    const index = child(n, 'Index')
    const exp = child(n, 'Exp')
    const exp0 = child(n, 'Exp')
    const op0 = exp0 ? num(exp0, 'Op') : 0
    // `${x#pat}`, `${x##pat}`, `${x%pat}`, `${x%%pat}` of a known value and pattern: the trimmed value, still mapped.
    if (exp0 && op0 >= OP.RemSmallSuffix && op0 <= OP.RemLargePrefix && !index && !bool(n, 'Length')) {
      const v = this.sc.lookup(s, name)
      const word = child(exp0, 'Word')
      const pat = word ? this.wordVal(s, word) : { text: '', known: true }
      if (v?.kind === 'scalar' && v.val.known && pat.known) return trimmed(v.val, pat.text, op0)
    }
    // Trims, case changes, lengths, slices, substitutions and indirection: computed, kept as written.
    if (bool(n, 'Length') || child(n, 'Repl') || child(n, 'Slice') || bool(n, 'Excl') || (exp0 && (op0 < OP.AlternateUnset || op0 > OP.AssignUnsetOrNull)))
      return this.asWritten(n)
    if (name === '@' || name === '*') return this.allArgs(s, n, quoted, name)
    const frame = s.frames[s.frames.length - 1]!
    if (name === '#') return frame.rest ? sym('$#') : { text: String(frame.args.length), known: true, map: [] }
    if (/^\d+$/.test(name) && name !== '0') {
      const p = this.positional(s, name)
      return exp ? this.withOperator(s, exp, !Array.isArray(p) && p.known ? p : undefined, !Array.isArray(p) && !p.known ? p : undefined, frame.rest) : p
    }
    const v = this.sc.lookup(s, name)
    if (index && v?.kind === 'array') {
      const sub = this.src(index)
      if (sub === '@' || sub === '*') return quoted && sub === '@' ? v.items.map((arg) => ({ arg })) : [{ segs: [concatJoin(v.items.map((a) => a.val))] }]
      const item = /^\d+$/.test(sub) ? v.items[Number(sub)] : undefined
      return item ? item.val : this.asWritten(n)
    }
    const set = v?.kind === 'scalar' ? v.val : v?.kind === 'array' ? v.items[0]?.val : undefined
    const unset = v === undefined && this.sc.unexported?.has(name) === true
    const mayBeSet = v === undefined && (!this.sc.envKnown || NODE_ENVIRONMENT.test(name)) && !unset
    if (exp) return this.withOperator(s, exp, set?.known ? set : undefined, set && !set.known ? set : undefined, mayBeSet, name)
    if (set) return set
    // The caller's own variable, not exported: this shell does not have it.
    if (unset) return { text: '', known: true, map: [] }
    return sym(`\${${name}}`)
  }

  /** `${x:-d}`, `${x-d}`, `${x:=d}`, `${x:+a}`, `${x:?msg}` for a known, unknown or unset value. */
  private withOperator(s: State, exp: Node, known: Val | undefined, unknown: Val | undefined, mayBeSet: boolean, name?: string): Val {
    const op = num(exp, 'Op')
    const word = child(exp, 'Word')
    const alt = word ? this.wordVal(s, word) : { text: '', known: true, map: [] }
    const nullable = op === OP.DefaultUnsetOrNull || op === OP.AssignUnsetOrNull || op === OP.AlternateUnsetOrNull
    const isNull = known !== undefined && known.text === '' && nullable
    const symbolic = unknown ?? sym(`\${${name ?? '?'}}`)
    if (op === OP.DefaultUnsetOrNull || op === OP.DefaultUnset || op === OP.AssignUnsetOrNull || op === OP.AssignUnset) {
      if (known && !isNull) return known
      if (unknown) return unknown
      // Unset here: the environment may still set it (a symbolic value), unless nothing is inherited.
      return mayBeSet && !known ? symbolic : alt
    }
    if (op === OP.AlternateUnsetOrNull || op === OP.AlternateUnset) {
      if (known) return isNull ? { text: '', known: true, map: [] } : alt
      return unknown || mayBeSet ? sym(`\${${name ?? '?'}:+…}`) : { text: '', known: true, map: [] }
    }
    // ${a:?msg}, ${a?msg}: the value, or the script stops (taken as set).
    return known ?? symbolic
  }

  private pushParts(s: State, parts: Node[], quoted: boolean, cur: Val[], flags: { splittable: boolean }): void {
    for (const p of parts) {
      const t = nodeType(p)
      const r = this.range(p)
      if (t === 'Lit') {
        // mvdan-sh ends a literal at a line continuation with the backslash inside its range: the shell drops both.
        let raw = this.sc.text.slice(r.start, r.end)
        if (this.sc.text[r.end] === '\n' && /(?:^|[^\\])(?:\\\\)*\\$/.test(raw)) raw = raw.slice(0, -1)
        const u = unescapeLiteral(raw, r.start, quoted)
        cur.push(
          ...this.filled({
            text: u.text,
            known: !templated(u.text),
            map: u.map.map((i) => this.sc.pos.toScript(i)),
            after: u.map.map((i) => this.sc.pos.afterScript(i)),
          }),
        )
      } else if (t === 'SglQuoted') {
        flags.splittable = false
        const value = str(p, 'Value')
        const at = r.start + (bool(p, 'Dollar') ? 2 : 1)
        cur.push(
          ...this.filled(
            bool(p, 'Dollar')
              ? { text: value, known: true }
              : {
                  text: value,
                  known: !templated(value),
                  map: this.sc.pos.mapRange(at, at + value.length),
                  after: this.sc.pos.afterRange(at, at + value.length),
                },
          ),
        )
      } else if (t === 'DblQuoted') {
        flags.splittable = false
        this.pushParts(s, children(p, 'Parts'), true, cur, flags)
      } else if (t === 'ParamExp') {
        // Part of a longer word: what it expands to now follows this reference (model.ts Val.after).
        const end = this.sc.pos.span(r.start, r.end).end
        const x = this.paramSegs(s, p, quoted)
        // A variable that holds a `ray start` command line itself (`cmd="ray start --head"`, run as `tmux new-session "$start $cmd
        // $end"`) keeps where its characters were written, as a word that is the variable alone does: its definition is that
        // start's text, where a flag it lacks goes.
        const at = (v: Val): Val => (RAY_START_TEXT.test(v.text) ? v : expandedAt(v, end))
        if (Array.isArray(x)) for (const f of x) cur.push(...('arg' in f ? [f.arg.val] : f.segs).map((v) => asHole(at(v))))
        else cur.push(asHole(at(x)))
      } else if (t === 'CmdSubst') {
        // `cmd=$(cat <<EOF … EOF)`: a substitution that only passes text on is that text, less its trailing newlines.
        const out = this.substituted(s, p)
        if (out) flags.splittable = false
        cur.push(out ?? asHole(this.asWritten(p)))
      } else cur.push(asHole(this.asWritten(p)))
    }
  }

  private substituted(s: State, p: Node): Val | undefined {
    const stmts = children(p, 'Stmts')
    const out = stmts.length === 1 ? (this.output(s, stmts[0]!) ?? this.sc.printed?.(s, stmts[0]!)) : undefined
    if (!out) return undefined
    const end = /\n*$/.exec(out.text)!.index
    return end < out.text.length ? sliceVal(out, 0, end) : out
  }

  /** The here-document a statement feeds its command (`<<EOF`, `<<-EOF`, `<<'EOF'`), expanded as bash would. */
  hereDocOf(s: State, stmt: Node): Val | undefined {
    const r = children(stmt, 'Redirs').find((x) => num(x, 'Op') === OP.Hdoc || num(x, 'Op') === OP.DashHdoc)
    const body = r ? child(r, 'Hdoc') : null
    if (!r || !body) return undefined
    const v = this.hereDocVal(s, body)
    // The word's range runs to the closing delimiter line; the shell reads the lines before it.
    const delim = this.src(child(r, 'Word')!).replace(/^['"]|['"]$/g, '')
    const m = new RegExp(`(?:^|\\n)[ \\t]*${delim.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`).exec(v.text)
    return m ? sliceVal(v, 0, m.index + (m[0].startsWith('\n') ? 1 : 0)) : v
  }

  /**
   * What a statement writes on its standard output when all it does is pass text on, without running anything: `cat` of
   * a here-document, of its input or of a file the script wrote; `tee` of its input; `echo` of its words; a pipe of
   * those. Undefined for anything else (its output is not known).
   */
  output(s: State, stmt: Node, stdin?: Val): Val | undefined {
    const cmd = child(stmt, 'Cmd')
    if (!cmd) return undefined
    if (nodeType(cmd) === 'BinaryCmd') {
      if (num(cmd, 'Op') !== OP.Pipe) return undefined
      const left = this.output(s, child(cmd, 'X')!, stdin)
      return left && this.output(s, child(cmd, 'Y')!, left)
    }
    if (nodeType(cmd) !== 'CallExpr' || children(cmd, 'Assigns').length > 0) return undefined
    if (children(stmt, 'Redirs').some((x) => STDOUT_ELSEWHERE.has(num(x, 'Op')) && ['', '1'].includes(child(x, 'N') ? str(child(x, 'N')!, 'Value') : '')))
      return undefined
    const args = this.argsOf(s, children(cmd, 'Args'))
    const name = args[0]?.val
    if (!name?.known) return undefined
    const input = this.hereDocOf(s, stmt) ?? stdin
    const files = args.slice(1).filter((a) => !(a.val.known && a.val.text.startsWith('-')))
    if (name.text === 'cat') return files.length === 0 ? input : files.length === 1 ? s.files.get(files[0]!.val.text) : undefined
    if (name.text === 'tee') return input
    // `printf '%q' "$CMD"` (a command quoted for the shell an ssh runs, a DGX Spark pair's launcher, held-out18), `printf '%s' X`.
    if (name.text === 'printf' && args.length === 3 && args[1]!.val.known && !args[2]!.rest) {
      const format = args[1]!.val.text
      if (format === '%q') return shellQuoted(args[2]!.val)
      if (format === '%s') return args[2]!.val
      if (format === '%s\\n') return concatVals([args[2]!.val, { text: '\n', known: true, map: [-1] }])
    }
    if (name.text === 'echo' && args.slice(1).every((a) => !a.rest && !(a.val.known && /^-[neE]*e/.test(a.val.text)))) {
      const words = args.slice(1).filter((a, i) => !(i === 0 && a.val.known && a.val.text === '-n'))
      return concatVals([concatJoin(words.map((a) => a.val)), { text: '\n', known: true, map: [-1] }])
    }
    return undefined
  }

  /**
   * Literal text of a string another shell runs, with each token that stands for a value its caller
   * computed put back as that value (unknown, mapped to where it was written), wherever the token
   * stands: in quotes too, as the output of a command substitution does.
   */
  private filled(v: Val): Val[] {
    if (!this.sc.holes || !v.text.includes(HOLE_TOKEN)) return [v]
    const out: Val[] = []
    const re = new RegExp(`${HOLE_TOKEN}(\\d+)_`, 'g')
    let at = 0
    for (let m = re.exec(v.text); m; m = re.exec(v.text)) {
      const hole = this.sc.holes.get(m[0])
      if (!hole) continue
      if (m.index > at) out.push(sliceVal(v, at, m.index))
      const last = m.index + m[0].length - 1
      out.push({ ...hole, after: Array<number>(hole.text.length).fill(v.after?.[last] ?? -1) })
      at = m.index + m[0].length
    }
    if (at < v.text.length) out.push(sliceVal(v, at))
    return out
  }

  /** A word's fields (`"$@"` and `"${arr[@]}"` give several; unquoted known text splits on blanks); a template's placeholder is an input. */
  fields(s: State, word: Node): Field[] {
    return this.wordFields(s, word).map((f) => ('segs' in f && f.segs.some(hasPlaceholder) ? { segs: f.segs.flatMap(placeholdersAsInputs) } : f))
  }

  private wordFields(s: State, word: Node): Field[] {
    const parts = children(word, 'Parts')
    const only = parts.length === 1 ? (nodeType(parts[0]!) === 'DblQuoted' ? children(parts[0]!, 'Parts') : parts) : []
    if (only.length === 1 && nodeType(only[0]!) === 'ParamExp') {
      const quoted = nodeType(parts[0]!) === 'DblQuoted'
      const r = this.paramSegs(s, only[0]!, quoted)
      if (Array.isArray(r)) return r
      // The whole word is one variable: its characters keep where they were written (a command string built with +=).
      if (!quoted && /\s/.test(r.text.trim())) {
        const words = r.known ? splitBlanks(r) : splitAroundUnknown(r)
        if (words) return words.map((x) => ({ segs: [x] }))
      }
      return [{ segs: [r] }]
    }
    const cur: Val[] = []
    const flags = { splittable: true }
    this.pushParts(s, parts, false, cur, flags)
    const v = concatVals(cur)
    if (flags.splittable && /\s/.test(v.text.trim())) {
      const words = v.known ? splitBlanks(v) : splitAroundUnknown(v)
      if (words) return words.map((x) => ({ segs: [x] }))
    }
    return [{ segs: cur }]
  }

  /** A here-document's body: expanded like a double-quoted string, never split (its lines are a script). */
  hereDocVal(s: State, word: Node): Val {
    const cur: Val[] = []
    this.pushParts(s, children(word, 'Parts'), true, cur, { splittable: false })
    return concatVals(cur)
  }

  /** One word as one value (assignments, case words, test operands). */
  wordVal(s: State, word: Node): Val {
    const vals = this.fields(s, word).map((f) => ('arg' in f ? f.arg.val : concatVals(f.segs)))
    return concatJoin(vals)
  }

  argsOf(s: State, words: Node[]): Arg[] {
    const depth = s.frames.length
    const nested = this.sc.pos.nested
    return words.flatMap((w) => {
      const span = this.span(w)
      const r = nested ? this.range(w) : undefined
      const endAfter = r && r.end > r.start ? this.sc.pos.afterScript(r.end - 1) : -1
      return this.fields(s, w).map((f): Arg => ('arg' in f ? f.arg : { val: concatVals(f.segs), span, depth, nested, ...(nested ? { endAfter } : {}) }))
    })
  }
}

/**
 * Variables every shell on a node gets from its login, its scheduler or MPI, whatever its caller set: a shell a launcher starts (`srun
 * … run.sh`, one task per node) has its own SLURM_PROCID, so such a name is not unset there even when the caller's exports are known.
 */
export const NODE_ENVIRONMENT =
  /^(?:HOME|USER|LOGNAME|PATH|HOSTNAME|HOST|SHELL|PWD|OLDPWD|LANG|LC_\w+|TERM|TMPDIR|SLURM_\w+|SLURMD_\w+|PBS_\w+|PALS_\w+|LSB_\w+|FLUX_\w+|OMPI_\w+|PMI_\w+|PMIX_\w+|MPI_LOCALRANKID|CUDA_\w+|NVIDIA_\w+|LD_LIBRARY_PATH|PYTHONPATH|CONDA_\w+|VIRTUAL_ENV)$/

/** Redirections that send standard output elsewhere (`>f`, `>>f`, `>&2`, `>|f`, `&>f`, `&>>f`), unless a descriptor other than 1 is named. */
const STDOUT_ELSEWHERE: ReadonlySet<number> = new Set([OP.RdrOut, OP.AppOut, OP.DplOut, OP.ClbOut, OP.RdrAll, OP.AppAll])

/** A command line that starts a Ray node (`ray start`, or Ray's CLI module `python -m ray.scripts.scripts start`). */
const RAY_START_TEXT = /(?:^|[\s;&|(])(?:ray|ray\.scripts\.scripts)(?:\s+--log[\w-]*(?:=|\s+)\S+)*\s+start\b/

/**
 * Text a templating engine fills in before any shell reads the script: Jinja2's `{{ … }}` (jinja2/defaults.py
 * VARIABLE_START_STRING = '{{', VARIABLE_END_STRING = '}}'; Ansible's `shell:` tasks, Kalavai's and Helm's templates, Go's
 * text/template delimiters too). What it becomes is an input, as `${NAME}` is, not the literal text; no address, host
 * name or port holds a brace pair.
 */
const templated = (text: string): boolean => text.includes('{{') || text.includes('}}') || TEMPLATE_MASK.test(text)
/** A placeholder as the parser read it (bash-ast.ts maskTemplates), kept literal where bash expands nothing (single quotes). */
const TEMPLATE_MASK = /\$\{T\w*\}/

/** A value quoted for a shell to read back as one word (`printf %q`): in single quotes, each quote within as `'\\''`. */
function shellQuoted(v: Val): Val {
  if (v.known && /^[\w.,:/=@%+-]+$/.test(v.text)) return v
  const quote = (text: string): Val => ({ text, known: true, map: Array<number>(text.length).fill(-1) })
  const parts: Val[] = [quote("'")]
  let at = 0
  for (let i = v.text.indexOf("'"); i >= 0; i = v.text.indexOf("'", i + 1)) {
    parts.push(sliceVal(v, at, i), quote("'\\''"))
    at = i + 1
  }
  parts.push(sliceVal(v, at), quote("'"))
  return concatVals(parts)
}

/** Values joined with one blank, as "$*" and unquoted lists join them. */
export function concatJoin(vals: readonly Val[]): Val {
  if (vals.length === 1) return vals[0]!
  const parts: Val[] = []
  vals.forEach((v, i) => {
    if (i > 0) parts.push({ text: ' ', known: true, map: [-1] })
    parts.push(v)
  })
  return parts.length === 0 ? { text: '', known: true, map: [] } : concatVals(parts)
}

/**
 * A published template's placeholder that bash reads as text (quoted angle brackets, `--address='<head-node-ip-address>:6379'` in
 * meta-llama/llama-cookbook's vLLM guide; a single pair of braces around a name, `ray start --address={master_addr}:6379` in verl's
 * Grafana guide and `{MASTER-NODE-ADDRESS}` in OpenRLHF's README, held-out24): what the reader writes there is an input, not these
 * characters. Not `${…}`, not a brace expansion (a comma or `..` inside), not an empty `{}`.
 */
const TEMPLATE_PLACEHOLDER = /<[A-Za-z][\w.-]*(?: [\w.'-]+)*>|(?<![$\w])\{[A-Za-z][\w-]*\}/
const TEMPLATE_PLACEHOLDERS = new RegExp(TEMPLATE_PLACEHOLDER.source, 'g')
/** (not in markup or JSON a word carries: `'{"reasoning_start_str":"<think>","reasoning_end_str":"</think>"}'`, a DeepSeek serve's option) */
export const hasPlaceholder = (v: Val): boolean =>
  v.known && TEMPLATE_PLACEHOLDER.test(v.text) && !v.text.includes('</') && !/^\s*(?:\{\s*["']?\w+["']?\s*:|\[)/.test(v.text)

/** A known value with its placeholders made unknown parts, each still mapped to where it was written. */
function placeholdersAsInputs(v: Val): Val[] {
  if (!hasPlaceholder(v)) return [v]
  const out: Val[] = []
  let at = 0
  for (const m of v.text.matchAll(TEMPLATE_PLACEHOLDERS)) {
    if (m.index > at) out.push(sliceVal(v, at, m.index))
    // (its blanks kept out of the text, each where it was written: the reader's value is one word)
    const piece = sliceVal(v, m.index, m.index + m[0].length)
    out.push({ ...piece, text: piece.text.replace(/\s/g, '_'), known: false })
    at = m.index + m[0].length
  }
  if (at < v.text.length) out.push(sliceVal(v, at))
  return out
}

/**
 * An unquoted value that is partly unknown split where bash splits it, at the blanks of its known text (`RAY_CMD="ray start --head
 * --port=${RANDOM_PORT}"` run as `${RAY_CMD}`, a Slurm job on MeluXina, held-out22): a computed part stays inside its word (its own blanks,
 * if it has any, are not known). Undefined where the value holds a command substitution not marked as computed (its blanks are code).
 */
function splitAroundUnknown(v: Val): Val[] | undefined {
  const holes = v.holes ?? []
  if (holes.length === 0 && /\$\(|`/.test(v.text)) return undefined
  const t = v.text
  const inHole = (i: number) => holes.some(([a, b]) => i >= a && i < b)
  const blank = (i: number) => /\s/.test(t[i]!) && !inHole(i)
  const out: Val[] = []
  for (let i = 0; i < t.length; ) {
    while (i < t.length && blank(i)) i++
    if (i >= t.length) break
    const from = i
    while (i < t.length && !blank(i)) i++
    const piece = sliceVal(v, from, i)
    const computed = holes.some(([a, b]) => a < i && b > from) || /\$[{(\w]/.test(piece.text)
    out.push(computed ? piece : { ...piece, known: true })
  }
  return out.length > 1 ? out : undefined
}

function splitBlanks(v: Val): Val[] {
  const out: Val[] = []
  const re = /\S+/g
  for (let m = re.exec(v.text); m; m = re.exec(v.text)) out.push(sliceVal(v, m.index, m.index + m[0].length))
  return out
}

/** A shell pattern as a regular expression (`*`, `?`, and `[…]` classes; everything else literal). */
function globRegex(pattern: string): RegExp {
  let re = ''
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!
    if (c === '*') re += '[\\s\\S]*'
    else if (c === '?') re += '[\\s\\S]'
    else if (c === '[' && pattern.indexOf(']', i + 1) > i + 1) {
      const end = pattern.indexOf(']', i + 1)
      re += `[${pattern
        .slice(i + 1, end)
        .replace(/^!/, '^')
        .replace(/\\/g, '\\\\')}]`
      i = end
    } else re += c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  }
  return new RegExp(`^${re}$`)
}

/** `${x#p}` (shortest prefix), `${x##p}` (longest), `${x%p}` (shortest suffix), `${x%%p}` (longest) of a known value. */
function trimmed(v: Val, pattern: string, op: number): Val {
  const re = globRegex(pattern)
  const n = v.text.length
  const prefix = op === OP.RemSmallPrefix || op === OP.RemLargePrefix
  const longest = op === OP.RemLargePrefix || op === OP.RemLargeSuffix
  const lengths = longest ? Array.from({ length: n + 1 }, (_, i) => n - i) : Array.from({ length: n + 1 }, (_, i) => i)
  for (const len of lengths) {
    const part = prefix ? v.text.slice(0, len) : v.text.slice(n - len)
    if (re.test(part)) return prefix ? sliceVal(v, len) : sliceVal(v, 0, n - len)
  }
  return v
}
