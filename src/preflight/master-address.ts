/**
 * Where a line names the address a node must reach to join the others (the rendezvous master of torch,
 * vLLM, DeepSpeed, Accelerate, Paddle and SGLang launchers; the Ray head a `ray start --address` joins),
 * and what that value is. One table of forms for the rules that judge it (signature-rules-native.ts, the
 * netmask rule of signature-rules-startup.ts), so a launcher's spelling is added once.
 *
 * The launch side (a flag, an environment assignment, vLLM's args dump) and the connect side (the
 * client's own "failed to connect to …" line) both count: a script that took the wrong field of
 * `ip addr`/ifconfig/`hostname -I` shows its value in either. Sources of each form are in WORDINGS.md.
 */

import { formatIpv4, type NotAHostKind, notAHostKind, singleNumberAddress } from '../net/ipv4.js'
import { patternPrefilter } from './pattern-prefilter.js'

/** How a line names the master: given to a launcher, or reported by the process that uses it (a client dialling it, vLLM's own lines). */
export type MasterVia = 'launch' | 'reported'

export interface MasterMention {
  /** The value as written, quotes and scheme removed ("10.0.0.1:29500", "/root/x.bashrc", ""). */
  readonly value: string
  readonly host: string
  readonly port?: string
  readonly via: MasterVia
  /** The keyword it followed, for the evidence ("--master_addr", "failed to connect to"). */
  readonly form: string
}

