"use strict";
exports.id = 661;
exports.ids = [661];
exports.modules = {

/***/ 661:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  checkLaunchScript: () => (/* binding */ checkLaunchScript)
});

// EXTERNAL MODULE: ./src/preflight/finding.ts
var finding = __webpack_require__(8282);
// EXTERNAL MODULE: ./node_modules/mvdan-sh/index.js
var mvdan_sh = __webpack_require__(2914);
var mvdan_sh_default = /*#__PURE__*/__webpack_require__.n(mvdan_sh);
;// CONCATENATED MODULE: ./src/script-check/bash-ast.ts
/**
 * The bash parser, behind one small door: mvdan-sh, the GopherJS build of mvdan.cc/sh (the parser
 * behind shfmt). Chosen over bash-parser (unmaintained since 2017, no `[[ ]]`, arrays or `local`
 * coverage) and tree-sitter-bash / sh-syntax (both need a .wasm file next to the bundle, which ncc
 * does not carry into a single CommonJS file): mvdan-sh is one plain JavaScript file, parses full
 * bash (arrays, `[[ ]]`, `case`, functions, `local`, here-docs), keeps byte offsets and lines for
 * every node, and reports syntax errors as `file:line:col: message`.
 *
 * Only this file touches the package; the rest of src/script-check reads the typed view below.
 */

const parser = () => mvdan_sh_default().syntax.NewParser(mvdan_sh_default().syntax.KeepComments(false), mvdan_sh_default().syntax.Variant((mvdan_sh_default()).syntax.LangBash));
/** Each byte offset of the text's UTF-8 form as a string index, computed once (undefined: ASCII, the identity). */
function byteIndex(text) {
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes === text.length)
        return undefined;
    const out = new Int32Array(bytes + 1);
    let b = 0;
    for (let i = 0; i < text.length; i++) {
        const c = text.codePointAt(i);
        const n = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
        for (let k = 0; k < n; k++)
            out[b + k] = i;
        b += n;
        if (c >= 0x10000)
            i++;
    }
    out[b] = text.length;
    return out;
}
const wrap = (raw) => ({ raw, fields: new Map() });
/** Parse bash text; a syntax error comes back as a value with its line and column. */
function parseBash(text, name) {
    try {
        const file = wrap(parser().Parse(text, name));
        const byteToIndex = byteIndex(text);
        return byteToIndex ? { file, byteToIndex } : { file };
    }
    catch (e) {
        const msg = typeof e.Error === 'function' ? String(e.Error()) : String(e);
        const m = /^.*?:(\d+):(\d+): (.*)$/s.exec(msg);
        return { error: m ? { line: Number(m[1]), col: Number(m[2]), message: m[3] } : { line: 1, col: 1, message: msg } };
    }
}
const nodeType = (n) => (n.type ??= mvdan_sh_default().syntax.NodeType(n.raw));
/** A struct of the tree (a node, or a part such as a parameter expansion's `Exp`): read through a record too. */
const isNode = (x) => typeof x === 'object' && x !== null;
/** A field as read once: structs wrapped (the same record on every read), lists of nodes as arrays of them. */
function field(n, name) {
    if (n.fields.has(name))
        return n.fields.get(name);
    const v = n.raw[name];
    const out = Array.isArray(v) ? v.map((x) => (isNode(x) ? wrap(x) : x)) : isNode(v) ? wrap(v) : v;
    n.fields.set(name, out);
    return out;
}
/** A field of a node, as the node type (or list of nodes) it holds. */
const child = (n, name) => field(n, name) ?? null;
const children = (n, name) => field(n, name) ?? [];
const str = (n, name) => String(field(n, name) ?? '');
const num = (n, name) => Number(field(n, name) ?? 0);
const bool = (n, name) => Boolean(field(n, name));
/** The node's range in the script text (byte offsets turned into string indices). */
function spanOf(script, n) {
    if (n.range)
        return n.range;
    const map = script.byteToIndex;
    const toIndex = (byte) => (map ? map[Math.min(byte, map.length - 1)] : byte);
    const pos = n.raw.Pos();
    n.range = { start: toIndex(pos.Offset()), end: toIndex(n.raw.End().Offset()), line: pos.Line() };
    return n.range;
}
/** Operator codes of mvdan.cc/sh/v3/syntax as the GopherJS build exposes them (checked by tests). */
const OP = {
    AndStmt: 10,
    OrStmt: 11,
    Pipe: 12,
    TsMatchShort: 74, // `=` in [[ ]]
    TsMatch: 40, // `==`
    TsNoMatch: 41, // `!=`
    DefaultUnset: 70, // ${a-x}
    DefaultUnsetOrNull: 71, // ${a:-x}
    ErrorUnset: 72, // ${a?msg}
    ErrorUnsetOrNull: 73, // ${a:?msg}
    AssignUnset: 74, // ${a=x}
    AssignUnsetOrNull: 75, // ${a:=x}
    AlternateUnset: 68, // ${a+x}
    AlternateUnsetOrNull: 69, // ${a:+x}
    RdrOut: 54, // > file
    AppOut: 55, // >> file
    Hdoc: 61, // <<EOF
    DashHdoc: 62, // <<-EOF
};

// EXTERNAL MODULE: ./src/command/docker-args.ts
var docker_args = __webpack_require__(5723);
;// CONCATENATED MODULE: ./src/script-check/model.ts
/**
 * What evaluating a launch script on paper yields: values that remember which characters of the
 * script wrote them, the arguments and environment of each `ray start`, and where each watched
 * variable was set. Shared by the evaluator (evaluate.ts and its parts) and the rules (rules.ts).
 */
const WATCHED = ['VLLM_HOST_IP', 'NCCL_SOCKET_IFNAME', 'GLOO_SOCKET_IFNAME', 'RAY_OVERRIDE_NODE_IP_ADDRESS'];
/** The script range a value was written at, when its characters are one contiguous run of the script. */
function writtenAt(v) {
    const m = v.map;
    if (!m || m.length === 0 || m.length !== v.text.length)
        return undefined;
    for (let i = 0; i < m.length; i++)
        if (m[i] < 0 || (i > 0 && m[i] !== m[i - 1] + 1))
            return undefined;
    return { start: m[0], end: m[m.length - 1] + 1 };
}
/** The values one after another; each character keeps where it was written (-1 where a part has no map). */
const concatVals = (vals) => {
    if (vals.length === 1 && vals[0].map && vals[0].map.length === vals[0].text.length && vals[0].after)
        return vals[0];
    let text = '';
    let known = true;
    for (const v of vals) {
        text += v.text;
        known &&= v.known;
    }
    const map = new Array(text.length);
    const after = new Array(text.length);
    let at = 0;
    for (const v of vals) {
        const n = v.text.length;
        const m = v.map && v.map.length === n ? v.map : undefined;
        // A part's own `after` where it has one (of the right length, else none); else just after where it was written.
        const a = v.after ? (v.after.length === n ? v.after : undefined) : m?.map((i) => (i < 0 ? -1 : i + 1));
        for (let i = 0; i < n; i++) {
            map[at + i] = m ? m[i] : -1;
            after[at + i] = a ? a[i] : -1;
        }
        at += n;
    }
    return { text, known, map, after };
};
const sliceVal = (v, from, to) => ({
    text: v.text.slice(from, to),
    known: v.known,
    ...(v.map ? { map: v.map.slice(from, to) } : {}),
    ...(v.after ? { after: v.after.slice(from, to) } : {}),
});
/** The value as expanded at a reference whose construct ends at script index `end`: its characters now follow that reference. */
const expandedAt = (v, end) => ({ ...v, after: Array(v.text.length).fill(end) });
const unmapped = (text, known) => ({ text, known });

;// CONCATENATED MODULE: ./src/script-check/container-run.ts
/**
 * The argv of `docker run` / `podman run` / `docker exec` read as those tools read it: options (with
 * or without a value, joined or separate) wherever they stand before the image, `-e`/`--env` in all
 * its spellings, `--entrypoint`, then the image and the command the container runs. Arguments that
 * stand for the script's own, unknown arguments (`"$@"` at the top level) are skipped, not taken
 * for the image.
 */


function envOption(arg, text) {
    const m = /^([A-Za-z_]\w*)(=?)/.exec(text.val.text);
    if (!m)
        return undefined;
    if (!m[2])
        return { arg, name: m[1] };
    return { arg, name: m[1], value: { ...text, val: sliceVal(text.val, m[0].length) } };
}
/** Options (read by the one docker argv reader, src/command/docker-args.ts), then the image or container, then its command. */
function readContainerArgv(args) {
    const env = [];
    const envFiles = [];
    let entrypoint;
    let name;
    let network;
    const read = (0,docker_args/* readDockerArgs */.u)(args, (a) => a.val.text, (a) => !!a.rest);
    for (const o of read.options) {
        if (!o.valueItem)
            continue;
        const value = o.valueOffset ? { ...o.valueItem, val: sliceVal(o.valueItem.val, o.valueOffset) } : o.valueItem;
        if (o.name === '--env') {
            const e = envOption(o.flag, value);
            if (e)
                env.push(e);
        }
        if (o.name === '--entrypoint')
            entrypoint = value;
        if (o.name === '--env-file')
            envFiles.push(value);
        if (o.name === '--name')
            name = value;
        if (o.name === '--network' || o.name === '--net')
            network = value.val.text;
    }
    const target = args[read.target];
    return {
        env,
        envFiles,
        ...(entrypoint ? { entrypoint } : {}),
        ...(name ? { name } : {}),
        ...(network ? { network } : {}),
        ...(target ? { target } : {}),
        command: args.slice(read.target + 1),
    };
}
const SSH_WITH_VALUE = new Set('-b -c -D -E -e -F -I -i -J -L -l -m -O -o -p -Q -R -S -W -w -B'.split(' '));
/** `ssh [options] host command…`: the command words, which the remote shell runs as one string. */
function sshCommand(args) {
    let i = 0;
    for (; i < args.length; i++) {
        const t = args[i].val.text;
        if (!t.startsWith('-'))
            break;
        if (SSH_WITH_VALUE.has(t))
            i++;
    }
    return args.slice(i + 1);
}
/** `ssh [options] host …`: the destination as written (`user@` dropped), '' when there is none. */
function sshHost(args) {
    let i = 0;
    for (; i < args.length; i++) {
        const t = args[i].val.text;
        if (!t.startsWith('-'))
            break;
        if (SSH_WITH_VALUE.has(t))
            i++;
    }
    return (args[i]?.val.text ?? '').replace(/^[^@]*@/, '');
}
/** `bash [options] -c SCRIPT …`: the script argument. */
function shellScriptArg(args) {
    const ci = args.findIndex((a) => /^-\w*c\w*$/.test(a.val.text) && !a.val.text.startsWith('--'));
    return ci >= 0 ? args[ci + 1] : undefined;
}

;// CONCATENATED MODULE: ./src/script-check/source-map.ts
/**
 * Positions in the script a user edits. The top-level script maps to itself; a string that a
 * nested shell runs (`bash -c "…"`, `ssh host "…"`) is parsed on its own, and each of its
 * characters maps back to the script index it was written at, so nested findings name the outer
 * file's line and nested patches edit the outer file.
 */
class ScriptLines {
    starts = [0];
    constructor(text) {
        for (let i = 0; i < text.length; i++)
            if (text[i] === '\n')
                this.starts.push(i + 1);
    }
    /** 1-based line of a script index. */
    lineOf(index) {
        let lo = 0;
        let hi = this.starts.length - 1;
        while (lo < hi) {
            const mid = (lo + hi + 1) >> 1;
            if (this.starts[mid] <= index)
                lo = mid;
            else
                hi = mid - 1;
        }
        return lo + 1;
    }
}
/** How the text being evaluated sits in the script: identity at the top, a character map inside a string. */
class Positions {
    lines;
    map;
    afterMap;
    fallbackLine;
    constructor(lines, 
    /** Text index → script index (-1: not in the script); undefined: the identity. */
    map, 
    /** Text index → script index just after what wrote that character (model.ts Val.after); undefined: map + 1. */
    afterMap, 
    /** Line to name when a position is not in the script (the call that ran the nested shell). */
    fallbackLine) {
        this.lines = lines;
        this.map = map;
        this.afterMap = afterMap;
        this.fallbackLine = fallbackLine;
    }
    get nested() {
        return this.map !== undefined;
    }
    toScript(i) {
        if (!this.map)
            return i;
        return this.map[i] ?? -1;
    }
    /** Where text appended after character i of the evaluated text goes in the script (-1: nowhere). */
    afterScript(i) {
        if (this.afterMap)
            return this.afterMap[i] ?? -1;
        const x = this.toScript(i);
        return x < 0 ? -1 : x + 1;
    }
    /** The script span of a text range [start, end); start -1 when the range is not one run of the script. */
    span(start, end) {
        const s = this.toScript(start);
        const last = end > start ? this.toScript(end - 1) : s;
        const contiguous = s >= 0 && last >= 0 && last - s === end - start - (end > start ? 1 : 0);
        const anyMapped = s >= 0 ? s : this.firstMapped(start, end);
        const line = anyMapped >= 0 ? this.lines.lineOf(anyMapped) : this.fallbackLine;
        return contiguous ? { start: s, end: end > start ? last + 1 : s, line } : { start: -1, end: -1, line };
    }
    /** The script index of each character of a text range. */
    mapRange(start, end) {
        const out = [];
        for (let i = start; i < end; i++)
            out.push(this.toScript(i));
        return out;
    }
    /** For each character of a text range, where appended text goes. */
    afterRange(start, end) {
        const out = [];
        for (let i = start; i < end; i++)
            out.push(this.afterScript(i));
        return out;
    }
    firstMapped(start, end) {
        for (let i = start; i < end; i++) {
            const x = this.toScript(i);
            if (x >= 0)
                return x;
        }
        return -1;
    }
}
/**
 * A literal's value as the shell reads it, with the text index of each character: backslash
 * escapes dropped (unquoted: any character; inside double quotes: `$`, `` ` ``, `"`, `\` and newline).
 */
function unescapeLiteral(raw, at, quoted) {
    let text = '';
    const map = [];
    for (let i = 0; i < raw.length; i++) {
        const c = raw[i];
        if (c === '\\' && i + 1 < raw.length) {
            const n = raw[i + 1];
            if (n === '\n') {
                i++;
                continue;
            }
            if (!quoted || '$`"\\'.includes(n)) {
                text += n;
                map.push(at + i + 1);
                i++;
                continue;
            }
        }
        text += c;
        map.push(at + i);
    }
    return { text, map };
}

;// CONCATENATED MODULE: ./src/script-check/expand.ts
/**
 * Words as the shell expands them, on paper: literals and quotes, `$NAME`, `${NAME:-default}`,
 * positional arguments (unknown at the script's top level), `"$@"` and `"${arr[@]}"` (one field
 * each), and field splitting of unquoted text. Every character keeps the script index it was
 * written at (model.ts Val.map); what the script cannot know stays symbolic (`${NAME}`, `$(…)`).
 */



