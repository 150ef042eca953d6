/**
 * What is wrong with a launch script before it runs, from its `ray start`s (evaluate.ts): the
 * identity each node gets in Ray (`--node-ip-address`) against the VLLM_HOST_IP its processes get,
 * loopback identities, a worker given the head's address, and socket interfaces outside the
 * manifest's fabric. Each finding names the line a user edits; where the fix is mechanical it
 * carries the edits (script-edits.ts) for patch.ts.
 */

import type { Manifest } from '../manifest/schema.js'
import { isIpv4, unusableHostAddress } from '../net/ipv4.js'
import { EVIDENCE, type FindingCode, type Severity } from '../preflight/finding.js'
import { writtenAt, type Assignment, type RayStart, type Val } from './model.js'
import type { Edit } from './patch.js'
import { shellWord } from './patch.js'
import { executorFindings } from './executor-rules.js'
import { isNativeServe, nativeFindings, serveEvidence } from './native-rules.js'
import { flagValue } from './ray-start.js'
import { overrideEdits, pinEdit, replaceEdit } from './script-edits.js'

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

/** The script's text, and script index → line (for values written elsewhere than the command that uses them). */
export interface ScriptText {
  readonly text: string
  lineOf(index: number): number
}

/** Why a literal identity or head address names no host the other nodes reach (loopback, wildcard, netmask …), else undefined. */
// An empty value is not one: VLLM_HOST_IP= is how a script unsets it.
const unusable = (v: Val): string | undefined => (v.known && v.text !== '' ? unusableHostAddress(v.text) : undefined)
const isUnusable = (v: Val): boolean => unusable(v) !== undefined
const host = (address: string): string => address.replace(/:\d+$|:\$\{?\w+\}?$/, '')

/**
 * Whether two different texts mean different addresses: both literal, both symbolic, or a literal against
 * what a command computes on the node (`$(hostname -I …)`). A literal against an input (an argument or
 * variable the user passes) may be the same address, so it is not reported.
 */