// After a flag: "=value" (possibly empty: DeepSpeed's "--master_addr= --master_port=29500"), or spaces and a value that
// is not another flag or prose ("--master-addr (default 127.0.0.1)"). A value ends at whitespace, a quote, a backslash
// (a continued line), a comma or a parenthesis.
const VALUE = String.raw`(?:=['"]?([^\s'"\\,()]*)|\s+(?=[^\s(-])['"]?([^\s'"\\,()]*))`
/** Launch forms: torchrun/launch, vLLM, DeepSpeed, Accelerate, detectron2/fairseq, SGLang, Paddle, env assignments. */
const LAUNCH: readonly (readonly [string, RegExp])[] = [
  ['--master_addr', new RegExp(String.raw`(?:^|[\s;(])--?master[-_]addr${VALUE}`, 'g')],
  // Paddle's launcher: "--master 127.0.1.1:63919" (not --master_port, --master-addr)
  ['--master', new RegExp(String.raw`(?:^|[\s;(])--master${VALUE}`, 'g')],
  ['--rdzv_endpoint', new RegExp(String.raw`(?:^|[\s;(])--rdzv[-_]endpoint${VALUE}`, 'g')],
  ['--dist-url', new RegExp(String.raw`(?:^|[\s;(])--dist[-_]url${VALUE}`, 'g')],
  ['--dist-init-addr', new RegExp(String.raw`(?:^|[\s;(])--dist[-_]init[-_]addr${VALUE}`, 'g')],
  ['--data-parallel-address', new RegExp(String.raw`(?:^|[\s;(])--data[-_]parallel[-_]address${VALUE}`, 'g')],
  ['--main_process_ip', new RegExp(String.raw`(?:^|[\s;(])--main[-_]process[-_]ip${VALUE}`, 'g')],
  ['MASTER_ADDR', /(?:^|[\s;(])(?:export\s+)?MASTER_ADDR=['"]?([^\s'"\\,()]*)/g],
  // vLLM's non-default args dump: {'master_addr': '255.255.0.0', 'nnodes': 2}
  ["'master_addr'", /'master_addr': '([^']*)'/g],
]
/** `ray start --address=…` joins the head at that address (other tools' --address flags are not a rendezvous). */
const RAY_JOIN = new RegExp(String.raw`\bray start\b.*?\s--address${VALUE}`, 'g')
/** Reported forms: the client's own line about the address it dialled, vLLM's lines about the master it uses. */
const REPORTED: readonly (readonly [string, RegExp])[] = [
  // torch c10d: "failed to connect to [::ffff:255.255.0.0]:29500 (errno: …)", "… to any network address of (A, P)",
  // "timed out after 60s while trying to connect to (A, P)"; TCPStore 2.4+: "failed to connect/validate to host A:P"
  ['failed to connect to', /failed to connect to (?:any network address of \(([^,()]*), (\d+)\)|(\[[^\]]*\]|[^\s[\]:]*):(\d+)\b)/g],
  ['trying to connect to', /trying to connect to \(([^,()]*), (\d+)\)/g],
  ['connect/validate to host', /connect\/validate to host (\[[^\]]*\]|[^\s[\]:]*):(\d+)/g],
  // Ray: "Failed to connect to GCS at address :6379 within 5 seconds", "Unable to connect to GCS at 10.0.0.1:6379."
  ['connect to GCS at', /connect to GCS at (?:address )?(\[[^\]]*\]|[^\s[\]:]*):(\d+)/g],
  // Paddle's TCP store client: "Retry to connect to 127.0.1.1:63917 while the server is not yet listening."
  ['Retry to connect to', /Retry to connect to (\[[^\]]*\]|[^\s[\]:]*):(\d+)/g],
  // vLLM serve.py (headless): "… with head node address 127.0.0.1:29501 for torch.distributed process group."
  ['head node address', /head node address (\[[^\]]*\]|[^\s[\]:]*):(\d+)/g],
  // vLLM parallel_state.py: "world_size=2 rank=1 local_rank=0 distributed_init_method=tcp://127.0.0.1:29514 backend=nccl"
  ['distributed_init_method', /distributed_init_method=tcp:\/\/(\[[^\]]*\]|[^\s[\]:]*):(\d+)/g],
  // vLLM multiproc_executor.py (DP leader): "DP group leader: node_rank=0, … master_addr=127.0.0.1, mq_connect_ip=…"
  ['master_addr=', /(?<![-\w])master_addr=([^\s,'"]*)()/g],
]

/** A cheap test before the forms are tried (every log line passes through the rules). */
export const MASTER_HINT =
  /master[-_]?addr|MASTER_ADDR|--master\b|rdzv[-_]endpoint|dist[-_]url|dist[-_]init[-_]addr|data[-_]parallel[-_]address|main[-_]process[-_]ip|ray start|connect to|connect\/validate|head node address|distributed_init_method/i

/** `[::ffff:10.0.0.1]` → `10.0.0.1`; `tcp://h:p` → `h:p`. */
const unwrap = (value: string): string =>
  value
    .replace(/^[a-z]+:\/\//i, '')
    .replace(/^\[::ffff:([^\]]*)\]/i, '$1')
    .replace(/^\[([^\]]*)\]/, '$1')

function split(value: string): { host: string; port?: string } {
  const bare = unwrap(value)
  // a CIDR or path keeps its slash; only a trailing :digits is a port (not an IPv6 address's groups)
  const m = /^(.*?)(?::(\d+))?$/.exec(bare)
  const host = m?.[1] ?? bare
  if (host.includes(':') && !host.includes('.')) return { host: bare }
  return m?.[2] ? { host, port: m[2] } : { host }
}

/** The hint and every form's pattern, for one literal pass over a line (pattern-prefilter.ts): index 0 the hint, then LAUNCH, RAY_JOIN, REPORTED. */
const FORMS = patternPrefilter([MASTER_HINT, ...LAUNCH.map(([, re]) => re), RAY_JOIN, ...REPORTED.map(([, re]) => re)])
const RAY_JOIN_AT = 1 + LAUNCH.length
const REPORTED_AT = RAY_JOIN_AT + 1
/** The last line read and its mentions: the rules that judge the master read the same line one after another. */
let last: { readonly line: string; readonly mentions: readonly MasterMention[] } | undefined

/** Every master value a line names, in order. */
export function masterMentions(line: string): readonly MasterMention[] {
  if (last?.line === line) return last.mentions
  FORMS.read(line)
  const mentions = FORMS.may(0) && MASTER_HINT.test(line) ? mentionsIn(line) : []
  last = { line, mentions }
  return mentions
}

function mentionsIn(line: string): MasterMention[] {
  const out: MasterMention[] = []
  const launch = (form: string, raw: string) => {
    // torch's env:// and file:// init methods name no address
    if (/^(?:env|file):\/\//i.test(raw)) return
    const value = unwrap(raw)
    out.push({ value, ...split(raw), via: 'launch', form })
  }
  LAUNCH.forEach(([form, re], i) => {
    if (FORMS.may(1 + i)) for (const m of line.matchAll(re)) launch(form, m[1] ?? m[2] ?? '')
  })
  if (FORMS.may(RAY_JOIN_AT)) for (const m of line.matchAll(RAY_JOIN)) launch('ray start --address', m[1] ?? m[2] ?? '')
  REPORTED.forEach(([form, re], i) => {
    if (!FORMS.may(REPORTED_AT + i)) return
    for (const m of line.matchAll(re)) {
      const host = unwrap((m[1] ?? m[3] ?? '').trim())
      const port = m[2] || m[4]
      out.push({ value: port ? `${host}:${port}` : host, host, ...(port ? { port } : {}), via: 'reported', form })
    }
  })
  return out
}

/** What is wrong with a master host that can never be one, whatever the run's size; undefined when it may be a host. */
export type NotAHost = Exclude<NotAHostKind, 'loopback' | 'broadcast' | 'multicast' | 'reserved'>

/** A placeholder or a variable a script did not expand is left alone: the log shows no value to judge. */
const unexpanded = (host: string): boolean => /[$%<>{}]|^x+$|^\.\.\.$/i.test(host)

export function notAHost(host: string): NotAHost | undefined {
  if (host === '') return 'empty'
  if (unexpanded(host)) return undefined
  const kind = notAHostKind(host)
  // Loopback is MASTER_ADDR_LOOPBACK's (it depends on the run's size); the broadcast, multicast and reserved ranges read as a netmask would.
  if (kind === 'broadcast' || kind === 'multicast' || kind === 'reserved') return 'netmask'
  return kind === 'loopback' ? undefined : kind
}

/** The sentence for each kind, with the value: what the script or launcher most likely read instead of the head's address. */
export function notAHostReason(kind: NotAHost, value: string): string {
  switch (kind) {
    case 'empty':
      return "empty: the variable or command that should give the head's address gave nothing"
    case 'netmask':
      return `${value}, a netmask: the wrong field of ip addr/ifconfig was read`
    case 'wildcard':
      return `${value}, the wildcard (any) address, not a host`
    case 'this-network': {
      // torch prints the host it was given ("any network address of (6841231, 47389)") and the address it dialled ("[::ffff:0.104.99.143]")
      const host = value.replace(/:\d+$/, '')
      const number = /^\d+$/.test(host) ? singleNumberAddress(host) : undefined
      const why = "a host name made only of digits, or a job or node number where the head's address belongs"
      return number === undefined
        ? `${value}, an address in 0.0.0.0/8 ("this network") that no host holds: what a resolver makes of a host written as one number (${why})`
        : `${value}, one number, which the resolver reads as ${formatIpv4(number)} in 0.0.0.0/8 ("this network"), an address no host holds (${why})`
    }
    case 'prefix-length':
      return `${value}, an address with its prefix length (ip addr's inet field without cut -d/ -f1), which no resolver reads as a host`
    case 'home-specifier':
      return `${value}, systemd's %h specifier, which a unit fills with the user's home directory (%H is the host name)`
    case 'not-an-address':
      return `"${value}", not an address or host name: the script or launcher took the wrong word of a command's output`
  }
}
