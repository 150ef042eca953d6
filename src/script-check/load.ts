/**
 * The launch-script check, loaded when a command reads a script: the check and its bash parser
 * (mvdan-sh, the largest part of the bundle) are a chunk of their own (the build splits a dynamic
 * import), so a command or a deploy that reads no launch script starts without them.
 */
import type { LaunchScriptCheck, checkLaunchScript as Check } from './index.js'

export async function checkLaunchScriptWhenNeeded(...args: Parameters<typeof Check>): Promise<LaunchScriptCheck> {
  const { checkLaunchScript } = await import('./index.js')
  return checkLaunchScript(...args)
}
