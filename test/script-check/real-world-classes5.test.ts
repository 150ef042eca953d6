/**
 * The classes held-out5's real scripts (fixtures/real/README.md) showed, each in several styles and with near
 * misses that must stay as they were: a native serve whose words are an array's (`cmd=(vllm serve … )`, appended to
 * on some paths, run by `exec "${cmd[@]}"`) is given a flag every node needs once, in the array's own assignment;
 * and an export does not reach a start that ssh runs on another host (the harness took it to; the check was right).
 */
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { loadManifestFile } from '../../src/manifest/load-manifest.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { checkLaunchScript } from '../../src/script-check/index.js'
import { applied } from './support/apply-patch.js'

let pair: Manifest
beforeAll(async () => {
  pair = (await loadManifestFile(join(__dirname, '../../src/manifest/examples/dgx-spark-pair.yml'))).manifest!
})

/** The example manifest with `n` nodes on 10.99.0.0/24: the head at 10.99.0.1, the workers from 10.99.0.3. */
function manifestOf(n: number): Manifest {
  const [head, worker] = [pair.nodes.find((x) => x.role === 'head')!, pair.nodes.find((x) => x.role === 'worker')!]
  const nodes = [
    { ...head, fabricIp: '10.99.0.1' },
    ...Array.from({ length: n - 1 }, (_, i) => ({ ...worker, name: `w${i + 1}`, fabricIp: `10.99.0.${i + 3}` })),
  ]
  return { ...pair, fabric: { ...pair.fabric, subnet: '10.99.0.0/24' }, nodes }
}

const errors = (text: string, manifest?: Manifest) =>
  checkLaunchScript(text, { path: 'launch.sh', ...(manifest ? { manifest } : {}) })
    .findings.filter((f) => f.severity === 'error')
    .map((f) => `${f.code}@${f.evidence['Script line']?.split(':')[1]}`)

/** The lines of the script a unified diff removes or changes. */
const changedLines = (diff: string): number[] => {
  const out: number[] = []
  let line = 0
  for (const l of diff.split('\n')) {
    const h = /^@@ -(\d+),/.exec(l)
    if (h) line = Number(h[1])
    else if (l.startsWith('-') && !l.startsWith('---')) out.push(line++)
    else if (l.startsWith(' ')) line++
  }
  return out
}

