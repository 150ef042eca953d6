/** The JSON document the facts probe prints (src/probe/node-probe.ts), as it arrives. */

export interface ProbeRoute {
  readonly to: string
  readonly dev?: string
  readonly src?: string
  readonly via?: string
  readonly error?: string
}

export interface ProbeOutput {
  readonly errors: readonly string[]
  readonly hostname?: string
  readonly interfaces?: readonly { readonly name: string; readonly up: boolean; readonly addresses: readonly string[] }[]
  readonly default_route?: ProbeRoute
  readonly peers?: readonly { readonly peer: string; readonly ip: string; readonly route: ProbeRoute; readonly reachable: boolean | null; readonly detail?: string }[]
  readonly gpus?: readonly { readonly index: number; readonly name: string; readonly uuid?: string | null }[]
  readonly container?: {
    readonly name: string
    readonly running: boolean
    readonly image_ref?: string
    readonly image_id?: string
    readonly env: Readonly<Record<string, string>>
    readonly inside?: { readonly python?: string; readonly ray?: string; readonly vllm?: string; readonly vllm_ip?: string; readonly vllm_ip_source?: string; readonly ray_node_ip?: string }
  } | null
  readonly ray_nodes?: unknown
  readonly ray_error?: string
  /** Text of `ray status` in the head's container. */
  readonly ray_status?: string
  /** docker itself failed (not installed, no permission, daemon down): the container cannot be checked. */
  readonly docker_error?: string
}

export type ProbeParse = { readonly ok: true; readonly output: ProbeOutput } | { readonly ok: false; readonly error: string }

/** The probe's last stdout line as its document. */
export function parseProbeOutput(stdout: string): ProbeParse {
  try {
    return { ok: true, output: JSON.parse(stdout.trim().split('\n').pop() ?? '') as ProbeOutput }
  } catch {
    return { ok: false, error: `the facts probe printed no JSON: ${stdout.slice(-300)}` }
  }
}
