import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { withLabLock } from '../../src/lab/lab-lock.js'
import { labFail } from '../../src/lab/lab-problem.js'
import { ok } from '../../src/result/result.js'

const root = mkdtempSync(join(tmpdir(), 'vrd-lab-lock-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
let holders: ChildProcess[] = []
afterEach(() => {
  for (const h of holders) h.kill('SIGKILL')
  holders = []
})

let n = 0
/** A lock dir held by a live process of its own (a `sleep`), as another lab operation would hold it. */
function heldLock(): { dir: string; holder: ChildProcess } {
  const dir = join(root, `lock-${++n}`)
  const holder = spawn('sleep', ['300'], { stdio: 'ignore' })
  holders.push(holder)
  mkdirSync(dir)
  writeFileSync(join(dir, 'owner'), `${holder.pid} lab up since 2026-12-04T00:00:00Z\n`)
  return { dir, holder }
}

describe('the lab lock', () => {
  it('runs the work holding the lock and removes it afterwards, also when the work fails or throws', async () => {
    const dir = join(root, 'free')
    expect(await withLabLock(dir, 'lab up', async () => ok(existsSync(join(dir, 'owner'))))).toEqual(ok(true))
    expect(existsSync(dir)).toBe(false)
    const failed = labFail('not-ready', 'the nodes did not come up')
    expect(await withLabLock(dir, 'lab up', async () => failed)).toBe(failed)
    expect(existsSync(dir)).toBe(false)
    await expect(withLabLock(dir, 'lab up', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom')
    expect(existsSync(dir)).toBe(false)
  })

  it('a live holder is a locked Problem at once without a wait, naming the holder and what to do', async () => {
    const { dir, holder } = heldLock()
    let ran = false
    const r = await withLabLock(dir, 'lab down', async () => {
      ran = true
      return ok('ran')
    })
    expect(ran).toBe(false)
    expect(r.ok).toBe(false)
    if (r.ok) return
    expect(r.problem.code).toBe('locked')
    expect(r.problem.message).toBe(`another lab operation is running (${holder.pid} lab up since 2026-12-04T00:00:00Z)`)
    expect(r.problem.fix).toBe(`wait for it to finish, or remove ${dir} if it is gone`)
    expect(existsSync(dir)).toBe(true)
  })

  it('with a wait: says once who it waits for, and runs as soon as the holder lets go', async () => {
    const { dir, holder } = heldLock()
    const waits: string[] = []
    const ran = await withLabLock(dir, 'lab images', async () => ok('ran'), {
      waitMs: 120_000,
      onWait: (who) => {
        waits.push(who)
        // The holder finishes: its lock goes (as withLabLock's own finally removes it).
        rmSync(dir, { recursive: true, force: true })
      },
    })
    expect(ran).toEqual(ok('ran'))
    expect(waits).toEqual([`${holder.pid} lab up since 2026-12-04T00:00:00Z`])
    expect(existsSync(dir)).toBe(false)
  })

  it('with a wait that runs out: the same error, and the holder keeps its lock', async () => {
    const { dir } = heldLock()
    let waited = false
    const r = await withLabLock(dir, 'lab images', async () => ok('ran'), { waitMs: 300, onWait: () => (waited = true) })
    expect(waited).toBe(true)
    expect(r.ok ? 'ran' : r.problem.code).toBe('locked')
    expect(existsSync(join(dir, 'owner'))).toBe(true)
  })

  it('takes over a lock whose holder is gone, and one left without an owner (a holder killed between mkdir and write)', async () => {
    const { dir, holder } = heldLock()
    const exited = new Promise((r) => holder.once('exit', r))
    holder.kill('SIGKILL')
    await exited
    expect(await withLabLock(dir, 'lab up', async () => ok('ran'))).toEqual(ok('ran'))
    const empty = join(root, 'empty')
    mkdirSync(empty)
    expect(await withLabLock(empty, 'lab up', async () => ok('ran'))).toEqual(ok('ran'))
    expect(existsSync(empty)).toBe(false)
  })
})