describe("a native serve built in an array takes a flag every node needs in the array's own assignment", () => {
  // colonel-otto/3x-dgx-spark-mesh-deepseek-v4-0731-flash scripts/launch_vllm_mp_node.sh: `cmd=(vllm serve "$MODEL" … --node-rank
  // "$RANK" --master-addr "$MASTER_ADDR" …)`, `cmd+=(--headless)` off rank 0, `cmd+=(--revision …)` when one is given, then
  // `exec "${cmd[@]}"`. Without --master-addr, the fix was appended to each path's last word (four edits, one into a
  // `extra=( … )` of EXTRA_VLLM_ARGS), four findings for one missing flag.
  const styles: { name: string; text: string; arrayEnd: number }[] = [
    {
      name: 'cmd=(vllm serve …) over several lines, cmd+=(…) in branches, exec "${cmd[@]}"',
      text: [
        'RANK=${1:?rank}',
        'cmd=(vllm serve "$MODEL"',
        '  --distributed-executor-backend mp',
        '  --nnodes 3',
        '  --node-rank "$RANK"',
        '  --master-port 29501)',
        'if [[ "$RANK" != 0 ]]; then',
        '  cmd+=(--headless)',
        'fi',
        'if [[ -n "${MODEL_REVISION:-}" ]]; then',
        '  cmd+=(--revision "$MODEL_REVISION")',
        'fi',
        'exec "${cmd[@]}"',
        '',
      ].join('\n'),
      arrayEnd: 6,
    },
    {
      name: 'local -a args=(python -m vllm.entrypoints.openai.api_server …) with a comment line, in a function, run in the background',
      text: [
        'serve() {',
        '  local -a args=(python3 -m vllm.entrypoints.openai.api_server --model "$MODEL"',
        '    # one process per node',
        '    --nnodes 2 --node-rank "$1" --tensor-parallel-size 2)',
        '  [[ "$1" == 0 ]] || args+=(--headless)',
        '  "${args[@]}" &',
        '}',
        'serve "${NODE_RANK:?}"',
        '',
      ].join('\n'),
      arrayEnd: 4,
    },
    {
      name: 'ARGS=(vllm serve … \\ continued lines) and one branch appending twice',
      text: [
        'ARGS=(vllm serve /models/m \\',
        '  --nnodes 2 \\',
        '  --node-rank "$RANK")',
        'case "$RANK" in',
        '  0) ;;',
        '  *) ARGS+=(--headless) ; ARGS+=(--api-server-count 1) ;;',
        'esac',
        'exec "${ARGS[@]}"',
        '',
      ].join('\n'),
      arrayEnd: 3,
    },
  ]
  for (const { name, text, arrayEnd } of styles)
    it(name, () => {
      const m = manifestOf(name.startsWith('cmd=') ? 3 : 2)
      const errs = errors(text, m)
      expect(errs.length, JSON.stringify(errs)).toBeGreaterThan(0)
      expect(new Set(errs), JSON.stringify(errs)).toEqual(new Set([`SCRIPT_MASTER_ADDR_NOT_FABRIC@${arrayEnd}`]))
      const r = checkLaunchScript(text, { path: 'launch.sh', manifest: m })
      expect(changedLines(r.patch!)).toEqual([arrayEnd])
      const after = applied(text, r.patch!)
      expect(after.split('\n')[arrayEnd - 1]).toMatch(/ --master-addr 10\.99\.0\.1\)$/)
      expect(errors(after, m)).toEqual([])
    })

  it('without a manifest: one finding, at the array’s own line (no fix: the head’s address is not known)', () => {
    const text = [
      'cmd=(vllm serve "$MODEL"',
      '  --nnodes 3 --node-rank "$RANK")',
      '[[ "$RANK" == 0 ]] || cmd+=(--headless)',
      '[[ -z "${REV:-}" ]] || cmd+=(--revision "$REV")',
      'exec "${cmd[@]}"',
      '',
    ].join('\n')
    expect(errors(text)).toEqual(['SCRIPT_MASTER_ADDR_NOT_FABRIC@2'])
    expect(checkLaunchScript(text, { path: 'launch.sh' }).patch).toBeUndefined()
  })

  it('near miss: the array already gives the head fabric IP as --master-addr: no error', () => {
    const text = [
      'cmd=(vllm serve "$MODEL" --nnodes 2 --node-rank "$RANK"',
      '  --master-addr 10.99.0.1 --master-port 29501)',
      '[[ "$RANK" == 0 ]] || cmd+=(--headless)',
      'exec "${cmd[@]}"',
      '',
    ].join('\n')
    expect(errors(text, manifestOf(2))).toEqual([])
  })

  it('near miss: a command that writes words of its own after the array takes the flag after them, as before', () => {
    const text = [
      'cmd=(vllm serve "$MODEL" --nnodes 2 --node-rank "$RANK")',
      '[[ "$RANK" == 0 ]] || cmd+=(--headless)',
      'exec "${cmd[@]}" --max-model-len 4096',
      '',
    ].join('\n')
    const r = checkLaunchScript(text, { path: 'launch.sh', manifest: manifestOf(2) })
    expect(changedLines(r.patch!)).toEqual([3])
    expect(applied(text, r.patch!).split('\n')[2]).toBe('exec "${cmd[@]}" --max-model-len 4096 --master-addr 10.99.0.1')
  })

  it("near miss: an array each role's branch writes whole takes the flag in each branch", () => {
    const text = [
      'if [[ "$RANK" == 0 ]]; then',
      '  cmd=(vllm serve "$MODEL" --nnodes 2 --node-rank 0)',
      'else',
      '  cmd=(vllm serve "$MODEL" --nnodes 2 --node-rank 1 --headless)',
      'fi',
      'exec "${cmd[@]}"',
      '',
    ].join('\n')
    const r = checkLaunchScript(text, { path: 'launch.sh', manifest: manifestOf(2) })
    expect(changedLines(r.patch!)).toEqual([2, 4])
    expect(errors(applied(text, r.patch!), manifestOf(2))).toEqual([])
  })
})

describe('an export does not reach a start that ssh runs on another host', () => {
  // ioannachourdaki/Apache-Spark-x-Ray-comparison rayFullCluster.sh: the head started here, then `COMMAND="ray start
  // --address=…"` run by `ssh "$WORKER" "$COMMAND"` in a loop. ssh passes none of this shell's exports to the node, so a
  // VLLM_HOST_IP exported for the head is not the worker's: no SCRIPT_WORKER_USES_HEAD_IP.
  const fanOut = (run: string) =>
    [
      'export VLLM_HOST_IP=10.99.0.1',
      'ray start --head --port=6379',
      'WORKERS=("worker-1" "worker-2")',
      'COMMAND="ray start --address=10.99.0.1:6379"',
      'for WORKER in "${WORKERS[@]}"; do',
      `    ${run}`,
      'done',
      '',
    ].join('\n')

  for (const run of ['ssh "$WORKER" "$COMMAND"', 'ssh -o BatchMode=yes "$WORKER" "$COMMAND"', 'ssh "$WORKER" "ray start --address=10.99.0.1:6379"'])
    it(`the head's export stays the head's: ${run}`, () => {
      expect(errors(fanOut(run))).toEqual(['SCRIPT_HEAD_IDENTITY_UNPINNED@2'])
    })

  it('near miss: a shell started here (bash -c "$COMMAND") inherits the export: the worker claims the head’s address', () => {
    expect(errors(fanOut('bash -c "$COMMAND"'))).toContain('SCRIPT_WORKER_USES_HEAD_IP@1')
  })
})
