/** The job summary in vLLM's native mode: node rows with ranks, and a diagram without Ray. */
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { loadManifestFile } from '../../src/manifest/load-manifest.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { nodeRowsFrom } from '../../src/report/node-rows.js'
import { smokeNodeRows } from '../../src/report/smoke-summary.js'
import { renderClusterDiagram, renderSummary } from '../../src/report/summary.js'

const EXAMPLE = fileURLToPath(new URL('../../src/manifest/examples/dgx-spark-pair.yml', import.meta.url))
let mp: Manifest
let ray: Manifest

beforeAll(async () => {
  ray = (await loadManifestFile(EXAMPLE)).manifest!
  mp = { ...ray, vllm: { ...ray.vllm, executorBackend: 'mp' } }
})

describe('native-mode summary', () => {
  it('the diagram shows each node by rank, the head as store and API server, each worker joining it over the fabric; no Ray', () => {
    const d = renderClusterDiagram(nodeRowsFrom(mp, undefined, []), mp.fabric.subnet)
    expect(d).not.toMatch(/Ray/)
    expect(d).toContain('vllm serve rank 0<br/>API server + store 192.168.200.12:29501')
    expect(d).toContain('vllm serve rank 1<br/>--headless')
    expect(d).toContain('n1_vllm -->|"joins 192.168.200.12:29501 from 192.168.200.13"| n0_vllm')
    // The Ray diagram is unchanged for ray manifests.
    expect(renderClusterDiagram(nodeRowsFrom(ray, undefined, []), ray.fabric.subnet)).toContain('Ray head')
  })

  it('the smoke proof marks a node that is not in the group, in the table and the diagram', () => {
    const proof = {
      group: { store: '192.168.200.12:29501', ranksPerNode: 1, formed: false },
      serving: [
        { ip: '192.168.200.12', node: 'spark-a', bundles: 1, alive: true },
        { ip: '192.168.200.13', node: 'spark-b', bundles: 1, alive: false },
      ],
      findings: [],
    }
    const rows = smokeNodeRows(mp, proof, [])
    expect(rows.map((r) => [r.state, r.native?.joined])).toEqual([
      ['in the process group (1 rank)', true],
      ['not in the process group', false],
    ])
    const md = renderSummary({ verdict: 'failed', headline: 'smoke', nodes: rows, findings: [] })
    expect(md).toContain('| 1 ❌ not in the group | 192.168.200.12:29501 |')
    // The table speaks of ranks and the store: no Ray column, no placement-group pin.
    expect(md).toContain('| Node | Role | SSH | Fabric IP | Native rank | Rendezvous store | Image | Release | State |')
    expect(md).not.toMatch(/Ray identity|vLLM pins|node:192/)
    expect(md).toContain('class n1_vllm bad')
  })
})
