import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { ok } from '../../src/result/result.js'
import { expectationFromManifest } from '../../src/manifest/expectation.js'
import { parseManifest } from '../../src/manifest/load-manifest.js'
import { runChecks } from '../../src/preflight/checks/index.js'
import { gatherFacts } from '../../src/preflight/gather/gather.js'
import type { RunResult, Transport } from '../../src/transport/transport.js'

const { manifest } = parseManifest(readFileSync('src/manifest/examples/dgx-spark-pair.yml', 'utf8'), 'm.yml')
const m = manifest!

/** What the probe prints on each node of a healthy pair, right after the worker joined. */
function probeOutput(node: string): string {
  const fabric = node === 'spark-a' ? '192.168.200.12' : '192.168.200.13'
  const base = {
    errors: [],
    hostname: node,
    interfaces: [{ name: 'enp1s0f1np1', up: true, addresses: [`${fabric}/24`] }],
    peers: [],
    gpus: [{ index: 0, name: 'NVIDIA GB10' }],
    container: {
      name: 'vllm-ray',
      running: true,
      imageId: 'sha256:abc',
      env: { VLLM_HOST_IP: fabric, NCCL_SOCKET_IFNAME: 'enp1s0f1np1', GLOO_SOCKET_IFNAME: 'enp1s0f1np1' },
      versions: { python: '3.12.3', ray: '2.55.1', vllm: '0.17.1' },
      vllmIp: fabric,
      vllmIpSource: 'VLLM_HOST_IP',
    },
  }
  if (node !== 'spark-a') return JSON.stringify(base)
  return JSON.stringify({
    ...base,
    rayNodes: [
      { NodeID: 'a', Alive: true, NodeManagerAddress: '192.168.200.12', Resources: { GPU: 1, 'node:__internal_head__': 1, 'node:192.168.200.12': 1 } },
      { NodeID: 'b', Alive: true, NodeManagerAddress: '192.168.200.13', Resources: { GPU: 1, 'node:192.168.200.13': 1 } },
    ],
    // The autoscaler's snapshot has not seen the worker yet: 1 GPU in total.
    rayStatus: [
      '======== Autoscaler status ========',
      'Node status',
      'Active:',
      ' 1 node_a',
      'Resources',
      'Total Usage:',
      ' 0.0/1.0 GPU',
      'Pending Demands:',
      ' (no resource demands)',
      '',
    ].join('\n'),
  })
}

const fake = (node: string): Transport => ({
  label: node,
  run: async (): Promise<RunResult> => ({ code: 0, signal: null, stdout: probeOutput(node), stderr: '', durationMs: 1, timedOut: false }),
  close: async () => {},
})

describe('live facts: ray.nodes() is the source of truth for resources, ray status adds totals and pending demands', () => {
  it('a lagging ray status total does not turn into a GPU shortfall', async () => {
    const { facts } = await gatherFacts(m, { transportFor: async (n) => ok(fake(n.name)) })
    expect(facts.ray?.totals).toEqual({ GPU: 1 })
    expect(facts.ray?.pendingDemands).toEqual([])
    expect(facts.ray?.nodes.filter((n) => n.alive)).toHaveLength(2)
    expect(runChecks(facts, expectationFromManifest(m)).filter((f) => f.severity !== 'info')).toEqual([])
  })
})
