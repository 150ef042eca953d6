/**
 * A completion from the lab's head, asked independently of the tool's own smoke gate (curl on the
 * head against vLLM's port), for the e2e tests that prove a release serves.
 */
import { argv } from '../../../src/command/shell.js'
import type { Manifest } from '../../../src/manifest/schema.js'
import type { Transport } from '../../../src/transport/transport.js'

export async function headCompletion(head: Transport, m: Manifest): Promise<string> {
  const body = JSON.stringify({ model: m.vllm.servedModelName, prompt: 'Say hello', max_tokens: 4 })
  const r = await head.run(
    argv(
      'curl',
      '--silent',
      '--fail',
      '--max-time',
      '30',
      '-H',
      'Content-Type: application/json',
      '--data',
      body,
      `http://127.0.0.1:${m.vllm.port}/v1/completions`,
    ),
    { timeoutMs: 60_000 },
  )
  return (JSON.parse(r.stdout.trim()) as { choices: { text: string }[] }).choices[0]!.text
}
