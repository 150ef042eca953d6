/**
 * The benchmark's pure parts: statistics over repeated samples, goals, and the one markdown table
 * `npm run bench` prints. No clock, no I/O: the driver (run.ts) measures, this renders.
 */

/** Repeated measurements of one thing, in one unit. */
export interface Samples {
  readonly unit: 'ms' | 'bytes' | 'MB/s'
  readonly values: readonly number[]
}

export const samples = (unit: Samples['unit'], values: readonly number[]): Samples => ({ unit, values })

/** Median (the mean of the middle two for an even count). Empty input is a bug in the caller. */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of no samples')
  const s = [...values].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}

/**
 * The goal of a row:
 * - `max`: the figure itself must not exceed `limit` (in the figure's unit);
 * - `ratioMax`: figure ÷ baseline must not exceed `limit`;
 * - `speedupMin`: baseline ÷ figure must be at least `limit` (the figure is faster);
 * - `none`: reported only.
 */
export type Goal =
  | { readonly kind: 'max'; readonly limit: number }
  | { readonly kind: 'ratioMax'; readonly limit: number }
  | { readonly kind: 'speedupMin'; readonly limit: number }
  | { readonly kind: 'none' }

export interface Row {
  /** `1`, `5`, `6a`: the item numbers. */
  readonly id: string
  readonly figure: string
  readonly value: Samples
  readonly baselineLabel: string
  /** Absent when the row has no baseline (a size, say). */
  readonly baseline?: Samples
  readonly goal: Goal
  /** A short note printed under the table (what was excluded, why a row is missing). */
  readonly note?: string
}

/** A row that could not be measured in this run, with the reason. */
export interface MissingRow {
  readonly id: string
  readonly figure: string
  readonly reason: string
}

export function formatQuantity(unit: Samples['unit'], v: number): string {
  switch (unit) {
    case 'ms':
      return v >= 100_000 ? `${Math.round(v / 1000)} s` : v >= 1000 ? `${(v / 1000).toFixed(2)} s` : `${Math.round(v)} ms`
    case 'bytes':
      return v >= 1e6 ? `${(v / 1e6).toFixed(1)} MB` : v >= 1e3 ? `${(v / 1e3).toFixed(1)} kB` : `${Math.round(v)} B`
    case 'MB/s':
      return `${v.toFixed(0)} MB/s`
  }
}

/** `1.23 s (n=5, 1.10–1.40)`, or just the value for a single sample. */
export function formatSamples(s: Samples): string {
  const m = formatQuantity(s.unit, median(s.values))
  if (s.values.length < 2) return m
  const lo = formatQuantity(s.unit, Math.min(...s.values))
  const hi = formatQuantity(s.unit, Math.max(...s.values))
  return `${m} (n=${s.values.length}, ${lo}–${hi})`
}

/** figure ÷ baseline, by medians; undefined without a baseline or with a zero baseline. */
export function ratio(row: Row): number | undefined {
  if (!row.baseline) return undefined
  const b = median(row.baseline.values)
  return b === 0 ? undefined : median(row.value.values) / b
}

export function goalText(row: Row): string {
  const g = row.goal
  switch (g.kind) {
    case 'max':
      return `≤ ${formatQuantity(row.value.unit, g.limit)}`
    case 'ratioMax':
      return `≤ ${g.limit}×`
    case 'speedupMin':
      return `≥ ${g.limit}× faster`
    case 'none':
      return '–'
  }
}

/** Whether the goal is met, by medians; undefined when there is no goal. */
export function goalMet(row: Row): boolean | undefined {
  const g = row.goal
  const v = median(row.value.values)
  const r = ratio(row)
  switch (g.kind) {
    case 'max':
      return v <= g.limit
    case 'ratioMax':
      return r !== undefined && r <= g.limit
    case 'speedupMin':
      return r !== undefined && r > 0 && 1 / r >= g.limit
    case 'none':
      return undefined
  }
}

/** Three significant digits below 1, so a ratio just over a goal such as 0.1× never prints as the goal itself. */
export const formatRatio = (r: number | undefined): string =>
  r === undefined ? '–' : r >= 10 ? `${r.toFixed(0)}×` : r >= 1 ? `${r.toFixed(2)}×` : r >= 0.1 ? `${r.toFixed(3)}×` : `${r.toFixed(4)}×`

const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ')

export interface Machine {
  readonly date: string
  readonly nproc: number
  readonly memoryGiB: number
  readonly docker: string
  readonly node: string
}

/** The table, its notes and the machine line: the whole of RESULTS.md. */
export function renderResults(rows: readonly Row[], missing: readonly MissingRow[], machine: Machine): string {
  const out = [
    `# Benchmark results`,
    '',
    `Measured ${machine.date} on ${machine.nproc} cores, ${machine.memoryGiB.toFixed(1)} GiB memory, docker ${machine.docker}, node ${machine.node}.`,
    'Values are medians (n = samples, then min–max); every baseline was measured in the same run, interleaved with its figure.',
    '',
    '| # | figure | value | baseline (same run) | ratio | goal | met? |',
    '| --- | --- | --- | --- | --- | --- | --- |',
  ]
  const all: { id: string; line: string }[] = [
    ...rows.map((row) => {
      const met = goalMet(row)
      const base = row.baseline ? `${row.baselineLabel}: ${formatSamples(row.baseline)}` : row.baselineLabel || '–'
      return {
        id: row.id,
        line: `| ${cell(row.id)} | ${cell(row.figure)} | ${cell(formatSamples(row.value))} | ${cell(base)} | ${formatRatio(ratio(row))} | ${goalText(row)} | ${met === undefined ? '–' : met ? 'yes' : '**no**'} |`,
      }
    }),
    ...missing.map((m) => ({ id: m.id, line: `| ${cell(m.id)} | ${cell(m.figure)} | not measured | – | – | – | **no** |` })),
  ]
  const byId = (a: string, b: string) => a.localeCompare(b, 'en', { numeric: true })
  out.push(...all.sort((a, b) => byId(a.id, b.id)).map((r) => r.line))
  const notes = [
    ...rows.filter((r) => r.note).map((r) => ({ id: r.id, text: r.note! })),
    ...missing.map((m) => ({ id: m.id, text: `not measured: ${m.reason}` })),
  ].sort((a, b) => byId(a.id, b.id))
  if (notes.length > 0) out.push('', ...notes.map((n) => `- ${n.id}: ${n.text}`))
  return `${out.join('\n')}\n`
}