const comparable = (a: Val, b: Val): boolean => a.known === b.known || /^(?:\$\(|`)/.test(a.known ? b.text : a.text)

/**
 * A VLLM_HOST_IP the node computes (`export VLLM_HOST_IP="$(ip -j addr show | jq … startswith("192.168.20") …)"`, written
 * once for every node) against a Ray identity written as a literal (`--node-ip-address 192.168.20.1`): the literal is the
 * address the script's author gave that node, and the command is how the same script names each node's address without
 * writing it; on the node it may well be that literal (LQR471814/x.vllm-distributed's Makefile gives its head .1 and its
 * worker .2 under one such VLLM_HOST_IP). Not known to differ. Nor the node's own host name (`$(hostname -f)`) against a name the script is
 * given (an input variable: oumi's Polaris worker exports VLLM_HOST_IP="$(hostname -f)" and pins the head to ${OUMI_MASTER_ADDR}, the first
 * name of the job's node file, which on the head is that same name; held-out12); an address the node computes (`$(mgmt_ip)`, `$(hostname
 * -I | …)`) against an input stays compared (the lab's worker-override scenario, the seed incident's second bug). The other way round (a literal VLLM_HOST_IP written for one node against an
 * identity the node computes) stays compared.
 */
const nodeComputesOwn = (vhi: Val, identity: Val): boolean =>
  !vhi.known && /^(?:\$\(|`)/.test(vhi.text) && (identity.known || (HOST_NAME_COMMAND.test(vhi.text) && /^\$\{?\w+\}?$/.test(identity.text)))
/** The node's own host name, computed (`$(hostname)`, `$(hostname -f)`, `$(hostname --fqdn)`, `$(hostname -s)`): a name, not an address it picks. */
const HOST_NAME_COMMAND = /^(?:\$\(|`)\s*hostname(?:\s+(?:-f|-s|--fqdn|--short|--long))?\s*(?:\)|`)$/

/** An empty VLLM_HOST_IP is vLLM's "not set" (it then detects the address itself). */
const nonEmpty = (a: Assignment | undefined): Assignment | undefined => (a && !(a.val.known && a.val.text === '') ? a : undefined)

const overrides = (a: Assignment): Assignment | undefined => (a.inBranch && a.previous && a.previous.val.text !== a.val.text ? a.previous : undefined)

/** What every rule reads besides the start itself. */
interface Ctx {
  readonly script: ScriptText
  /** The addresses a head is known by (its Ray identity, its VLLM_HOST_IP). */
  readonly headIps: ReadonlySet<string>
  /** VLLM_HOST_IP settings (settingKey) that both a head's and a worker's start get. */
  readonly sharedByRoles: ReadonlySet<string>
  /** For each VLLM_HOST_IP setting (settingKey), the arguments that give the starts that get it their Ray identity (script ranges). */
  readonly identities: ReadonlyMap<string, ReadonlySet<string>>
  /** Inputs (`${WORKER_IP}`) a worker's start takes as its own identity on some path. */
  readonly workerInputs: ReadonlySet<string>
}

/** Where a setting writes its value (its characters' range), the same for every start that gets it. */
const settingKey = (a: Assignment): string => {
  const w = a.valueAt ?? writtenAt(a.val)
  return w ? `${w.start}:${w.end}` : `${a.span.start}:${a.span.line}:${a.val.text}`
}

function settingsSharedByRoles(starts: readonly RayStart[]): Set<string> {
  const roles = new Map<string, Set<boolean>>()
  for (const r of starts) {
    const a = r.env.get('VLLM_HOST_IP')
    if (!a) continue
    const k = settingKey(a)
    roles.set(k, (roles.get(k) ?? new Set()).add(r.head))
  }
  return new Set([...roles].filter(([, h]) => h.size > 1).map(([k]) => k))
}

/** For each VLLM_HOST_IP setting, the arguments that give its starts their identities (one: the same words on every node). */
function identitiesBySetting(starts: readonly RayStart[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>()
  for (const r of starts) {
    const a = r.env.get('VLLM_HOST_IP')
    if (!a) continue
    const w = r.nodeIp?.arg.span
    const k = settingKey(a)
    out.set(k, (out.get(k) ?? new Set()).add(w && w.start >= 0 ? `${w.start}:${w.end}` : `none:${r.line}:${r.rayLine}:${r.head}`))
  }
  return out
}

/** One start, as the rules look at it. */
interface Seen {
  readonly r: RayStart
  readonly role: 'head' | 'worker'
  readonly vhi: Assignment | undefined
  readonly base: Record<string, string>
}

/** The line a value was written on (where a user edits it), else the line of its assignment. */
const valueLine = (c: Ctx, a: Assignment): number => {
  const w = a.valueAt ?? writtenAt(a.val)
  return w ? c.script.lineOf(w.start) : a.span.line
}
const where = (c: Ctx, a: Assignment): string => `line ${valueLine(c, a)} (${a.kind})`
const claimsHead = (c: Ctx, v: Val | undefined): boolean => v?.known === true && v.text !== '' && c.headIps.has(v.text) && !isUnusable(v)
/** The line of a finding: where its first edit goes, else the given one. */
const lineOfEdit = (c: Ctx, edits: readonly Edit[], otherwise: number): number => (edits[0] ? c.script.lineOf(edits[0].start) : otherwise)

function loopbackFindings(c: Ctx, { r, role, vhi, base }: Seen): ScriptFinding[] {
  const loop: [string, Val | undefined, number][] = [
    ['--node-ip-address', r.nodeIp?.val, r.line],
    ['VLLM_HOST_IP', vhi?.val, vhi ? valueLine(c, vhi) : r.line],
    ['--address (the head)', r.address ? { text: host(r.address.text), known: r.address.known } : undefined, r.line],
  ]
  return loop
    .filter(([, v]) => v && isUnusable(v))
    .map(([what, v, line]) => ({
      code: 'SCRIPT_LOOPBACK_IDENTITY',
      severity: 'error',
      role,
      line,
      message: `The ${role}'s ${what} is ${v!.text}, ${unusable(v!)}: ${
        what.startsWith('--address')
          ? unusable(v!) === 'a loopback address' || unusable(v!)?.startsWith('the wildcard')
            ? 'on a worker that is itself, not the head'
            : 'no host answers there, so the worker never joins the head'
          : 'peers on other nodes cannot reach it, and Ray and vLLM pin work to it'
      }.`,
      evidence: { ...base, [what]: v!.text },
      fix: what.startsWith('--address')
        ? "Give the worker the head's fabric address: ray start --address=<head fabric IP>:<port> (VRD_HEAD_IP under launch.mode: script)."
        : `Use the node's own fabric IP for ${what} (VRD_NODE_IP under launch.mode: script), never 127.0.0.1, localhost or a netmask.`,
      edits: [],
    }))
}

/** A start without --node-ip-address while VLLM_HOST_IP is set: the head's (the seed incident) or a worker's. */
function unpinnedFindings(c: Ctx, { r, role, vhi, base }: Seen): ScriptFinding[] {
  // A worker whose VLLM_HOST_IP is the head's (known from a head start, or the address it joins) is workerUsesHeadFindings' case: pinning it there would be wrong.
  const joins = r.address ? host(r.address.text) : undefined
  if (r.nodeIp || !vhi || (!r.head && (claimsHead(c, vhi.val) || (vhi.val.known && vhi.val.text === joins)))) return []
  const unpinned = { '--node-ip-address': 'not given (Ray picks the default-route address)' }
  const edits = pinEdit(r, vhi, c.script.text)
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
    ]
  const prev = overrides(vhi)
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
  ]
}

/**
 * vLLM's Ray executor names its placement group's first bundle after the driver's own address, `node:{get_ip()}`, and
 * get_ip() reads the serve's VLLM_HOST_IP (vllm/v1/executor/ray_utils.py, initialize_ray_cluster): Ray's own environment
 * plays no part. A serve given VLLM_HOST_IP=X where X is the address the workers join runs on the head, so a head started
 * before it on the same path without --node-ip-address is the seed incident, written with the variable on the serve
 * (`ssh head "VLLM_HOST_IP=$HEAD_IP vllm serve … --distributed-executor-backend ray"`) and not on ray start.
 */
function driverPinFindings(c: Ctx, starts: readonly RayStart[]): ScriptFinding[] {
  const joined = new Set(starts.flatMap((r) => (r.kind === 'ray-start' && !r.head && r.address ? [host(r.address.text)] : [])))
  const out: ScriptFinding[] = []
  for (const serve of starts) {
    if (serve.kind !== 'vllm-serve' || !serve.head || isNativeServe(serve)) continue
    const backend = flagValue(serve.args, '--distributed-executor-backend')?.val.text
    const vhi = nonEmpty(serve.env.get('VLLM_HOST_IP'))
    // One address on every node: a literal, or one variable the runner expands (not a command each node runs).
    if ((backend !== undefined && backend !== 'ray') || !vhi || !(vhi.val.known || /^\$\{?\w+\}?$/.test(vhi.val.text)) || !joined.has(vhi.val.text)) continue
    for (const r of starts) {
      const before = r.kind === 'ray-start' && r.head && r.path.every((p, i) => serve.path[i] === p)
      if (!before || r.nodeIp || r.env.has('VLLM_HOST_IP') || r.env.has('RAY_OVERRIDE_NODE_IP_ADDRESS')) continue
      // A setting read back from a string another command ran (`ssh host "$@"`) keeps no place of its own: the serve's is named.
      const setAt = vhi.span.start >= 0 || vhi.valueAt ? where(c, vhi) : `the serve's command, line ${serve.line}`
      out.push({
        code: 'SCRIPT_HEAD_IDENTITY_UNPINNED',
        severity: 'error',
        role: 'head',
        line: r.line,
        message: `The head starts Ray without --node-ip-address, while vLLM's serve (line ${serve.line}) runs with VLLM_HOST_IP=${vhi.val.text}, the address the workers join: Ray registers the head under its default-route address, and vLLM pins its placement group to node:${vhi.val.text}, which no Ray node has unless the two happen to agree (the seed incident).`,
        evidence: {
          [EVIDENCE.scriptLine]: String(r.line),
          'Role (by the ray start flags)': 'head (--head)',
          "vLLM serve's VLLM_HOST_IP": `${vhi.val.text} (set at ${setAt})`,
          'Workers join': vhi.val.text,
          '--node-ip-address': 'not given (Ray picks the default-route address)',
          ...(serve.path.length ? { 'Path through the script': serve.path.join(', ') } : {}),
        },
        fix: `Start the head's Ray with --node-ip-address=${shellWord(vhi.val.text)} (the address vLLM's serve is given as VLLM_HOST_IP).`,
        edits: pinEdit(r, vhi, c.script.text),
      })
    }
  }
  return out
}

/** A VLLM_HOST_IP that differs from the Ray identity the same start pins. */
function overrideFindings(c: Ctx, { r, role, vhi, base }: Seen): ScriptFinding[] {
  if (!r.nodeIp || !vhi || vhi.val.text === r.nodeIp.val.text) return []
  // The identity is the value this setting replaced in the same shell: `VLLM_HOST_IP=<other> ray start --node-ip-address
  // "$VLLM_HOST_IP"` (bash expands the argument before the prefix applies), or a second `export VLLM_HOST_IP=<other>` after
  // RAY_OVERRIDE_NODE_IP_ADDRESS was set with the first. Ray gets one value, vLLM the other: two addresses the script wrote for one
  // node, whatever its input. Otherwise two different texts must be comparable.
  const sameShell = vhi.kind === 'prefix' || vhi.kind === 'export' || vhi.kind === 'assign' || vhi.kind === 'local'
  const readsReplaced = sameShell && vhi.previous !== undefined && vhi.previous.val.text === r.nodeIp.val.text
  if (!readsReplaced && inputIdentity(vhi.val, r.nodeIp.val)) return inputIdentityFindings(c, role, base, vhi, r.nodeIp)
  if (!readsReplaced && (!comparable(vhi.val, r.nodeIp.val) || nodeComputesOwn(vhi.val, r.nodeIp.val))) return []
  const prev = overrides(vhi)
  // One setting that gives the head and a worker their VLLM_HOST_IP (a compose file or a container both roles use): rewriting it
  // for one breaks the other, unless every start it reaches takes its identity from the same words, which each node expands to its
  // own address (`RAY_OVERRIDE_NODE_IP_ADDRESS="${VLLM_HOST_IP}"` in a docker run both roles share): then naming that variable fits all.
  const key = settingKey(vhi)
  const edits = !c.sharedByRoles.has(key)
    ? overrideEdits(vhi, r.nodeIp, c.script.text)
    : c.identities.get(key)?.size === 1 && !r.nodeIp.val.known
      ? overrideEdits(vhi, r.nodeIp, c.script.text).filter((e) => /^\\?\$/.test(e.text))
      : []
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
  ]
}

