/** Suggest the candidate a misspelt name was most likely meant to be. */

const normalise = (word: string): string => word.toLowerCase().replace(/[-_\s]/g, '')

/** Levenshtein distance (insertions, deletions, substitutions). */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1)
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution))
    }
    previous = current
  }
  return previous[b.length] ?? 0
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
