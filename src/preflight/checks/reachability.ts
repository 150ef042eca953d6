/** Can we see the cluster at all: node facts gathered, Ray queried. */

import type { Finding } from '../finding.js'
import type { CheckContext } from './check-context.js'

/** NODE_UNREACHABLE: the facts script did not run on a node; its other checks are skipped. */
export function nodeUnreachable(ctx: CheckContext): Finding[] {
  return ctx.facts.nodes
    .filter((f) => !f.ok)
    .map(
      (f): Finding => ({
        code: 'NODE_UNREACHABLE',
        severity: 'error',
        node: f.node,
        message: `Could not gather facts from ${f.node}, so the checks that need them were skipped for it.`,
        evidence: {
          'SSH host': f.sshHost ?? ctx.expected?.nodes.find((n) => n.name === f.node)?.sshHost ?? '(unknown)',
          Error: f.error ?? '(no error text)',
        },
        fix: `Make ${f.node} reachable over SSH (host, port, user, key, jump host) and able to run the facts script, then run the preflight again.`,
      }),
    )
}

/** RAY_UNAVAILABLE: Ray was asked and did not answer; Ray comparisons are skipped. */
export function rayUnavailable(ctx: CheckContext): Finding[] {
  const ray = ctx.facts.ray
  if (!ray?.error) return []
  const head = ctx.head
  const where = head ? `on ${head.name}` : 'on the head'
  const container = ctx.expected?.containerName ?? head?.facts?.container?.name
  const fabricIp = head?.expected?.fabricIp
  return [
    {
      code: 'RAY_UNAVAILABLE',
      severity: 'error',
      node: head?.name ?? null,
      message: `Ray's view of the cluster could not be read ${where}, so Ray-based checks were skipped.`,
      evidence: { 'Ray query': ray.source, Error: ray.error },
      fix: `Start Ray ${where}${container ? ` inside container ${container}` : ''} (ray start --head${fabricIp ? ` --node-ip-address=${fabricIp}` : ' --node-ip-address=<fabric IP>'} --port=6379) and make sure the ray package is installed there, then run the preflight again.`,
    },
  ]
}
