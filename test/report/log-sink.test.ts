/**
 * Issue 24 item 2: text from outside is neutralised where it leaves. No line the CLI or the Action
 * prints can start a workflow command (`::x`, `##[x]`), and ESC, CR, BEL never reach the log or a
 * terminal raw. Tried through these sources: a pasted log (CLI text, CLI --json, the Action's log),
 * and a lock holder read from a node (test/deploy/lock-cli.test.ts, CLI `lock status` on a real sshd).
 */
import { writeFileSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { main } from '../../src/cli/cli-main.js'
import { inertJson, inertText } from '../../src/report/log-sink.js'

/** What the runner would read as a workflow command, or a raw control character. */
function dangerous(printed: string): string[] {
  // The runner splits on CR, LF and CRLF; a command is `::` after leading blanks, or `##[` anywhere.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this looks for
  const control = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/
  return printed.split(/\r\n|\r|\n/).filter((line) => /^\s*::/.test(line) || line.includes('##[') || control.test(line))
}

const HOSTILE = [
  '::error::pwned',
  '  ::add-mask::secret',
  '::stop-commands::tok',
  '::group::g',
  'mid ##[error]x',
  'red \u001b[31mtext\u001b[0m',
  'cr\r::warning::hidden',
  'bel\u0007 nel\u0085::error::c1 csi\u009b2J',
  'ls\u2028::error::sep',
]

describe('inertText / inertJson', () => {
  it('leaves no workflow command and no control character, and keeps ordinary text as it was', () => {
    for (const h of HOSTILE) expect(dangerous(inertText(h)), JSON.stringify(h)).toEqual([])
    expect(inertText('release r1 deployed: 2 nodes, 10.0.0.1:8000\n\tindented')).toBe('release r1 deployed: 2 nodes, 10.0.0.1:8000\n\tindented')
    expect(inertText('::error::x')).toBe(': :error::x')
    expect(inertText('a\u001b[31mb')).toBe('a\\x1b[31mb')
  })

  it('JSON stays the same data to a JSON reader', () => {
    const value = { who: HOSTILE.join('\n'), n: 1 }
    const text = inertJson(JSON.stringify(value, null, 2))
    expect(dangerous(text)).toEqual([])
    expect(JSON.parse(text)).toEqual(value)
  })
})

async function cli(...args: string[]) {
  let out = ''
  let err = ''
  const code = await main(args, { out: (s) => (out += s), err: (s) => (err += s), env: {} })
  return { code, out, err }
}

const dir = mkdtempSync(join(tmpdir(), 'vrd-sink-'))
/** A vLLM log where a failure signature's line carries hostile text (a node's log, pasted). */
const LOG = join(dir, 'serve.log')
writeFileSync(
  LOG,
  [
    'INFO start',
    // driver-no-gpu.txt's line 4 (vllm-project/vllm#2406), with hostile text after it and on lines of its own
    `ValueError: Ray does not allocate any GPUs on the driver node. ${HOSTILE.join(' ')}`,
    ...HOSTILE,
    '',
  ].join('\n'),
)

describe('every printed line passes the sink', () => {
  it('source 1: a pasted log, CLI text output', async () => {
    const r = await cli('diagnose', '--log', LOG)
    expect(r.out).toMatch(/DRIVER_NO_GPU/)
    expect(r.out).toContain('cr\\x0d::warning::hidden') // a CR would have started a runner line with ::warning::
    expect(dangerous(r.out)).toEqual([])
    expect(dangerous(r.err)).toEqual([])
  })

  it('source 2: the same log, CLI --json output (still the same JSON)', async () => {
    const r = await cli('diagnose', '--log', LOG, '--json')
    const parsed = JSON.parse(r.out) as { findings: { evidence: Record<string, string> }[] }
    expect(JSON.stringify(parsed)).toContain('::error::pwned') // the data is whole for a JSON reader
    expect(r.out).toContain('##\\u005b')
    expect(dangerous(r.out)).toEqual([])
    expect(dangerous(r.err)).toEqual([])
  })
})

describe('the Action log', () => {
  const written: string[] = []
  afterEach(() => {
    vi.restoreAllMocks()
    written.length = 0
  })

  it('source 3: a pasted log through the Action (diagnose with logs), every line on stdout inert', async () => {
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk))
      return true
    })
    const env = { INPUT_COMMAND: 'diagnose', INPUT_LOGS: LOG, INPUT_MANIFEST: '.github/vllm-ray-deploy.yml', INPUT_FORCE: 'false', 'INPUT_WAIT-LOCK': 'false' }
    for (const [k, v] of Object.entries(env)) vi.stubEnv(k, v)
    vi.stubEnv('GITHUB_OUTPUT', join(dir, 'out'))
    vi.stubEnv('GITHUB_STATE', join(dir, 'state'))
    vi.stubEnv('RUNNER_TEMP', dir)
    writeFileSync(join(dir, 'out'), '')
    writeFileSync(join(dir, 'state'), '')
    const { run } = await import('../../src/action/action-main.js')
    await run()
    vi.unstubAllEnvs()
    const printed = written.join('')
    expect(printed).toMatch(/DRIVER_NO_GPU/)
    // The Action's own commands (annotations, set-output through files) are the only `::` lines left.
    const own = /^::(error|warning|notice)( [^:]*)?::/
    expect(dangerous(printed).filter((l) => !own.test(l))).toEqual([])
    expect(printed).toContain('cr\\x0d::warning::hidden')
  })
})
