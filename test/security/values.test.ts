/**
 * Issue 24, the class "every value that becomes argv or a path is validated by one function per
 * kind, whatever its source": image references (item 7), release ids (item 17), env names via
 * `container.extraArgs` (item 11), launch paths (item 15), and every timer-bearing number (item 14).
 * Each kind is tried through at least three sources: the manifest, a CLI flag, an Action input (both
 * reach the same task), and the state a node reports.
 */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { main } from '../../src/cli/cli-main.js'
import { parseNodeState } from '../../src/deploy/node-state.js'
import { COLLECTIVE_DEADLINE_EXTRA_S, MAX_TIMER_MS } from '../../src/manifest/formats.js'
import { collectiveDeadlineMs } from '../../src/preflight/gather/run-collective.js'
import { readLaunchScript } from '../../src/manifest/launch-path.js'
import { parseManifest } from '../../src/manifest/load-manifest.js'
import { dockerEnvNames, imageRefProblem, releaseIdProblem } from '../../src/manifest/values.js'
import { deployTask } from '../../src/tasks/deploy-task.js'
import { planTask } from '../../src/tasks/plan-task.js'
import { BASE } from '../manifest/fixtures/base-manifest.js'

const dir = mkdtempSync(join(tmpdir(), 'vrd-values-'))
const write = (name: string, text: string) => {
  const p = join(dir, name)
  writeFileSync(p, text)
  return p
}
const MANIFEST = write('cluster.yml', BASE)
const errorsOf = (text: string) => parseManifest(text, 'cluster.yml').errors

async function cli(...args: string[]) {
  let out = ''
  let err = ''
  const code = await main(args, { out: (s) => (out += s), err: (s) => (err += s), env: {} })
  return { code, out, err }
}

const HOSTILE_IMAGES = ['-v/:/host', 'x;id', 'repo/img:1\nid', '--privileged', '$(id)']

describe('image references (item 7): manifest, CLI --image, Action image input', () => {
  it('the one check refuses options, shell text and line breaks', () => {
    for (const bad of HOSTILE_IMAGES) expect(imageRefProblem(bad), bad).toMatch(/is not valid/)
    expect(imageRefProblem('ghcr.io/org/img:1.2@sha256:' + 'a'.repeat(64))).toBeUndefined()
  })

  it('manifest: image.ref', () => {
    for (const bad of HOSTILE_IMAGES)
      expect(
        errorsOf(BASE.replace('hellohal2064/vllm-qwen3.5-gb10:latest', JSON.stringify(bad))).map((e) => e.code),
        bad,
      ).toContain('INVALID_IMAGE_REF')
  })

  it('CLI: plan --image is a usage error (exit 2), nothing planned', async () => {
    for (const bad of HOSTILE_IMAGES) {
      const r = await cli('plan', '--manifest', MANIFEST, `--image=${bad}`)
      expect(r.code, bad).toBe(2)
      expect(r.err).toMatch(/image reference .* is not valid/)
      expect(r.out).not.toMatch(/docker pull/)
    }
  })

  it('Action: the image input reaches the same tasks (plan, deploy) and is refused before any connection', async () => {
    for (const bad of HOSTILE_IMAGES) {
      expect((await planTask(MANIFEST, { image: bad })).exitCode, bad).toBe(2)
      const d = await deployTask(MANIFEST, { image: bad, env: {}, credentials: { privateKey: 'unused' } } as Parameters<typeof deployTask>[1])
      expect(d.exitCode, bad).toBe(2)
      expect(d.text).toMatch(/image reference/)
    }
  })
})