/** A literal VLLM_HOST_IP (an address written for one node) against a Ray identity the node is given when it runs (`$MY_POD_IP`, `${WORKER_IP}`). */
const inputIdentity = (vhi: Val, identity: Val): boolean => vhi.known && isIpv4(vhi.text) && !identity.known && /^\$\{?[A-Za-z_]\w*\}?$/.test(identity.text)

/**
 * The input-identity class (ybz21's Compose worker, SRCE's PBS worker, Ray's Kubernetes example pinned to its pod IP): Ray takes the
 * address the node is given and vLLM the one the script wrote. They agree only where the input is that literal, and a section run on
 * several nodes gives them all the one literal. Not known to differ, so a warning, with the input as the patch where it can be named.
 */
function inputIdentityFindings(c: Ctx, role: Seen['role'], base: Seen['base'], vhi: Assignment, nodeIp: NonNullable<RayStart['nodeIp']>): ScriptFinding[] {
  const edits = c.sharedByRoles.has(settingKey(vhi)) ? [] : overrideEdits(vhi, nodeIp, c.script.text)
  return [
    {
      code: 'SCRIPT_VLLM_HOST_IP_OVERRIDE',
      severity: 'warning',
      role,
      line: lineOfEdit(c, edits, valueLine(c, vhi)),
      message: `The ${role}'s VLLM_HOST_IP is ${vhi.val.text}, written into the script, while its Ray identity (--node-ip-address) is ${nodeIp.val.text}, given to the node when it runs: the two agree only where ${nodeIp.val.text} is ${vhi.val.text}, and a section run on several nodes gives every one of them that address.`,
      evidence: { ...base, VLLM_HOST_IP: `${vhi.val.text} (set at ${where(c, vhi)})`, '--node-ip-address': nodeIp.val.text },
      fix: `Set VLLM_HOST_IP from the same input as Ray's identity (${shellWord(nodeIp.val.text)}), or drop the literal.`,
      edits,
    },
  ]
}

