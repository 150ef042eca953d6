import * as core from '@actions/core'
import { run } from './action/action-main.js'
import { isPostPhase, runPost } from './action/post-lock.js'
import { startCli } from './cli.js'
import { UNSETTLED_MESSAGE, failIfUnsettled } from './tasks/unsettled.js'

/**
 * The one bundle (dist/index.js) is both front doors. The runner starts it directly: the Action's
 * main step, and its post step (action.yml runs.post). The CLI's bin (dist/cli/index.js, a two-line
 * file .ci/build-dist.mjs writes) sets FRONT_DOOR to "cli" before it requires the bundle.
 */
export const FRONT_DOOR = Symbol.for('vllm-ray-deploy.front-door')

if ((globalThis as Record<symbol, unknown>)[FRONT_DOOR] === 'cli') startCli()
else void failIfUnsettled(isPostPhase() ? runPost() : run(), () => core.setFailed(UNSETTLED_MESSAGE))