describe("release ids (item 17): CLI --release, Action release/rollback-to, a node's previous link", () => {
  const BAD = ['..', '../x', '-rf', 'a b', 'x;id']
  it('CLI plan --release and the deploy task refuse a bad id', async () => {
    for (const bad of BAD) {
      expect((await cli('plan', '--manifest', MANIFEST, `--release=${bad}`)).code, bad).toBe(2)
      expect((await deployTask(MANIFEST, { release: bad, env: {}, credentials: { privateKey: 'k' } } as Parameters<typeof deployTask>[1])).exitCode).toBe(2)
    }
  })

  it("a node's current/previous link or release label that is not a release id is left out and named", () => {
    const s = parseNodeState('spark-a', ['current=r2', 'previous=..', 'release=r2', 'release=../../etc', 'container=abc true 2026 sha256:1 ../x'].join('\n'))
    expect(s.current).toBe('r2')
    expect(s.previous).toBeUndefined()
    expect(s.releases).toEqual(['r2'])
    expect(s.container?.release).toBe('')
    expect(s.problems?.join('\n')).toMatch(/previous release id "\.\."/)
    for (const bad of BAD) expect(releaseIdProblem(bad), bad).toBeDefined()
  })
})

describe('VLLM_HOST_IP through container.extraArgs (item 11), in every spelling docker reads', () => {
  const spellings: readonly (readonly string[])[] = [
    ['-e', 'VLLM_HOST_IP=1.2.3.4'],
    ['--env', 'VLLM_HOST_IP=1.2.3.4'],
    ['--env=VLLM_HOST_IP=1.2.3.4'],
    ['-eVLLM_HOST_IP=1.2.3.4'],
    ['-deVLLM_HOST_IP=1.2.3.4'],
    ['-ie', 'VLLM_HOST_IP'],
    ['--env-file', '/tmp/e'],
    ['--env-file=/tmp/e'],
  ]
  for (const args of spellings) {
    it(`${args.join(' ')} is refused at validate, located at the argument`, () => {
      const text = BASE.replace('vllm:\n', `container:\n  extraArgs: ${JSON.stringify(args)}\nvllm:\n`)
      const errs = errorsOf(text)
      expect(errs.map((e) => e.code)).toContain('PER_NODE_ENV')
      expect(errs.find((e) => e.code === 'PER_NODE_ENV')?.path).toEqual(['container', 'extraArgs', 0])
    })
  }
  it('other env and value-taking short flags are not mistaken for it', () => {
    expect(dockerEnvNames(['-e', 'NCCL_DEBUG=INFO', '-v/e:/e', '--ulimit', 'memlock=-1', '-ve'])).toEqual([{ index: 0, name: 'NCCL_DEBUG' }])
    expect(errorsOf(BASE.replace('vllm:\n', 'container:\n  extraArgs: ["-e", "NCCL_DEBUG=INFO"]\nvllm:\n'))).toEqual([])
  })
})

