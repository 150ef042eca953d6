import { describe, expect, it } from 'vitest'
import { argv, pipe, seq } from '../../src/command/shell.js'
import { LocalTransport } from '../../src/transport/local.js'

describe('LocalTransport renders compound commands like the SSH transport (renderScript)', () => {
  it('a failing stage fails its pipeline (pipefail), as on a node', async () => {
    const r = await new LocalTransport().run(pipe(argv('false'), argv('cat')), { timeoutMs: 10_000 })
    expect(r.code).not.toBe(0)
  })

  it('strict mode: a failing command stops the script', async () => {
    const r = await new LocalTransport().run(seq(argv('false'), argv('echo', 'after')), { timeoutMs: 10_000 })
    expect(r.code).not.toBe(0)
    expect(r.stdout).toBe('')
  })
})
