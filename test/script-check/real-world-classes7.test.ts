/**
 * The classes held-out7's real scripts (fixtures/real/README.md) showed, each in several styles and with near misses that
 * must stay as they were: a `--headless` serve that places data-parallel engines (no --nnodes/--node-rank) is vLLM's
 * data-parallel mode, not the native multi-node one (its engines meet at --data-parallel-address; --master-addr is not
 * used); ssh's options in a variable of unknown value (`ssh $SSH_OPTS "$host" "podman run … ray start …"`) are options, so the
 * remote command is read from the right word.
 */
import { describe, expect, it } from 'vitest'
import { nativeLaunchOf } from '../../src/preflight/native-launch.js'
import { checkLaunchScript } from '../../src/script-check/index.js'
import { applied } from './support/apply-patch.js'

const check = (text: string) => checkLaunchScript(text, { path: 'launch.sh' })
const errors = (text: string) =>
  check(text)
    .findings.filter((f) => f.severity === 'error')
    .map((f) => `${f.code}@${f.evidence['Script line']?.split(':')[1]}`)

describe("a headless serve that places data-parallel engines is vLLM's data-parallel mode", () => {
  // vllm-project/vllm-ascend examples/online_serving/multi_node_dp.sh: the worker's `vllm serve … --headless
  // --data-parallel-size 4 --data-parallel-size-local 2 --data-parallel-start-rank 2 --data-parallel-address $MASTER_ADDR
  // --data-parallel-rpc-port 13389`, no --nnodes/--node-rank and no --master-addr.
  const ascend = (worker: string) =>
    `local_ip=$(hostname -I | awk '{print $1}')\nif [ "$1" == "header" ]; then\n  vllm serve /m --data-parallel-size 4 --data-parallel-size-local 2 --data-parallel-address $local_ip --data-parallel-rpc-port 13389\nelse\n  vllm serve /m ${worker}\nfi\n`
  it('the worker with --data-parallel-start-rank and --data-parallel-address: no --master-addr finding', () => {
    expect(
      errors(ascend('--headless --data-parallel-size 4 --data-parallel-size-local 2 --data-parallel-start-rank 2 --data-parallel-address $MASTER_ADDR')),
    ).toEqual([])
  })
  it("in vLLM's other spellings: short options, `=` and underscores", () => {
    for (const worker of [
      '--headless -dp 4 -dpl 2 -dpr 2 -dpa $MASTER_ADDR -dpp 13389',
      '--headless --data-parallel-size=2 --data-parallel-size-local=1 --data-parallel-start-rank=1 --data-parallel-address=10.0.0.1',
      '--headless --data_parallel_size_local 1 --data_parallel_start_rank 1 --data_parallel_address 10.0.0.1',
      // kzwrime/vllm scripts/serve_headless_dp_only_template.sh: one engine a node, its rank from RANK.
      '--headless --data-parallel-size 2 --data-parallel-size-local 1 --data-parallel-start-rank $RANK --data-parallel-address 10.0.0.1',
    ])
      expect(errors(ascend(worker)), worker).toEqual([])
  })
  it('the live check reads it the same way: no native launch', () => {
    expect(
      nativeLaunchOf([
        'vllm',
        'serve',
        '/m',
        '--headless',
        '--data-parallel-size-local',
        '2',
        '--data-parallel-start-rank',
        '2',
        '--data-parallel-address',
        '10.0.0.1',
      ]),
    ).toBeUndefined()
    expect(nativeLaunchOf(['vllm', 'serve', '/m', '--headless', '--master-addr', '10.0.0.1'])).toMatchObject({ headless: true, nnodes: 1 })
  })
  it('near misses: a headless serve with no data-parallel placement, or with --nnodes/--node-rank, is still the native mode', () => {
    // A headless worker without --master-addr and no data-parallel flag: rank > 0 looks for the store on itself.
    expect(errors(ascend('--headless --tensor-parallel-size 8'))).toEqual(['SCRIPT_MASTER_ADDR_NOT_FABRIC@5'])
    // Data parallelism across nodes with each replica's TP/PP across nodes too (--nnodes): --master-addr is used.
    expect(errors(ascend('--headless --nnodes 2 --node-rank 1 --data-parallel-size 2 --data-parallel-size-local 1 --data-parallel-address 10.0.0.1'))).toEqual([
      'SCRIPT_MASTER_ADDR_NOT_FABRIC@5',
    ])
    // `--data-parallel-size` alone places nothing: the serve is still native when headless.
    expect(errors(ascend('--headless --data-parallel-size 2'))).toEqual(['SCRIPT_MASTER_ADDR_NOT_FABRIC@5'])
    expect(nativeLaunchOf(['vllm', 'serve', '/m', '--headless', '--nnodes', '2', '--node-rank', '1', '--data-parallel-address', '10.0.0.1'])).toMatchObject({
      nnodes: 2,
      nodeRank: 1,
    })
  })
})

