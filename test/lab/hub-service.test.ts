/**
 * `lab hub up|down|status` from the CLI (issue 34): the lab's hub mirror started by hand and left
 * running after the command returns, found again by status, reached with the token it printed (a
 * request without it is refused), and stopped by down. Bound to loopback here (VRD_LAB_HUB_BIND),
 * so no lab is needed; with a lab it listens on the management gateway the nodes reach.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { main } from '../../src/cli/cli-main.js'
import { hubDown, hubStatus } from '../../src/lab/hub-service.js'

const labDir = mkdtempSync(join(tmpdir(), 'vrd-hub-service-'))
const env = { ...process.env, VRD_LAB_DIR: labDir, VRD_LAB_HUB_BIND: '127.0.0.1' }
async function cli(...args: string[]) {
  let out = ''
  let err = ''
  const saved = { dir: process.env.VRD_LAB_DIR, bind: process.env.VRD_LAB_HUB_BIND }
  process.env.VRD_LAB_DIR = labDir
  process.env.VRD_LAB_HUB_BIND = '127.0.0.1'
  try {
    const code = await main(args, { out: (s) => (out += s), err: (s) => (err += s), env })
    return { code, out, err }
  } finally {
    for (const [k, v] of [
      ['VRD_LAB_DIR', saved.dir],
      ['VRD_LAB_HUB_BIND', saved.bind],
    ] as const)
      if (v === undefined) delete process.env[k]
      else process.env[k] = v
  }
}

afterAll(async () => {
  await hubDown(labDir)
})

describe('lab hub', () => {
  it('up serves a model directory and returns, status finds it, its token opens it, down stops it', async () => {
    const model = join(labDir, 'model')
    mkdirSync(model)
    writeFileSync(join(model, 'config.json'), '{"architectures": ["StandinForCausalLM"]}\n')
    const up = await cli('lab', 'hub', 'up', model, 'vrd-lab/try-hub')
    expect(up.code, up.err).toBe(0)
    const endpoint = /hub mirror: (http:\/\/127\.0\.0\.1:\d+) serves/.exec(up.out)?.[1]
    expect(endpoint).toBeDefined()
    expect(up.out).toMatch(/hub: \{ repo: vrd-lab\/try-hub, revision: [0-9a-f]{40}, endpoint: "http:\/\/127\.0\.0\.1:\d+", allowInsecure: true \}/)
    const tokenFile = /HF_TOKEN="\$\(cat (\S+)\)"/.exec(up.out)![1]!
    const token = readFileSync(tokenFile, 'utf8').trim()
    // Running after the command returned: the hub's API answers with the token, refuses without it.
    const withToken = await fetch(`${endpoint}/api/models/vrd-lab/try-hub/tree/main`, { headers: { authorization: `Bearer ${token}` } })
    expect(withToken.status).toBe(200)
    expect(((await withToken.json()) as { path: string }[]).map((f) => f.path)).toEqual(['config.json'])
    expect((await fetch(`${endpoint}/api/models/vrd-lab/try-hub/tree/main`)).status).toBe(401)
    const status = await cli('lab', 'hub', 'status')
    expect(status.out).toContain(`hub mirror: ${endpoint}`)
    // A second up finds the running one instead of starting another.
    expect((await cli('lab', 'hub', 'up', model)).out).toContain(`hub mirror: ${endpoint}`)
    const down = await cli('lab', 'hub', 'down')
    expect(down.out).toContain('the mirror was stopped')
    expect(hubStatus(labDir)).toEqual({ ok: true, value: undefined })
    await expect(fetch(`${endpoint}/api/models/vrd-lab/try-hub/tree/main`)).rejects.toThrow()
    expect((await cli('lab', 'hub', 'down')).out).toContain('no mirror was running')
  }, 60_000)

  it('bad input is a usage error or a lab error naming it, never a crash', async () => {
    expect((await cli('lab', 'hub', 'up')).code).toBe(2)
    const missing = await cli('lab', 'hub', 'up', join(labDir, 'nope'))
    expect(missing.code).toBe(1)
    expect(missing.out + missing.err).toMatch(/is not a directory/)
    expect((await cli('lab', 'hub', 'sideways')).code).toBe(2)
  })
})
