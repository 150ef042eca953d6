/**
 * Issue 24, "every file read is bounded": a file a person hands the tool that never ends (a link to
 * /dev/zero) is refused with the limit named, never read whole. Tried through four sources: the
 * manifest, a pasted log (diagnose --log), a facts file (diagnose --facts) and the SSH key file.
 */
import { mkdtempSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { main } from '../../src/cli/main.js'

const dir = mkdtempSync(join(tmpdir(), 'vrd-files-'))
const zero = join(dir, 'cluster.yml')
symlinkSync('/dev/zero', zero)

async function cli(...args: string[]) {
  let out = ''
  let err = ''
  const code = await main(args, { out: (s) => (out += s), err: (s) => (err += s), env: {} })
  return { code, out, err }
}

describe('files without end are refused at a bound', () => {
  it('the manifest', async () => {
    const r = await cli('validate', '--manifest', zero)
    expect(r.code).toBe(1)
    expect(r.out + r.err).toMatch(/larger than 4194304 bytes/)
  })
  it('a pasted log and a facts file', async () => {
    for (const flag of ['--log', '--facts']) {
      const r = await cli('diagnose', flag, zero)
      expect(r.code, flag).toBe(2)
      expect(r.out + r.err).toMatch(/larger than 67108864 bytes/)
    }
  })
  it('the SSH key file', async () => {
    const r = await cli('lock', 'status', '--manifest', 'src/manifest/examples/dgx-spark-pair.yml', '--ssh-key', zero)
    expect(r.code).toBe(2)
    expect(r.out + r.err).toMatch(/--ssh-key .* is larger than 1 MiB/)
  })
})
