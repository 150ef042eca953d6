import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parseManifest } from '../../src/manifest/load-manifest.js'
import { preflightManifest } from '../../src/tasks/preflight.js'
import { newClientKey } from '../support/sshd.js'

describe('preflight when nodes cannot be reached', () => {
  it('reports NODE_UNREACHABLE per node with the reason, and never throws', async () => {
    const parsed = parseManifest(readFileSync('src/manifest/examples/dgx-spark-pair.yml', 'utf8'), 'm.yml')
    expect(parsed.errors).toEqual([])
    // Loopback only, on a closed port, so the connection is refused at once; spark-b has no pin.
    const [a, b] = parsed.manifest!.nodes
    const manifest = {
      ...parsed.manifest!,
      nodes: [
        { ...a!, ssh: { host: '127.0.0.1', port: 1, hostKeys: ['SHA256:' + 'A'.repeat(43)] } },
        { ...b!, ssh: { host: '127.0.0.2', port: 1, hostKeys: [] } },
      ],
    }
    const privateKey = newClientKey()
    const r = await preflightManifest(manifest, { credentials: { privateKey } })
    const unreachable = r.findings.filter((f) => f.code === 'NODE_UNREACHABLE')
    expect(unreachable.map((f) => f.node).sort()).toEqual(['spark-a', 'spark-b'])
    const text2 = unreachable.map((f) => `${f.message} ${Object.values(f.evidence).join(' ')}`).join('\n')
    expect(text2).toMatch(/cannot connect to root@127\.0\.0\.1:1: ECONNREFUSED/)
    // spark-b has no pin and no known_hosts: refused before any connection.
    expect(text2).toMatch(/no host key pinned for root@127\.0\.0\.2:1/)
    expect(r.facts.nodes.every((n) => !n.ok)).toBe(true)
  })

  it('says so when the private key is not a key (a path pasted instead of the text, say)', async () => {
    const parsed = parseManifest(readFileSync('src/manifest/examples/dgx-spark-pair.yml', 'utf8'), 'm.yml')
    const m = {
      ...parsed.manifest!,
      nodes: parsed.manifest!.nodes.map((n, i) => ({ ...n, ssh: { host: `127.0.0.${i + 1}`, port: 1, hostKeys: ['SHA256:' + 'A'.repeat(43)] } })),
    }
    const r = await preflightManifest(m, { credentials: { privateKey: '/home/me/.ssh/id_ed25519' } })
    expect(Object.values(r.findings[0]!.evidence).join(' ')).toMatch(/the SSH private key cannot be used .*give the key's text/)
  })
})
