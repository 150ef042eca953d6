/**
 * A launch script against the launch-script contract of the manifest's executor (docs/executors.md, "The
 * launch-script contract"): under `vllm.executorBackend: mp` the script starts only the container
 * (the tool runs `vllm serve --nnodes … --node-rank …` in it on every node), so a `ray start` there
 * is a Ray cluster nobody uses; under `ray` every `ray start` of a script written for this tool
 * should give Ray the manifest's GPU count (`--num-gpus="$VRD_GPUS"`): Ray counts GPUs itself only
 * where it can see them, and a node whose Ray counts none leaves vLLM's placement group waiting.
 */

import type { Manifest } from '../manifest/schema.js'
import { EVIDENCE } from '../preflight/finding.js'
import type { RayStart } from './model.js'
import type { Edit } from './patch.js'
import type { ScriptFinding } from './rules.js'

const gpusGiven = (r: RayStart): boolean => r.args.some((a) => /^--num[-_]gpus(=|$)/.test(a.val.text))

/** Append ` --num-gpus="$VRD_GPUS"` after the last argument a start written in the script itself has. */
const addNumGpus = (r: RayStart): Edit[] =>
  r.insertAt && !r.insertAt.nested ? [{ start: r.insertAt.offset, end: r.insertAt.offset, text: ' --num-gpus="$VRD_GPUS"' }] : []

export function executorFindings(starts: readonly RayStart[], manifest: Manifest | undefined, scriptText = ''): ScriptFinding[] {
  if (!manifest) return []
  const rays = starts.filter((r) => r.kind === 'ray-start')
  const where = (r: RayStart) => ({ [EVIDENCE.scriptLine]: String(r.line), 'Role (by the ray start flags)': r.head ? 'head (--head)' : 'worker (--address)' })
  if (manifest.vllm.executorBackend === 'mp')
    return rays.map((r) => ({
      code: 'SCRIPT_RAY_UNDER_MP',
      severity: 'warning',
      role: r.head ? 'head' : 'worker',
      line: r.line,
      message: `The script starts Ray at line ${r.line}, but vllm.executorBackend is mp: vLLM's native mode uses no Ray, and the tool runs vllm serve --nnodes ${manifest.nodes.length} --node-rank "$VRD_NODE_RANK" in the container on every node itself.`,
      evidence: { ...where(r), 'vllm.executorBackend': 'mp' },
      fix: `Under mp the script only starts the container (docker run -d --name "$VRD_CONTAINER" … "$VRD_IMAGE" sleep infinity); remove the ray start, or branch on "$VRD_EXECUTOR" so one script serves both executors.`,
      edits: [],
    }))
  // The contract's variables are for scripts written for this tool (they read VRD_ variables); a
  // script from elsewhere is read for its identities, and the live preflight counts its GPUs (GPU_SHORTFALL).
  if (!/\bVRD_[A-Z_]+/.test(scriptText)) return []
  return rays
    .filter((r) => !gpusGiven(r))
    .map((r) => ({
      code: 'SCRIPT_RAY_NUM_GPUS_MISSING',
      severity: 'warning',
      role: r.head ? 'head' : 'worker',
      line: r.line,
      message: `The ray start at line ${r.line} does not give --num-gpus: Ray then counts the GPUs it can see itself, and a node where it sees none (a container without the GPUs, a CUDA_VISIBLE_DEVICES it was not given) joins with 0 GPUs, which leaves vLLM's placement group waiting.`,
      evidence: where(r),
      fix: 'Add --num-gpus="$VRD_GPUS" to this ray start (VRD_GPUS is the node\'s nodes[].gpus), or the node\'s GPU count.',
      edits: addNumGpus(r),
    }))
}
