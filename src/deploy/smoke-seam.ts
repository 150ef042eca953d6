/**
 * The smoke gate's seam: the rollout calls whatever `SmokeGate` its options carry, by default the
 * full smoke test (`runSmokeGate`, src/smoke/gate.ts, the same function `vllm-ray-deploy smoke`
 * runs). Tests pass their own gate here. The input and result types are the smoke stage's own.
 */
import type { SmokeGateInput, SmokeGateResult } from '../smoke/gate.js'

export type { SmokeGateInput, SmokeGateResult }

export type SmokeGate = (input: SmokeGateInput) => Promise<SmokeGateResult>
