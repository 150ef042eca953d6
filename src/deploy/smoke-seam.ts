/**
 * The smoke gate's seam: the rollout calls whatever `SmokeGate` its options carry, by default the
 * full smoke test (`runSmokeGate`, src/smoke/gate.ts, the same function `vllm-ray-deploy smoke`
 * runs). Tests pass their own gate here.
 */
import type { Manifest } from '../manifest/schema.js'
import type { Finding } from '../preflight/finding.js'
import type { Transport } from '../transport/transport.js'

export interface SmokeGateInput {
  readonly manifest: Manifest
  readonly transports: ReadonlyMap<string, Transport>
  readonly env: NodeJS.ProcessEnv
  readonly onProgress?: (m: string) => void
}

export interface SmokeGateResult {
  readonly ok: boolean
  readonly findings: readonly Finding[]
  readonly text: string
  readonly outputs: Readonly<Record<string, string>>
  readonly summary: string
}

export type SmokeGate = (input: SmokeGateInput) => Promise<SmokeGateResult>
