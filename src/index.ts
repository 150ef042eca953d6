import * as core from '@actions/core'
import * as nodeModule from 'node:module'
import { isPostPhase } from './action/phase.js'
import { UNSETTLED_MESSAGE, failIfUnsettled } from './tasks/unsettled.js'

/**
 * The one bundle (dist/index.js) is both front doors. The runner starts it directly: the Action's
 * main step, and its post step (action.yml runs.post). The CLI's bin (dist/cli/index.js, a two-line
 * file .ci/build-dist.mjs writes) sets FRONT_DOOR to "cli" before it requires the bundle.
 *
 * Each door, and each step of the Action, is a dynamic import (a chunk of the build, and each
 * command's task another, src/tasks/command-table.ts): a process parses only what it runs
 * (bench row 6, the Action's start-up).
 */
export const FRONT_DOOR = Symbol.for('vllm-ray-deploy.front-door')

/**
 * V8's code cache for the chunks this process loads (Node 22.1+; the Action runs on node24): a
 * runner that keeps its temporary directory between jobs (a self-hosted one) compiles the bundle's
 * chunks once, later starts read them compiled (bench row 6: NOTES.md gives both figures; a cold
 * start is unchanged). Node's own switches apply: NODE_COMPILE_CACHE=dir moves the cache,
 * NODE_DISABLE_COMPILE_CACHE=1 turns it off. Node 20 has no such call: nothing happens there.
 */
;(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.()

if ((globalThis as Record<symbol, unknown>)[FRONT_DOOR] === 'cli') void import('./cli.js').then((cli) => cli.startCli())
else
  void failIfUnsettled(
    isPostPhase() ? import('./action/post-lock.js').then((post) => post.runPost()) : import('./action/action-main.js').then((main) => main.run()),
    () => core.setFailed(UNSETTLED_MESSAGE),
  )
