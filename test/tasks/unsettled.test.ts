/**
 * A run whose promise nothing settles must not end as a success: the guard's code, transpiled as
 * it is and run in a real Node process, turns "the event loop emptied while the run was pending"
 * (Node's silent exit 0) into a message and exit 3; a run that settles keeps its own exit code.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { EventEmitter } from 'node:events'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { UNSETTLED_MESSAGE, failIfUnsettled } from '../../src/tasks/unsettled.js'

function nodeWithGuard(body: string): { code: number | null; stderr: string } {
  const dir = mkdtempSync(join(tmpdir(), 'vrd-unsettled-'))
  const js = ts.transpileModule(readFileSync('src/tasks/unsettled.ts', 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  }).outputText
  writeFileSync(join(dir, 'unsettled.mjs'), js)
  writeFileSync(
    join(dir, 'entry.mjs'),
    `import { failIfUnsettled, UNSETTLED_MESSAGE } from './unsettled.mjs'\n` +
      `failIfUnsettled((async () => { ${body} })(), () => { process.stderr.write(UNSETTLED_MESSAGE); process.exitCode = 3 })` +
      `.then((c) => { process.exitCode = c })\n`,
  )
  const r = spawnSync(process.execPath, [join(dir, 'entry.mjs')], { encoding: 'utf8', timeout: 30_000 })
  return { code: r.status, stderr: r.stderr }
}

describe('failIfUnsettled', () => {
  it("a pending await on a promise nothing settles (AbortSignal.timeout is unref'd) exits 3 with the message, not 0", () => {
    // Without the guard this process exits 0 at once.
    const bare = execFileSync(process.execPath, ['-e', 'new Promise(() => {}).then(() => { process.exitCode = 1 }); AbortSignal.timeout(60000)'], {
      encoding: 'utf8',
    })
    expect(bare).toBe('')
    const r = nodeWithGuard('await new Promise((resolve) => AbortSignal.timeout(60000).addEventListener("abort", resolve)); return 0')
    expect(r.code).toBe(3)
    expect(r.stderr).toBe(UNSETTLED_MESSAGE)
  })

  it('a run that settles keeps its own exit code, after timers of its own', () => {
    expect(nodeWithGuard('await new Promise((r) => setTimeout(r, 200)); return 0')).toEqual({ code: 0, stderr: '' })
    expect(nodeWithGuard('await new Promise((r) => setTimeout(r, 50)); return 1')).toEqual({ code: 1, stderr: '' })
  })

  it('fires at most once, and never after the run settled', async () => {
    const proc = new EventEmitter()
    let calls = 0
    let finish!: (v: number) => void
    const work = failIfUnsettled(new Promise<number>((r) => (finish = r)), () => calls++, proc)
    proc.emit('beforeExit')
    proc.emit('beforeExit')
    expect(calls).toBe(1)
    const proc2 = new EventEmitter()
    const done = failIfUnsettled(Promise.resolve(7), () => calls++, proc2)
    expect(await done).toBe(7)
    proc2.emit('beforeExit')
    expect(calls).toBe(1)
    expect(proc2.listenerCount('beforeExit')).toBe(0)
    finish(0)
    await work
  })
})
