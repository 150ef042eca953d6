/**
 * The native mode's incident analogues as launch scripts (launch.mode: script, vllm.executorBackend
 * mp), written the way per-node wrapper scripts for `vllm serve --nnodes` are: one section per role,
 * the container held by `sleep infinity` and `vllm serve` started in it with `docker exec`, its
 * flags literal. The lab's stand-in runs them as vLLM would.
 * - `master-mgmt`: `--master-addr` is the head's management IP (the SSH address), not its fabric IP.
 * - `rank-duplicate`: the worker's section is the head's line copied (`--node-rank 0`, no
 *   `--headless`): both nodes run as node rank 0.
 */
import type { Manifest } from '../../../src/manifest/schema.js'

export type Analogue = 'master-mgmt' | 'rank-duplicate'

export function analogueScript(kind: Analogue, m: Manifest): string {
  const head = m.nodes.find((n) => n.role === 'head')!
  const master = kind === 'master-mgmt' ? head.ssh.host! : head.fabricIp
  const v = m.vllm
  const serve = (rank: number, headless: boolean) =>
    [
      `  docker exec --detach "$VRD_CONTAINER" vllm serve ${v.model} --tensor-parallel-size ${v.tensorParallelSize} --distributed-executor-backend mp \\`,
      `    --nnodes ${m.nodes.length} --node-rank ${rank} --master-addr "$MASTER_ADDR" --master-port ${v.masterPort}${headless ? ' --headless' : ''} \\`,
      `    --host 0.0.0.0 --port ${v.port} --served-model-name ${v.servedModelName}`,
    ].join('\n')
  return `#!/usr/bin/env bash
# Lab native-mode analogue "${kind}" (test/lab-scenarios/native-analogues.e2e.test.ts).
set -euo pipefail
MASTER_ADDR=${master}
docker run --detach --name "$VRD_CONTAINER" --network host --gpus all --shm-size 1g \\
  -e NCCL_SOCKET_IFNAME="$VRD_FABRIC_IFNAME" -e GLOO_SOCKET_IFNAME="$VRD_FABRIC_IFNAME" \\
  --entrypoint sleep "$VRD_IMAGE" infinity
if [ "$VRD_ROLE" = head ]; then
${serve(0, false)}
else
${kind === 'rank-duplicate' ? serve(0, false) : serve(1, true)}
fi
`
}
