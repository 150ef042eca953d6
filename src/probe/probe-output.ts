/**
 * The JSON document the facts probe prints (src/probe/node-probe.ts), checked as it arrives: a node
 * runs a program we sent, but what comes back is still a document from outside. Types derive from
 * the schema; fields the probe adds that nothing reads (altnames, status, network mode) are dropped.
 */
import { z } from 'zod'
import { checkDocument } from '../manifest/external-document.js'

const ProbeRouteSchema = z
  .object({ to: z.string(), dev: z.string().optional(), src: z.string().optional(), via: z.string().optional(), error: z.string().optional() })
  .readonly()

export const ProbeOutputSchema = z
  .object({
    errors: z.array(z.string()).readonly(),
    hostname: z.string().optional(),
    interfaces: z
      .array(z.object({ name: z.string(), up: z.boolean(), addresses: z.array(z.string()).readonly() }).readonly())
      .readonly()
      .optional(),
    default_route: ProbeRouteSchema.optional(),
    peers: z
      .array(
        z.object({ peer: z.string(), ip: z.string(), route: ProbeRouteSchema, reachable: z.boolean().nullable(), detail: z.string().optional() }).readonly(),
      )
      .readonly()
      .optional(),
    gpus: z
      .array(z.object({ index: z.number(), name: z.string(), uuid: z.string().nullish() }).readonly())
      .readonly()
      .optional(),
    container: z
      .object({
        name: z.string(),
        running: z.boolean(),
        image_ref: z.string().nullish(),
        image_id: z.string().nullish(),
        env: z.record(z.string(), z.string()).readonly(),
        inside: z
          .object({
            python: z.string().optional(),
            ray: z.string().optional(),
            vllm: z.string().optional(),
            vllm_ip: z.string().optional(),
            vllm_ip_source: z.string().optional(),
            ray_node_ip: z.string().optional(),
          })
          .readonly()
          .optional(),
      })
      .readonly()
      .nullish(),
    /** `ray.nodes()` as the head's container printed it; parsed by the preflight's Ray parser. */
    ray_nodes: z.unknown().optional(),
    ray_error: z.string().optional(),
    /** Text of `ray status` in the head's container. */
    ray_status: z.string().optional(),
    /** docker itself failed (not installed, no permission, daemon down): the container cannot be checked. */
    docker_error: z.string().optional(),
  })
  .readonly()

export type ProbeOutput = z.output<typeof ProbeOutputSchema>

export type ProbeParse = { readonly ok: true; readonly output: ProbeOutput } | { readonly ok: false; readonly error: string }

/** The probe's last stdout line as its document, checked. */
export function parseProbeOutput(stdout: string): ProbeParse {
  let json: unknown
  try {
    json = JSON.parse(stdout.trim().split('\n').pop() ?? '')
  } catch {
    return { ok: false, error: `the facts probe printed no JSON: ${stdout.slice(-300)}` }
  }
  const checked = checkDocument(ProbeOutputSchema, json)
  return checked.ok
    ? { ok: true, output: checked.value }
    : { ok: false, error: `the facts probe's output does not fit its schema: ${checked.problems.join('; ')}` }
}