/** A worker whose own address is the head's. */
function workerUsesHeadFindings(c: Ctx, { r, role, vhi, base }: Seen): ScriptFinding[] {
  if (r.head) return []
  const headAddr = r.address ? host(r.address.text) : undefined
  const own = r.nodeIp?.val ?? vhi?.val
  // A symbolic value (`${VRD_NODE_IP}`) differs per node: only the same path's --address, or a literal, can be compared.
  if (!own || own.text === '' || !(own.text === headAddr || (own.known && c.headIps.has(own.text))) || isUnusable(own)) return []
  const what = r.nodeIp ? '--node-ip-address' : 'VLLM_HOST_IP'
  // The same input on a path that took the worker's own address input to be empty (`if [[ -n "${WORKER_IP:-}" ]] … elif
  // [[ -n "${HEAD_IP:-}" ]]; then NODE_IP=$HEAD_IP`, WORKER_IP being a worker's identity on the other path): the script's
  // fallback when the user gives no worker address, right once it is given.
  const fallback = !own.known ? (r.assumedEmpty ?? []).filter((x) => c.workerInputs.has(x)) : []
  return [
    {
      code: 'SCRIPT_WORKER_USES_HEAD_IP',
      severity: fallback.length > 0 ? 'warning' : 'error',
      role,
      // Where the address was written (an argument passed down through scripts and helpers too), else the start's line.
      line: writtenAt(own) ? c.script.lineOf(writtenAt(own)!.start) : r.nodeIp ? r.line : valueLine(c, vhi!),
      message:
        fallback.length > 0
          ? `Where ${fallback.join(', ')} ${fallback.length === 1 ? 'is' : 'are'} not given, a worker takes the head's address ${own.text} as its own ${what}: two nodes would claim one identity, so Ray or vLLM's unique-IP check fails. Give every worker ${fallback.join(', ')}.`
          : `A worker is given the head's address ${own.text} as its own ${what}: two nodes claim one identity, so Ray or vLLM's unique-IP check fails.`,
      evidence: {
        ...base,
        [what]: own.text,
        "Head's address": headAddr ?? [...c.headIps].join(', '),
        ...(fallback.length > 0 ? { 'Inputs taken as not given on this path': fallback.join(', ') } : {}),
      },
      fix: "Give each worker its own fabric IP (VRD_NODE_IP under launch.mode: script); the head's address belongs only in --address.",
      edits: [],
    },
  ]
}

