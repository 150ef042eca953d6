/**
 * The runner's `docker save` archive of an image, for relay: streamed from `docker save` and, where
 * a cache directory is given and has the room, written there on the way, so the next relay of the
 * same image (by image ID and ref) sends the file and runs no `docker save` at all.
 *
 * Why: docker's save (moby's image/tarexport, the classic image store) writes every layer of the
 * image into a temp directory before it sends the first byte, then tars that directory again into
 * the stream. On the lab the 416 MB stand-in took 4.5–6.5 s of one core before its first byte (the
 * runner's dockerd read 820 MB and wrote 830 MB for it), and no node had anything to do meanwhile
 * (test/bench/NOTES.md, "Issue 40: relay's time, measured"). A relay again to new or cold nodes, a
 * deploy retried after a cut stream, or a second cluster from the same runner skips all of it.
 *
 * Kept: one archive per cache directory (the newest); written only when the file system keeps at
 * least 2 GiB and a tenth of the image free beyond it; renamed into place only after `docker save`
 * exited 0 and its whole output was written; a cached archive that a relay failed with is removed.
 */
import { createReadStream, createWriteStream } from 'node:fs'
import { mkdir, readdir, rename, rm, stat, statfs } from 'node:fs/promises'
import { homedir } from 'node:os'
import { createHash, randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { PassThrough, type Readable } from 'node:stream'
import { argv } from '../command/shell.js'
import { LocalTransport } from '../transport/local.js'
import type { RunResult } from '../transport/transport.js'

/** Where the runner keeps the archive: $XDG_CACHE_HOME or ~/.cache, then vllm-ray-deploy/images. */
export const runnerArchiveDir = (env: NodeJS.ProcessEnv = process.env): string =>
  join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'vllm-ray-deploy', 'images')

/** The archive's file name: the image ID and the ref (the archive names its tag, which `docker load` applies). */
export const runnerArchiveName = (imageId: string, ref: string): string =>
  `${imageId.replace(/^sha256:/, '')}-${createHash('sha256').update(ref).digest('hex').slice(0, 12)}.tar`

const ARCHIVE = /^[0-9a-f]{64}-[0-9a-f]{12}\.tar$/
const PARTIAL = /^[0-9a-f]{64}-[0-9a-f]{12}\.tar\.[0-9a-z-]+\.partial$/
/** A partial older than this was left by a run that died: removed by the next archive kept. */
const STALE_PARTIAL_MS = 6 * 3600_000
const GiB = 1024 ** 3

export interface RunnerArchive {
  /** The archive's bytes: the cached file, or `docker save`'s output. */
  readonly stdout: Readable
  /** Settles when the file was read to its end (code 0), could not be (1), or was cut off (null); or as `docker save` exited. */
  readonly done: Promise<RunResult>
  /** The cached file read instead of `docker save`, if one was. */
  readonly cachedFile: string | undefined
  /** Whether `docker save`'s output is being written into the cache. */
  readonly caching: boolean
  /**
   * After the delivery: an archive written on the way is kept when the save exited 0 and every byte
   * was written (the older archive removed), else removed; a cached archive the delivery failed
   * with is removed. Never throws.
   */
  settle(delivered: boolean): Promise<void>
}

const result = (code: number | null, stderr: string, started: number): RunResult => ({
  code,
  signal: null,
  stdout: '',
  stderr,
  durationMs: Date.now() - started,
  timedOut: false,
})

/** The cached archive as a stream: done settles 0 at its end, 1 on a read error, null when it was cut off. */
function fromFile(file: string): RunnerArchive {
  const started = Date.now()
  const stdout = createReadStream(file, { highWaterMark: 1 << 20 })
  const done = new Promise<RunResult>((resolve) => {
    stdout.on('error', (err) => resolve(result(1, `reading the runner's archive ${file}: ${err.message}`, started)))
    stdout.on('close', () => resolve(stdout.readableEnded ? result(0, '', started) : result(null, 'the archive was not read to its end', started)))
  })
  return {
    stdout,
    done,
    cachedFile: file,
    caching: false,
    settle: async (delivered) => {
      if (!delivered) await rm(file, { force: true }).catch(() => undefined)
    },
  }
}

