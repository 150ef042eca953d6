/**
 * What is wrong with a launch script before it runs, from its `ray start`s (evaluate.ts): the
 * identity each node gets in Ray (`--node-ip-address`) against the VLLM_HOST_IP its processes get,
 * loopback identities, a worker given the head's address, and socket interfaces outside the
 * manifest's fabric. Each finding names the script line; where the fix is mechanical it carries
 * the edit (a flag appended, a value replaced) for patch.ts.
 */

import type { FindingCode, Severity } from '../preflight/finding.js'
import type { Manifest } from '../manifest/schema.js'
import { writtenAt, type Assignment, type RayStart, type Val } from './model.js'
import { inlineWord, shellWord, type Edit } from './patch.js'

export interface ScriptFinding {
  readonly code: FindingCode
  readonly severity: Severity
  readonly role: 'head' | 'worker' | null
  readonly line: number
  readonly message: string
  readonly evidence: Record<string, string>
  readonly fix: string
  readonly edits: readonly Edit[]
}

const isLoopback = (v: Val): boolean => v.known && /^(?:127\.\d+\.\d+\.\d+|localhost|::1|0\.0\.0\.0)$/.test(v.text)
const host = (address: string): string => address.replace(/:\d+$|:\$\{?\w+\}?$/, '')
/** The script's text, and script index → line (for values written elsewhere than the command that uses them). */
export interface ScriptText {
  readonly text: string
  lineOf(index: number): number
}
type LineOf = (index: number) => number

/** The line a value was written on (where a user edits it), else the line of its assignment. */
const valueLine = (lineOf: LineOf, a: Assignment): number => {
  const w = writtenAt(a.val)
  return w ? lineOf(w.start) : a.span.line
}

/** Append `--node-ip-address=<value>` after the last argument the role's section writes (inside a nested string too). */
function pinEdit(r: RayStart, value: Val): Edit[] {
  if (!r.insertAt) return []
  const word = r.insertAt.nested ? inlineWord(value.text) : shellWord(value.text)
  return word === undefined ? [] : [{ start: r.insertAt.offset, end: r.insertAt.offset, text: ` --node-ip-address=${word}` }]
}

/** Drop a setting (with the blank after it), so the value it replaced stands. */
function removeEdit(a: Assignment, text: string): Edit[] {
  if (!a.removable) return []
  const blank = /^[ \t]*/.exec(text.slice(a.removable.end))![0].length
  return [{ start: a.removable.start, end: a.removable.end + blank, text: '' }]
}

/**
 * The variable reference that wrote a value (`$WORKER_ADDR` in `--node-ip-address=$WORKER_ADDR`), read from
 * the script just before where its characters were expanded: a value that cannot be written in place
 * (a command substitution) can still be named.
 */
function referenceTo(v: Val, arg: { span: { start: number; end: number } } | undefined, text: string): string | undefined {
  const ends = [...new Set(v.after ?? [])]
  const candidates = [
    ...(ends.length === 1 && ends[0]! > 0 ? [text.slice(Math.max(0, ends[0]! - 80), ends[0])] : []),
    ...(arg && arg.span.start >= 0 ? [text.slice(arg.span.start, arg.span.end).replace(/^"(.*)"$/, '$1')] : []),
  ]
  for (const c of candidates) {
    const m = /\$\{?([A-Za-z_]\w*)\}?$/.exec(c)
    if (m) return `$${m[1]}`
  }
  return undefined
}

/** Whether the script assigns NAME before index `at` (so `$NAME` written there has its value). */
const definedBefore = (text: string, name: string, at: number): boolean =>
  new RegExp(`(?:^|[\\s;(])(?:export\\s+|local\\s+|declare\\s+(?:-\\w+\\s+)*|readonly\\s+)?${name}=`).test(text.slice(0, at))

/** Replace the characters that wrote a value with another value (which fits in or out of quotes). */
function replaceEdit(v: Val, replacement: string): Edit[] {
  const w = writtenAt(v)
  const word = inlineWord(replacement)
  if (!w || word === undefined) return []
  return [{ start: w.start, end: w.end, text: word }]
}

/**
 * Whether two different texts mean different addresses: both literal, both symbolic, or a literal against
 * what a command computes on the node (`$(hostname -I …)`). A literal against an input (an argument or
 * variable the user passes) may be the same address, so it is not reported.
 */