/** NCCL_SOCKET_IFNAME / GLOO_SOCKET_IFNAME naming interfaces outside the manifest's fabric. */
function ifnameFindings(c: Ctx, { r, role, base }: Seen, manifest: Manifest): ScriptFinding[] {
  const fabric = manifest.fabric.interfaces
  const out: ScriptFinding[] = []
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
      line: writtenAt(a.val) ? c.script.lineOf(writtenAt(a.val)!.start) : a.span.line,
      message: `The ${role}'s ${name} is ${a.val.text}, which is not the manifest's fabric interface (${fabric.join(', ')}): ${name.startsWith('NCCL') ? 'NCCL' : 'Gloo'} traffic would leave the fabric.`,
      evidence: { ...base, [name]: `${a.val.text} (set at ${where(c, a)})`, 'Manifest fabric.interfaces': fabric.join(', ') },
      fix: `Set ${name}=${fabric.join(',')} (VRD_FABRIC_IFNAME under launch.mode: script).`,
      // The interface is the fabric's on every node: fixed where its value was written, shared or not.
      edits: replaceEdit(a.val, fabric.join(',')),
    })
  }
  return out
}

const NO_RAY_START: ScriptFinding = {
  code: 'SCRIPT_NO_RAY_START',
  severity: 'warning',
  role: null,
  line: 1,
  message:
    'No `ray start` was found on any path through the script (directly, in docker run, or in bash -c), so its Ray identities cannot be checked before it runs.',
  evidence: {},
  fix: 'Start Ray in the script (ray start --head / --address), or in a file it sources from the repository, rather than in a remote command the check cannot read, or rely on the live preflight after it ran.',
  edits: [],
}