/** Room for the archive: the image's size and a tenth more, and 2 GiB left over. */
async function hasRoom(dir: string, docker: string, image: string): Promise<boolean> {
  try {
    const size = await new LocalTransport().run(argv(docker, 'image', 'inspect', '--format', '{{.Size}}', image), { timeoutMs: 30_000 })
    const bytes = Number(size.stdout.trim())
    if (size.code !== 0 || !Number.isFinite(bytes) || bytes <= 0) return false
    await mkdir(dir, { recursive: true })
    const fs = await statfs(dir)
    return fs.bavail * fs.bsize >= bytes * 1.1 + 2 * GiB
  } catch {
    return false
  }
}

/** Remove every other archive in `dir`, and partials a dead run left. */
async function prune(dir: string, keep: string): Promise<void> {
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const path = join(dir, name)
    if (ARCHIVE.test(name) && path !== keep) await rm(path, { force: true }).catch(() => undefined)
    else if (PARTIAL.test(name)) {
      const s = await stat(path).catch(() => undefined)
      if (s && Date.now() - s.mtimeMs > STALE_PARTIAL_MS) await rm(path, { force: true }).catch(() => undefined)
    }
  }
}

/**
 * The archive of `image` (image ID `imageId`) from the runner's docker `docker`: the cached file in
 * `dir` when there is one, else `docker save`, written into `dir` on the way when it has the room.
 * Without `dir`: `docker save` alone.
 */
export async function openRunnerArchive(docker: string, image: string, imageId: string, dir: string | undefined): Promise<RunnerArchive> {
  const file = dir ? join(dir, runnerArchiveName(imageId, image)) : undefined
  if (file) {
    const s = await stat(file).catch(() => undefined)
    if (s?.isFile() && s.size > 0) return fromFile(file)
  }
  // The save first: the room is asked while docker writes its temp directory (its output waits, unread, in the pipe).
  const save = new LocalTransport().stream(argv(docker, 'save', image))
  const room = dir ? await hasRoom(dir, docker, image) : false
  if (!file || !room) return { ...save, cachedFile: undefined, caching: false, settle: async () => undefined }
  const partial = `${file}.${process.pid}-${randomBytes(4).toString('hex')}.partial`
  // A deep buffer: with the default 16 KiB every 64 KiB read of the save waited for its own write on
  // libuv's thread pool, and under load that round trip, not the disk, paced the whole relay.
  const out = createWriteStream(partial, { highWaterMark: 8 << 20 })
  let written = true
  const finished = new Promise<boolean>((resolve) => {
    out.on('error', () => {
      // The disk filled or went away: the delivery goes on without the cache.
      written = false
      save.stdout.unpipe(out)
      resolve(false)
    })
    out.on('finish', () => resolve(written))
    out.on('close', () => resolve(false))
  })
  // The save's output into the file and into what the caller reads, both piped here at once (no byte
  // flows to one before the other is attached); the caller cutting its stream off cuts the save.
  const stdout = new PassThrough({ highWaterMark: 1 << 20 })
  stdout.on('close', () => {
    if (!stdout.readableEnded) save.stdout.destroy()
  })
  save.stdout.pipe(out)
  save.stdout.pipe(stdout)
  return {
    stdout,
    done: save.done,
    cachedFile: undefined,
    caching: true,
    settle: async () => {
      const saved = await save.done
      // Read to its end, the save has ended the file too (pipe), which then finishes or fails; else the file is cut.
      const ended = saved.code === 0 && save.stdout.readableEnded
      if (!ended) out.destroy()
      const whole = ended && (await finished)
      try {
        if (whole) {
          await rename(partial, file)
          await prune(dir!, file)
        } else await rm(partial, { force: true })
      } catch {
        await rm(partial, { force: true }).catch(() => undefined)
      }
    },
  }
}
