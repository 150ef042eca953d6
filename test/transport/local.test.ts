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
    const marker = `vrd-local-cancel-${process.pid}-${Date.now()}`
    const ac = new AbortController()
    // Cancelled once the command says it runs (an event, not a delay); its child sleeps far past the test's timeout.
    const r = await new LocalTransport().run(seq(argv('echo', 'running'), argv('bash', '-c', `exec -a ${marker} sleep 60`), argv('echo', 'after')), {
      timeoutMs: 120_000,
      signal: ac.signal,
      onStdout: (chunk) => chunk.includes('running') && ac.abort(),
    })
    expect(r).toMatchObject({ code: null, cancelled: true, timedOut: false, stdout: 'running\n' })
    const left = await new LocalTransport().run(argv('sh', '-c', `pgrep -f "^${marker}" || true`), { timeoutMs: 10_000 })
    expect(left.stdout.trim()).toBe('')
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
