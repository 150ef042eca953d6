/**
 * The seam to the hub source: the planner of a download of model.source.hub into model.path on one
 * node, hub.ts's planHubDownload adapted to the weights stage's HubPlanner. The token (HF_TOKEN in
 * the rollout's env: the Action's hf-token input, the CLI's $HF_TOKEN or --hf-token-file) goes to
 * the node on stdin only, into a 0600 file under the cluster's state dir that the step removes.
 */
import { clusterStateDir } from '../../plan/release-commands.js'
import { imageRef } from '../../plan/node-commands.js'
import { HF_TOKEN_ENV, type HubDownloadInput, discardDownloaded, planHubDownload } from './hub.js'
import { parseHubDownload } from './hub-listing.js'
import type { HubPlanner } from './transfer.js'

export const hubPlanner: HubPlanner | undefined = (m, node, dir, env) => {
  const hub = m.model?.source.hub
  if (!hub) return []
  const token = env[HF_TOKEN_ENV]
  const input: HubDownloadInput = {
    repo: hub.repo,
    revision: hub.revision,
    dest: dir,
    image: imageRef(m),
    ...(token && { tokenFile: `${clusterStateDir(m)}/hf-token` }),
    ...(hub.endpoint && { endpoint: hub.endpoint }),
  }
  return planHubDownload(input).map((step) => ({
    cmd: step.cmd,
    description: step.description,
    cleanup: step.cleanup,
    read: (r) => parseHubDownload(input, { node: node.name, code: r.code, stdout: r.stdout, stderr: r.stderr }, token ? [token] : []),
    discard: (paths) => discardDownloaded(dir, paths),
    ...(step.stdin && token && { stdin: token }),
  }))
}
