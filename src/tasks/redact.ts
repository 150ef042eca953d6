/**
 * The one redaction pass over everything a command hands a front door: the text and JSON reports,
 * the job summary, the annotations, the outputs, every file (the failure artifact, outcome.txt) and
 * each progress line. Every secret the run was given is replaced by `***` wherever it appears, in
 * its own spelling and as JSON escapes it: the SSH key (each of its lines), its passphrase, the hub
 * token, and the value of each variable the manifest names in container.secretEnv and
 * smoke.apiKeySecret. The Action's
 * log masking (core.setSecret) covers the log only; the summary, the outputs and the files leave
 * the runner without it. Pure, but for the manifest read that names the secret variables.
 */
import { loadManifestFile } from '../manifest/manifest-file.js'
import type { OptionValues } from './command-table.js'
import type { TaskOutcome } from './outcome.js'

const MASK = '***'
/** Shorter values are not masked: they would blank ordinary words (a secret this short is not one). */
const MIN_SECRET = 6

/** Every spelling of each secret a report could carry, longest first (a longer one may contain a shorter). */
export function secretSpellings(secrets: Iterable<string | undefined>): string[] {
  const out = new Set<string>()
  for (const s of secrets) {
    if (s === undefined) continue
    for (const v of [s, s.trim()]) {
      if (v.length < MIN_SECRET) continue
      out.add(v)
      const escaped = JSON.stringify(v).slice(1, -1)
      if (escaped !== v) out.add(escaped)
    }
  }
  return [...out].sort((a, b) => b.length - a.length)
}

export const redactText = (text: string, spellings: readonly string[]): string => spellings.reduce((t, s) => (t.includes(s) ? t.split(s).join(MASK) : t), text)

/** `value` with every string in it (keys included) redacted; other values as they are. */
export function redactDeep<T>(value: T, spellings: readonly string[]): T {
  if (spellings.length === 0) return value
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return redactText(v, spellings)
    if (Array.isArray(v)) return v.map(walk)
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [redactText(k, spellings), walk(x)]))
    return v
  }
  return walk(value) as T
}

/** The secrets of one run: the secret options, the key's lines, and the values of the manifest's secret variables. */
export async function secretsOfRun(values: OptionValues, env: NodeJS.ProcessEnv): Promise<string[]> {
  const keyLines = (values.sshKey ?? '')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('-----'))
  const named: string[] = []
  if (values.manifest) {
    // An unreadable or invalid manifest names no secret variables (and the command reports it).
    const loaded = await loadManifestFile(values.manifest).catch(() => undefined)
    const m = loaded?.manifest
    for (const name of [...(m?.container.secretEnv ?? []), ...(m?.smoke.apiKeySecret ? [m.smoke.apiKeySecret] : [])])
      if (env[name] !== undefined) named.push(env[name]!)
  }
  return secretSpellings([...keyLines, values.sshKeyPassphrase, values.hfToken, env.HF_TOKEN, env.VRD_SSH_KEY_PASSPHRASE, ...named])
}

/** The outcome with every secret spelling replaced, in every part a front door prints, sets or writes. */
export const redactOutcome = (o: TaskOutcome, spellings: readonly string[]): TaskOutcome => redactDeep(o, spellings)
