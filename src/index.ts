import * as core from '@actions/core'
import { run } from './action/main.js'
import { isPostPhase, runPost } from './action/post-lock.js'
import { UNSETTLED_MESSAGE, failIfUnsettled } from './tasks/unsettled.js'

// The same bundle is the main step and the post step (action.yml runs.post).
void failIfUnsettled(isPostPhase() ? runPost() : run(), () => core.setFailed(UNSETTLED_MESSAGE))
