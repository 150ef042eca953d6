import { run } from './action/main.js'
import { isPostPhase, runPost } from './action/post-lock.js'

// The same bundle is the main step and the post step (action.yml runs.post).
void (isPostPhase() ? runPost() : run())