const sym = (text) => ({ text, known: false, map: Array(text.length).fill(-1) });
class Expander {
    sc;
    constructor(sc) {
        this.sc = sc;
    }
    /** The node's range in the evaluated text (byte offsets turned into string indices). */
    range(n) {
        const s = spanOf(this.sc.script, n);
        return { start: s.start, end: s.end };
    }
    span(n) {
        const r = this.range(n);
        return this.sc.pos.span(r.start, r.end);
    }
    src(n) {
        const r = this.range(n);
        return this.sc.text.slice(r.start, r.end);
    }
    /** The node's own source text as a value mapped to where it was written (`$(mgmt_ip)`). */
    asWritten(n) {
        const r = this.range(n);
        const map = this.sc.pos.mapRange(r.start, r.end);
        return { text: this.sc.text.slice(r.start, r.end), known: false, map, after: this.sc.pos.afterRange(r.start, r.end) };
    }
    positional(s, name) {
        const frame = s.frames[s.frames.length - 1];
        const a = frame.args[Number(name) - 1];
        if (a)
            return a.val;
        return frame.rest ? sym(`\${${Number(name) - frame.args.length + frame.shifted}}`) : { text: '', known: true, map: [] };
    }
    allArgs(s, n, quoted, name) {
        const frame = s.frames[s.frames.length - 1];
        const restArg = { val: sym('${@}'), span: this.span(n), depth: s.frames.length, nested: this.sc.pos.nested, rest: true };
        const args = frame.rest ? [...frame.args, restArg] : frame.args;
        if (quoted && name === '@')
            return args.map((arg) => ({ arg }));
        return [{ segs: [frame.rest ? sym('${@}') : concatJoin(args.map((a) => a.val))] }];
    }
    paramSegs(s, n, quoted) {
        const name = str(child(n, 'Param'), 'Value');
        const index = child(n, 'Index');
        const exp = child(n, 'Exp');
        const exp0 = child(n, 'Exp');
        const op0 = exp0 ? num(exp0, 'Op') : 0;
        // Trims, case changes, lengths, slices, substitutions and indirection: computed, kept as written.
        if (bool(n, 'Length') || child(n, 'Repl') || child(n, 'Slice') || bool(n, 'Excl') || (exp0 && (op0 < OP.AlternateUnset || op0 > OP.AssignUnsetOrNull)))
            return this.asWritten(n);
        if (name === '@' || name === '*')
            return this.allArgs(s, n, quoted, name);
        const frame = s.frames[s.frames.length - 1];
        if (name === '#')
            return frame.rest ? sym('$#') : { text: String(frame.args.length), known: true, map: [] };
        if (/^\d+$/.test(name) && name !== '0') {
            const p = this.positional(s, name);
            return exp ? this.withOperator(s, exp, !Array.isArray(p) && p.known ? p : undefined, !Array.isArray(p) && !p.known ? p : undefined, frame.rest) : p;
        }
        const v = this.sc.lookup(s, name);
        if (index && v?.kind === 'array') {
            const sub = this.src(index);
            if (sub === '@' || sub === '*')
                return quoted && sub === '@' ? v.items.map((arg) => ({ arg })) : [{ segs: [concatJoin(v.items.map((a) => a.val))] }];
            const item = /^\d+$/.test(sub) ? v.items[Number(sub)] : undefined;
            return item ? item.val : this.asWritten(n);
        }
        const set = v?.kind === 'scalar' ? v.val : v?.kind === 'array' ? v.items[0]?.val : undefined;
        if (exp)
            return this.withOperator(s, exp, set?.known ? set : undefined, set && !set.known ? set : undefined, v === undefined && !this.sc.envKnown, name);
        if (set)
            return set;
        return sym(`\${${name}}`);
    }
    /** `${x:-d}`, `${x-d}`, `${x:=d}`, `${x:+a}`, `${x:?msg}` for a known, unknown or unset value. */
    withOperator(s, exp, known, unknown, mayBeSet, name) {
        const op = num(exp, 'Op');
        const word = child(exp, 'Word');
        const alt = word ? this.wordVal(s, word) : { text: '', known: true, map: [] };
        const nullable = op === OP.DefaultUnsetOrNull || op === OP.AssignUnsetOrNull || op === OP.AlternateUnsetOrNull;
        const isNull = known !== undefined && known.text === '' && nullable;
        const symbolic = unknown ?? sym(`\${${name ?? '?'}}`);
        if (op === OP.DefaultUnsetOrNull || op === OP.DefaultUnset || op === OP.AssignUnsetOrNull || op === OP.AssignUnset) {
            if (known && !isNull)
                return known;
            if (unknown)
                return unknown;
            // Unset here: the environment may still set it (a symbolic value), unless nothing is inherited.
            return mayBeSet && !known ? symbolic : alt;
        }
        if (op === OP.AlternateUnsetOrNull || op === OP.AlternateUnset) {
            if (known)
                return isNull ? { text: '', known: true, map: [] } : alt;
            return unknown || mayBeSet ? sym(`\${${name ?? '?'}:+…}`) : { text: '', known: true, map: [] };
        }
        // ${a:?msg}, ${a?msg}: the value, or the script stops (taken as set).
        return known ?? symbolic;
    }
    pushParts(s, parts, quoted, cur, flags) {
        for (const p of parts) {
            const t = nodeType(p);
            const r = this.range(p);
            if (t === 'Lit') {
                // mvdan-sh ends a literal at a line continuation with the backslash inside its range: the shell drops both.
                let raw = this.sc.text.slice(r.start, r.end);
                if (this.sc.text[r.end] === '\n' && /(?:^|[^\\])(?:\\\\)*\\$/.test(raw))
                    raw = raw.slice(0, -1);
                const u = unescapeLiteral(raw, r.start, quoted);
                cur.push({ text: u.text, known: true, map: u.map.map((i) => this.sc.pos.toScript(i)), after: u.map.map((i) => this.sc.pos.afterScript(i)) });
            }
            else if (t === 'SglQuoted') {
                flags.splittable = false;
                const value = str(p, 'Value');
                const at = r.start + (bool(p, 'Dollar') ? 2 : 1);
                cur.push(bool(p, 'Dollar')
                    ? { text: value, known: true }
                    : { text: value, known: true, map: this.sc.pos.mapRange(at, at + value.length), after: this.sc.pos.afterRange(at, at + value.length) });
            }
            else if (t === 'DblQuoted') {
                flags.splittable = false;
                this.pushParts(s, children(p, 'Parts'), true, cur, flags);
            }
            else if (t === 'ParamExp') {
                // Part of a longer word: what it expands to now follows this reference (model.ts Val.after).
                const end = this.sc.pos.span(r.start, r.end).end;
                const x = this.paramSegs(s, p, quoted);
                if (Array.isArray(x))
                    for (const f of x)
                        cur.push(...('arg' in f ? [f.arg.val] : f.segs).map((v) => expandedAt(v, end)));
                else
                    cur.push(expandedAt(x, end));
            }
            else
                cur.push(this.asWritten(p));
        }
    }
    /** A word's fields (`"$@"` and `"${arr[@]}"` give several; unquoted known text splits on blanks). */
    fields(s, word) {
        const parts = children(word, 'Parts');
        const only = parts.length === 1 ? (nodeType(parts[0]) === 'DblQuoted' ? children(parts[0], 'Parts') : parts) : [];
        if (only.length === 1 && nodeType(only[0]) === 'ParamExp') {
            const quoted = nodeType(parts[0]) === 'DblQuoted';
            const r = this.paramSegs(s, only[0], quoted);
            if (Array.isArray(r))
                return r;
            // The whole word is one variable: its characters keep where they were written (a command string built with +=).
            return !quoted && r.known && /\s/.test(r.text.trim()) ? splitBlanks(r).map((x) => ({ segs: [x] })) : [{ segs: [r] }];
        }
        const cur = [];
        const flags = { splittable: true };
        this.pushParts(s, parts, false, cur, flags);
        const v = concatVals(cur);
        if (flags.splittable && v.known && /\s/.test(v.text.trim()))
            return splitBlanks(v).map((x) => ({ segs: [x] }));
        return [{ segs: cur }];
    }
    /** A here-document's body: expanded like a double-quoted string, never split (its lines are a script). */
    hereDocVal(s, word) {
        const cur = [];
        this.pushParts(s, children(word, 'Parts'), true, cur, { splittable: false });
        return concatVals(cur);
    }
    /** One word as one value (assignments, case words, test operands). */
    wordVal(s, word) {
        const vals = this.fields(s, word).map((f) => ('arg' in f ? f.arg.val : concatVals(f.segs)));
        return concatJoin(vals);
    }
    argsOf(s, words) {
        const depth = s.frames.length;
        return words.flatMap((w) => {
            const span = this.span(w);
            return this.fields(s, w).map((f) => ('arg' in f ? f.arg : { val: concatVals(f.segs), span, depth, nested: this.sc.pos.nested }));
        });
    }
}
/** Values joined with one blank, as "$*" and unquoted lists join them. */
function concatJoin(vals) {
    if (vals.length === 1)
        return vals[0];
    const parts = [];
    vals.forEach((v, i) => {
        if (i > 0)
            parts.push({ text: ' ', known: true, map: [-1] });
        parts.push(v);
    });
    return parts.length === 0 ? { text: '', known: true, map: [] } : concatVals(parts);
}
function splitBlanks(v) {
    const out = [];
    const re = /\S+/g;
    for (let m = re.exec(v.text); m; m = re.exec(v.text))
        out.push(sliceVal(v, m.index, m.index + m[0].length));
    return out;
}

// EXTERNAL MODULE: ./src/preflight/native-launch.ts
var native_launch = __webpack_require__(7026);
;// CONCATENATED MODULE: ./src/script-check/ray-start.ts
/**
 * One `ray start` as the rules see it: its role (`--head`, or a worker given `--address`), the
 * identity Ray registers the node under (`--node-ip-address`, or RAY_OVERRIDE_NODE_IP_ADDRESS in its
 * environment), the environment its processes get, and where a missing `--node-ip-address` goes:
 * after the last argument written at the outermost call on the path, which is the line that carries
 * the role's `ray start` (the call of a helper, the `bash -c` string, the `+=` that adds `--head`).
 */

function flagValue(args, flag) {
    for (let i = 0; i < args.length; i++) {
        const a = args[i];
        if (a.val.text.startsWith(`${flag}=`))
            return { arg: a, val: sliceVal(a.val, flag.length + 1) };
        if (a.val.text === flag && args[i + 1])
            return { arg: args[i + 1], val: args[i + 1].val };
    }
    return undefined;
}
/** Where an argument's text ends in the script, when it was written there in one piece. */
function endOf(a) {
    if (!a.nested)
        return a.span.start >= 0 ? { offset: a.span.end, line: a.span.line, nested: false } : undefined;
    // Inside a string another shell runs: just after the construct that wrote the argument's last character.
    const after = a.val.after;
    const last = after && after.length > 0 && after.length === a.val.text.length ? after[after.length - 1] : -1;
    if (last >= 0)
        return { offset: last, line: a.span.line, nested: true };
    return a.span.start >= 0 ? { offset: a.span.end, line: a.span.line, nested: true } : undefined;
}
function rayStart(s, args, env, at, inContainer) {
    // Ray 2.x also takes the node's identity from RAY_OVERRIDE_NODE_IP_ADDRESS in its environment.
    const override = env.get('RAY_OVERRIDE_NODE_IP_ADDRESS');
    const nodeIp = flagValue(args, '--node-ip-address') ??
        (override ? { val: override.val, arg: { val: override.val, span: override.span, depth: s.frames.length, nested: false } } : undefined);
    const address = flagValue(args, '--address');
    const written = args.filter((a) => !a.rest);
    const outer = written.reduce((d, a) => Math.min(d, a.depth), s.frames.length);
    const last = [...written].reverse().find((a) => a.depth === outer);
    const insertAt = last ? endOf(last) : undefined;
    return {
        kind: 'ray-start',
        line: insertAt?.line ?? at.line,
        rayLine: at.line,
        head: args.some((a) => a.val.text === '--head'),
        args,
        ...(nodeIp ? { nodeIp } : {}),
        ...(address ? { address: address.val } : {}),
        env,
        ...(insertAt ? { insertAt } : {}),
        inContainer,
        path: [...s.path],
    };
}

;// CONCATENATED MODULE: ./src/script-check/vllm-serve.ts
/**
 * One `vllm serve` as the rules see it, in vLLM's native multi-node mode: its flags read as vLLM's
 * parser reads them (src/preflight/native-launch.ts, shared with the live checks), its role (the
 * head is the one without `--headless` at node rank 0), the environment its processes get, and
 * where a missing flag goes (after the last argument written in the role's section, as for
 * `ray start`).
 */


function vllmServe(s, args, env, at, inContainer) {
    const flags = (0,native_launch/* serveFlags */.Tm)(args, (a) => a.val.text);
    const written = args.filter((a) => !a.rest);
    const outer = written.reduce((d, a) => Math.min(d, a.depth), s.frames.length);
    const last = [...written].reverse().find((a) => a.depth === outer);
    const insertAt = last ? endOf(last) : undefined;
    const rank = flags['--node-rank'];
    const head = flags['--headless'] === undefined && (rank === undefined || (rank.item.val.known && rank.value === '0'));
    return {
        kind: 'vllm-serve',
        serve: flags,
        line: insertAt?.line ?? at.line,
        rayLine: at.line,
        head,
        args,
        env,
        ...(insertAt ? { insertAt } : {}),
        inContainer,
        path: [...s.path],
    };
}

;// CONCATENATED MODULE: ./src/script-check/state.ts
/**
 * One path through a script, as the evaluator carries it: variables (global and per call frame),
 * functions, the branch depth (inside an `if`/`case`: one role's section), the `ray start`s met so
 * far, and the branch decisions taken. Paths that reach the same state by different branches are
 * merged (stateKey), so scripts with many independent `if`s do not multiply paths.
 *
 * Each map of a state keeps a running hash of its entries (HashedMap), so comparing paths costs
 * what changed, not the size of the state: a long script's hundreds of variables are not re-read
 * after every statement.
 */

/** FNV-1a of a string, 32 bits. */
function hashText(text) {
    let h = 0x811c9dc5;
    for (let i = 0; i < text.length; i++)
        h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
    return h | 0;
}
const nameHashes = new Map();
const hashName = (name) => {
    let h = nameHashes.get(name);
    if (h === undefined) {
        h = hashText(name);
        nameHashes.set(name, h);
    }
    return h;
};
/**
 * A map that keeps the sum of its entries' hashes as it changes (`hash`): two maps with the same
 * entries have the same hash whatever the order they were set in.
 */
