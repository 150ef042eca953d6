import { describe, expect, it } from 'vitest'
import { isPyParseError, numericEntries, parsePythonLiteral } from '../../src/preflight/python-literal.js'

describe('parsePythonLiteral', () => {
  it('reads a Ray resource dict as Python prints it', () => {
    const r = parsePythonLiteral("{'node:__internal_head__': 1.0, 'GPU': 1.0, 'memory': 85899345920.0}")
    expect(isPyParseError(r)).toBe(false)
    if (isPyParseError(r)) return
    expect(r.value).toEqual({ 'node:__internal_head__': 1, GPU: 1, memory: 85899345920 })
    expect(r.truncated).toBe(false)
  })

  it('reads True/False/None, nested lists, tuples and escapes', () => {
    const r = parsePythonLiteral(`[{'Alive': True, 'x': None, 'y': (1, 2), 's': 'it\\'s', "d": "q\\""}, False]`)
    if (isPyParseError(r)) throw new Error(r.error)
    expect(r.value).toEqual([{ Alive: true, x: null, y: [1, 2], s: "it's", d: 'q"' }, false])
  })

  it('reads JSON too', () => {
    const r = parsePythonLiteral('{"Alive": true, "n": -1.5e3, "z": null}')
    if (isPyParseError(r)) throw new Error(r.error)
    expect(r.value).toEqual({ Alive: true, n: -1500, z: null })
  })

  it('tolerates a literal ... where a paste was cut, and marks it truncated', () => {
    const r = parsePythonLiteral("{'node:__internal_head__': 1.0, 'GPU': 1.0, 'accelerator_type:GB10': 1.0,...}")
    if (isPyParseError(r)) throw new Error(r.error)
    expect(r.value).toEqual({ 'node:__internal_head__': 1, GPU: 1, 'accelerator_type:GB10': 1 })
    expect(r.truncated).toBe(true)
  })

  it('tolerates text that ends inside the literal', () => {
    const r = parsePythonLiteral("[{'node:111.6.168.22")
    if (isPyParseError(r)) throw new Error(r.error)
    expect(r.truncated).toBe(true)
  })

  it('returns an error value, not an exception, for garbage', () => {
    const r = parsePythonLiteral('{GPU: 1}')
    expect(isPyParseError(r)).toBe(true)
  })

  it('reports where the literal ends, so callers can read what follows', () => {
    const text = "{'GPU': 1.0} * 1, {'GPU': 1.0} * 15 (PACK)"
    const r = parsePythonLiteral(text)
    if (isPyParseError(r)) throw new Error(r.error)
    expect(text.slice(r.end)).toBe(" * 1, {'GPU': 1.0} * 15 (PACK)")
  })

  it('keeps only numbers when asked for a resource map', () => {
    expect(numericEntries({ GPU: 1, name: 'x', nested: { a: 1 } })).toEqual({ GPU: 1 })
    expect(numericEntries([1, 2])).toEqual({})
  })
})
