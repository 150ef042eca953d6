/**
 * The diagnostics bundle of a rollout (issue 39): the files a person attaches to an issue when a
 * start fails. Each node's last N KiB of its engine log (vLLM's serve log in the container) and of
 * Ray's logs (raylet, GCS, the newest workers'), read while the failed release still runs (before
 * on-failure replaces it); the facts, the findings, the start-up timeline with the first failure,
 * the manifest's effective values; and `bundle.json`, the index.
 *
 * Bounded: each log at most LOG_BYTES, the bundle at most BUNDLE_BYTES (logs cut first, named in the
 * index). No secret: every text goes through `scrubSecrets` (tokens, keys, passwords by their shape
 * and by the name they are assigned to), and the task's redaction pass (src/tasks/redact.ts) then
 * removes the run's own secrets wherever they appear.
 */
import { shScript } from '../command/shell.js'
import type { Manifest } from '../manifest/schema.js'
import { boundedTimeoutSeconds } from '../manifest/ssh-settings.js'
import { VLLM_LOG } from '../plan/node-commands.js'
import type { Finding } from '../preflight/finding.js'
import type { Transport } from '../transport/transport.js'
import type { RolloutReport } from './rollout-types.js'

/** The most of one log kept, from its end. */
export const LOG_BYTES = 64 * 1024
/** The most the whole bundle holds. */
export const BUNDLE_BYTES = 4 * 1024 * 1024
/** The directory under report-dir (and the CLI's --bundle-dir) its files go to. */
export const BUNDLE_DIR = 'bundle'

export interface BundleFile {
  /** Relative to the bundle's directory. */
  readonly path: string
  readonly content: string
}

/** One node's logs as read: file name → text (or why there is none). */
export type NodeLogs = ReadonlyMap<string, ReadonlyMap<string, string>>

/**
 * One SSH command per node: the engine log and Ray's logs from the release's container, each from
 * its end, between `@@file NAME` lines. Ray's worker logs: the four newest (the failing actor's).
 */
const READ_LOGS = [
  'c=$1; n=$2; log=$3; ray=/tmp/ray/session_latest/logs',
  'echo "@@file engine.log"; docker exec "$c" tail -c "$n" "$log" 2>&1 || true',
  'for f in raylet.out raylet.err gcs_server.out gcs_server.err monitor.log $(docker exec "$c" ls -t "$ray" 2>/dev/null | grep -E "^worker-[0-9a-f-]+\\.(out|err)$" | head -4); do',
  '  if docker exec "$c" test -s "$ray/$f" 2>/dev/null; then echo "@@file ray/$f"; docker exec "$c" tail -c "$n" "$ray/$f" 2>&1; fi',
  'done',
].join('\n')

/** Split the command's output into its files; a name that is not a plain log name is dropped. */
export function parseNodeLogs(stdout: string): Map<string, string> {
  const out = new Map<string, string>()
  const parts = stdout.split(/^@@file (.+)\n/m)
  for (let i = 1; i < parts.length; i += 2) {
    const name = parts[i]!.trim()
    if (/^(?:engine\.log|ray\/[\w.-]+)$/.test(name)) out.set(name, parts[i + 1] ?? '')
  }
  return out
}

/** Every node's logs, read at once; a node that cannot be read says why in its engine.log. */
export async function readNodeLogs(transports: ReadonlyMap<string, Transport>, m: Manifest): Promise<NodeLogs> {
  const read = await Promise.all(
    m.nodes.map(async (n) => {
      const t = transports.get(n.name)
      if (!t) return [n.name, new Map([['engine.log', '(no connection to this node)']])] as const
      const r = await t.run(shScript(READ_LOGS, m.container.name, String(LOG_BYTES), VLLM_LOG), { timeoutMs: boundedTimeoutSeconds(m.ssh, 60) * 1000 })
      const logs = parseNodeLogs(r.stdout)
      if (logs.size === 0) logs.set('engine.log', `(could not read the logs: exit ${r.code ?? r.signal}; ${r.stderr.trim().slice(-500)})`)
      return [n.name, logs] as const
    }),
  )
  return new Map(read)
}

const MASK = '***'
/** Names whose values are secrets wherever they are assigned (`HF_TOKEN=…`, `"api_key": "…"`, `--api-key …`): the name ends in a secret word. */
const SECRET_NAME = /(?:token|secret|secret[_-]?key|passw(?:or)?d|passwd|pwd|passphrase|api[_-]?key|access[_-]?key|private[_-]?key|credentials?|auth)$/i

/**
 * Text with everything shaped like a secret masked: private key blocks, Hugging Face and GitHub
 * tokens, AWS access keys, bearer and basic credentials, URL passwords, and the value of any
 * variable or key whose name says secret. Pure.
 */
export function scrubSecrets(text: string): string {
  return (
    text
      .replace(/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g, '-----BEGIN PRIVATE KEY----- *** -----END PRIVATE KEY-----')
      .replace(/\bhf_[A-Za-z0-9]{20,}\b/g, MASK)
      .replace(/\bgh[pousr]_[A-Za-z0-9]{30,}\b/g, MASK)
      .replace(/\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g, MASK)
      .replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/g, `$1 ${MASK}`)
      .replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]+@/gi, `$1${MASK}@`)
      // NAME=value, NAME: value, "name": "value", --name value / --name=value, where the name says secret.
      .replace(/(["']?)([\w.-]+)(["']?)(\s*[:=]\s*|\s+)(["']?)([^\s"',}]+)/g, (all, q1, name: string, q2, sep: string, q3, value: string) =>
        SECRET_NAME.test(name) && (sep.trim() !== '' || name.startsWith('--')) && value !== MASK && !/^\$\{?\w+\}?$/.test(value)
          ? `${q1}${name}${q2}${sep}${q3}${MASK}`
          : all,
      )
  )
}

