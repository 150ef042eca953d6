/**
 * The rollout's progress lines: `[+12.3s] stage: message`, each labelled once with the stage it
 * belongs to. The stage follows the async call chain (AsyncLocalStorage), so two stages that run
 * at once each keep their own label, and a stage that ends gives the label back to the one around
 * it (a rollback's `activate` lines are not labelled with the last phase the rollback ran).
 */
import { AsyncLocalStorage } from 'node:async_hooks'

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * One line: a message that already names its stage (`smoke: ...`, or after a node tag
 * `[spark-a] release-files: ...`) is not labelled twice.
 */
export function progressLine(elapsedMs: number, stage: string, message: string): string {
  const s = (elapsedMs / 1000).toFixed(1).padStart(6)
  const named = new RegExp(`^(\\[[^\\]\\n]+\\] )?${escapeRegExp(stage)}: `).exec(message)
  const text = named ? `${named[1] ?? ''}${message.slice(named[0].length)}` : message
  return `[+${s}s] ${stage}: ${text}`
}

export class StageProgress<Stage extends string> {
  /** The stage of each call chain, as a frame a phase entered inside it can relabel. */
  private readonly current = new AsyncLocalStorage<{ stage: Stage }>()
  readonly started = Date.now()

  /** `last`: the label of a line from outside every stage, until a stage is entered (then the last one entered). */
  constructor(
    private readonly sink: ((line: string) => void) | undefined,
    private last: Stage,
  ) {}

  /** Run `fn` as `stage`: every `progress` line from its async call chain is labelled with it. */
  within<T>(stage: Stage, fn: () => Promise<T>): Promise<T> {
    this.last = stage
    return this.current.run({ stage }, fn)
  }

  /**
   * A stage entered without a call chain of its own (the executor's phases): it labels the rest of
   * the caller's stage, until that stage ends (then the label is the one around it again).
   */
  entered(stage: Stage): void {
    const frame = this.current.getStore()
    if (frame) frame.stage = stage
    this.last = stage
  }

  /** The stage of the calling async chain (outside every stage: the last one entered). */
  get stage(): Stage {
    return this.current.getStore()?.stage ?? this.last
  }

  /** A line labelled with the caller's stage. */
  readonly progress = (m: string): void => this.say(this.stage, m)

  /** A line labelled with `stage`, whatever the caller's stage is. */
  say(stage: Stage, m: string): void {
    this.sink?.(progressLine(Date.now() - this.started, stage, m))
  }
}
