/**
 * Host checks: before a deploy changes anything, one SSH exec per node, all at once, of the node
 * probe in its host mode (src/plan/host-check-commands.ts). Its output is the node facts document;
 * the checks are the registry's `before-change` entries (src/preflight/checks/index.ts): docker
 * usable, every fabric interface present and up with the node's fabric IP, one fabric MTU, the link
 * speed, RDMA devices for NCCL_IB_HCA, the ports Ray and NCCL need, GPUs visible, node drift, unified
 * memory, disk space for the image, and for `relay` head → worker SSH over the fabric. The preflight
 * runs the same entries on the facts it gathers.
 */
import { expectationFromManifest } from '../manifest/expectation.js'
import { boundedTimeoutSeconds } from '../manifest/ssh-settings.js'
import type { Manifest } from '../manifest/schema.js'
import { hostProbeCmd } from '../plan/host-check-commands.js'
import { headOf } from '../plan/node-commands.js'
import { PROBE_TIMEOUT_SECONDS } from '../probe/probe-command.js'
import { runChecks } from '../preflight/checks/index.js'
import { sortFindings } from '../preflight/offline-diagnosis.js'
import type { FactsBundle, NodeFacts } from '../preflight/facts.js'
import type { Finding } from '../preflight/finding.js'
import { failedFacts, nodeFactsFromProbe } from '../preflight/gather/gather.js'
import { type Transport, outcome } from '../transport/transport.js'

export interface HostCheckOptions {
  /** image.distribution relay: check head → worker SSH over the fabric. */
  readonly relay?: boolean
  /** Bytes the image needs under docker's data root on each node. */
  readonly imageBytes?: number
}

/** Every node's host facts, gathered at once over the given transports. */
export async function gatherHostFacts(m: Manifest, transports: ReadonlyMap<string, Transport>, opts: HostCheckOptions = {}): Promise<FactsBundle> {
  const head = headOf(m)
  const workers = m.nodes.length - 1
  const nodes = await Promise.all(
    m.nodes.map(async (node): Promise<NodeFacts> => {
      const t = transports.get(node.name)
      if (!t) return failedFacts(node, 'no connection to this node')
      const relay = Boolean(opts.relay) && node.name === head.name
      const probe = hostProbeCmd(m, node, relay)
      const timeoutMs = boundedTimeoutSeconds(m.ssh, PROBE_TIMEOUT_SECONDS) * 1000 + (relay ? workers * 15_000 : 0)
      const r = await t.run(probe.cmd, { stdin: probe.stdin, timeoutMs })
      if (r.code !== 0) return failedFacts(node, `host probe on ${t.label}: ${outcome(r)}: ${(r.stderr || r.stdout).trim().slice(-300)}`)
      return nodeFactsFromProbe(node, r.stdout).facts
    }),
  )
  return { schemaVersion: 1, gatheredAt: new Date().toISOString(), cluster: m.cluster, nodes }
}

/** The registry's `before-change` findings for these host facts (pure). */
export function evaluateHostChecks(m: Manifest, facts: FactsBundle, opts: HostCheckOptions = {}): Finding[] {
  return sortFindings(
    runChecks(facts, expectationFromManifest(m), { stages: ['before-change'], ...(opts.imageBytes !== undefined && { imageBytes: opts.imageBytes }) }),
  )
}

/** The deploy's host checks: gather, then evaluate. The deploy's call site and shape are unchanged. */
export async function hostChecks(m: Manifest, transports: ReadonlyMap<string, Transport>, opts: HostCheckOptions): Promise<Finding[]> {
  return evaluateHostChecks(m, await gatherHostFacts(m, transports, opts), opts)
}
