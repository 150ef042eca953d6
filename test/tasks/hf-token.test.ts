/**
 * The hub token's way in, through both front doors: the CLI reads $HF_TOKEN or a file
 * (--hf-token-file), never a command-line value; the Action reads its hf-token input and masks it
 * before anything runs. Either way the rollout gets it as HF_TOKEN in its environment (where the hub
 * download's stdin reads it, src/deploy/weights/hub.ts), and nothing either door prints holds it.
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'

const TOKEN = 'hf_DoorTestToken0123456789abcdef'
const seen: { env?: NodeJS.ProcessEnv }[] = []

vi.mock('../../src/tasks/deploy-task.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/tasks/deploy-task.js')>()
  return {
    ...real,
    // The rollout itself is not under test: record what it was given, then stop as a failed deploy would.
    deployTask: async (_path: string, opts: { env: NodeJS.ProcessEnv; onProgress: (m: string) => void }) => {
      seen.push({ env: opts.env })
      opts.onProgress(`weights: [spark-a] downloading with a token from HF_TOKEN (${opts.env.HF_TOKEN ? 'set' : 'unset'})`)
      return {
        exitCode: 1,
        headline: 'deploy failed: stand-in',
        text: 'deploy failed: stand-in\n',
        json: { env: Object.keys(opts.env).length },
        summary: 'deploy failed: stand-in',
        annotations: [],
        outputs: { result: 'failed' },
        files: [],
      }
    },
  }
})

const dir = mkdtempSync(join(tmpdir(), 'hf-token-'))
const manifest = join(dir, 'm.yml')
writeFileSync(manifest, 'cluster: x\n')
const key = '-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----\n'

beforeEach(() => {
  seen.length = 0
})
afterEach(() => {
  vi.unstubAllEnvs()
  vi.restoreAllMocks()
})

async function cli(env: NodeJS.ProcessEnv, ...args: string[]) {
  const { main } = await import('../../src/cli/cli-main.js')
  let out = ''
  let err = ''
  const code = await main(args, { out: (s) => (out += s), err: (s) => (err += s), env })
  return { code, out, err }
}

describe('CLI', () => {
  it('$HF_TOKEN reaches the rollout as HF_TOKEN, and nothing printed holds it', async () => {
    const r = await cli({ VRD_SSH_PRIVATE_KEY: key, HF_TOKEN: TOKEN }, 'deploy', '--manifest', manifest, '--json')
    expect(seen.map((s) => s.env?.HF_TOKEN)).toEqual([TOKEN])
    expect(r.err).toContain('downloading with a token from HF_TOKEN (set)')
    expect(r.out + r.err).not.toContain(TOKEN)
  })

  it("--hf-token-file F: the file's token (its line break dropped) reaches the rollout; the flag takes a path, not the token", async () => {
    const file = join(dir, 'token')
    writeFileSync(file, `${TOKEN}\n`, { mode: 0o600 })
    const r = await cli({ VRD_SSH_PRIVATE_KEY: key }, 'deploy', '--manifest', manifest, '--hf-token-file', file)
    expect(seen.map((s) => s.env?.HF_TOKEN)).toEqual([TOKEN])
    expect(r.out + r.err).not.toContain(TOKEN)
    const missing = await cli({ VRD_SSH_PRIVATE_KEY: key }, 'deploy', '--manifest', manifest, '--hf-token-file', TOKEN)
    expect(missing.code).toBe(2)
    // A token pasted where its file belongs is not echoed back in the error.
    expect(missing.err).toMatch(/cannot read --hf-token-file F \(the path given\): ENOENT/)
    expect(missing.out + missing.err).not.toContain(TOKEN)
  })

  it('no token: the rollout environment has none', async () => {
    await cli({ VRD_SSH_PRIVATE_KEY: key }, 'deploy', '--manifest', manifest)
    expect(seen.map((s) => s.env?.HF_TOKEN)).toEqual([undefined])
  })

  it('only deploy takes it: plan refuses the flag', async () => {
    const r = await cli({}, 'plan', '--manifest', manifest, '--hf-token-file', '/dev/null')
    expect(r.code).toBe(2)
    expect(r.err).toContain("Unknown option '--hf-token-file'")
  })
})

describe('Action', () => {
  it('the hf-token input is masked before anything is printed, and reaches the rollout as HF_TOKEN', async () => {
    const written: string[] = []
    vi.spyOn(process.stdout, 'write').mockImplementation((c: string | Uint8Array) => {
      written.push(String(c))
      return true
    })
    const env: Record<string, string> = {
      INPUT_COMMAND: 'deploy',
      INPUT_MANIFEST: manifest,
      'INPUT_SSH-PRIVATE-KEY': key,
      'INPUT_HF-TOKEN': TOKEN,
      INPUT_FORCE: 'false',
      'INPUT_WAIT-LOCK': 'false',
      GITHUB_OUTPUT: join(dir, 'out'),
      GITHUB_STATE: join(dir, 'state'),
      RUNNER_TEMP: dir,
    }
    writeFileSync(env.GITHUB_OUTPUT!, '')
    writeFileSync(env.GITHUB_STATE!, '')
    for (const [k, v] of Object.entries(env)) vi.stubEnv(k, v)
    const { run } = await import('../../src/action/action-main.js')
    await run()
    expect(seen.map((s) => s.env?.HF_TOKEN)).toEqual([TOKEN])
    const printed = written.join('')
    const mask = printed.indexOf(`::add-mask::${TOKEN}`)
    expect(mask).toBeGreaterThanOrEqual(0)
    // Before the mask nothing at all was printed that holds it, and after it only the runner's masked log could.
    expect(printed.slice(0, mask)).not.toContain(TOKEN)
    expect(printed.slice(mask + `::add-mask::${TOKEN}`.length)).not.toContain(TOKEN)
    expect(printed).toContain('downloading with a token from HF_TOKEN (set)')
  })
})
