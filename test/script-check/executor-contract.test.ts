/**
 * The launch-script contract per executor (issue 34): under mp a script starts only the container
 * (a ray start there is SCRIPT_RAY_UNDER_MP, and no ray start is no SCRIPT_NO_RAY_START); under ray a
 * script written for the contract gives every ray start --num-gpus (SCRIPT_RAY_NUM_GPUS_MISSING, with
 * the patch); the example that serves both executors has no finding under either.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parseManifest } from '../../src/manifest/load-manifest.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { checkLaunchScript } from '../../src/script-check/index.js'

const EXAMPLE = 'src/manifest/examples/launch-both-executors.sh'
const seed = readFileSync('src/manifest/examples/dgx-spark-pair.yml', 'utf8').replace(
  /launch:\n {2}mode: builtin\n/,
  'launch:\n  mode: script\n  path: launch.sh\n  allowOutsideRepository: true\n',
)
const manifest = (executor: 'ray' | 'mp'): Manifest => {
  const r = parseManifest(executor === 'mp' ? seed.replace(/^vllm:\n/m, 'vllm:\n  executorBackend: mp\n') : seed, 'cluster.yml')
  expect(r.errors).toEqual([])
  return r.manifest!
}
const codes = (text: string, executor: 'ray' | 'mp') =>
  checkLaunchScript(text, { path: 'launch.sh', manifest: manifest(executor) }).findings.map((f) => `${f.code}:${f.severity}`)

const contractRay = (numGpus: string) =>
  [
    '#!/bin/bash',
    'if [ "$VRD_ROLE" = head ]; then',
    `  docker run -d --name "$VRD_CONTAINER" --network host -e VLLM_HOST_IP="$VRD_NODE_IP" "$VRD_IMAGE" ray start --head --port="$VRD_RAY_PORT" --node-ip-address="$VRD_NODE_IP"${numGpus} --block`,
    'else',
    `  docker run -d --name "$VRD_CONTAINER" --network host -e VLLM_HOST_IP="$VRD_NODE_IP" "$VRD_IMAGE" ray start --address="$VRD_HEAD_IP:$VRD_RAY_PORT" --node-ip-address="$VRD_NODE_IP"${numGpus} --block`,
    'fi',
    '',
  ].join('\n')

describe('the launch-script contract per executor', () => {
  it('the example serving both executors has no finding under ray or mp', () => {
    const text = readFileSync(EXAMPLE, 'utf8')
    expect(codes(text, 'ray')).toEqual([])
    expect(codes(text, 'mp')).toEqual([])
  })

  it('under mp, a script that starts Ray is warned about at each ray start; one that starts only the container is not', () => {
    const r = checkLaunchScript(contractRay(' --num-gpus="$VRD_GPUS"'), { path: 'launch.sh', manifest: manifest('mp') })
    expect(r.findings.filter((f) => f.code === 'SCRIPT_RAY_UNDER_MP').map((f) => [f.severity, f.node, f.evidence['Script line']])).toEqual([
      ['warning', 'spark-a', 'launch.sh:3'],
      ['warning', 'spark-b', 'launch.sh:5'],
    ])
    const containerOnly = '#!/bin/bash\ndocker run -d --name "$VRD_CONTAINER" --network host --entrypoint sleep "$VRD_IMAGE" infinity\n'
    expect(codes(containerOnly, 'mp')).toEqual([])
    // Under ray the same script is the one without any ray start.
    expect(codes(containerOnly, 'ray')).toEqual(['SCRIPT_NO_RAY_START:warning'])
  })

  it('under ray, a contract script without --num-gpus is warned about with the patch that adds it', () => {
    const r = checkLaunchScript(contractRay(''), { path: 'launch.sh', manifest: manifest('ray') })
    const missing = r.findings.filter((f) => f.code === 'SCRIPT_RAY_NUM_GPUS_MISSING')
    expect(missing.map((f) => [f.severity, f.node])).toEqual([
      ['warning', 'spark-a'],
      ['warning', 'spark-b'],
    ])
    expect(r.patched).toBeDefined()
    expect(codes(r.patched!, 'ray')).toEqual([])
    expect(r.patched).toContain('--num-gpus="$VRD_GPUS"')
    expect(codes(contractRay(' --num-gpus="$VRD_GPUS"'), 'ray')).toEqual([])
    // Without a manifest the executor is unknown: no contract rule.
    expect(checkLaunchScript(contractRay(''), { path: 'launch.sh' }).findings.map((f) => f.code)).not.toContain('SCRIPT_RAY_NUM_GPUS_MISSING')
  })
})