describe('launch.path (item 15): only inside the repository, a missing one a clear error before the lock', () => {
  const repo = join(dir, 'repo')
  mkdirSync(join(repo, '.git'), { recursive: true })
  mkdirSync(join(repo, 'deploy'))
  writeFileSync(join(repo, 'deploy', 'launch.sh'), '#!/bin/bash\necho hi\n')
  symlinkSync('/proc/self/environ', join(repo, 'deploy', 'env-link.sh'))
  const manifestWith = (path: string, extra = '') =>
    write(
      `repo/deploy/cluster-${Math.random().toString(36).slice(2)}.yml`,
      BASE.replace('vllm:\n', `launch:\n  mode: script\n  path: ${JSON.stringify(path)}\n${extra}vllm:\n`),
    )

  it('a script in the repository is read; /proc/self/environ, ../.. escapes and a symlink out are refused', async () => {
    expect(await readLaunchScript(join(repo, 'deploy', 'c.yml'), 'launch.sh', { env: {} })).toMatchObject({
      ok: true,
      value: { text: '#!/bin/bash\necho hi\n' },
    })
    for (const bad of ['/proc/self/environ', '../../../../../../proc/self/environ', 'env-link.sh', '/etc/passwd'])
      expect(await readLaunchScript(join(repo, 'deploy', 'c.yml'), bad, { env: {} }), bad).toMatchObject({
        ok: false,
        problem: { message: expect.stringMatching(/outside the repository/) },
      })
    // Unless the manifest says so; even then only a regular file.
    expect(await readLaunchScript(join(repo, 'deploy', 'c.yml'), '/etc/hostname', { env: {}, allowOutsideRepository: true })).toMatchObject({ ok: true })
    expect(await readLaunchScript(join(repo, 'deploy', 'c.yml'), '/dev/zero', { env: {}, allowOutsideRepository: true })).toMatchObject({
      ok: false,
      problem: { message: expect.stringMatching(/not a regular file/) },
    })
  })

  it('validate, plan and deploy (CLI and the tasks the Action calls) refuse it, exit 1, before connecting to anything', async () => {
    const outside = manifestWith('/proc/self/environ')
    const missing = manifestWith('no-such.sh')
    for (const m of [outside, missing]) {
      const v = await cli('validate', '--manifest', m)
      expect(v.code).toBe(1)
      expect(v.out + v.err).toMatch(/outside the repository|does not exist/)
      expect(v.out + v.err).not.toMatch(/GITHUB_TOKEN|PATH=/)
      expect((await cli('plan', '--manifest', m)).code).toBe(1)
      const d = await deployTask(m, { env: {}, credentials: { privateKey: 'k' } } as Parameters<typeof deployTask>[1])
      expect(d.exitCode).toBe(1)
      expect(d.text).toMatch(/launch\.path/)
    }
    expect((await cli('validate', '--manifest', manifestWith('launch.sh'))).code).toBe(0)
  })
})

describe('numbers (item 14): every duration has a bound the runtime can honour', () => {
  const fields: readonly [string, string, number][] = [
    ['ssh:\n  commandTimeoutSeconds: %s\n', 'ssh.commandTimeoutSeconds', 1000],
    ['ssh:\n  connectTimeoutSeconds: %s\n', 'ssh.connectTimeoutSeconds', 1000],
    ['smoke:\n  requestTimeoutSeconds: %s\n', 'smoke.requestTimeoutSeconds', 1000],
    ['smoke:\n  readyTimeoutSeconds: %s\n', 'smoke.readyTimeoutSeconds', 1000],
    ['deploy:\n  lockTtlMinutes: %s\n', 'deploy.lockTtlMinutes', 60_000],
  ]
  for (const [yaml, name, unitMs] of fields) {
    it(`${name}: 2200000 and more is refused; the largest accepted value fits a Node timer with a minute to spare`, () => {
      const at = (n: number) => errorsOf(BASE.replace('vllm:\n', `${yaml.replace('%s', String(n))}vllm:\n`))
      expect(at(2_200_000).length, name).toBeGreaterThan(0)
      expect(at(2_200_000)[0]!.message).toMatch(/expected a whole number from 1 to \d+/)
      const max = Number(/from 1 to (\d+)/.exec(at(2_200_000)[0]!.message)![1])
      expect(at(max)).toEqual([])
      expect(max * unitMs + 60_000).toBeLessThanOrEqual(MAX_TIMER_MS)
    })
  }
  it("preflight.collectiveTimeoutSeconds: the largest accepted value's SSH deadline (twice it, plus the start and the slack) fits a Node timer", () => {
    const yaml = (n: number) => BASE.replace('vllm:\n', `preflight:\n  collectiveTimeoutSeconds: ${n}\nvllm:\n`)
    const refused = errorsOf(yaml(1_100_000))
    expect(refused.length).toBeGreaterThan(0)
    const max = Number(/from 1 to (\d+)/.exec(refused[0]!.message)![1])
    expect(errorsOf(yaml(max))).toEqual([])
    // The deadline the collective's runner sets (src/preflight/gather/run-collective.ts), for that value.
    expect(collectiveDeadlineMs(max) + 60_000).toBeLessThanOrEqual(MAX_TIMER_MS)
    expect(collectiveDeadlineMs(1) / 1000 - 2).toBeLessThanOrEqual(COLLECTIVE_DEADLINE_EXTRA_S)
  })
})