/**
 * The manifest's effective values (every default filled in) with the value of every variable whose
 * name says secret masked, and the names of the secret variables kept (never their values).
 */
export function effectiveManifest(m: Manifest): unknown {
  const walk = (v: unknown, key: string): unknown => {
    if (typeof v === 'string') return SECRET_NAME.test(key) && !/secretEnv|apiKeySecret|Secret$/.test(key) ? MASK : scrubSecrets(v)
    if (Array.isArray(v)) return v.map((x) => walk(x, key))
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)]))
    return v
  }
  return walk(m, '')
}

const START_CODES = new Set(['STARTUP_FIRST_FAILURE', 'STARTUP_PHASE_STALLED', 'STARTUP_TIMELINE'])

/** The start-up timeline and first failure as a person reads them (from the watchers' findings). */
export function timelineText(findings: readonly Finding[]): string {
  const start = findings.filter((f) => START_CODES.has(f.code))
  if (start.length === 0) return '(the start-up watcher did not run, or saw no line of vLLM)\n'
  return (
    start
      .map((f) =>
        [`${f.code} (${f.node ?? 'cluster'}): ${f.message}`, ...Object.entries(f.evidence).map(([k, v]) => `  ${k}:\n${v.replace(/^/gm, '    ')}`)].join('\n'),
      )
      .join('\n\n') + '\n'
  )
}

export interface BundleInput {
  readonly m: Manifest
  readonly report: RolloutReport
  readonly logs?: NodeLogs
  /** Why the bundle was made: a failed rollout, or asked for. */
  readonly why: 'failed' | 'requested'
  readonly now: Date
}

/** The bundle's files, bundle.json last; every text scrubbed; logs cut (oldest part first) to keep the bound. */
export function bundleFiles(input: BundleInput): BundleFile[] {
  const { m, report } = input
  const files: { path: string; content: string; what: string }[] = [
    { path: 'findings.json', content: `${JSON.stringify(report.findings, null, 2)}\n`, what: 'every finding of the rollout' },
    { path: 'timeline.txt', content: timelineText(report.findings), what: "each node's start-up phases, a stalled phase, the first failure and its cascade" },
    {
      path: 'manifest.effective.json',
      content: `${JSON.stringify(effectiveManifest(m), null, 2)}\n`,
      what: "the manifest's effective values, secrets removed",
    },
    ...(report.facts ? [{ path: 'facts.json', content: `${JSON.stringify(report.facts, null, 2)}\n`, what: 'the facts of every node' }] : []),
  ]
  for (const [node, logs] of input.logs ?? new Map()) {
    for (const [name, text] of logs)
      files.push({
        path: `nodes/${node.replace(/[^\w.-]/g, '_')}/${name}`,
        content: text,
        what: `${node}: the last ${LOG_BYTES / 1024} KiB of ${name === 'engine.log' ? VLLM_LOG : name}`,
      })
  }
  const scrubbed = files.map((f) => ({ ...f, content: scrubSecrets(f.content) }))
  const cut = withinBound(scrubbed, BUNDLE_BYTES - 16 * 1024)
  const index = {
    tool: 'vllm-ray-deploy',
    cluster: m.cluster,
    command: report.command,
    release: report.release,
    result: report.result,
    why: input.why,
    ...(report.failure && { failure: report.failure }),
    createdAt: input.now.toISOString(),
    limits: { logBytes: LOG_BYTES, bundleBytes: BUNDLE_BYTES },
    secrets: 'removed: private keys, tokens and passwords by their shape and name, and the values of the secrets this run was given',
    files: cut.map((f) => ({ path: f.path, bytes: Buffer.byteLength(f.content), what: f.what, ...(f.cut && { cut: f.cut }) })),
  }
  return [...cut.map((f) => ({ path: f.path, content: f.content })), { path: 'bundle.json', content: `${JSON.stringify(index, null, 2)}\n` }]
}

/** The files within `bound` bytes: the largest logs lose their oldest part first. */
function withinBound<T extends { path: string; content: string }>(files: readonly T[], bound: number): (T & { cut?: string })[] {
  const out: (T & { cut?: string })[] = files.map((f) => ({ ...f }))
  let total = out.reduce((n, f) => n + Buffer.byteLength(f.content), 0)
  while (total > bound) {
    const largest = out.filter((f) => f.path.startsWith('nodes/')).sort((a, b) => b.content.length - a.content.length)[0]
    const victim = largest ?? out.sort((a, b) => b.content.length - a.content.length)[0]!
    const over = total - bound
    const before = Buffer.byteLength(victim.content)
    const keep = Math.max(0, victim.content.length - over - 64)
    victim.content = victim.content.slice(victim.content.length - keep)
    victim.cut = `the oldest ${before - Buffer.byteLength(victim.content)} bytes were cut to keep the bundle under ${bound} bytes`
    total -= before - Buffer.byteLength(victim.content)
    if (keep === 0 && !largest) break
  }
  return out
}
