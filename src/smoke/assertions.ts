/** What one smoke answer must satisfy (the manifest's `expect`), and usage that agrees with it. Pure. */
import type { SmokePrompt } from '../manifest/schema.js'
import type { Finding } from '../preflight/finding.js'
import type { Answer } from './openai.js'
import { smokeFinding } from './smoke-finding.js'

const shown = (s: string): string => JSON.stringify(s.length > 200 ? `${s.slice(0, 200)}…` : s)

/** `label` names the request in messages: `prompt 1 (completion)`. */
export function checkAnswer(prompt: SmokePrompt, maxTokens: number, answer: Answer, label: string, served: string): Finding[] {
  const out: Finding[] = []
  const evidence = {
    request: label,
    prompt: shown(prompt.prompt),
    answer: shown(answer.text),
    finish_reason: String(answer.finishReason),
    ...(answer.usage && { completion_tokens: String(answer.usage.completionTokens) }),
  }
  if (answer.model !== '' && answer.model !== served) {
    out.push(
      smokeFinding(
        'SMOKE_MODEL_MISSING',
        `${label} was answered by model "${answer.model}", not the served name "${served}".`,
        evidence,
        'Point smoke.url at this deployment, or set vllm.servedModelName to the name the server uses.',
      ),
    )
  }
  if (answer.text.trim() === '') {
    out.push(
      smokeFinding(
        'SMOKE_EMPTY_COMPLETION',
        `${label} came back empty (finish_reason ${String(answer.finishReason)}, ${answer.usage?.completionTokens ?? '?'} completion tokens).`,
        evidence,
        'An empty answer from a loaded model usually means a broken chat template or tokenizer, or max_tokens too small: check the model files and --chat-template, or raise maxTokens of this prompt.',
      ),
    )
  }
  const e = prompt.expect
  const failed = (what: string, fix: string) => out.push(smokeFinding('SMOKE_ASSERTION_FAILED', `${label}: ${what}.`, evidence, fix))
  if (e.contains !== undefined && !answer.text.includes(e.contains))
    failed(`the answer does not contain ${shown(e.contains)}`, 'Check the model and its settings, or relax smoke.prompts[].expect.contains.')
  if (e.regex !== undefined && !new RegExp(e.regex).test(answer.text))
    failed(`the answer does not match /${e.regex}/`, 'Check the model and its settings, or relax smoke.prompts[].expect.regex.')
  if (e.finishReason !== undefined && answer.finishReason !== e.finishReason)
    failed(
      `finish_reason is ${String(answer.finishReason)}, expected ${e.finishReason}`,
      e.finishReason === 'stop' ? 'Raise maxTokens so the model can finish, or expect finishReason: length.' : 'Lower maxTokens, or expect finishReason: stop.',
    )
  const u = answer.usage
  if (e.minCompletionTokens !== undefined && u && u.completionTokens < e.minCompletionTokens)
    failed(
      `${u.completionTokens} completion tokens, expected at least ${e.minCompletionTokens}`,
      'Check the model, or lower smoke.prompts[].expect.minCompletionTokens.',
    )
  if (!u) {
    out.push(
      smokeFinding(
        'SMOKE_USAGE_INCONSISTENT',
        `${label} has no "usage" in its response.`,
        evidence,
        'vLLM always reports usage: check that smoke.url points at vLLM and not at a proxy that strips it.',
      ),
    )
  } else {
    const problems: string[] = []
    if (u.totalTokens !== u.promptTokens + u.completionTokens)
      problems.push(`total_tokens ${u.totalTokens} ≠ prompt_tokens ${u.promptTokens} + completion_tokens ${u.completionTokens}`)
    if (u.completionTokens > maxTokens) problems.push(`completion_tokens ${u.completionTokens} > max_tokens ${maxTokens}`)
    if (answer.finishReason === 'length' && u.completionTokens !== maxTokens)
      problems.push(`finish_reason length with completion_tokens ${u.completionTokens} ≠ max_tokens ${maxTokens}`)
    if (answer.text.trim() !== '' && u.completionTokens === 0) problems.push('text returned with completion_tokens 0')
    if (u.promptTokens === 0) problems.push('prompt_tokens 0 for a non-empty prompt')
    if (problems.length > 0)
      out.push(
        smokeFinding(
          'SMOKE_USAGE_INCONSISTENT',
          `${label}: usage does not agree with the answer (${problems.join('; ')}).`,
          { ...evidence, usage: JSON.stringify(u) },
          'A server that miscounts tokens is not vLLM or is misconfigured: check smoke.url and the image.',
        ),
      )
  }
  return out
}
