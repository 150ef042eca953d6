/**
 * The smoke gate's seam. The rollout calls whatever `SmokeGate` its options carry; the real smoke
 * test (src/smoke/, its own issue) plugs in here. Until it does, `builtinSmokeGate` sends the
 * manifest's first smoke prompt once with curl on the head (through the node's transport, to
 * 127.0.0.1) and checks that the server answers with a completion.
 */
import { argv } from '../command/shell.js'
import type { Manifest } from '../manifest/schema.js'
import type { Finding } from '../preflight/finding.js'
import { headOf } from '../plan/node-commands.js'
import { type Transport, outcome } from '../transport/transport.js'

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

/** The request the built-in gate sends (pure; exported for tests). */
export function builtinSmokeRequest(m: Manifest): { url: string; body: string } {
  const p = m.smoke.prompts[0]!
  const model = m.vllm.servedModelName ?? m.vllm.model
  const base = `http://127.0.0.1:${m.vllm.port}`
  return p.chat
    ? { url: `${base}/v1/chat/completions`, body: JSON.stringify({ model, messages: [{ role: 'user', content: p.prompt }], max_tokens: p.maxTokens, temperature: 0 }) }
    : { url: `${base}/v1/completions`, body: JSON.stringify({ model, prompt: p.prompt, max_tokens: p.maxTokens, temperature: 0 }) }
}

/** Judges the server's answer to the built-in request (pure; exported for tests). */
export function judgeSmokeAnswer(m: Manifest, body: string): { ok: boolean; text: string; problem?: string } {
  const p = m.smoke.prompts[0]!
  let doc: { choices?: { text?: string; message?: { content?: string } }[]; usage?: { completion_tokens?: number } }
  try {
    doc = JSON.parse(body) as typeof doc
  } catch {
    return { ok: false, text: '', problem: `the answer is not JSON: ${body.slice(0, 200)}` }
  }
  const choice = doc.choices?.[0]
  const text = choice?.text ?? choice?.message?.content
  if (typeof text !== 'string') return { ok: false, text: '', problem: `the answer has no choices[0] text: ${body.slice(0, 200)}` }
  const tokens = doc.usage?.completion_tokens
  const min = p.expect.minCompletionTokens
  if (min !== undefined && (tokens ?? 0) < min) return { ok: false, text, problem: `${tokens ?? 0} completion tokens, expected at least ${min}` }
  if (p.expect.contains !== undefined && !text.includes(p.expect.contains)) return { ok: false, text, problem: `the answer does not contain ${JSON.stringify(p.expect.contains)}` }
  return { ok: true, text }
}

export const builtinSmokeGate: SmokeGate = async ({ manifest: m, transports, onProgress }) => {
  const head = headOf(m)
  const t = transports.get(head.name)
  const req = builtinSmokeRequest(m)
  const fail = (problem: string, evidence: Record<string, string>): SmokeGateResult => {
    const finding: Finding = {
      code: 'SMOKE_FAILED',
      severity: 'error',
      node: head.name,
      message: `The smoke request to ${req.url} on ${head.name} failed: ${problem}.`,
      evidence: { request: `POST ${req.url} ${req.body}`, ...evidence },
      fix: `Read the vLLM log on ${head.name} (docker exec ${m.container.name} cat /tmp/vllm-ray-deploy-serve.log) and check vllm.model / vllm.servedModelName.`,
    }
    return { ok: false, findings: [finding], text: `smoke: FAILED: ${problem}\n`, outputs: { 'smoke-result': 'failed' }, summary: `**Smoke:** ❌ ${problem}\n` }
  }
  if (!t) return fail(`no connection to ${head.name}`, {})
  onProgress?.(`[${head.name}] smoke: POST ${req.url}`)
  const r = await t.run(argv('curl', '--silent', '--show-error', '--fail', '--max-time', String(m.smoke.requestTimeoutSeconds), '-H', 'Content-Type: application/json', '--data', req.body, req.url), { timeoutMs: (m.smoke.requestTimeoutSeconds + 15) * 1000 })
  if (r.code !== 0) return fail(`curl ${outcome(r)}`, { stderr: r.stderr.trim().slice(-300) })
  const judged = judgeSmokeAnswer(m, r.stdout)
  if (!judged.ok) return fail(judged.problem!, { answer: r.stdout.slice(0, 300) })
  onProgress?.(`[${head.name}] smoke: answered ${JSON.stringify(judged.text.slice(0, 60))} in ${(r.durationMs / 1000).toFixed(1)} s`)
  return { ok: true, findings: [], text: `smoke: ${req.url} answered ${JSON.stringify(judged.text.slice(0, 80))}\n`, outputs: { 'smoke-result': 'passed' }, summary: `**Smoke:** ✅ one completion from ${head.name}\n` }
}
