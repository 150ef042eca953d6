import { describe, expect, it } from 'vitest'
import { parseManifest } from '../../src/manifest/load-manifest.js'
import { readFileSync } from 'node:fs'
import { nodeFactsFromProbe } from '../../src/preflight/gather/gather.js'
import { probeCommand } from '../../src/probe/probe-command.js'
import { LocalTransport } from '../../src/transport/local.js'
import { withEnv } from '../../src/command/shell.js'
import { expectationFromManifest } from '../../src/manifest/expectation.js'
import { runChecks } from '../../src/preflight/checks/index.js'

const example = readFileSync('src/manifest/examples/dgx-spark-pair.yml', 'utf8')

describe('facts probe on this machine (real ip, real python, docker when present)', () => {
  it('runs in one process and yields interfaces, a default-route source and a missing container', async () => {
    const { manifest } = parseManifest(example, 'example.yml')
    // Peers on loopback only: the probe pings each peer's fabric IP, and tests never send traffic off this machine.
    const m = {
      ...manifest!,
      fabric: { ...manifest!.fabric, subnet: '127.0.0.0/8' },
      nodes: manifest!.nodes.map((n, i) => ({ ...n, fabricIp: `127.0.0.${12 + i}` })),
      container: { ...manifest!.container, name: `vrd-no-such-container-${process.pid}` },
    }
    const head = m.nodes[0]!
    const probe = probeCommand(m, head)
    const r = await new LocalTransport().run(probe.cmd, { stdin: probe.stdin, timeoutMs: 60_000 })
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const { facts, ray } = nodeFactsFromProbe(head, r.stdout)
    expect(facts.ok).toBe(true)
    expect(facts.interfaces.map((i) => i.name)).toContain('lo')
    expect(facts.interfaces.find((i) => i.name === 'lo')?.addresses).toContain('127.0.0.1/8')
    // One peer: spark-b, routed over loopback and answering.
    expect(facts.peers.map((p) => [p.peer, p.ip, p.route.dev, p.reachable])).toEqual([['spark-b', '127.0.0.13', 'lo', true]])
    expect(facts.container).toBeUndefined()
    expect(ray?.error).toMatch(/not running/)
  })

  it('a node where docker cannot be used gives host facts saying why, and DOCKER_UNUSABLE names the node', async () => {
    const { manifest } = parseManifest(example, 'example.yml')
    const m = { ...manifest!, nodes: manifest!.nodes.map((n, i) => ({ ...n, fabricIp: `127.0.0.${12 + i}` })) }
    const worker = m.nodes[1]!
    const probe = probeCommand(m, worker)
    // No docker on this PATH (ip is in /usr/sbin); python3 by absolute path.
    const cmd = withEnv({ PATH: '/usr/sbin:/sbin' }, '/usr/bin/python3', ...probe.cmd.argv.slice(1))
    const r = await new LocalTransport().run(cmd, { stdin: probe.stdin, timeoutMs: 60_000 })
    expect(r.code).toBe(0)
    const { facts } = nodeFactsFromProbe(worker, r.stdout)
    expect(facts.ok).toBe(true)
    expect(facts.container).toBeUndefined()
    expect(facts.host?.docker).toMatchObject({ ok: false, missing: true, error: expect.stringMatching(/docker: not found/) })
    const findings = runChecks({ schemaVersion: 1, gatheredAt: 'now', nodes: [facts] }, expectationFromManifest(m))
    expect(findings.filter((f) => f.code === 'DOCKER_UNUSABLE').map((f) => f.node)).toEqual([worker.name])
  })
})
