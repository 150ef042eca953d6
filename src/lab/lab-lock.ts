/**
 * One lab operation at a time per lab dir: `mkdir` is atomic. A lock whose process is gone is
 * taken over.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { type LabResult, labFail } from './lab-problem.js'

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

export interface LabLockWait {
  /** Wait this long for a live holder to finish instead of failing at once. */
  readonly waitMs: number
  /** Told once, when the wait begins (who holds the lock). */
  readonly onWait?: (holder: string) => void
}

/**
 * Runs fn holding the lock. A held lock is a `locked` Problem at once, or, with `wait`, after waiting
 * for its holder up to wait.waitMs (checked every 250 ms: the holder is another process).
 */
export async function withLabLock<T>(lockDir: string, what: string, fn: () => Promise<LabResult<T>>, wait?: LabLockWait): Promise<LabResult<T>> {
  const parent = await mkdir(dirname(lockDir), { recursive: true }).then(
    () => undefined,
    (e: NodeJS.ErrnoException) => e.code ?? e.message,
  )
  if (parent !== undefined) return labFail('not-ready', `cannot create the lab lock ${lockDir}: ${parent}`, 'check that the lab dir is writable')
  const deadline = Date.now() + (wait?.waitMs ?? 0)
  let told = false
  let ownerless = 0
  for (;;) {
    try {
      await mkdir(lockDir)
      break
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code
      if (code !== 'EEXIST')
        return labFail('not-ready', `cannot create the lab lock ${lockDir}: ${code ?? (e as Error).message}`, 'check that the lab dir is writable')
      const holder = (await readFile(join(lockDir, 'owner'), 'utf8').catch(() => '')).trim()
      const pid = Number(holder.split(/\s+/)[0])
      if (pid && alive(pid)) {
        if (!wait || Date.now() >= deadline) {
          return labFail('locked', `another lab operation is running (${holder})`, `wait for it to finish, or remove ${lockDir} if it is gone`)
        }
        if (!told) wait.onWait?.(holder)
        told = true
        await new Promise((r) => setTimeout(r, 250))
        continue
      }
      // No owner yet: the holder is between its mkdir and its write. Look again shortly.
      if (!holder && ownerless++ < 20) {
        await new Promise((r) => setTimeout(r, 50))
        continue
      }
      await rm(lockDir, { recursive: true, force: true })
    }
  }
  await writeFile(join(lockDir, 'owner'), `${process.pid} ${what} since ${new Date().toISOString()}\n`)
  try {
    return await fn()
  } finally {
    await rm(lockDir, { recursive: true, force: true })
  }
}