export function scriptFindings(starts: readonly RayStart[], manifest: Manifest | undefined, script: ScriptText): ScriptFinding[] {
  const headIps = new Set(
    starts
      .filter((r) => r.head && r.kind === 'ray-start')
      .flatMap((h) => [h.nodeIp?.val, h.env.get('VLLM_HOST_IP')?.val].flatMap((v) => (v?.known && v.text !== '' ? [v.text] : []))),
  )
  const workerInputs = new Set(
    starts.flatMap((r) => {
      const own = r.head ? undefined : (r.nodeIp?.val ?? r.env.get('VLLM_HOST_IP')?.val)
      const input = own && !own.known ? /^\$\{(\w+)\}$/.exec(own.text)?.[1] : undefined
      return input ? [input] : []
    }),
  )
  const c: Ctx = { script, headIps, sharedByRoles: settingsSharedByRoles(starts), identities: identitiesBySetting(starts), workerInputs }
  const out: ScriptFinding[] = []
  for (const r of starts) {
    if (r.kind === 'vllm-serve') {
      // Its identity rules are native-rules.ts's; the socket interfaces are the same rule as Ray's.
      if (manifest && isNativeServe(r))
        out.push(...ifnameFindings(c, { r, role: r.head ? 'head' : 'worker', vhi: undefined, base: serveEvidence(r) }, manifest))
      continue
    }
    const seen: Seen = {
      r,
      role: r.head ? 'head' : 'worker',
      vhi: nonEmpty(r.env.get('VLLM_HOST_IP')),
      base: {
        [EVIDENCE.scriptLine]: String(r.line),
        ...(r.rayLine !== r.line ? { 'ray start written at': `line ${r.rayLine}` } : {}),
        'Role (by the ray start flags)': r.head ? 'head (--head)' : 'worker (--address)',
        ...(r.container
          ? { Container: `${r.container.name} (started at line ${r.container.line}; docker exec runs with the environment it was started with)` }
          : {}),
        ...(r.path.length ? { 'Path through the script': r.path.join(', ') } : {}),
      },
    }
    out.push(...loopbackFindings(c, seen), ...unpinnedFindings(c, seen), ...overrideFindings(c, seen), ...workerUsesHeadFindings(c, seen))
    if (manifest) out.push(...ifnameFindings(c, seen, manifest))
  }
  out.push(...driverPinFindings(c, starts), ...nativeFindings(starts, manifest, script), ...executorFindings(starts, manifest, script.text))
  // Under mp a script starts only the container: no ray start is what the contract asks.
  // A serve that does not use Ray (vLLM's data-parallel mode across nodes, one node's multiprocessing) has no Ray identity to check.
  // So does a command the check did not take for a serve that names another executor (torchrun's ranks running a project's own API
  // server with `--distributed-executor-backend external_launcher`, a Strix Halo pair, held-out21).
  const servesWithoutRay =
    starts.some((r) => r.kind === 'vllm-serve' && flagValue(r.args, '--distributed-executor-backend')?.val.text !== 'ray') ||
    /--distributed-executor-backend[= ]+["']?(?:external_launcher|mp|uni)\b/.test(script.text)
  if (manifest?.vllm.executorBackend !== 'mp' && !servesWithoutRay && !starts.some((r) => r.kind === 'ray-start' || isNativeServe(r))) out.push(NO_RAY_START)
  const keys = new Set<string>()
  // A setting named as an error on one path is not also a warning of the input class on another (its patch is the error's), and a
  // setting read against several inputs on several paths is one warning.
  const errorAt = new Set(out.filter((f) => f.severity === 'error' && f.code === 'SCRIPT_VLLM_HOST_IP_OVERRIDE').map((f) => f.line))
  const inputWarned = new Set<number>()
  return out.filter((f) => {
    if (f.code === 'SCRIPT_VLLM_HOST_IP_OVERRIDE' && f.severity === 'warning') {
      if (errorAt.has(f.line) || inputWarned.has(f.line)) return false
      inputWarned.add(f.line)
    }
    const key = `${f.code}\u0000${f.line}\u0000${f.message}`
    if (keys.has(key)) return false
    keys.add(key)
    return true
  })
}