describe("ssh's options in a variable of unknown value", () => {
  // maikzz32/strix-halo-vllm-cluster scripts/cluster_up.sh: SSH_OPTS="${SSH_OPTS:--o BatchMode=yes -o ConnectTimeout=5}",
  // `ssh_node() { …; ssh $SSH_OPTS "${TARGETS[$idx]}" "$@"; }`, then `ssh_node "$idx" "podman run -d --name '$cname' … -e …
  // '$IMAGE' ray start $* --block"` with the role in the function's arguments.
  const strix = (env: string) =>
    `IMAGE=img\nSSH_OPTS="\${SSH_OPTS:--o BatchMode=yes -o ConnectTimeout=5}"\nssh_node() {\n  local idx="$1"; shift\n  ssh $SSH_OPTS "node$idx" "$@"\n}\nstart_container() {\n  local idx="$1" cname="$2"; shift 2\n  ssh_node "$idx" "podman run -d --name '$cname' --network host \\\n    ${env}--ulimit memlock=-1 \\\n    '$IMAGE' ray start $* --block"\n}\nstart_container 0 ray-head --head --port 6379\n`
  it("a head's container given VLLM_HOST_IP and started unpinned over ssh: the seed incident, pinned by the patch", () => {
    const text = strix('-e VLLM_HOST_IP=10.0.0.1 ')
    expect(errors(text)).toEqual(['SCRIPT_HEAD_IDENTITY_UNPINNED@11'])
    const after = applied(text, check(text).patch!)
    expect(after).toContain("'$IMAGE' ray start $* --block --node-ip-address=10.0.0.1\"")
    expect(errors(after)).toEqual([])
  })
  it('written directly, with the options first: the same', () => {
    expect(errors('OPTS="${OPTS:--o BatchMode=yes}"\nssh $OPTS node1 "docker run -d -e VLLM_HOST_IP=10.0.0.1 img ray start --head --block"\n')).toEqual([
      'SCRIPT_HEAD_IDENTITY_UNPINNED@2',
    ])
    expect(errors('ssh ${SSH_FLAGS} "$HEAD" "VLLM_HOST_IP=10.0.0.1 ray start --head --port=6379"\n')).toEqual(['SCRIPT_HEAD_IDENTITY_UNPINNED@1'])
  })
  it('near misses: the published script, a pinned head, and an unknown destination stay as they were', () => {
    expect(errors(strix(''))).toEqual([])
    expect(errors(strix('-e VLLM_HOST_IP=10.0.0.1 ').replace('ray start $* --block', 'ray start $* --block --node-ip-address=10.0.0.1'))).toEqual([])
    // `ssh $HOST "cmd"`: one word after the variable, which is the destination.
    expect(errors('ssh $HOST "VLLM_HOST_IP=10.0.0.1 ray start --head"\n')).toEqual(['SCRIPT_HEAD_IDENTITY_UNPINNED@1'])
    // `ssh $HOST ray start …`: the command's words unquoted after the destination.
    expect(errors('ssh $HOST VLLM_HOST_IP=10.0.0.1 ray start --head\n')).toEqual(['SCRIPT_HEAD_IDENTITY_UNPINNED@1'])
    // A command that only prints the words starts nothing.
    expect(errors('echo ssh $OPTS node1 "VLLM_HOST_IP=10.0.0.1 ray start --head"\n')).toEqual([])
  })
})
