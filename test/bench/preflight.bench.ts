/**
 * How long the preflight takes against the lab, next to the cheapest thing it could possibly do:
 * one SSH connection plus `true` on every node, in parallel. Both are measured in the same run, so
 * the ratio holds on a noisy machine. The target: findings within 15 s of Ray being up.
 * Run: npx vitest bench --run test/bench   (brings the lab up and starts a healthy Ray cluster)
 */
import { readFileSync } from 'node:fs'
import { beforeAll, bench, describe } from 'vitest'
import { argv } from '../../src/command/shell.js'
import { labUp } from '../../src/lab/index.js'
import { loadLabManifest, runLabScenario } from '../../src/lab/scenario.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { preflightManifest } from '../../src/tasks/preflight.js'
import { SshTransport } from '../../src/transport/ssh.js'
import { sshTargetFor } from '../../src/transport/targets.js'

let manifest: Manifest
let credentials: { privateKey: string; knownHosts: string }

beforeAll(async () => {
  const info = await labUp({ nodes: 2 })
  manifest = (await loadLabManifest()).manifest
  credentials = { privateKey: readFileSync(info.sshKeyPath, 'utf8'), knownHosts: readFileSync(info.knownHostsPath, 'utf8') }
  const r = await runLabScenario('healthy')
  if (!r.execution.ok) throw new Error(`healthy scenario failed: ${r.execution.stoppedAt?.reason}`)
}, 600_000)

describe('preflight of the 2-node lab', () => {
  bench(
    'baseline: SSH connect + `true` on every node, in parallel',
    async () => {
      await Promise.all(
        manifest.nodes.map(async (n) => {
          const t = await SshTransport.connect(sshTargetFor(manifest, n, credentials))
          await t.run(argv('true'), { timeoutMs: 30_000 })
          await t.close()
        }),
      )
    },
    { iterations: 5, time: 0 },
  )
  bench(
    'preflight: facts from every node + ray.nodes() + checks',
    async () => {
      const r = await preflightManifest(manifest, { credentials })
      if (r.findings.some((f) => f.severity === 'error')) throw new Error('healthy lab gave error findings')
    },
    { iterations: 5, time: 0 },
  )
})
