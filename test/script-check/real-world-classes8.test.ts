/**
 * The class held-out8's real scripts (fixtures/real/README.md) showed, in several styles and with near misses that must
 * stay as they were: a `ray start` that is the condition of a `while`/`until` loop or of an `if` (a worker that retries
 * until its head answers, `until ray start --block --address=… --node-ip-address=…; do sleep 5; done`; a start whose
 * failure stops the script, `if ! ray start --head …; then exit 1; fi`) runs, as any command does, and was not read at all:
 * bash runs a compound command's condition list before its body (bash(1), "Compound Commands": `while list-1; do list-2;
 * done`, `if list; then list; fi`).
 */
import { describe, expect, it } from 'vitest'
import { checkLaunchScript } from '../../src/script-check/index.js'
import { applied } from './support/apply-patch.js'

const check = (text: string) => checkLaunchScript(text, { path: 'launch.sh' })
const codes = (text: string) => check(text).findings.map((f) => `${f.severity}:${f.code}@${f.evidence['Script line']?.split(':')[1]}`)
const errors = (text: string) =>
  check(text)
    .findings.filter((f) => f.severity === 'error')
    .map((f) => `${f.code}@${f.evidence['Script line']?.split(':')[1]}`)

describe("a ray start in a loop's or an if's condition is a start", () => {
  // magnusfroste/vllm-cluster-spark cluster/entrypoint.sh: the worker's `until ray start --block --address="${HEAD_IP}:6379"
  // --node-ip-address="${HOST_IP}"; do … sleep 5; done; exit 0`, the head's start after the role's `if`.
  const entrypoint = (worker: string) =>
    `if [ "$ROLE" = "worker" ]; then\n  until ${worker}; do\n    echo waiting; sleep 5\n  done\n  exit 0\nfi\nray start --head --node-ip-address=10.0.0.1 --port=6379\n`
  it("an until loop's start: the worker's VLLM_HOST_IP against its pin, with a patch that clears it", () => {
    const text = entrypoint('VLLM_HOST_IP=10.0.0.9 ray start --block --address=10.0.0.1:6379 --node-ip-address=10.0.0.2')
    expect(errors(text)).toEqual(['SCRIPT_VLLM_HOST_IP_OVERRIDE@2'])
    const r = check(text)
    expect(r.patch).toBeDefined()
    expect(errors(applied(text, r.patch!))).toEqual([])
  })
  it("a while loop's negated start, and an if's", () => {
    expect(errors('while ! VLLM_HOST_IP=10.0.0.9 ray start --address=10.0.0.1:6379 --node-ip-address=10.0.0.2; do sleep 5; done\n')).toEqual([
      'SCRIPT_VLLM_HOST_IP_OVERRIDE@1',
    ])
    // The seed incident: the head unpinned while VLLM_HOST_IP names the fabric IP.
    expect(errors('export VLLM_HOST_IP=10.0.0.1\nuntil ray start --head --port=6379; do sleep 1; done\n')).toEqual(['SCRIPT_HEAD_IDENTITY_UNPINNED@2'])
    expect(errors('export VLLM_HOST_IP=10.0.0.1\nif ! ray start --head --port=6379; then\n  exit 1\nfi\n')).toEqual(['SCRIPT_HEAD_IDENTITY_UNPINNED@2'])
  })
  it('near misses: the same starts written right give nothing; a condition that starts nothing reads no start', () => {
    expect(errors(entrypoint('ray start --block --address=10.0.0.1:6379 --node-ip-address=10.0.0.2'))).toEqual([])
    expect(codes('until ray start --block --address=10.0.0.1:6379 --node-ip-address=10.0.0.2; do sleep 5; done\n')).toEqual([])
    expect(errors('export VLLM_HOST_IP=10.0.0.1\nif ! ray start --head --node-ip-address=10.0.0.1 --port=6379; then exit 1; fi\n')).toEqual([])
    // `ray status` in the condition is no start; the start in the body is read as before.
    expect(codes('if ! ray status >/dev/null 2>&1; then\n  ray start --head --node-ip-address=10.0.0.1\nfi\n')).toEqual([])
    // A `while read` fan-out: the condition reads a line, the body's ssh start is the worker's, as before.
    expect(errors('while read -r h; do\n  ssh -n "$h" "ray start --address=10.0.0.1:6379"\ndone < peers\n')).toEqual([])
    // An echo of the words in the condition is no start.
    expect(codes('while ! echo "ray start --head"; do sleep 1; done\n')).toEqual(['warning:SCRIPT_NO_RAY_START@1'])
  })
})