class HashedMap extends Map {
    valueHash;
    hash = 0;
    constructor(valueHash, from) {
        super();
        this.valueHash = valueHash;
        if (from) {
            for (const [k, v] of Map.prototype.entries.call(from))
                super.set(k, v);
            this.hash = from.hash;
        }
    }
    entryHash(k, v) {
        return Math.imul(hashName(k) ^ Math.imul(this.valueHash(v), 0x9e3779b1), 0x85ebca6b) | 0;
    }
    set(k, v) {
        // Map's constructor calls set before the fields are initialised; only this class's own copies pass entries.
        if (!this.valueHash)
            return super.set(k, v);
        const old = super.get(k);
        if (old !== undefined || super.has(k))
            this.hash = (this.hash - this.entryHash(k, old)) | 0;
        this.hash = (this.hash + this.entryHash(k, v)) | 0;
        return super.set(k, v);
    }
    delete(k) {
        if (!super.has(k))
            return false;
        this.hash = (this.hash - this.entryHash(k, super.get(k))) | 0;
        return super.delete(k);
    }
    clear() {
        this.hash = 0;
        super.clear();
    }
    copy() {
        return new HashedMap(this.valueHash, this);
    }
}
const containerKey = (host, name) => `${host}\u0001${name}`;
const newVars = () => new HashedMap(hashVar);
const containerText = (c) => JSON.stringify([c.name, c.host, c.network ?? '', [...c.env].map(([k, a]) => [k, a.val.text, a.span.start])]);
const newContainers = () => new HashedMap((c) => hashText(containerText(c)));
const initialState = () => ({
    host: '',
    containers: newContainers(),
    globals: newVars(),
    funcs: new HashedMap(() => 0),
    frames: [{ args: [], rest: true, shifted: 0, locals: newVars() }],
    branch: 0,
    done: false,
    returning: false,
    starts: [],
    path: [],
    facts: new HashedMap((f) => hashText(JSON.stringify(f))),
    files: new HashedMap((v) => hashText(v.text)),
});
const fork = (s) => ({
    host: s.host,
    containers: s.containers.copy(),
    globals: s.globals.copy(),
    funcs: s.funcs.copy(),
    frames: s.frames.map((f) => ({ ...f, args: [...f.args], locals: f.locals.copy() })),
    branch: s.branch,
    done: s.done,
    returning: s.returning,
    starts: [...s.starts],
    path: [...s.path],
    facts: s.facts.copy(),
    files: s.files.copy(),
});
/** A key per value, computed once per object: paths share the objects they did not change since they forked. */
function memo(f) {
    const keys = new WeakMap();
    return (x) => {
        let k = keys.get(x);
        if (k === undefined) {
            k = f(x);
            keys.set(x, k);
        }
        return k;
    };
}
const varKey = memo((v) => JSON.stringify(v.kind === 'scalar' ? [v.val.text, v.exported, v.assignment.span.start, v.assignment.span.line] : v.items.map((a) => [a.val.text, a.span.start])));
const varHashes = new WeakMap();
function hashVar(v) {
    let h = varHashes.get(v);
    if (h === undefined) {
        h = hashText(varKey(v));
        varHashes.set(v, h);
    }
    return h;
}
const startKey = memo((r) => JSON.stringify([r.line, r.rayLine, r.args.map((a) => a.val.text), [...r.env].map(([k, v]) => [k, v.val.text, v.span.start])]));
const fileKey = memo((v) => v.text);
/** What makes two paths different for the rest of the script (the branch decisions taken do not). */
function stateKey(s) {
    const vars = (m) => {
        let out = '';
        for (const [k, v] of m)
            out += `${k}\u0000${varKey(v)}\u0001`;
        return out;
    };
    let files = '';
    for (const [k, v] of s.files)
        files += `${k}\u0000${fileKey(v)}\u0001`;
    return JSON.stringify([
        vars(s.globals),
        [...s.funcs.keys()],
        s.frames.map((f) => [f.args.map((a) => a.val.text), f.rest, f.shifted, vars(f.locals)]),
        s.branch,
        s.done,
        s.returning,
        s.starts.map(startKey),
        [...s.facts],
        files,
        s.host,
        [...s.containers.values()].map(containerText),
    ]);
}
function startKeyOf(r) {
    return startKey(r);
}
/** A hash of what stateKey holds, from the maps' running hashes: equal states hash alike. */
function stateHash(s) {
    let h = hashText(JSON.stringify([s.branch, s.done, s.returning, s.frames.length, s.starts.length]));
    const mix = (x) => {
        h = Math.imul(h ^ x, 0x01000193) | 0;
    };
    mix(s.globals.hash);
    mix(s.funcs.hash);
    mix(s.facts.hash);
    mix(s.files.hash);
    mix(s.containers.hash);
    mix(hashName(s.host));
    for (const f of s.frames) {
        mix(f.locals.hash);
        mix(f.shifted);
        for (const a of f.args)
            mix(hashName(a.val.text));
    }
    for (const r of s.starts)
        mix(hashName(startKey(r)));
    return h;
}
/** Each distinct state once (the first path's decisions kept). The full key is built only for states whose hashes meet. */
function mergePaths(states) {
    if (states.length < 2)
        return [...states];
    const buckets = new Map();
    const keys = new Map();
    const keyOf = (x) => {
        let k = keys.get(x);
        if (k === undefined) {
            k = stateKey(x);
            keys.set(x, k);
        }
        return k;
    };
    return states.filter((s) => {
        const h = stateHash(s);
        const same = buckets.get(h);
        if (!same) {
            buckets.set(h, [s]);
            return true;
        }
        const k = keyOf(s);
        if (same.some((o) => keyOf(o) === k))
            return false;
        same.push(s);
        return true;
    });
}
const LAUNCHES = /\b(?:ray|vllm|docker|podman|nvidia-docker|apptainer|singularity|ssh|srun|mpirun|torchrun|python3?|bash|sh|exec|env|export|source)\b|^\s*\.\s/;
const REFERENCE = /\$\{?([A-Za-z_]\w*)/g;
const ASSIGNED = /(?:^|[\s;&|(])(?:printf\s+-v\s+([A-Za-z_]\w*)|([A-Za-z_]\w*)(?:\[[^\]]*\])?\+?=)/g;
/**
 * The variables a start can depend on, read from the text (an over-approximation): the watched
 * ones, every variable a line that starts something (`ray`, `vllm`, `docker`, `ssh`, a shell,
 * `export`, …) reads, and, again and again, every variable an assignment to one of those reads.
 * Paths that differ only in other variables (an option's value, a loop counter, a message) lead
 * to the same starts and may be joined.
 */
function startInputs(text) {
    const lines = text.replace(/\\\n/g, ' ').split('\n');
    const relevant = new Set(WATCHED);
    const feeds = new Map();
    for (const line of lines) {
        const refs = [...line.matchAll(REFERENCE)].map((m) => m[1]);
        if (LAUNCHES.test(line))
            for (const r of refs)
                relevant.add(r);
        for (const m of line.matchAll(ASSIGNED)) {
            const name = m[1] ?? m[2];
            const into = feeds.get(name) ?? new Set();
            for (const r of refs)
                if (r !== name)
                    into.add(r);
            feeds.set(name, into);
        }
        // `read … NAME <<< "$X"`: NAME is read from X.
        const read = /\bread\b.*?\b([A-Za-z_]\w*)\s*<<</.exec(line);
        if (read)
            feeds.set(read[1], new Set([...(feeds.get(read[1]) ?? []), ...refs]));
    }
    const todo = [...relevant];
    while (todo.length > 0) {
        for (const r of feeds.get(todo.pop()) ?? [])
            if (!relevant.has(r)) {
                relevant.add(r);
                todo.push(r);
            }
    }
    return relevant;
}
/**
 * What keeps two paths apart even when there are too many: where they are (call depth, branch depth,
 * stopped or returning), the functions known, the starts met, and the variables a start can depend
 * on (startInputs) in every scope. Paths alike in all of that can be joined (joinPaths).
 */
function coarseKey(s, inputs) {
    const watched = (m) => {
        let out = '';
        for (const name of inputs) {
            const v = m.get(name);
            if (v)
                out += `${name}\u0000${varKey(v)}\u0001`;
        }
        return out;
    };
    return JSON.stringify([
        s.frames.length,
        s.branch,
        s.done,
        s.returning,
        [...s.funcs.keys()],
        s.starts.map(startKey),
        watched(s.globals),
        s.frames.map((f) => watched(f.locals)),
        s.host,
        [...s.containers.values()].map(containerText),
    ]);
}
const unknownVar = (name, like, exported) => {
    const val = { text: `\${${name}}`, known: false, map: Array(name.length + 3).fill(-1) };
    const span = like?.kind === 'scalar' ? like.assignment.span : { start: -1, end: -1, line: 0 };
    return { kind: 'scalar', val, exported, assignment: { name, val, span, kind: 'assign', inBranch: true } };
};
/** Variables every path agrees on stay; one they disagree on (or some lack) is unknown from here on. */
function joinVars(maps) {
    const out = newVars();
    const names = new Set(maps.flatMap((m) => [...m.keys()]));
    for (const name of names) {
        const vs = maps.map((m) => m.get(name));
        const first = vs[0];
        if (first && vs.every((v) => v !== undefined && varKey(v) === varKey(first)))
            out.set(name, first);
        else
            out.set(name, unknownVar(name, vs.find((v) => v !== undefined), vs.some((v) => v?.kind === 'scalar' && v.exported)));
    }
    return out;
}
/**
 * Paths alike in what their starts can depend on (coarseKey) joined into one: a variable they set differently
 * becomes unknown (a symbolic `${NAME}`, as an input would be), the files and assumptions they
 * share stay, and every start met on any of them is kept. This bounds the paths a long script
 * carries (an option loop, helpers called per node) without dropping any of them.
 */
function joinPaths(states, inputs) {
    const groups = new Map();
    for (const s of states) {
        const k = coarseKey(s, inputs);
        const g = groups.get(k);
        if (g)
            g.push(s);
        else
            groups.set(k, [s]);
    }
    return [...groups.values()].map((g) => (g.length === 1 ? g[0] : join(g)));
}
function join(g) {
    const base = fork(g[0]);
    base.globals = joinVars(g.map((s) => s.globals));
    base.frames = base.frames.map((f, i) => ({ ...f, locals: joinVars(g.map((s) => s.frames[i].locals)) }));
    for (const [k, v] of base.files)
        if (!g.every((s) => s.files.get(k)?.text === v.text))
            base.files.delete(k);
    for (const [k, v] of base.facts)
        if (!g.every((s) => JSON.stringify(s.facts.get(k)) === JSON.stringify(v)))
            base.facts.delete(k);
    const seen = new Set(base.starts.map(startKey));
    for (const s of g.slice(1))
        for (const r of s.starts) {
            const k = startKey(r);
            if (!seen.has(k)) {
                seen.add(k);
                base.starts.push(r);
            }
        }
    return base;
}

;// CONCATENATED MODULE: ./src/script-check/commands.ts
/**
 * Simple commands, on paper: functions called with their arguments, `exit`/`return`/`shift`,
 * command prefixes (`VAR=… cmd`, `env VAR=… cmd`, `exec env VAR=… cmd`, `sudo`, `nohup`, `srun` and
 * other wrappers), `ray start` itself, `docker run`/`podman run` and `docker exec` with their
 * environment, and the strings that another shell runs (`bash -c`, `sh -c`, `ssh host "…"`).
 */







const WRAPPERS = new Set(['sudo', 'nohup', 'time', 'command', 'nice', 'setsid', 'stdbuf', 'timeout', 'srun', 'numactl', 'taskset', 'exec', 'builtin']);
const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh']);
const sameVal = (a, b) => a.text === b.text && JSON.stringify(a.map ?? null) === JSON.stringify(b.map ?? null);
/** apptainer/singularity options that take a value as the next word. */
const APPTAINER_WITH_VALUE = new Set('-B --bind --mount -H --home -W --workdir --pwd -o --overlay --network --network-args --security --env-file --hostname --app --scratch -S --dns --cpus --memory --apply-cgroups'.split(' '));
class Commands {
    it;
    /** Inside `env -i …` or `apptainer … --cleanenv`: the command gets none of this shell's exported variables. */
    clean = false;
    constructor(it) {
        this.it = it;
    }
    /** Run with an empty inherited environment (only the command's own settings). */
    cleanly(fn) {
        const was = this.clean;
        this.clean = true;
        try {
            return fn();
        }
        finally {
            this.clean = was;
        }
    }
    /** `stdin`: a here-document the command reads (`bash <<EOF`, `ssh host bash -s <<'EOF'`). */
    run(argv, prefix, s, at, stdin) {
        const name = (argv[0]?.val.text ?? '').replace(/^.*\//, '');
        const rest = argv.slice(1);
        const fn = s.funcs.get(name);
        if (fn)
            return this.it.callFunction(fn, rest, s, at);
        switch (name) {
            case 'exit':
                s.done = true;
                return [s];
            case 'return':
                s.returning = true;
                return [s];
            case 'shift': {
                const f = s.frames[s.frames.length - 1];
                const n = rest[0]?.val.known ? Number(rest[0].val.text) || 1 : 1;
                if (f.rest && n > f.args.length)
                    f.shifted += n - f.args.length;
                f.args.splice(0, n);
                return [s];
            }
            case 'env':
                return this.env(rest, prefix, s, at, stdin);
            case 'apptainer':
            case 'singularity':
                if (rest[0]?.val.text === 'exec')
                    return this.apptainer(rest, prefix, s, at, stdin);
                break;
            case 'ray':
                if (rest[0]?.val.text === 'start')
                    s.starts.push(rayStart(s, rest.slice(1), this.hostEnv(s, prefix, at), at, false));
                return [s];
            case 'docker':
            case 'podman':
            case 'nvidia-docker':
                this.container(s, rest, at, stdin);
                return [s];
            case 'ssh':
                this.ssh(s, rest, at, stdin);
                return [s];
        }
        if (SHELLS.has(name)) {
            const script = shellScriptArg(rest)?.val ?? stdin;
            if (script)
                this.it.runNested(script, this.shellEnv(s, prefix, at), s, false, at);
            return [s];
        }
        // `vllm serve …` (the console script or `python -m vllm.entrypoints…`), directly or after a launcher
        // (`uv run`, `apptainer exec IMAGE`, `conda run`): vLLM's native multi-node mode.
        const serve = WRAPPERS.has(name) ? -1 : serveAt(argv);
        if (serve >= 0) {
            s.starts.push(vllmServe(s, argv.slice(serve), this.hostEnv(s, prefix, at), at, false));
            return [s];
        }
        if (WRAPPERS.has(name)) {
            const out = this.run(stripOptions(name, rest), prefix, s, at, stdin);
            // `exec cmd` replaces the shell: nothing after it runs.
            if (name === 'exec' && rest.length > 0)
                for (const x of out)
                    x.done = true;
            return out;
        }
        // Any other command that carries `ray start` in its argv (a launcher such as `uv run`, `conda run`).
        const ray = argv.findIndex((a, i) => i > 0 && a.val.text === 'ray' && argv[i + 1]?.val.text === 'start');
        return ray > 0 ? this.run(argv.slice(ray), prefix, s, at) : [s];
    }
    env(rest, prefix, s, at, stdin) {
        let i = 0;
        let clean = false;
        while (i < rest.length && /^-/.test(rest[i].val.text)) {
            const t = rest[i].val.text;
            if (t === '-i' || t === '-' || t === '--ignore-environment')
                clean = true;
            i += t === '-u' ? 2 : 1;
        }
        if (clean) {
            const own = new Map();
            for (; i < rest.length; i++) {
                const m = /^([A-Za-z_]\w*)=/.exec(rest[i].val.text);
                if (!m)
                    break;
                own.set(m[1], { val: sliceVal(rest[i].val, m[0].length), span: rest[i].span });
            }
            const after = rest.slice(i);
            return this.cleanly(() => this.run(after, own, s, at, stdin));
        }
        for (; i < rest.length; i++) {
            const m = /^([A-Za-z_]\w*)=/.exec(rest[i].val.text);
            if (!m)
                break;
            prefix.set(m[1], { val: sliceVal(rest[i].val, m[0].length), span: rest[i].span });
        }
        return this.run(rest.slice(i), prefix, s, at, stdin);
    }
    /**
     * `apptainer exec [options] IMAGE command…` (and singularity): the command runs with this shell's
     * environment (none under `--cleanenv`/`-e`/`--containall`/`-C`) and the `--env NAME=value[,…]`
     * settings on top, which win.
     */
    apptainer(rest, prefix, s, at, stdin) {
        const env = new Map(prefix);
        let clean = false;
        let i = 1;
        for (; i < rest.length; i++) {
            const a = rest[i];
            const t = a.val.text;
            if (a.rest || !t.startsWith('-'))
                break;
            if (t === '-e' || t === '--cleanenv' || t === '-C' || t === '--containall')
                clean = true;
            const m = /^--env(=)?/.exec(t);
            const value = m ? (m[1] ? sliceVal(a.val, 6) : rest[i + 1]?.val) : undefined;
            if (m && value) {
                // `--env A=1,B=2`: each setting, its value mapped to where it was written (a patch may rewrite it).
                let from = 0;
                for (const part of value.text.split(',')) {
                    const kv = /^([A-Za-z_]\w*)=/.exec(part);
                    if (kv) {
                        const val = sliceVal(value, from + kv[0].length, from + part.length);
                        const w = writtenAt(val);
                        env.set(kv[1], { val, span: { start: -1, end: -1, line: (m[1] ? a : rest[i + 1]).span.line }, ...(w ? { valueAt: w } : {}) });
                    }
                    from += part.length + 1;
                }
                if (!m[1])
                    i++;
                continue;
            }
            if (APPTAINER_WITH_VALUE.has(t))
                i++;
        }
        const command = rest.slice(i + 1);
        return clean ? this.cleanly(() => this.run(command, env, s, at, stdin)) : this.run(command, env, s, at, stdin);
    }
    /** The watched variables a process started from this shell gets: exported ones and command prefixes. */
    hostEnv(s, prefix, at) {
        const env = new Map();
        for (const name of WATCHED) {
            const p = prefix.get(name);
            const v = this.it.lookup(s, name);
            if (p) {
                const previous = v?.kind === 'scalar' ? v.assignment : undefined;
                env.set(name, {
                    name,
                    val: p.val,
                    span: p.span.start >= 0 ? p.span : at,
                    kind: 'prefix',
                    inBranch: s.branch > 0,
                    ...(previous ? { previous } : {}),
                    ...(p.span.start >= 0 ? { removable: { start: p.span.start, end: p.span.end } } : {}),
                    ...(p.valueAt ? { valueAt: p.valueAt } : {}),
                });
            }
            else if (v?.kind === 'scalar' && v.exported && !this.clean)
                env.set(name, v.assignment);
        }
        return env;
    }
    /** Everything a nested shell on this host inherits: exported variables and the command's prefixes. */
    shellEnv(s, prefix, at) {
        const vars = new Map();
        const scopes = this.clean ? [] : [s.globals, ...s.frames.map((f) => f.locals)];
        for (const scope of scopes)
            for (const [k, v] of scope)
                if (v.kind === 'scalar' && v.exported)
                    vars.set(k, v);
        for (const [k, a] of this.hostEnv(s, prefix, at))
            vars.set(k, { kind: 'scalar', val: a.val, exported: true, assignment: a });
        for (const [k, p] of prefix)
            if (!vars.has(k))
                vars.set(k, { kind: 'scalar', val: p.val, exported: true, assignment: { name: k, val: p.val, span: p.span, kind: 'prefix', inBranch: s.branch > 0 } });
        return vars;
    }
    /**
     * `docker run …` / `docker exec …`: a container's environment is its `-e` options only. A container
     * started with `--name` is remembered on the path (State.containers), and a later `docker exec` into
     * it (by name, by a variable holding the name, or by `$(docker ps …)`) runs with the environment it
     * was started with, under the exec's own `-e` options.
     */
    container(s, rest, at, stdin) {
        const sub = rest[0]?.val.text === 'container' ? rest.slice(1) : rest;
        const verb = sub[0]?.val.text;
        if (verb !== 'run' && verb !== 'exec')
            return;
        const argv = readContainerArgv(sub.slice(1));
        const into = verb === 'exec' && argv.target ? execTarget(s, argv.target.val) : undefined;
        const env = new Map(into?.env ?? []);
        // `--env-file FILE` the script wrote from a here-document: each `NAME=value` line, where it was written.
        for (const file of argv.envFiles) {
            const body = file.val.known ? s.files.get(file.val.text) : undefined;
            if (body)
                for (const a of envFileSettings(body, s, file.span.line))
                    env.set(a.name, a);
        }
        for (const e of argv.env) {
            if (!WATCHED.includes(e.name))
                continue;
            const name = e.name;
            const shell = this.it.lookup(s, name);
            const shellAssign = shell?.kind === 'scalar' ? shell.assignment : undefined;
            // `-e NAME` and `-e NAME=$NAME` pass the shell's variable on: it was set where the shell set it.
            if (!e.value || (shell?.kind === 'scalar' && sameVal(shell.val, e.value.val))) {
                if (shellAssign && (e.value || (shell?.kind === 'scalar' && shell.exported)))
                    env.set(name, shellAssign);
                continue;
            }
            const previous = shellAssign && shellAssign.val.text !== e.value.val.text ? shellAssign : undefined;
            const from = e.arg.span;
            const to = e.value.span;
            const removable = from.start >= 0 && to.start >= from.start ? { start: from.start, end: Math.max(from.end, to.end) } : undefined;
            env.set(name, {
                name,
                val: e.value.val,
                span: e.value.span,
                kind: 'docker -e',
                inBranch: s.branch > 0,
                ...(s.frames.length > 1 ? { inFunction: true } : {}),
                ...(previous ? { previous } : {}),
                ...(removable ? { removable } : {}),
            });
        }
        if (verb === 'run' && argv.name && argv.name.val.text !== '') {
            const name = argv.name.val.text;
            s.containers.set(containerKey(s.host, name), { name, host: s.host, env, line: at.line, ...(argv.network ? { network: argv.network } : {}) });
        }
        const before = s.starts.length;
        const command = [...(argv.entrypoint ? [argv.entrypoint] : []), ...argv.command];
        const exe = (command[0]?.val.text ?? '').replace(/^.*\//, '');
        const rayAt = command.findIndex((a, i) => a.val.text === 'ray' && command[i + 1]?.val.text === 'start');
        const serve = serveAt(command);
        const noShellBefore = (i) => command.slice(0, i).every((a) => !SHELLS.has(a.val.text.replace(/^.*\//, '')));
        if (rayAt >= 0 && noShellBefore(rayAt))
            s.starts.push(rayStart(s, command.slice(rayAt + 2), withPrefixes(env, command.slice(0, rayAt), s), at, true));
        else if (serve >= 0 && noShellBefore(serve))
            s.starts.push(vllmServe(s, command.slice(serve), withPrefixes(env, command.slice(0, serve), s), at, true));
        else if (SHELLS.has(exe)) {
            const script = shellScriptArg(command.slice(1))?.val ?? stdin;
            if (script)
                this.it.runNested(script, asVars(env), s, true, at);
        }
        if (into)
            for (let i = before; i < s.starts.length; i++)
                s.starts[i] = { ...s.starts[i], container: { name: into.name, line: into.line } };
    }
    /** `ssh host "…"`: the remote shell runs the words as one string, with none of this shell's variables. */
    ssh(s, rest, at, stdin) {
        const words = sshCommand(rest);
        // `ssh host <<EOF` and `ssh host bash -s <<EOF`: the remote shell reads the here-document.
        const shell = words.length === 0 || (SHELLS.has(words[0].val.text.replace(/^.*\//, '')) && !shellScriptArg(words.slice(1)));
        const host = sshHost(rest);
        if (shell && stdin)
            this.it.runNested(stdin, new Map(), s, false, at, host);
        else if (words.length > 0)
            this.it.runNested(concatJoin(words.map((w) => w.val)), new Map(), s, false, at, host);
    }
}
/**
 * The container a `docker exec` names, among those this path started on its host: by the name as
 * expanded (a literal, or a variable's value, symbolic or not), or, for `$(docker ps -q …)`, the one
 * whose name the command substitution mentions, else the only one.
 */
function execTarget(s, target) {
    const byName = s.containers.get(containerKey(s.host, target.text));
    if (byName)
        return byName;
    if (!/^\$\((?:sudo\s+)?(?:docker|podman)\s+(?:container\s+)?(?:ps|ls)\b/.test(target.text))
        return undefined;
    const here = [...s.containers.values()].filter((c) => c.host === s.host);
    const named = here.filter((c) => target.text.includes(c.name));
    return named.length === 1 ? named[0] : here.length === 1 ? here[0] : undefined;
}
/** The watched `NAME=value` lines of an env file (docker's format: no quotes, `#` comments), mapped to where the script wrote them. */
function envFileSettings(body, s, line) {
    const out = [];
    let at = 0;
    for (const text of body.text.split('\n')) {
        const m = /^([A-Za-z_]\w*)=(.*?)\s*$/.exec(text);
        if (m && WATCHED.includes(m[1])) {
            const val = sliceVal(body, at + m[1].length + 1, at + m[1].length + 1 + m[2].length);
            const valueAt = writtenAt(val);
            const start = body.map?.[at] ?? -1;
            out.push({
                name: m[1],
                val,
                span: { start, end: start >= 0 ? start + text.length : -1, line },
                kind: 'env file',
                inBranch: s.branch > 0,
                // Emptied rather than dropped (an empty VLLM_HOST_IP is vLLM's "unset"; edits keep the line count).
                ...(valueAt ? { valueAt, removable: valueAt } : {}),
            });
        }
        at += text.length + 1;
    }
    return out;
}
/** Where `vllm serve`'s own arguments start in a command's words (-1: none). */
function serveAt(argv) {
    const direct = (0,native_launch/* serveArgsStart */.n_)(argv, (a) => a.val.text);
    if (direct >= 0)
        return direct;
    const i = argv.findIndex((a, j) => j > 0 && a.val.text.replace(/^.*\//, '') === 'vllm' && argv[j + 1]?.val.text === 'serve');
    return i > 0 ? i + 2 : -1;
}
/** Leading options of a wrapper (`sudo -E -u user`, `timeout 60`, `srun -N1 -w host`). */
function stripOptions(name, rest) {
    let i = 0;
    const valued = name === 'sudo' ? /^-[ugChDpRrT]$/ : name === 'srun' ? /^-[A-Za-z]$/ : /^$/;
    while (i < rest.length && rest[i].val.text.startsWith('-'))
        i += valued.test(rest[i].val.text) ? 2 : 1;
    if (name === 'timeout' && /^\d/.test(rest[i]?.val.text ?? ''))
        i++;
    return rest.slice(i);
}
/** `env NAME=v ray start` (or `NAME=v` words) in a container's command: those reach Ray too. */
function withPrefixes(env, before, s) {
    const out = new Map(env);
    for (const a of before) {
        const m = /^([A-Za-z_]\w*)=/.exec(a.val.text);
        if (!m || !WATCHED.includes(m[1]))
            continue;
        const name = m[1];
        const previous = out.get(name);
        out.set(name, {
            name,
            val: sliceVal(a.val, m[0].length),
            span: a.span,
            kind: 'prefix',
            inBranch: s.branch > 0,
            ...(previous ? { previous } : {}),
            ...(a.span.start >= 0 ? { removable: { start: a.span.start, end: a.span.end } } : {}),
        });
    }
    return out;
}
const asVars = (env) => new Map([...env].map(([k, a]) => [k, { kind: 'scalar', val: a.val, exported: true, assignment: a }]));

;// CONCATENATED MODULE: ./src/script-check/conditions.ts
/**
 * Conditions a script branches on, decided when they can be: `[ a = b ]`, `test`, `[[ … ]]` with
 * glob patterns, `-n`/`-z`, numeric comparisons, `!`, `&&`/`||`, `true`/`false`. Anything that
 * depends on the machine (`$(hostname)`, `ip addr | grep -q …`, the script's arguments) is
 * undecided: both ways are followed, which is how every role's section is reached.
 */

const not = (r) => (r === undefined ? undefined : !r);
const and = (x, y) => (x === false || y === false ? false : x === true && y === true ? true : undefined);
const or = (x, y) => (x === true || y === true ? true : x === false && y === false ? false : undefined);
/** Shell glob match for case patterns and [[ == ]]: `*`, `?`, `[…]`, and `a|b` alternatives. */
function globMatch(pattern, text) {
    return pattern.split('|').some((p) => {
        const re = p
            .replace(/[.+^${}()\\]/g, '\\$&')
            .replace(/\*/g, '.*')
            .replace(/\?/g, '.');
        try {
            return new RegExp(`^${re}$`).test(text);
        }
        catch {
            return p === text;
        }
    });
}
const literal = (v) => v.known && !/[*?[]/.test(v.text);
/** A value with what the path assumed about it: a symbolic value the path took as equal to a literal is that literal. */
function resolve(facts, v) {
    const eq = v.known ? undefined : facts.get(v.text)?.eq;
    return eq === undefined ? v : { text: eq, known: true };
}
function compare(facts, a0, b0, negate) {
    const a = resolve(facts, a0);
    const b = resolve(facts, b0);
    const [u, k] = !a.known && literal(b) ? [a, b] : !b.known && literal(a) ? [b, a] : [undefined, undefined];
    if (u && k && facts.get(u.text)?.ne.includes(k.text))
        return negate;
    if (!a.known || !b.known)
        return a.text === b.text && a.text !== '' ? !negate : undefined;
    const eq = globMatch(b.text, a.text);
    return negate ? !eq : eq;
}
const NUMERIC = {
    '-eq': (a, b) => a === b,
    '-ne': (a, b) => a !== b,
    '-lt': (a, b) => a < b,
    '-le': (a, b) => a <= b,
    '-gt': (a, b) => a > b,
    '-ge': (a, b) => a >= b,
};
function testWords(facts, ops) {
    if (ops[0]?.text === '!' && ops[0].known)
        return not(testWords(facts, ops.slice(1)));
    if (ops.length === 3) {
        const op = ops[1].text;
        if (['=', '==', '!='].includes(op))
            return compare(facts, ops[0], ops[2], op === '!=');
        const f = NUMERIC[op];
        if (f)
            return ops[0].known && ops[2].known && /^-?\d+$/.test(ops[0].text) && /^-?\d+$/.test(ops[2].text)
                ? f(Number(ops[0].text), Number(ops[2].text))
                : undefined;
    }
    if (ops.length === 2 && (ops[0].text === '-n' || ops[0].text === '-z')) {
        const v = ops[1];
        // VRD_* variables are always set under launch.mode: script; a command substitution is taken as non-empty.
        const empty = v.known ? v.text === '' : /^\$\{VRD_\w+\}$|^\$\(/.test(v.text) ? false : undefined;
        return ops[0].text === '-z' ? empty : not(empty);
    }
    if (ops.length === 1)
        return ops[0].known ? ops[0].text !== '' : undefined;
    return undefined;
}
/** A symbolic value found equal (or not) to a literal on this path. */
function record(facts, a, b, equal) {
    const [u, k] = !a.known && literal(b) ? [a, b] : !b.known && literal(a) ? [b, a] : [undefined, undefined];
    if (!u || !k)
        return;
    const f = facts.get(u.text) ?? { ne: [] };
    facts.set(u.text, equal ? { ...f, eq: k.text } : { ...f, ne: [...f.ne, k.text] });
}
class Conditions {
    ex;
    constructor(ex) {
        this.ex = ex;
    }
    /** A condition list's truth when it can be known (the last command decides). */
    of(s, stmts) {
        const last = stmts[stmts.length - 1];
        if (!last)
            return undefined;
        const r = this.cmd(s, child(last, 'Cmd'));
        return bool(last, 'Negated') ? not(r) : r;
    }
    /** Record what taking a branch means for the values its condition compared (`[ "$3" == --head ]` taken: `${3}` is `--head`). */
    assume(s, stmts, truth) {
        const last = stmts[stmts.length - 1];
        if (!last)
            return;
        this.assumeCmd(s, child(last, 'Cmd'), bool(last, 'Negated') ? !truth : truth);
    }
    assumeCmd(s, cmd, truth) {
        if (!cmd)
            return;
        const t = nodeType(cmd);
        if (t === 'TestClause') {
            this.assumeExpr(s, child(cmd, 'X'), truth);
            return;
        }
        if (t === 'BinaryCmd') {
            const op = num(cmd, 'Op');
            // Both sides hold when `a && b` held; neither did when `a || b` failed.
            if ((op === OP.AndStmt && truth) || (op === OP.OrStmt && !truth))
                for (const side of ['X', 'Y'])
                    this.assume(s, [child(cmd, side)], truth);
            return;
        }
        if (t === 'CallExpr') {
            const words = children(cmd, 'Args').map((w) => this.ex.wordVal(s, w));
            const ops = words[0]?.text === '[' ? words.slice(1, -1) : words[0]?.text === 'test' ? words.slice(1) : [];
            if (ops.length === 3 && ['=', '==', '!='].includes(ops[1].text))
                record(s.facts, ops[0], ops[2], ops[1].text === '!=' ? !truth : truth);
        }
    }
    assumeExpr(s, x, truth) {
        if (!x)
            return;
        const t = nodeType(x);
        if (t === 'ParenTest') {
            this.assumeExpr(s, child(x, 'X'), truth);
            return;
        }
        if (t !== 'BinaryTest')
            return;
        const op = num(x, 'Op');
        if ((op === OP.AndStmt && truth) || (op === OP.OrStmt && !truth)) {
            this.assumeExpr(s, child(x, 'X'), truth);
            this.assumeExpr(s, child(x, 'Y'), truth);
            return;
        }
        const l = this.operand(s, child(x, 'X'));
        const r = this.operand(s, child(x, 'Y'));
        if (l && r && (op === OP.TsMatch || op === OP.TsMatchShort || op === OP.TsNoMatch))
            record(s.facts, l, r, op === OP.TsNoMatch ? !truth : truth);
    }
    cmd(s, cmd) {
        if (!cmd)
            return undefined;
        const t = nodeType(cmd);
        if (t === 'TestClause')
            return this.expr(s, child(cmd, 'X'));
        if (t === 'CallExpr') {
            const words = children(cmd, 'Args');
            const first = words[0] ? this.ex.wordVal(s, words[0]).text : '';
            if (first === 'true' || first === ':')
                return true;
            if (first === 'false')
                return false;
            // Any other command's success depends on the machine.
            if (first !== '[' && first !== 'test')
                return undefined;
            return testWords(s.facts, words.slice(1, first === '[' ? -1 : undefined).map((w) => this.ex.wordVal(s, w)));
        }
        if (t === 'BinaryCmd') {
            const op = num(cmd, 'Op');
            const x = this.of(s, [child(cmd, 'X')]);
            const y = this.of(s, [child(cmd, 'Y')]);
            if (op === OP.AndStmt)
                return and(x, y);
            if (op === OP.OrStmt)
                return or(x, y);
        }
        if (t === 'Block' || t === 'Subshell')
            return this.of(s, children(cmd, 'Stmts'));
        return undefined;
    }
    expr(s, x) {
        if (!x)
            return undefined;
        const t = nodeType(x);
        if (t === 'BinaryTest') {
            const op = num(x, 'Op');
            if (op === OP.AndStmt)
                return and(this.expr(s, child(x, 'X')), this.expr(s, child(x, 'Y')));
            if (op === OP.OrStmt)
                return or(this.expr(s, child(x, 'X')), this.expr(s, child(x, 'Y')));
            const l = this.operand(s, child(x, 'X'));
            const r = this.operand(s, child(x, 'Y'));
            if (!l || !r)
                return undefined;
            if (op === OP.TsMatch || op === OP.TsMatchShort)
                return compare(s.facts, l, r, false);
            if (op === OP.TsNoMatch)
                return compare(s.facts, l, r, true);
            const opText = this.ex
                .src(x)
                .slice(this.ex.src(child(x, 'X')).length)
                .trim()
                .split(/\s+/)[0] ?? '';
            return NUMERIC[opText] ? testWords(s.facts, [l, { text: opText, known: true }, r]) : undefined;
        }
        if (t === 'UnaryTest') {
            const opText = this.ex.src(x).trim().slice(0, 2);
            if (opText.startsWith('!'))
                return not(this.expr(s, child(x, 'X')));
            const operand = this.operand(s, child(x, 'X'));
            if (!operand)
                return undefined;
            if (opText === '-n' || opText === '-z')
                return testWords(s.facts, [{ text: opText, known: true }, operand]);
            return undefined;
        }
        if (t === 'ParenTest')
            return this.expr(s, child(x, 'X'));
        if (t === 'Word')
            return testWords(s.facts, [this.ex.wordVal(s, x)]);
        return undefined;
    }
    operand(s, x) {
        return x && nodeType(x) === 'Word' ? this.ex.wordVal(s, x) : undefined;
    }
}

;// CONCATENATED MODULE: ./src/script-check/evaluate.ts
/**
 * A launch script run on paper: every path through it (each `if`/`case`/`&&` whose condition is
 * not known forks; paths that end in the same state merge), with variables, `export`, `local`,
 * arrays, functions and their positional arguments followed, up to each `ray start` (directly, as
 * a container's command, or in a string another shell runs). The script's own arguments are
 * unknown, so argument-parsing loops and `usage; exit` branches fork rather than end the walk:
 * every role's section is reached. Each `ray start` is recorded (model.ts RayStart) with where its
 * values were written, so the rules can point at the line and patches can edit the right characters.
 *
 * Words: expand.ts; conditions: conditions.ts; commands: commands.ts; positions inside nested
 * strings: source-map.ts.
 */










const MAX_PATHS = 64;
/** Beyond this many live paths, those alike in what the rules read are joined (state.ts joinPaths). */
const JOIN_AT = 8;
const JOIN_HARD = 16;
const WATCHED_SET = new Set(WATCHED);
const MAX_DEPTH = 12;
const MAX_NESTING = 4;
class Evaluator {
    script;
    text;
    pos;
    env;
    nesting;
    parses;
    ex;
    conds;
    cmds;
    truncated = false;
    inputs;
    /** The variables a start can depend on (state.ts startInputs), read once per text. */
    startInputs() {
        if (!this.inputs)
            this.inputs = startInputs(this.text);
        return this.inputs;
    }
    constructor(script, text, pos, env, nesting, 
    /** Strings nested shells run, parsed once per text (a helper called per node and per path runs the same string). */
    parses) {
        this.script = script;
        this.text = text;
        this.pos = pos;
        this.env = env;
        this.nesting = nesting;
        this.parses = parses;
        this.ex = new Expander(this);
        this.conds = new Conditions(this.ex);
        this.cmds = new Commands(this);
    }
    get envKnown() {
        return this.env !== undefined;
    }
    lookup(s, name) {
        for (let i = s.frames.length - 1; i >= 0; i--) {
            const v = s.frames[i].locals.get(name);
            if (v)
                return v;
        }
        return s.globals.get(name) ?? this.env?.get(name);
    }
    setVar(s, name, v, local) {
        if (local && s.frames.length > 1) {
            s.frames[s.frames.length - 1].locals.set(name, v);
            return;
        }
        for (let i = s.frames.length - 1; i >= 1; i--) {
            if (s.frames[i].locals.has(name)) {
                s.frames[i].locals.set(name, v);
                return;
            }
        }
        s.globals.set(name, v);
    }
    run(stmts, states) {
        let cur = states;
        for (const stmt of stmts) {
            const next = cur.flatMap((s) => (s.done || s.returning ? [s] : this.stmt(stmt, s)));
            // Paths are compared where a statement forked them (two paths that converged without a fork meet at the next one):
            // comparing every path after every statement made the walk quadratic in the script's length.
            cur = next.length > cur.length ? mergePaths(next) : next;
            let live = cur.filter((s) => !s.done);
            if (live.length > JOIN_AT) {
                live = joinPaths(live, this.startInputs());
                // Still too many: alike in the watched variables is enough (an option loop that sets many inputs).
                if (live.length > JOIN_HARD)
                    live = joinPaths(live, WATCHED_SET);
                cur = [...cur.filter((s) => s.done), ...live];
            }
            if (live.length > MAX_PATHS) {
                this.truncated = true;
                cur = [...cur.filter((s) => s.done), ...live.slice(0, MAX_PATHS)];
            }
        }
        return cur;
    }
    inBranch(s, fn) {
        s.branch++;
        return fn(s).map((x) => {
            x.branch--;
            return x;
        });
    }
    /** Both ways of an undecided condition (each path remembering what it assumed); one way when it is known. */
    branch(s, truth, label, yes, no, cond) {
        if (truth === true)
            return this.inBranch(s, yes);
        if (truth === false)
            return no(s);
        const other = fork(s);
        s.path.push(label[0]);
        other.path.push(label[1]);
        if (cond) {
            this.conds.assume(s, cond, true);
            this.conds.assume(other, cond, false);
        }
        return [...this.inBranch(s, yes), ...no(other)];
    }
    stmt(stmt, s) {
        const cmd = child(stmt, 'Cmd');
        if (!cmd)
            return [s];
        switch (nodeType(cmd)) {
            case 'CallExpr': {
                const stdin = this.hereDoc(stmt, s);
                if (stdin)
                    this.writesFile(stmt, cmd, s, stdin);
                return this.call(cmd, s, stdin);
            }
            case 'DeclClause':
                return this.decl(cmd, s);
            case 'IfClause':
                return this.ifClause(cmd, s);
            case 'CaseClause':
                return this.caseClause(cmd, s);
            case 'BinaryCmd':
                return this.binary(cmd, s);
            case 'Block':
            case 'Subshell':
                return this.run(children(cmd, 'Stmts'), [s]);
            case 'FuncDecl':
                s.funcs.set(str(child(cmd, 'Name'), 'Value'), child(cmd, 'Body'));
                return [s];
            case 'WhileClause':
            case 'ForClause':
                // One pass of the body: argument loops fork on `case "$1"` and every option's path goes on.
                return this.run(children(cmd, 'Do'), [s]);
            default:
                return [s];
        }
    }
    binary(cmd, s) {
        const op = num(cmd, 'Op');
        const x = child(cmd, 'X');
        const y = child(cmd, 'Y');
        if (op !== OP.AndStmt && op !== OP.OrStmt)
            return this.run([x, y], [s]);
        const c = this.conds.of(s, [x]);
        const line = this.ex.span(cmd).line;
        const sym = op === OP.AndStmt ? '&&' : '||';
        return this.run([x], [s]).flatMap((st) => {
            if (st.done || st.returning)
                return [st];
            const runY = op === OP.AndStmt ? c : c === undefined ? undefined : !c;
            const cond = op === OP.AndStmt ? [x] : undefined;
            return this.branch(st, runY, [`line ${line}: ${sym} taken`, `line ${line}: ${sym} not taken`], (b) => this.run([y], [b]), (b) => [b], cond);
        });
    }
    caseClause(cmd, s) {
        const line = this.ex.span(cmd).line;
        const written = this.ex.wordVal(s, child(cmd, 'Word'));
        const out = [];
        for (const item of children(cmd, 'Items')) {
            const eq = written.known ? undefined : s.facts.get(written.text)?.eq;
            const word = eq === undefined ? written : { text: eq, known: true };
            const patterns = children(item, 'Patterns').map((p) => this.ex.wordVal(s, p));
            const catchAll = patterns.some((p) => p.known && p.text === '*');
            const excluded = !word.known && patterns.every((p) => s.facts.get(word.text)?.ne.includes(p.text));
            const hit = word.known && patterns.every((p) => p.known) ? patterns.some((p) => globMatch(p.text, word.text)) : catchAll ? true : excluded ? false : undefined;
            if (hit === false)
                continue;
            const b = fork(s);
            b.path.push(`line ${line}: case ${patterns.map((p) => p.text).join('|')}`);
            // The item taken: the word is its pattern; passed over: it is none of them.
            if (hit === undefined) {
                if (patterns.length === 1)
                    record(b.facts, word, patterns[0], true);
                for (const p of patterns)
                    record(s.facts, word, p, false);
            }
            out.push(...this.inBranch(b, (x) => this.run(children(item, 'Stmts'), [x])));
            if (hit === true)
                return out;
        }
        out.push(s);
        return out;
    }
    ifClause(cmd, s) {
        const line = this.ex.span(cmd).line;
        const condStmts = children(cmd, 'Cond');
        const els = child(cmd, 'Else');
        const runElse = (st) => {
            if (!els)
                return [st];
            if (children(els, 'Cond').length === 0)
                return this.inBranch(st, (b) => this.run(children(els, 'Then'), [b]));
            return this.ifClause(els, st);
        };
        const then = (b) => this.run(children(cmd, 'Then'), [b]);
        if (condStmts.length === 0)
            return this.inBranch(s, then);
        // The condition's own commands run first (an assignment or a function in it counts).
        const truth = this.conds.of(s, condStmts);
        return this.branch(s, truth, [`line ${line}: then`, `line ${line}: else`], then, runElse, condStmts);
    }
    assign(s, a, kind, exported, local) {
        const nameNode = child(a, 'Name');
        if (!nameNode)
            return;
        const name = str(nameNode, 'Value');
        const prev = this.lookup(s, name);
        const span = this.ex.span(a);
        if (bool(a, 'Naked')) {
            if (exported && prev?.kind === 'scalar')
                this.setVar(s, name, { ...prev, exported: true }, local);
            else if (local) {
                const val = { text: '', known: true, map: [] };
                this.setVar(s, name, { kind: 'scalar', val, exported: false, assignment: { name, val, span, kind, inBranch: s.branch > 0 } }, true);
            }
            return;
        }
        const array = child(a, 'Array');
        if (array) {
            const words = children(array, 'Elems').flatMap((e) => (child(e, 'Value') ? [child(e, 'Value')] : []));
            const before = bool(a, 'Append') && prev?.kind === 'array' ? prev.items : [];
            this.setVar(s, name, { kind: 'array', items: [...before, ...this.ex.argsOf(s, words)] }, local);
            return;
        }
        const valueWord = child(a, 'Value');
        const valueSpan = valueWord && !bool(a, 'Append') ? this.ex.span(valueWord) : undefined;
        const raw = valueWord ? this.ex.wordVal(s, valueWord) : { text: '', known: true, map: [] };
        const val = bool(a, 'Append') && prev?.kind === 'scalar'
            ? { text: prev.val.text + raw.text, known: prev.val.known && raw.known, map: [...fill(prev.val), ...fill(raw)] }
            : raw;
        const previous = prev?.kind === 'scalar' ? prev.assignment : undefined;
        const assignment = {
            name,
            val,
            span,
            kind,
            inBranch: s.branch > 0,
            ...(previous ? { previous } : {}),
            ...(span.start >= 0 ? { removable: { start: span.start, end: span.end } } : {}),
            ...(valueSpan && valueSpan.start >= 0 ? { valueAt: { start: valueSpan.start, end: valueSpan.end } } : {}),
        };
        this.setVar(s, name, { kind: 'scalar', val, exported: exported ?? (prev?.kind === 'scalar' && prev.exported), assignment }, local);
    }
    decl(cmd, s) {
        const variant = str(child(cmd, 'Variant'), 'Value');
        const local = variant === 'local' || variant === 'declare' || variant === 'typeset';
        const flags = children(cmd, 'Args').filter((a) => bool(a, 'Naked') && str(child(a, 'Name') ?? child(a, 'Value'), 'Value').startsWith('-'));
        const exported = variant === 'export' || flags.some((f) => /x/.test(this.ex.src(f))) ? true : undefined;
        for (const a of children(cmd, 'Args')) {
            if (!child(a, 'Name'))
                continue;
            this.assign(s, a, variant === 'export' ? 'export' : local ? 'local' : 'assign', exported, local && s.frames.length > 1);
        }
        return [s];
    }
    /** The here-document a statement feeds its command (`<<EOF`, `<<-EOF`, `<<'EOF'`), expanded as bash would. */
    hereDoc(stmt, s) {
        const r = children(stmt, 'Redirs').find((x) => num(x, 'Op') === OP.Hdoc || num(x, 'Op') === OP.DashHdoc);
        const body = r ? child(r, 'Hdoc') : null;
        if (!r || !body)
            return undefined;
        const v = this.ex.hereDocVal(s, body);
        // The word's range runs to the closing delimiter line; the shell reads the lines before it.
        const delim = this.ex.src(child(r, 'Word')).replace(/^['"]|['"]$/g, '');
        const m = new RegExp(`(?:^|\\n)[ \\t]*${delim.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`).exec(v.text);
        return m ? sliceVal(v, 0, m.index + (m[0].startsWith('\n') ? 1 : 0)) : v;
    }
    /** `cat > FILE <<EOF`, `cat <<EOF >FILE`, `tee FILE <<EOF`: the file now holds the here-document. */
    writesFile(stmt, cmd, s, body) {
        const words = children(cmd, 'Args');
        const name = words[0] ? this.ex.wordVal(s, words[0]).text.replace(/^.*\//, '') : '';
        const out = children(stmt, 'Redirs').find((x) => num(x, 'Op') === OP.RdrOut || num(x, 'Op') === OP.AppOut);
        const target = name === 'cat' && out ? this.ex.wordVal(s, child(out, 'Word')) : name === 'tee' && words[1] ? this.ex.wordVal(s, words[1]) : undefined;
        if (target?.known)
            s.files.set(target.text, body);
    }
    call(cmd, s, stdin) {
        const words = children(cmd, 'Args');
        const assigns = children(cmd, 'Assigns');
        if (words.length === 0) {
            for (const a of assigns)
                this.assign(s, a, 'assign', undefined, false);
            return [s];
        }
        const prefix = new Map();
        for (const a of assigns) {
            const v = child(a, 'Value');
            const at = v ? this.ex.span(v) : undefined;
            prefix.set(str(child(a, 'Name'), 'Value'), {
                val: v ? this.ex.wordVal(s, v) : { text: '', known: true, map: [] },
                span: this.ex.span(a),
                ...(at && at.start >= 0 ? { valueAt: { start: at.start, end: at.end } } : {}),
            });
        }
        return this.cmds.run(this.ex.argsOf(s, words), prefix, s, this.ex.span(cmd), stdin);
    }
    callFunction(fn, args, s, at) {
        if (s.frames.length >= MAX_DEPTH)
            return [s];
        const rest = args.some((a) => a.rest);
        s.frames.push({ args: args.filter((a) => !a.rest), rest, shifted: 0, locals: newVars(), callAt: at });
        return this.run([fn], [s]).map((x) => {
            x.frames.pop();
            x.returning = false;
            return x;
        });
    }
    runNested(script, env, s, inContainer, at, host) {
        if (this.nesting >= MAX_NESTING)
            return;
        if (!this.parses.has(script.text)) {
            const p = parseBash(script.text, 'nested');
            this.parses.set(script.text, 'error' in p ? undefined : p);
        }
        const parsed = this.parses.get(script.text);
        if (!parsed)
            return;
        const map = script.map && script.map.length === script.text.length ? script.map : Array(script.text.length).fill(-1);
        const after = script.after && script.after.length === script.text.length ? script.after : undefined;
        const pos = new Positions(this.pos.lines, map, after, at.line);
        const sub = new Evaluator(parsed, script.text, pos, env, this.nesting + 1, this.parses);
        // The nested shell's own arguments are as unknown as the script's: a symbolic `${3}` of the outer text stays symbolic.
        // It sees the containers this path started (on its host, `docker exec` finds them) and adds those it starts.
        const init = { ...initialState(), branch: s.branch, host: host ?? s.host, containers: s.containers.copy() };
        const done = sub.run(children(parsed.file, 'Stmts'), [init]);
        if (sub.truncated)
            this.truncated = true;
        for (const st of done)
            for (const [k, c] of st.containers)
                if (!s.containers.has(k))
                    s.containers.set(k, c);
        const seen = new Set();
        for (const st of done)
            for (const start of st.starts) {
                const key = startKeyOf(start);
                if (seen.has(key))
                    continue;
                seen.add(key);
                s.starts.push({ ...start, inContainer: inContainer || start.inContainer, path: [...s.path, ...start.path] });
            }
    }
}
const fill = (v) => (v.map && v.map.length === v.text.length ? [...v.map] : Array(v.text.length).fill(-1));
/** Every `ray start` on every path through a launch script. */
/**
 * `known`: environment variables whose value the tool will set (from the manifest: VRD_EXECUTOR), so
 * a branch on them is decided as the node will decide it, not explored both ways.
 */
function evaluateScript(text, path, known = {}) {
    const parsed = parseBash(text, path);
    if ('error' in parsed)
        return { starts: [], error: parsed.error, truncated: false };
    const ev = new Evaluator(parsed, text, new Positions(new ScriptLines(text), undefined, undefined, 1), undefined, 0, new Map());
    const start = initialState();
    for (const [name, value] of Object.entries(known))
        start.facts.set(`\${${name}}`, { eq: value, ne: [] });
    const finals = ev.run(children(parsed.file, 'Stmts'), [start]);
    // The same start reached on several paths (forks that changed nothing) is kept once.
    const seen = new Set();
    const starts = [];
    for (const st of finals) {
        for (const r of st.starts) {
            const key = startKeyOf(r);
            if (seen.has(key))
                continue;
            seen.add(key);
            starts.push(r);
        }
    }
    return { starts, truncated: ev.truncated };
}

;// CONCATENATED MODULE: ./src/script-check/patch.ts
/**
 * Fixes as data: edits to a script's text, and the unified diff that makes them, in the form
 * `git apply` and `patch -p1` read (`--- a/<path>` / `+++ b/<path>`, three lines of context).
 * Edits never add or remove lines (a value replaced, a flag appended), so each hunk has the same
 * range on both sides.
 */
const CONTEXT = 3;
/** The edits that can all be made: sorted, the same edit once, overlapping or conflicting ones dropped. */
function compatibleEdits(edits) {
    const sorted = [...edits].sort((a, b) => a.start - b.start || a.end - b.end);
    const out = [];
    const conflicted = new Set();
    for (const e of sorted) {
        const last = out[out.length - 1];
        if (last && last.start === e.start && last.end === e.end) {
            if (last.text !== e.text)
                conflicted.add(`${e.start}:${e.end}`);
            continue;
        }
        if (last && e.start < last.end) {
            conflicted.add(`${e.start}:${e.end}`);
            continue;
        }
        out.push(e);
    }
    return out.filter((e) => !conflicted.has(`${e.start}:${e.end}`));
}
function applyEdits(text, edits) {
    let out = text;
    for (const e of [...compatibleEdits(edits)].reverse())
        out = out.slice(0, e.start) + e.text + out.slice(e.end);
    return out;
}
/** The unified diff from `before` to `before` with the edits made; undefined when nothing changes. */
function unifiedDiff(path, before, edits) {
    if (edits.some((e) => e.text.includes('\n')))
        throw new Error('bug: a script edit must not add lines');
    const after = applyEdits(before, edits);
    if (after === before)
        return undefined;
    const a = before.split('\n');
    const b = after.split('\n');
    const endsWithNewline = before.endsWith('\n');
    if (endsWithNewline) {
        a.pop();
        b.pop();
    }
    const changed = a.map((l, i) => l !== b[i]).flatMap((c, i) => (c ? [i] : []));
    const hunks = [];
    for (const i of changed) {
        const from = Math.max(0, i - CONTEXT);
        const to = Math.min(a.length - 1, i + CONTEXT);
        const last = hunks[hunks.length - 1];
        if (last && from <= last[1] + 1)
            last[1] = to;
        else
            hunks.push([from, to]);
    }
    const clean = path.replace(/^\.?\//, '');
    const out = [`--- a/${clean}`, `+++ b/${clean}`];
    for (const [from, to] of hunks) {
        const len = to - from + 1;
        out.push(`@@ -${from + 1},${len} +${from + 1},${len} @@`);
        const noNewline = (i) => i === a.length - 1 && !endsWithNewline;
        for (let i = from; i <= to; i++) {
            if (a[i] === b[i]) {
                out.push(` ${a[i]}`);
                if (noNewline(i))
                    out.push('\\ No newline at end of file');
            }
            else {
                out.push(`-${a[i]}`);
                if (noNewline(i))
                    out.push('\\ No newline at end of file');
                out.push(`+${b[i]}`);
                if (noNewline(i))
                    out.push('\\ No newline at end of file');
            }
        }
    }
    return `${out.join('\n')}\n`;
}
/** A value as shell text: `${NAME}` shortened to `$NAME` where safe, double-quoted when it expands or has blanks. */
function shellWord(text) {
    const short = text.replace(/\$\{(\w+)\}(?!\w)/g, (_m, n) => `$${n}`);
    if (/^[\w.:,/@%+=-]+$/.test(short))
        return short;
    return `"${short.replace(/(["\\`])/g, '\\$1')}"`;
}
/** A value as text that means the same unquoted and inside double quotes (a nested string, a quoted value); undefined when there is none. */
function inlineWord(text) {
    if (/^[\w.:,/@%+=-]*$/.test(text))
        return text;
    const m = /^\$\{(\w+)\}$|^\$(\w+)$/.exec(text);
    if (m)
        return `$${m[1] ?? m[2]}`;
    return undefined;
}

;// CONCATENATED MODULE: ./src/script-check/executor-rules.ts
/**
 * A launch script against the launch-script contract of the manifest's executor (docs/executors.md, "The
 * launch-script contract"): under `vllm.executorBackend: mp` the script starts only the container
 * (the tool runs `vllm serve --nnodes … --node-rank …` in it on every node), so a `ray start` there
 * is a Ray cluster nobody uses; under `ray` every `ray start` of a script written for this tool
 * should give Ray the manifest's GPU count (`--num-gpus="$VRD_GPUS"`): Ray counts GPUs itself only
 * where it can see them, and a node whose Ray counts none leaves vLLM's placement group waiting.
 */

const gpusGiven = (r) => r.args.some((a) => /^--num[-_]gpus(=|$)/.test(a.val.text));
/** Append ` --num-gpus="$VRD_GPUS"` after the last argument a start written in the script itself has. */
const addNumGpus = (r) => r.insertAt && !r.insertAt.nested ? [{ start: r.insertAt.offset, end: r.insertAt.offset, text: ' --num-gpus="$VRD_GPUS"' }] : [];
function executorFindings(starts, manifest, scriptText = '') {
    if (!manifest)
        return [];
    const rays = starts.filter((r) => r.kind === 'ray-start');
    const where = (r) => ({ [finding/* EVIDENCE */.S4.scriptLine]: String(r.line), 'Role (by the ray start flags)': r.head ? 'head (--head)' : 'worker (--address)' });
    if (manifest.vllm.executorBackend === 'mp')
        return rays.map((r) => ({
            code: 'SCRIPT_RAY_UNDER_MP',
            severity: 'warning',
            role: r.head ? 'head' : 'worker',
            line: r.line,
            message: `The script starts Ray at line ${r.line}, but vllm.executorBackend is mp: vLLM's native mode uses no Ray, and the tool runs vllm serve --nnodes ${manifest.nodes.length} --node-rank "$VRD_NODE_RANK" in the container on every node itself.`,
            evidence: { ...where(r), 'vllm.executorBackend': 'mp' },
            fix: `Under mp the script only starts the container (docker run -d --name "$VRD_CONTAINER" … "$VRD_IMAGE" sleep infinity); remove the ray start, or branch on "$VRD_EXECUTOR" so one script serves both executors.`,
            edits: [],
        }));
    // The contract's variables are for scripts written for this tool (they read VRD_ variables); a
    // script from elsewhere is read for its identities, and the live preflight counts its GPUs (GPU_SHORTFALL).
    if (!/\bVRD_[A-Z_]+/.test(scriptText))
        return [];
    return rays
        .filter((r) => !gpusGiven(r))
        .map((r) => ({
        code: 'SCRIPT_RAY_NUM_GPUS_MISSING',
        severity: 'warning',
        role: r.head ? 'head' : 'worker',
        line: r.line,
        message: `The ray start at line ${r.line} does not give --num-gpus: Ray then counts the GPUs it can see itself, and a node where it sees none (a container without the GPUs, a CUDA_VISIBLE_DEVICES it was not given) joins with 0 GPUs, which leaves vLLM's placement group waiting.`,
        evidence: where(r),
        fix: 'Add --num-gpus="$VRD_GPUS" to this ray start (VRD_GPUS is the node\'s nodes[].gpus), or the node\'s GPU count.',
        edits: addNumGpus(r),
    }));
}

;// CONCATENATED MODULE: ./src/script-check/script-edits.ts
/**
 * The edits a finding's fix makes to the script (patch.ts turns them into a diff): a flag appended
 * after a role's last argument, a value rewritten where a role's setting writes it, a setting
 * dropped, a variable named instead of a value that cannot be written in place. Each fits the
 * quoting where it lands (inside a nested string only text that means the same there).
 */


/**
 * Append `--node-ip-address=<value>` after the last argument the role's section writes (inside a nested
 * string too). A value only the node computes (`$(hostname -I …)`) is named by the variable the setting
 * read it from, when the script assigns that variable before.
 */
function pinEdit(r, setting, text) {
    if (!r.insertAt)
        return [];
    const value = setting.val;
    const ref = value.known ? undefined : referenceTo(value, setting.valueAt ? { span: setting.valueAt } : undefined, text);
    const named = ref && definedBefore(text, ref.slice(1), r.insertAt.offset) ? ref : undefined;
    const word = named ?? (r.insertAt.nested ? inlineWord(value.text) : shellWord(value.text));
    return word === undefined ? [] : [{ start: r.insertAt.offset, end: r.insertAt.offset, text: ` --node-ip-address=${word}` }];
}
/** Drop a setting (with the blank after it), so the value it replaced stands. */
function removeEdit(a, text) {
    if (!a.removable)
        return [];
    const blank = /^[ \t]*/.exec(text.slice(a.removable.end))[0].length;
    return [{ start: a.removable.start, end: a.removable.end + blank, text: '' }];
}
/**
 * The variable reference that wrote a value (`$WORKER_ADDR` in `--node-ip-address=$WORKER_ADDR`), read from
 * the script just before where its characters were expanded: a value that cannot be written in place
 * (a command substitution) can still be named.
 */
function referenceTo(v, arg, text) {
    const ends = [...new Set(v.after ?? [])];
    const candidates = [
        ...(ends.length === 1 && ends[0] > 0 ? [text.slice(Math.max(0, ends[0] - 80), ends[0])] : []),
        ...(arg && arg.span.start >= 0 ? [text.slice(arg.span.start, arg.span.end).replace(/^"(.*)"$/, '$1')] : []),
    ];
    for (const c of candidates) {
        const m = /\$\{?([A-Za-z_]\w*)\}?$/.exec(c);
        if (m)
            return `$${m[1]}`;
    }
    return undefined;
}
/** Whether the script assigns NAME globally (not `local`) before index `at`, so `$NAME` written there has its value. */
const definedBefore = (text, name, at) => new RegExp(`(?:^|[;&|(]|\\b(?:then|do|else)\\b)[ \\t]*(?:export[ \\t]+|readonly[ \\t]+)?${name}=`, 'm').test(text.slice(0, at));
/**
 * Rewrite the value where this setting writes it: its own value word (`NAME=$x`, or the part after
 * `NAME=` in a `-e` argument), else where the value was written (a call's argument).
 */
function replaceSetting(a, replacement, text = '') {
    const word = inlineWord(replacement);
    if (word === undefined)
        return [];
    const own = (r) => (r && !otherVariablesValue(text, a.name, r.start) ? r : undefined);
    const at = own(a.valueAt) ?? dockerEnvValue(a, text) ?? own(writtenAt(a.val)) ?? referenceRange(a.val, text);
    if (!at)
        return [];
    return [{ start: at.start, end: at.end, text: word }];
}
/**
 * Whether the range at `start` is the value of another variable's assignment that the script reads
 * more than once (`MASTER=10.0.0.1` read by `--master-addr $MASTER` too): rewriting it there would
 * change every reader, so the setting's own reference is edited instead.
 */
function otherVariablesValue(text, name, start) {
    if (text === '')
        return false;
    const m = /([A-Za-z_]\w*)=["']?$/.exec(text.slice(Math.max(0, start - 80), start));
    if (!m || m[1] === name)
        return false;
    return (text.match(new RegExp(`\\$\\{?${m[1]}\\b`, 'g'))?.length ?? 0) >= 2;
}
/** The `$NAME` reference a whole value was expanded from, where the setting wrote it (inside a here-document or an `--env` list too). */
function referenceRange(v, text) {
    const ends = new Set(v.after ?? []);
    if (ends.size !== 1 || text === '')
        return undefined;
    const end = [...ends][0];
    if (end <= 0)
        return undefined;
    const m = /\$\{?[A-Za-z_]\w*\}?$/.exec(text.slice(Math.max(0, end - 80), end));
    return m ? { start: end - m[0].length, end } : undefined;
}
/** The value part of a `-e NAME=value` argument as written (inside its quotes), so the fix lands on the -e line. */
function dockerEnvValue(a, text) {
    if (a.kind !== 'docker -e' || a.inFunction || a.span.start < 0 || text === '')
        return undefined;
    const src = text.slice(a.span.start, a.span.end);
    const m = new RegExp(`${a.name}=`).exec(src);
    if (!m)
        return undefined;
    const start = a.span.start + m.index + m[0].length;
    const end = a.span.end - (/["']$/.test(src) ? 1 : 0);
    return end >= start ? { start, end } : undefined;
}
/** Replace the characters that wrote a value with another value (which fits in or out of quotes). */
function replaceEdit(v, replacement) {
    const w = writtenAt(v);
    const word = inlineWord(replacement);
    if (!w || word === undefined)
        return [];
    return [{ start: w.start, end: w.end, text: word }];
}
/**
 * The fix for a VLLM_HOST_IP that differs from the node's Ray identity: the identity written where the
 * setting writes its value; else, for an identity that cannot be written in place (a command
 * substitution), the variable it came from (when that is assigned before); else drop the setting
 * when what it replaced is the identity.
 */
function overrideEdits(vhi, nodeIp, text) {
    const replaced = replaceSetting(vhi, nodeIp.val.text, text);
    if (replaced.length > 0)
        return replaced;
    const ref = referenceTo(nodeIp.val, nodeIp.arg, text);
    const at = vhi.valueAt?.start ?? writtenAt(vhi.val)?.start ?? -1;
    const byRef = ref && at >= 0 && definedBefore(text, ref.slice(1), at) ? replaceSetting(vhi, ref, text) : [];
    if (byRef.length > 0)
        return byRef;
    return vhi.previous?.val.text === nodeIp.val.text ? removeEdit(vhi, text) : [];
}

;// CONCATENATED MODULE: ./src/script-check/native-rules.ts
/**
 * What is wrong with a launch script's `vllm serve`s in vLLM's native multi-node mode, before it runs
 * (the live twins are src/preflight/checks/native-identity.ts): a `--master-addr` that is not the
 * head's fabric IP (or left at vLLM's default 127.0.0.1), node ranks that repeat or leave a gap,
 * `--nnodes` that disagrees with the manifest's nodes, a VLLM_HOST_IP that is not the node's fabric
 * IP. Socket interfaces are the shared rule in rules.ts. Each fix is an edit where the value was
 * written (an assignment, an array element, a `-e`), or the flag appended to the role's command.
 */





const native_rules_flagValue = (r, flag) => {
    const hit = r.serve?.[flag];
    return hit ? sliceVal(hit.item.val, hit.offset) : undefined;
};
const isLoopback = (text) => /^(?:127\.\d+\.\d+\.\d+|localhost|::1|0\.0\.0\.0)$/.test(text);
/** A serve of the native mode: it gives --nnodes, --node-rank or --headless. */
const isNativeServe = (r) => r.kind === 'vllm-serve' && (r.serve?.['--nnodes'] !== undefined || r.serve?.['--node-rank'] !== undefined || r.serve?.['--headless'] !== undefined);
/** Append ` --flag value` after the last argument the role's section writes. */
const appendFlag = (r, flag, value) => r.insertAt ? [{ start: r.insertAt.offset, end: r.insertAt.offset, text: ` ${flag} ${r.insertAt.nested ? value : shellWord(value)}` }] : [];
const lineOf = (c, v, otherwise) => {
    const w = v ? writtenAt(v) : undefined;
    return w ? c.lineOf(w.start) : otherwise;
};
const roleOf = (r) => (r.head ? 'head' : 'worker');
function serveEvidence(r) {
    return {
        [finding/* EVIDENCE */.S4.scriptLine]: String(r.line),
        ...(r.rayLine !== r.line ? { 'vllm serve written at': `line ${r.rayLine}` } : {}),
        'Role (by the vllm serve flags)': r.head ? 'head (node rank 0, not --headless)' : 'worker (--headless or a node rank above 0)',
        ...(r.container
            ? { Container: `${r.container.name} (started at line ${r.container.line}; docker exec runs with the environment it was started with)` }
            : {}),
        ...(r.path.length ? { 'Path through the script': r.path.join(', ') } : {}),
    };
}
function masterFindings(c, r, manifest) {
    const head = manifest?.nodes.find((n) => n.role === 'head');
    const want = head?.fabricIp;
    const v = native_rules_flagValue(r, '--master-addr');
    const role = roleOf(r);
    if (!v) {
        return [
            {
                code: 'SCRIPT_MASTER_ADDR_NOT_FABRIC',
                severity: 'error',
                role,
                line: r.line,
                message: `The ${role}'s vllm serve runs on several nodes (--nnodes/--node-rank/--headless) without --master-addr, so vLLM uses its default ${native_launch/* SERVE_DEFAULTS */.ln.masterAddr}: ${r.head ? 'the head advertises a loopback address for its message queue' : 'the worker looks for the store on itself'} and the rendezvous hangs until torch's timeout.`,
                evidence: {
                    ...serveEvidence(r),
                    '--master-addr': `not given (vLLM's default ${native_launch/* SERVE_DEFAULTS */.ln.masterAddr})`,
                    ...(want ? { "Head's fabric IP": want } : {}),
                },
                fix: `Give every node's vllm serve --master-addr ${want ?? "<the head's fabric IP>"} (VRD_HEAD_IP under launch.mode: script).`,
                edits: want ? appendFlag(r, '--master-addr', want) : [],
            },
        ];
    }
    if (!v.known)
        return [];
    const loop = isLoopback(v.text);
    if (!loop && (want === undefined || v.text === want))
        return [];
    return [
        {
            code: 'SCRIPT_MASTER_ADDR_NOT_FABRIC',
            severity: 'error',
            role,
            line: lineOf(c, v, r.line),
            message: loop
                ? `The ${role}'s vllm serve gives --master-addr ${v.text}, a loopback address: other nodes cannot reach the head's store and message queue there.`
                : `The ${role}'s vllm serve gives --master-addr ${v.text}, not the head's fabric IP ${want}: torch's store rendezvous and vLLM's message queue would run off the fabric while NCCL and Gloo are told to use it.`,
            evidence: { ...serveEvidence(r), '--master-addr': v.text, ...(want ? { "Head's fabric IP (manifest)": want } : {}) },
            fix: `Give every node's vllm serve --master-addr ${want ?? "<the head's fabric IP>"} (VRD_HEAD_IP under launch.mode: script).`,
            edits: want ? replaceEdit(v, want) : [],
        },
    ];
}
function nnodesFindings(c, r, manifest) {
    const n = manifest?.nodes.length;
    if (n === undefined)
        return [];
    const v = native_rules_flagValue(r, '--nnodes');
    if (v && (!v.known || v.text === String(n)))
        return [];
    const role = roleOf(r);
    return [
        {
            code: 'SCRIPT_NNODES_MISMATCH',
            severity: 'error',
            role,
            line: lineOf(c, v, r.line),
            message: v
                ? `The ${role}'s vllm serve gives --nnodes ${v.text}, but the manifest has ${n} nodes: the world size each node computes disagrees with the nodes started, and the rendezvous waits until torch's timeout.`
                : `The ${role}'s vllm serve gives no --nnodes (vLLM's default 1) while it runs on ${n} nodes.`,
            evidence: { ...serveEvidence(r), '--nnodes': v ? v.text : 'not given (1)', 'Nodes in the manifest': String(n) },
            fix: `Give every node's vllm serve --nnodes ${n}.`,
            edits: v ? replaceEdit(v, String(n)) : appendFlag(r, '--nnodes', String(n)),
        },
    ];
}
/**
 * Ranks written as literals (a rank the script computes per node cannot be compared on paper): the
 * same rank in two sections; one worker section with a literal rank that several workers run; a
 * rank missing when every node has its own section.
 */
function rankFindings(c, serves, manifest) {
    const ranked = serves.map((r) => ({ r, v: native_rules_flagValue(r, '--node-rank') }));
    if (ranked.some(({ v }) => v && !v.known))
        return [];
    const rankOf = (v) => (v ? Number(v.text) : native_launch/* SERVE_DEFAULTS */.ln.nodeRank);
    const nnodes = manifest?.nodes.length ?? serves.reduce((most, r) => Math.max(most, Number(native_rules_flagValue(r, '--nnodes')?.text ?? 1)), 0);
    const workers = manifest?.nodes.filter((n) => n.role === 'worker').length ?? nnodes - 1;
    const perNode = manifest?.launch.mode === 'script' ? '${VRD_NODE_RANK}' : undefined;
    const ranks = ranked.map(({ v }) => rankOf(v));
    const free = Array.from({ length: nnodes }, (_, i) => i).filter((i) => !ranks.includes(i));
    const workerSections = ranked.filter(({ r }) => !r.head);
    const out = [];
    const evidenceOf = (r, v) => ({
        ...serveEvidence(r),
        '--node-rank': v ? v.text : `not given (${native_launch/* SERVE_DEFAULTS */.ln.nodeRank})`,
        '--nnodes': String(nnodes),
    });
    const fixTo = (r, v, to) => to === undefined ? [] : v ? replaceEdit(v, to) : appendFlag(r, '--node-rank', to);
    const seen = new Set();
    // The head's section keeps its rank; a later section that repeats one is the one to renumber.
    for (const { r, v } of [...ranked].sort((a, b) => Number(b.r.head) - Number(a.r.head))) {
        const rank = rankOf(v);
        const fewerSections = !r.head && workerSections.length < workers;
        if (seen.has(rank) || fewerSections) {
            const to = fewerSections ? perNode : (free.shift()?.toString() ?? perNode);
            out.push({
                code: 'SCRIPT_NATIVE_RANK_DUPLICATE',
                severity: 'error',
                role: roleOf(r),
                line: lineOf(c, v, r.line),
                message: fewerSections
                    ? `The worker section runs as node rank ${rank} on each of the manifest's ${workers} workers: they claim the same global ranks, one slot stays empty, and the rendezvous hangs.`
                    : `This vllm serve runs as node rank ${rank}, which another section of the script gives too: two nodes claim the same global ranks, one slot stays empty, and the rendezvous hangs.`,
                evidence: { ...evidenceOf(r, v), ...(fewerSections ? { 'Workers in the manifest': String(workers) } : {}) },
                fix: `Give each node its own --node-rank: the head 0, the others 1 … ${nnodes - 1}${perNode ? ` (${perNode} under launch.mode: script)` : ''}.`,
                edits: fixTo(r, v, to),
            });
        }
        seen.add(rank);
    }
    // Every node has a section of its own and none repeats: a rank outside 0 … nnodes-1 leaves a gap.
    if (out.length === 0 && ranked.length === nnodes) {
        for (const { r, v } of ranked) {
            if (rankOf(v) < nnodes)
                continue;
            const to = free.shift();
            out.push({
                code: 'SCRIPT_NATIVE_RANK_GAP',
                severity: 'error',
                role: roleOf(r),
                line: lineOf(c, v, r.line),
                message: `This vllm serve runs as node rank ${rankOf(v)}, outside 0 … ${nnodes - 1} (--nnodes ${nnodes}): rank ${to ?? '?'} has no node, so the head's store waits for it until torch's timeout.`,
                evidence: { ...evidenceOf(r, v), 'Ranks given': ranks.join(', ') },
                fix: `Number the nodes 0 … ${nnodes - 1}, each once.`,
                edits: fixTo(r, v, to === undefined ? undefined : String(to)),
            });
        }
    }
    return out;
}
/** VLLM_HOST_IP in the native mode: the node's own fabric IP or unset. */
function hostIpFindings(c, r, serves, manifest) {
    const a = r.env.get('VLLM_HOST_IP');
    if (!a?.val.known || a.val.text === '' || !manifest)
        return [];
    const head = manifest.nodes.find((n) => n.role === 'head');
    const workers = manifest.nodes.filter((n) => n.role === 'worker');
    const own = r.head ? head?.fabricIp : workers.length === 1 ? workers[0].fabricIp : undefined;
    const wrong = own !== undefined ? a.val.text !== own : !r.head && a.val.text === head?.fabricIp;
    if (!wrong)
        return [];
    // A setting every role reads is dropped (vLLM then takes the default-route address); one only this role reads is rewritten.
    const shared = serves.some((o) => o !== r && o.head !== r.head && o.env.get('VLLM_HOST_IP')?.span.start === a.span.start);
    const edits = !shared && own !== undefined ? replaceSetting(a, own, c.text) : removeEdit(a, c.text);
    const w = a.valueAt ?? writtenAt(a.val);
    return [
        {
            code: 'SCRIPT_VLLM_HOST_IP_OVERRIDE',
            severity: 'error',
            role: roleOf(r),
            // Where the fix goes (the setting's own reference when the value came through a shared variable), else where it was written.
            line: edits[0] ? c.lineOf(edits[0].start) : w ? c.lineOf(w.start) : a.span.line,
            message: `The ${roleOf(r)}'s vllm serve gets VLLM_HOST_IP=${a.val.text}, ${own ? `not its fabric IP ${own}` : "the head's fabric IP"}: in the native mode vLLM advertises that address to its peers.`,
            evidence: {
                ...serveEvidence(r),
                VLLM_HOST_IP: `${a.val.text} (set at line ${w ? c.lineOf(w.start) : a.span.line}, ${a.kind})`,
                ...(own ? { "Node's fabric IP (manifest)": own } : {}),
            },
            fix: own
                ? `Set VLLM_HOST_IP=${own} for the ${roleOf(r)}'s vllm serve, or drop it.`
                : "Drop the worker's VLLM_HOST_IP, or set each worker's own fabric IP (VRD_NODE_IP under launch.mode: script).",
            edits,
        },
    ];
}
function nativeFindings(starts, manifest, script) {
    const serves = starts.filter(isNativeServe);
    if (serves.length === 0)
        return [];
    return [
        ...serves.flatMap((r) => [...masterFindings(script, r, manifest), ...nnodesFindings(script, r, manifest), ...hostIpFindings(script, r, serves, manifest)]),
        ...rankFindings(script, serves, manifest),
    ];
}

;// CONCATENATED MODULE: ./src/script-check/rules.ts
/**
 * What is wrong with a launch script before it runs, from its `ray start`s (evaluate.ts): the
 * identity each node gets in Ray (`--node-ip-address`) against the VLLM_HOST_IP its processes get,
 * loopback identities, a worker given the head's address, and socket interfaces outside the
 * manifest's fabric. Each finding names the line a user edits; where the fix is mechanical it
 * carries the edits (script-edits.ts) for patch.ts.
 */






const rules_isLoopback = (v) => v.known && /^(?:127\.\d+\.\d+\.\d+|localhost|::1|0\.0\.0\.0)$/.test(v.text);
const host = (address) => address.replace(/:\d+$|:\$\{?\w+\}?$/, '');
/**
 * Whether two different texts mean different addresses: both literal, both symbolic, or a literal against
 * what a command computes on the node (`$(hostname -I …)`). A literal against an input (an argument or
 * variable the user passes) may be the same address, so it is not reported.
 */
const comparable = (a, b) => a.known === b.known || /^(?:\$\(|`)/.test(a.known ? b.text : a.text);
/** An empty VLLM_HOST_IP is vLLM's "not set" (it then detects the address itself). */
const nonEmpty = (a) => (a && !(a.val.known && a.val.text === '') ? a : undefined);
const overrides = (a) => (a.inBranch && a.previous && a.previous.val.text !== a.val.text ? a.previous : undefined);
/** The line a value was written on (where a user edits it), else the line of its assignment. */
const valueLine = (c, a) => {
    const w = a.valueAt ?? writtenAt(a.val);
    return w ? c.script.lineOf(w.start) : a.span.line;
};
const where = (c, a) => `line ${valueLine(c, a)} (${a.kind})`;
const claimsHead = (c, v) => v?.known === true && v.text !== '' && c.headIps.has(v.text) && !rules_isLoopback(v);
/** The line of a finding: where its first edit goes, else the given one. */
const lineOfEdit = (c, edits, otherwise) => (edits[0] ? c.script.lineOf(edits[0].start) : otherwise);
function loopbackFindings(c, { r, role, vhi, base }) {
    const loop = [
        ['--node-ip-address', r.nodeIp?.val, r.line],
        ['VLLM_HOST_IP', vhi?.val, vhi ? valueLine(c, vhi) : r.line],
        ['--address (the head)', r.address ? { text: host(r.address.text), known: r.address.known } : undefined, r.line],
    ];
    return loop
        .filter(([, v]) => v && rules_isLoopback(v))
        .map(([what, v, line]) => ({
        code: 'SCRIPT_LOOPBACK_IDENTITY',
        severity: 'error',
        role,
        line,
        message: `The ${role}'s ${what} is ${v.text}, a loopback address: ${what.startsWith('--address') ? 'on a worker that is itself, not the head' : 'peers on other nodes cannot reach it, and Ray and vLLM pin work to it'}.`,
        evidence: { ...base, [what]: v.text },
        fix: what.startsWith('--address')
            ? "Give the worker the head's fabric address: ray start --address=<head fabric IP>:<port> (VRD_HEAD_IP under launch.mode: script)."
            : `Use the node's own fabric IP for ${what} (VRD_NODE_IP under launch.mode: script), never 127.0.0.1 or localhost.`,
        edits: [],
    }));
}
/** A start without --node-ip-address while VLLM_HOST_IP is set: the head's (the seed incident) or a worker's. */
function unpinnedFindings(c, { r, role, vhi, base }) {
    if (r.nodeIp || !vhi || (!r.head && claimsHead(c, vhi.val)))
        return [];
    const unpinned = { '--node-ip-address': 'not given (Ray picks the default-route address)' };
    const edits = pinEdit(r, vhi, c.script.text);
    if (r.head)
        return [
            {
                code: 'SCRIPT_HEAD_IDENTITY_UNPINNED',
                severity: 'error',
                role,
                line: r.line,
                message: `The head starts Ray without --node-ip-address while VLLM_HOST_IP is ${vhi.val.text}: Ray registers the head under its default-route address, and vLLM pins its placement group to node:${vhi.val.text}, which no Ray node has (the seed incident).`,
                evidence: { ...base, VLLM_HOST_IP: `${vhi.val.text} (set at ${where(c, vhi)})`, ...unpinned },
                fix: `Start the head's Ray with --node-ip-address=${shellWord(vhi.val.text)} (the same address as VLLM_HOST_IP).`,
                edits,
            },
        ];
    const prev = overrides(vhi);
    return [
        {
            code: prev ? 'SCRIPT_VLLM_HOST_IP_OVERRIDE' : 'SCRIPT_WORKER_IDENTITY_UNPINNED',
            severity: 'error',
            role,
            line: prev ? valueLine(c, vhi) : r.line,
            message: prev
                ? `The worker's section overrides VLLM_HOST_IP a second time (${prev.val.text} → ${vhi.val.text}) while its ray start has no --node-ip-address, so Ray registers the worker under its default-route address and vLLM's worker reports ${vhi.val.text}.`
                : `A worker starts Ray without --node-ip-address while VLLM_HOST_IP is ${vhi.val.text}, so Ray registers it under its default-route address and vLLM's worker reports a different IP.`,
            evidence: {
                ...base,
                VLLM_HOST_IP: `${vhi.val.text} (set at ${where(c, vhi)})`,
                ...(prev ? { 'Earlier VLLM_HOST_IP': `${prev.val.text} (set at ${where(c, prev)})` } : {}),
                ...unpinned,
            },
            fix: `Start the worker's Ray with --node-ip-address=${shellWord(vhi.val.text)}, so its Ray identity and VLLM_HOST_IP are one address.`,
            edits,
        },
    ];
}
/** A VLLM_HOST_IP that differs from the Ray identity the same start pins. */
function overrideFindings(c, { r, role, vhi, base }) {
    if (!r.nodeIp || !vhi || vhi.val.text === r.nodeIp.val.text || !comparable(vhi.val, r.nodeIp.val))
        return [];
    const prev = overrides(vhi);
    const edits = overrideEdits(vhi, r.nodeIp, c.script.text);
    return [
        {
            code: 'SCRIPT_VLLM_HOST_IP_OVERRIDE',
            severity: 'error',
            role,
            line: lineOfEdit(c, edits, valueLine(c, vhi)),
            message: `The ${role}'s VLLM_HOST_IP is ${vhi.val.text}${prev ? ` (a second override of ${prev.val.text})` : ''} but its Ray identity (--node-ip-address) is ${r.nodeIp.val.text}: vLLM on that node reports an IP Ray does not know it by.`,
            evidence: {
                ...base,
                VLLM_HOST_IP: `${vhi.val.text} (set at ${where(c, vhi)})`,
                ...(prev ? { 'Earlier VLLM_HOST_IP': `${prev.val.text} (set at ${where(c, prev)})` } : {}),
                '--node-ip-address': r.nodeIp.val.text,
            },
            fix: `Set VLLM_HOST_IP to the node's Ray identity (${shellWord(r.nodeIp.val.text)}) in the ${role}'s section, or drop the override.`,
            edits,
        },
    ];
}
/** A worker whose own address is the head's. */
function workerUsesHeadFindings(c, { r, role, vhi, base }) {
    if (r.head)
        return [];
    const headAddr = r.address ? host(r.address.text) : undefined;
    const own = r.nodeIp?.val ?? vhi?.val;
    // A symbolic value (`${VRD_NODE_IP}`) differs per node: only the same path's --address, or a literal, can be compared.
    if (!own || own.text === '' || !(own.text === headAddr || (own.known && c.headIps.has(own.text))) || rules_isLoopback(own))
        return [];
    const what = r.nodeIp ? '--node-ip-address' : 'VLLM_HOST_IP';
    return [
        {
            code: 'SCRIPT_WORKER_USES_HEAD_IP',
            severity: 'error',
            role,
            line: r.nodeIp ? r.line : valueLine(c, vhi),
            message: `A worker is given the head's address ${own.text} as its own ${what}: two nodes claim one identity, so Ray or vLLM's unique-IP check fails.`,
            evidence: { ...base, [what]: own.text, "Head's address": headAddr ?? [...c.headIps].join(', ') },
            fix: "Give each worker its own fabric IP (VRD_NODE_IP under launch.mode: script); the head's address belongs only in --address.",
            edits: [],
        },
    ];
}
/** NCCL_SOCKET_IFNAME / GLOO_SOCKET_IFNAME naming interfaces outside the manifest's fabric. */
function ifnameFindings(c, { r, role, base }, manifest) {
    const fabric = manifest.fabric.interfaces;
    const out = [];
    for (const name of ['NCCL_SOCKET_IFNAME', 'GLOO_SOCKET_IFNAME']) {
        const a = r.env.get(name);
        if (!a?.val.known)
            continue;
        const items = a.val.text
            .split(',')
            .map((x) => x.trim())
            .filter((x) => x !== '' && !x.startsWith('^'));
        const bad = items.filter((x) => {
            const exact = x.startsWith('=');
            const n = x.replace(/^=/, '');
            return !fabric.some((f) => (exact || name === 'GLOO_SOCKET_IFNAME' ? f === n : f.startsWith(n)));
        });
        if (bad.length === 0)
            continue;
        out.push({
            code: 'SCRIPT_IFNAME_NOT_FABRIC',
            severity: 'error',
            role,
            line: writtenAt(a.val) ? c.script.lineOf(writtenAt(a.val).start) : a.span.line,
            message: `The ${role}'s ${name} is ${a.val.text}, which is not the manifest's fabric interface (${fabric.join(', ')}): ${name.startsWith('NCCL') ? 'NCCL' : 'Gloo'} traffic would leave the fabric.`,
            evidence: { ...base, [name]: `${a.val.text} (set at ${where(c, a)})`, 'Manifest fabric.interfaces': fabric.join(', ') },
            fix: `Set ${name}=${fabric.join(',')} (VRD_FABRIC_IFNAME under launch.mode: script).`,
            // The interface is the fabric's on every node: fixed where its value was written, shared or not.
            edits: replaceEdit(a.val, fabric.join(',')),
        });
    }
    return out;
}
const NO_RAY_START = {
    code: 'SCRIPT_NO_RAY_START',
    severity: 'warning',
    role: null,
    line: 1,
    message: 'No `ray start` was found on any path through the script (directly, in docker run, or in bash -c), so its Ray identities cannot be checked before it runs.',
    evidence: {},
    fix: 'Start Ray in the script itself (ray start --head / --address) rather than in a file it sources or a remote command, or rely on the live preflight after it ran.',
    edits: [],
};
function scriptFindings(starts, manifest, script) {
    const headIps = new Set(starts
        .filter((r) => r.head && r.kind === 'ray-start')
        .flatMap((h) => [h.nodeIp?.val, h.env.get('VLLM_HOST_IP')?.val].flatMap((v) => (v?.known && v.text !== '' ? [v.text] : []))));
    const c = { script, headIps };
    const out = [];
    for (const r of starts) {
        if (r.kind === 'vllm-serve') {
            // Its identity rules are native-rules.ts's; the socket interfaces are the same rule as Ray's.
            if (manifest && isNativeServe(r))
                out.push(...ifnameFindings(c, { r, role: r.head ? 'head' : 'worker', vhi: undefined, base: serveEvidence(r) }, manifest));
            continue;
        }
        const seen = {
            r,
            role: r.head ? 'head' : 'worker',
            vhi: nonEmpty(r.env.get('VLLM_HOST_IP')),
            base: {
                [finding/* EVIDENCE */.S4.scriptLine]: String(r.line),
                ...(r.rayLine !== r.line ? { 'ray start written at': `line ${r.rayLine}` } : {}),
                'Role (by the ray start flags)': r.head ? 'head (--head)' : 'worker (--address)',
                ...(r.container
                    ? { Container: `${r.container.name} (started at line ${r.container.line}; docker exec runs with the environment it was started with)` }
                    : {}),
                ...(r.path.length ? { 'Path through the script': r.path.join(', ') } : {}),
            },
        };
        out.push(...loopbackFindings(c, seen), ...unpinnedFindings(c, seen), ...overrideFindings(c, seen), ...workerUsesHeadFindings(c, seen));
        if (manifest)
            out.push(...ifnameFindings(c, seen, manifest));
    }
    out.push(...nativeFindings(starts, manifest, script), ...executorFindings(starts, manifest, script.text));
    // Under mp a script starts only the container: no ray start is what the contract asks.
    if (manifest?.vllm.executorBackend !== 'mp' && !starts.some((r) => r.kind === 'ray-start' || isNativeServe(r)))
        out.push(NO_RAY_START);
    const keys = new Set();
    return out.filter((f) => {
        const key = `${f.code}\u0000${f.line}\u0000${f.message}`;
        if (keys.has(key))
            return false;
        keys.add(key);
        return true;
    });
}

;// CONCATENATED MODULE: ./src/script-check/index.ts
/**
 * The launch script, read before anything runs: `checkLaunchScript` is the deploy's first gate
 * for `launch.mode: script` and what `diagnose --launch-script` prints. Findings carry the script
 * line in their evidence and, where the fix is mechanical, a unified diff; `patch` is all of them
 * in one diff (what `--fix-out` writes).
 */





function checkLaunchScript(text, opts) {
    // With a manifest, what the tool will set is known: a branch on the executor goes the way the node's will.
    const ev = evaluateScript(text, opts.path, opts.manifest ? { VRD_EXECUTOR: opts.manifest.vllm.executorBackend } : {});
    if (ev.error) {
        return {
            findings: [
                {
                    code: 'SCRIPT_UNREADABLE',
                    severity: 'error',
                    node: null,
                    message: `${opts.path} is not valid bash: ${ev.error.message}.`,
                    evidence: { [finding/* EVIDENCE */.S4.scriptLine]: `${opts.path}:${ev.error.line}:${ev.error.col}` },
                    fix: `Fix the syntax at line ${ev.error.line} (bash -n ${opts.path} shows the same error).`,
                },
            ],
        };
    }
    const m = opts.manifest;
    const diffPath = opts.target?.path ?? opts.path;
    const head = m?.nodes.find((n) => n.role === 'head');
    const workers = m?.nodes.filter((n) => n.role === 'worker') ?? [];
    const nodeFor = (role) => role === 'head' ? (head?.name ?? null) : role === 'worker' && workers.length === 1 ? workers[0].name : null;
    const lines = new ScriptLines(text);
    const found = scriptFindings(ev.starts, m, { text, lineOf: (i) => lines.lineOf(i) });
    const all = compatibleEdits(found.flatMap((f) => f.edits));
    const findings = found.map((f) => {
        const patch = f.edits.length > 0 && f.edits.every((e) => all.includes(e) || all.some((x) => x.start === e.start && x.end === e.end && x.text === e.text))
            ? unifiedDiff(diffPath, text, f.edits)
            : undefined;
        return {
            code: f.code,
            severity: f.severity,
            node: nodeFor(f.role),
            message: f.message,
            evidence: {
                ...f.evidence,
                [finding/* EVIDENCE */.S4.scriptLine]: `${opts.path}:${f.line}`,
                ...(ev.truncated ? { 'Paths read': 'the first 64 (the script has more)' } : {}),
            },
            fix: f.fix,
            ...(patch ? { patch } : {}),
        };
    });
    const patch = unifiedDiff(diffPath, text, all);
    return { findings, ...(patch ? { patch, patched: applyEdits(text, all), ...(opts.target ? { target: opts.target } : {}) } : {}) };
}


/***/ })

};
;