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

  it('a cancel kills the command and its children at once and says cancelled', async () => {
    const ac = new AbortController()
    setTimeout(() => ac.abort(), 300)
    const started = Date.now()
    const r = await new LocalTransport().run(seq(argv('sleep', '30'), argv('echo', 'after')), { timeoutMs: 60_000, signal: ac.signal })
    expect(r).toMatchObject({ code: null, cancelled: true, timedOut: false, stdout: '' })
    expect(Date.now() - started).toBeLessThan(10_000)
  })

  it('a stream stdin the command stops reading is closed, so its producer ends too', async () => {
    const local = new LocalTransport()
    const producer = local.stream(argv('sh', '-c', 'exec yes vrd'))
    const r = await local.run(argv('head', '-c', '4'), { timeoutMs: 20_000, stdin: producer.stdout })
    expect(r.stdout).toBe('vrd\n')
    const ended = await Promise.race([producer.done, new Promise((res) => setTimeout(() => res('still running'), 10_000))])
    expect(ended).not.toBe('still running')
  })
})
