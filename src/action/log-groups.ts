import type { RolloutStage } from '../deploy/rollout.js'

/**
 * Flat log groups from nested stages (GitHub cannot nest groups): a stage that starts while
 * another is open closes it first.
 */
export function flatGroups(open: (name: string) => void, close: () => void): (stage: RolloutStage, event: 'start' | 'end') => void {
  let isOpen = false
  return (stage, event) => {
    if (isOpen) close()
    isOpen = false
    if (event === 'start') {
      open(stage)
      isOpen = true
    }
  }
}
