/**
 * Issue 24, "every file read is bounded": a file a person hands the tool that never ends (a link to
 * /dev/zero) is refused with the limit named, never read whole. Tried through four sources: the
 * manifest, a pasted log (diagnose --log), a facts file (diagnose --facts) and the SSH key file.
 */
import { mkdtempSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { main } from '../../src/cli/cli-main.js'

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

/**
 * Memory bounded for the largest accepted input (issue 33): within the byte bound, a document could
 * still name tens of thousands of nodes, and the checks compare nodes pairwise (a 64 MiB facts bundle
 * of 40,000 copies of one node took 1.3 GB and 42 s, its findings a 2 MB line). Counts are bounded
 * where the documents are read, the same bound in the manifest and the facts, named in the error.
 */
describe('counts are bounded where documents are read', () => {
  const node = (i: number) => ({
    name: `n${i}`,
    role: i === 0 ? 'head' : 'worker',
    sshHost: `10.0.${i >> 8}.${i & 255}`,
    fabricIp: `192.168.${i >> 8}.${i & 255}`,
  })
  it('a manifest naming more nodes than the bound: refused naming nodes and the bound', async () => {
    const { writeFileSync, readFileSync } = await import('node:fs')
    const { parse, stringify } = await import('yaml')
    const doc = parse(readFileSync('src/manifest/examples/dgx-spark-pair.yml', 'utf8')) as { nodes: unknown[] }
    const f = join(dir, 'many.yml')
    writeFileSync(f, stringify({ ...doc, nodes: Array.from({ length: 513 }, (_, i) => ({ ...(doc.nodes[1] as object), ...node(i) })) }))
    const r = await cli('validate', '--manifest', f)
    expect(r.code).toBe(1)
    expect(r.out + r.err).toMatch(/nodes.*at most 512 nodes/)
  })
  it('a facts bundle naming more nodes, Ray nodes or ranks than the bound: refused naming the place', async () => {
    const { writeFileSync } = await import('node:fs')
    const { healthyFacts } = await import('../preflight/fixtures/facts.js')
    const cases: [string, object, RegExp][] = [
      ['nodes', { ...healthyFacts, nodes: Array.from({ length: 513 }, (_, i) => ({ ...healthyFacts.nodes[0]!, node: `n${i}` })) }, /nodes: at most 512 nodes/],
      [
        'ray',
        { ...healthyFacts, ray: { ...healthyFacts.ray, nodes: Array.from({ length: 4097 }, () => healthyFacts.ray!.nodes[0]) } },
        /ray\.nodes: at most 4096 Ray nodes/,
      ],
    ]
    for (const [what, doc, message] of cases) {
      const f = join(dir, `facts-${what}.json`)
      writeFileSync(f, JSON.stringify(doc))
      const r = await cli('diagnose', '--facts', f)
      expect(r.code, what).toBe(2)
      expect(r.out + r.err, what).toMatch(message)
    }
  })
})
