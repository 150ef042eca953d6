/**
 * One lab operation at a time per lab dir: `mkdir` is atomic. A lock whose process is gone is
 * taken over.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { LabError } from './lab-error.js'

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

export async function withLabLock<T>(lockDir: string, what: string, fn: () => Promise<T>): Promise<T> {
  await mkdir(dirname(lockDir), { recursive: true })
  for (let attempt = 0; ; attempt++) {
    try {
      await mkdir(lockDir)
      break
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw e
      const holder = await readFile(join(lockDir, 'owner'), 'utf8').catch(() => '')
      const pid = Number(holder.split(/\s+/)[0])
      if (pid && alive(pid)) {
        throw new LabError('locked', `another lab operation is running (${holder.trim()})`, `wait for it to finish, or remove ${lockDir} if it is gone`)
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