const comparable = (a: Val, b: Val): boolean => a.known === b.known || /^(?:\$\(|`)/.test(a.known ? b.text : a.text)

const nonEmpty = (a: Assignment | undefined): Assignment | undefined => (a && !(a.val.known && a.val.text === '') ? a : undefined)

const overrides = (a: Assignment): Assignment | undefined => (a.inBranch && a.previous && a.previous.val.text !== a.val.text ? a.previous : undefined)

export function scriptFindings(starts: readonly RayStart[], manifest: Manifest | undefined, script: ScriptText): ScriptFinding[] {
  const lineOf: LineOf = (i) => script.lineOf(i)
  const where = (a: Assignment): string => `line ${valueLine(lineOf, a)} (${a.kind})`
  const out: ScriptFinding[] = []
  const heads = starts.filter((r) => r.head)
  // The addresses a head is known by (its Ray identity, its VLLM_HOST_IP): a worker given one of them claims the head's identity.
  const headIps = new Set(
    heads.flatMap((h) => [...(h.nodeIp?.val.known ? [h.nodeIp.val.text] : []), ...(h.env.get('VLLM_HOST_IP')?.val.known ? [h.env.get('VLLM_HOST_IP')!.val.text] : [])]),
  )
  const claimsHead = (v: Val | undefined): boolean => v !== undefined && v.known && v.text !== '' && headIps.has(v.text) && !isLoopback(v)
  for (const r of starts) {
    const role = r.head ? 'head' : 'worker'
    // An empty VLLM_HOST_IP is vLLM's "not set" (it then detects the address itself).
    const vhi = nonEmpty(r.env.get('VLLM_HOST_IP'))
    const base = {
      'Script line': String(r.line),
      ...(r.rayLine !== r.line ? { 'ray start written at': `line ${r.rayLine}` } : {}),
      'Role (by the ray start flags)': r.head ? 'head (--head)' : 'worker (--address)',
      ...(r.path.length ? { 'Path through the script': r.path.join(', ') } : {}),
    }

    // Loopback identities and a loopback head address.
    const loop: [string, Val | undefined, number][] = [
      ['--node-ip-address', r.nodeIp?.val, r.line],
      ['VLLM_HOST_IP', vhi?.val, vhi ? valueLine(lineOf, vhi) : r.line],
      ['--address (the head)', r.address ? { text: host(r.address.text), known: r.address.known } : undefined, r.line],
    ]
    for (const [what, v, line] of loop) {
      if (!v || !isLoopback(v)) continue
      out.push({
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
      })
    }

    if (r.head && !r.nodeIp && vhi) {
      out.push({
        code: 'SCRIPT_HEAD_IDENTITY_UNPINNED',
        severity: 'error',
        role,
        line: r.line,
        message: `The head starts Ray without --node-ip-address while VLLM_HOST_IP is ${vhi.val.text}: Ray registers the head under its default-route address, and vLLM pins its placement group to node:${vhi.val.text}, which no Ray node has (the seed incident).`,
        evidence: { ...base, VLLM_HOST_IP: `${vhi.val.text} (set at ${where(vhi)})`, '--node-ip-address': 'not given (Ray picks the default-route address)' },
        fix: `Start the head's Ray with --node-ip-address=${shellWord(vhi.val.text)} (the same address as VLLM_HOST_IP).`,
        edits: pinEdit(r, vhi.val),
      })
    } else if (!r.head && !r.nodeIp && vhi && !claimsHead(vhi.val)) {
      const prev = overrides(vhi)
      out.push({
        code: prev ? 'SCRIPT_VLLM_HOST_IP_OVERRIDE' : 'SCRIPT_WORKER_IDENTITY_UNPINNED',
        severity: 'error',
        role,
        line: prev ? valueLine(lineOf, vhi) : r.line,
        message: prev
          ? `The worker's section overrides VLLM_HOST_IP a second time (${prev.val.text} → ${vhi.val.text}) while its ray start has no --node-ip-address, so Ray registers the worker under its default-route address and vLLM's worker reports ${vhi.val.text}.`
          : `A worker starts Ray without --node-ip-address while VLLM_HOST_IP is ${vhi.val.text}, so Ray registers it under its default-route address and vLLM's worker reports a different IP.`,
        evidence: {
          ...base,
          VLLM_HOST_IP: `${vhi.val.text} (set at ${where(vhi)})`,
          ...(prev ? { 'Earlier VLLM_HOST_IP': `${prev.val.text} (set at ${where(prev)})` } : {}),
          '--node-ip-address': 'not given (Ray picks the default-route address)',
        },
        fix: `Start the worker's Ray with --node-ip-address=${shellWord(vhi.val.text)}, so its Ray identity and VLLM_HOST_IP are one address.`,
        edits: pinEdit(r, vhi.val),
      })
    } else if (r.nodeIp && vhi && vhi.val.text !== r.nodeIp.val.text && comparable(vhi.val, r.nodeIp.val)) {
      const prev = overrides(vhi)
      out.push({
        code: 'SCRIPT_VLLM_HOST_IP_OVERRIDE',
        severity: 'error',
        role,
        line: valueLine(lineOf, vhi),
        message: `The ${role}'s VLLM_HOST_IP is ${vhi.val.text}${prev ? ` (a second override of ${prev.val.text})` : ''} but its Ray identity (--node-ip-address) is ${r.nodeIp.val.text}: vLLM on that node reports an IP Ray does not know it by.`,
        evidence: {
          ...base,
          VLLM_HOST_IP: `${vhi.val.text} (set at ${where(vhi)})`,
          ...(prev ? { 'Earlier VLLM_HOST_IP': `${prev.val.text} (set at ${where(prev)})` } : {}),
          '--node-ip-address': r.nodeIp.val.text,
        },
        fix: `Set VLLM_HOST_IP to the node's Ray identity (${shellWord(r.nodeIp.val.text)}) in the ${role}'s section, or drop the override.`,
        edits: (() => {
          const replaced = replaceEdit(vhi.val, r.nodeIp.val.text)
          if (replaced.length > 0) return replaced
          // A value that cannot be written in place (a command substitution): name the variable the Ray identity came from,
          // or drop the override when what it replaced is the Ray identity.
          const ref = referenceTo(r.nodeIp.val, r.nodeIp.arg, script.text)
          const at = writtenAt(vhi.val)?.start ?? -1
          const byRef = ref && at >= 0 && definedBefore(script.text, ref.slice(1), at) ? replaceEdit(vhi.val, ref) : []
          if (byRef.length > 0) return byRef
          return vhi.previous?.val.text === r.nodeIp.val.text ? removeEdit(vhi, script.text) : []
        })(),
      })
    }

    if (!r.head) {
      const headAddr = r.address ? host(r.address.text) : undefined
      const own = r.nodeIp?.val ?? vhi?.val
      // A symbolic value (`${VRD_NODE_IP}`) differs per node: only the same path's --address, or a literal, can be compared.
      if (own && own.text !== '' && (own.text === headAddr || (own.known && headIps.has(own.text))) && !isLoopback(own)) {
        out.push({
          code: 'SCRIPT_WORKER_USES_HEAD_IP',
          severity: 'error',
          role,
          line: r.nodeIp ? r.line : valueLine(lineOf, vhi!),
          message: `A worker is given the head's address ${own.text} as its own ${r.nodeIp ? '--node-ip-address' : 'VLLM_HOST_IP'}: two nodes claim one identity, so Ray or vLLM's unique-IP check fails.`,
          evidence: { ...base, [r.nodeIp ? '--node-ip-address' : 'VLLM_HOST_IP']: own.text, "Head's address": headAddr ?? [...headIps].join(', ') },
          fix: "Give each worker its own fabric IP (VRD_NODE_IP under launch.mode: script); the head's address belongs only in --address.",
          edits: [],
        })
      }
    }

    if (manifest) {
      const fabric = manifest.fabric.interfaces
      for (const name of ['NCCL_SOCKET_IFNAME', 'GLOO_SOCKET_IFNAME'] as const) {
        const a = r.env.get(name)
        if (!a?.val.known) continue
        const items = a.val.text
          .split(',')
          .map((x) => x.trim())
          .filter((x) => x !== '' && !x.startsWith('^'))
        const bad = items.filter((x) => {
          const exact = x.startsWith('=')
          const n = x.replace(/^=/, '')
          return !fabric.some((f) => (exact || name === 'GLOO_SOCKET_IFNAME' ? f === n : f.startsWith(n)))
        })
        if (bad.length === 0) continue
        out.push({
          code: 'SCRIPT_IFNAME_NOT_FABRIC',
          severity: 'error',
          role,
          line: valueLine(lineOf, a),
          message: `The ${role}'s ${name} is ${a.val.text}, which is not the manifest's fabric interface (${fabric.join(', ')}): ${name.startsWith('NCCL') ? 'NCCL' : 'Gloo'} traffic would leave the fabric.`,
          evidence: { ...base, [name]: `${a.val.text} (set at ${where(a)})`, 'Manifest fabric.interfaces': fabric.join(', ') },
          fix: `Set ${name}=${fabric.join(',')} (VRD_FABRIC_IFNAME under launch.mode: script).`,
          edits: replaceEdit(a.val, fabric.join(',')),
        })
      }
    }
  }
  if (starts.length === 0) {
    out.push({
      code: 'SCRIPT_NO_RAY_START',
      severity: 'warning',
      role: null,
      line: 1,
      message:
        'No `ray start` was found on any path through the script (directly, in docker run, or in bash -c), so its Ray identities cannot be checked before it runs.',
      evidence: {},
      fix: 'Start Ray in the script itself (ray start --head / --address) rather than in a file it sources or a remote command, or rely on the live preflight after it ran.',
      edits: [],
    })
  }
  const seen = new Set<string>()
  return out.filter((f) => {
    const key = `${f.code}\u0000${f.line}\u0000${f.message}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}
