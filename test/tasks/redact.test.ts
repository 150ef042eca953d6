/**
 * One redaction pass over everything a command hands a front door (issue 33): planted secrets (an
 * SSH key, its passphrase, the hub token, a container.secretEnv value, the smoke's API key) that a
 * command's report carries anyway — in its text, JSON, summary, annotations, outputs, files and
 * progress lines — leave runCommand as `***`, in their own spelling and as JSON escapes them.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { type CommandSpec, runCommand } from '../../src/tasks/command-table.js'
import type { TaskOutcome } from '../../src/tasks/outcome.js'
import { redactText, secretSpellings } from '../../src/tasks/redact.js'

const KEY_LINE = 'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW'
const KEY = `-----BEGIN OPENSSH PRIVATE KEY-----\n${KEY_LINE}\nQyNTUxOQAAACDplantedkeysecondline0123456789abcdef\n-----END OPENSSH PRIVATE KEY-----\n`
const PASSPHRASE = 'correct horse "battery" staple'
const HUB_TOKEN = 'hf_PlantedHubToken0123456789'
const ENV_SECRET = 'wandb-planted-secret-value'
const API_KEY = 'sk-planted-smoke-api-key'
const SECRETS = [KEY_LINE, 'QyNTUxOQAAACDplantedkeysecondline0123456789abcdef', PASSPHRASE, HUB_TOKEN, ENV_SECRET, API_KEY]

function manifestWithSecrets(): string {
  const dir = mkdtempSync(join(tmpdir(), 'vrd-redact-'))
  const text = readFileSync('src/manifest/examples/dgx-spark-pair.yml', 'utf8')
    .replace(/secretEnv: \[HF_TOKEN\]/, 'secretEnv: [HF_TOKEN, WANDB_API_KEY]')
    .replace(/^smoke:\n/m, 'smoke:\n  apiKeySecret: VLLM_API_KEY\n')
  expect(text).toContain('WANDB_API_KEY')
  expect(text).toContain('apiKeySecret: VLLM_API_KEY')
  const path = join(dir, 'cluster.yml')
  writeFileSync(path, text)
  return path
}

/** A command whose report carries every secret everywhere, as a careless task or a node's echo would. */
const leaky: CommandSpec = {
  name: 'deploy',
  summary: 'test',
  options: ['manifest'],
  run: ({ onProgress }) => {
    const all = SECRETS.join(' | ')
    onProgress(`progress: ${all}`)
    const outcome: TaskOutcome = {
      exitCode: 1,
      headline: `failed: ${HUB_TOKEN}`,
      text: `text ${all}`,
      json: { failure: { reason: all }, list: [PASSPHRASE], [ENV_SECRET]: 'as a key', escaped: JSON.stringify(PASSPHRASE) },
      summary: `| summary | ${all} |`,
      annotations: [{ level: 'error', title: `title ${API_KEY}`, message: `message ${all}` }],
      outputs: { result: 'failed', summary: all, findings: JSON.stringify([{ evidence: { Output: all } }]) },
      files: [{ output: 'facts-file', fileName: 'facts.json', content: JSON.stringify({ stderr: all }) }],
    }
    return outcome
  },
}

describe('the redaction pass of runCommand', () => {
  it('no planted secret is in the text, JSON, summary, annotations, outputs, files, headline or progress', async () => {
    const progress: string[] = []
    const o = await runCommand(
      leaky,
      {
        values: { manifest: manifestWithSecrets(), sshKey: KEY, sshKeyPassphrase: PASSPHRASE, hfToken: HUB_TOKEN },
        args: [],
        env: { WANDB_API_KEY: ENV_SECRET, VLLM_API_KEY: API_KEY, HF_TOKEN: HUB_TOKEN },
        onProgress: (m) => progress.push(m),
      },
      { howToGiveKey: '', missing: () => '' },
    )
    const everything = JSON.stringify(o) + progress.join('\n')
    for (const s of SECRETS) {
      expect(everything).not.toContain(s)
      expect(everything).not.toContain(JSON.stringify(s).slice(1, -1))
    }
    // The rest of the report is kept, with the mask where each secret was.
    expect(o.headline).toBe('failed: ***')
    expect(o.text).toBe(`text ${SECRETS.map(() => '***').join(' | ')}`)
    expect(progress).toEqual([`progress: ${SECRETS.map(() => '***').join(' | ')}`])
    expect(o.exitCode).toBe(1)
    expect((o.json as Record<string, unknown>)['***']).toBe('as a key')
  })

  it('without secrets the outcome is handed on as it is', async () => {
    const plain: CommandSpec = { ...leaky, run: async (ctx) => ({ ...(await leaky.run(ctx)), text: 'nothing secret' }) }
    const o = await runCommand(plain, { values: {}, args: [], env: {}, onProgress: () => {} }, { howToGiveKey: '', missing: () => '' })
    expect(o.text).toBe('nothing secret')
  })

  it('short values and the key armour lines are not secrets to mask (they would blank ordinary words)', () => {
    expect(secretSpellings(['abc', undefined, '  hf_token_value\n'])).toEqual(
      ['  hf_token_value\n', 'hf_token_value', '  hf_token_value\\n'].sort((a, b) => b.length - a.length),
    )
    expect(redactText('the -----BEGIN line stays; a hf_token_value goes', secretSpellings(['hf_token_value']))).toBe('the -----BEGIN line stays; a *** goes')
  })
})
