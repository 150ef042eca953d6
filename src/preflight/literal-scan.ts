/**
 * One pass over a text that says which groups of words occur in it (Aho-Corasick, a DFA over ASCII
 * folded to lower case): each character is one table step, however many words there are, so adding
 * words (new log rules) does not slow the scan of a line. Words are lower-case ASCII; a character
 * outside every word (any non-ASCII one) sends the automaton back to its start.
 */

export interface LiteralScanner {
  /** Calls `found(group)` for each group one of whose words occurs in `text` (a group may be called more than once). */
  scan(text: string, found: (group: number) => void): void
}

interface Trie {
  readonly next: Map<number, number>[]
  readonly out: number[][]
}

/** Each word's characters as classes: 0 for a character no word holds, A-Z with a-z. */
function alphabet(words: readonly string[]): { classOf: Uint8Array; size: number } {
  const classOf = new Uint8Array(128)
  let size = 1
  for (const w of words)
    for (let i = 0; i < w.length; i++) {
      const c = w.charCodeAt(i)
      // bug: regex-literals.ts folds every word to lower-case ASCII
      if (c >= 128 || (c >= 65 && c <= 90)) throw new Error(`not a lower-case ASCII word: ${JSON.stringify(w)}`)
      if (classOf[c] === 0) classOf[c] = size++
    }
  for (let c = 65; c <= 90; c++) classOf[c] = classOf[c + 32]!
  return { classOf, size }
}

function trieOf(groups: readonly (readonly string[])[], classOf: Uint8Array): Trie {
  const trie: Trie = { next: [new Map()], out: [[]] }
  groups.forEach((words, group) => {
    for (const w of words) {
      let s = 0
      for (let i = 0; i < w.length; i++) {
        const k = classOf[w.charCodeAt(i)]!
        let t = trie.next[s]!.get(k)
        if (t === undefined) {
          t = trie.next.length
          trie.next.push(new Map())
          trie.out.push([])
          trie.next[s]!.set(k, t)
        }
        s = t
      }
      trie.out[s]!.push(group)
    }
  })
  return trie
}

export function literalScanner(groups: readonly (readonly string[])[]): LiteralScanner {
  const { classOf, size } = alphabet(groups.flat())
  const trie = trieOf(groups, classOf)
  const states = trie.next.length
  // The full transition table, breadth first: a missing edge follows the failure link's edge.
  const delta = new Int32Array(states * size)
  const fail = new Int32Array(states)
  const order: number[] = []
  for (const [k, t] of trie.next[0]!) {
    delta[k] = t
    order.push(t)
  }
  for (let qi = 0; qi < order.length; qi++) {
    const s = order[qi]!
    trie.out[s]!.push(...trie.out[fail[s]!]!)
    for (let k = 1; k < size; k++) {
      const t = trie.next[s]!.get(k)
      if (t === undefined) delta[s * size + k] = delta[fail[s]! * size + k]!
      else {
        fail[t] = delta[fail[s]! * size + k]!
        delta[s * size + k] = t
        order.push(t)
      }
    }
  }
  const outStart = new Int32Array(states + 1)
  for (let s = 0; s < states; s++) outStart[s + 1] = outStart[s]! + trie.out[s]!.length
  const outList = Int32Array.from(trie.out.flat())
  // The table the scan walks: each entry is the next state's row (state × size), one's complement where that state
  // ends a word, so a character costs one lookup and one sign test, and only a word's end reads the output list.
  const rows = new Int32Array(states * size)
  for (let i = 0; i < rows.length; i++) {
    const t = delta[i]!
    rows[i] = outStart[t] === outStart[t + 1] ? t * size : ~(t * size)
  }
  return {
    scan(text, found) {
      let row = 0
      for (let i = 0; i < text.length; i++) {
        const c = text.charCodeAt(i)
        if (c >= 128) {
          row = 0
          continue
        }
        row = rows[row + classOf[c]!]!
        if (row >= 0) continue
        row = ~row
        const s = row / size
        for (let o = outStart[s]!; o < outStart[s + 1]!; o++) found(outList[o]!)
      }
    },
  }
}
