/**
 * Which step of the Action this process is: the main step saves `isPost`, which only the post step
 * can read (phase detection as in actions/checkout and actions/typescript-action). A file of its
 * own so that src/index.ts can pick the step before it loads either step's code.
 */
import * as core from '@actions/core'

export const POST_STATE = 'isPost'

/** True in the post step: the main step of this action saved `isPost`. */
export const isPostPhase = (): boolean => core.getState(POST_STATE) === 'true'

/** Called first by the main step, so that the post step knows it is the post step. */
export const markMainPhase = (): void => core.saveState(POST_STATE, 'true')
