/** Suggest the candidate a misspelt name was most likely meant to be. */

const normalise = (word: string): string => word.toLowerCase().replace(/[-_\s]/g, '')

/** Edit distance counting insertions, deletions, substitutions and swaps of neighbours (`prot` → `port` is 1). */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)]
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) {
      const above = rows[i - 1] as number[]
      let best = Math.min((above[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (above[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1))
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, (rows[i - 2]?.[j - 2] ?? 0) + 1)
      row.push(best)
    }
    rows.push(row)
  }
  return rows[a.length]?.[b.length] ?? 0
}

/**
 * The closest candidate, or undefined when none is close: equal ignoring case, `-` and `_`
 * (`fabricIP`, `fabric_ip` → `fabricIp`), or within an edit distance of about a third of its length.
 */
export function didYouMean(word: string, candidates: readonly string[]): string | undefined {
  const wanted = normalise(word)
  const exact = candidates.find((candidate) => normalise(candidate) === wanted)
  if (exact !== undefined) return exact
  let best: { candidate: string; distance: number } | undefined
  for (const candidate of candidates) {
    const distance = editDistance(wanted, normalise(candidate))
    if (distance <= Math.max(1, Math.floor(candidate.length / 3)) && (!best || distance < best.distance)) {
      best = { candidate, distance }
    }
  }
  return best?.candidate
}
