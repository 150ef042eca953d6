import { expect, it } from 'vitest'
import { labUpMs } from './rows/fresh-start.js'

it("row 9 reads lab up's own time from the story's output", () => {
  expect(labUpMs('== 1. lab up\nlab up: ready in 96.3 s (13 change(s))\n')).toBe(96_300)
  expect(labUpMs('lab up: ready in 0.6 s (nothing to change)')).toBe(600)
  expect(labUpMs('lab up: 2 node(s) in /tmp/x/.lab')).toBeUndefined()
})
