/**
 * The release workflow's check job, run by act (host mode) on a tag cut by .ci/release, the way a
 * maintainer's push of the tag starts it: checkout, setup-node (Node 24 from .ci/tools, through the
 * offline stand-in), npm ci from the registry, typecheck, `.ci/release verify` (tag = version,
 * the changelog's notes, check-dist). No lab needed; slow (two builds, an npm ci), so an e2e file:
 *   npx vitest run test/workflows/release-act.e2e.test.ts
 *
 * The scratch clone installs its own node_modules (npm ci): ncc's module ids come from module paths,
 * so a dist/ built through a symlinked node_modules differs from CI's build of the same sources.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { expect, it } from 'vitest'
import { actBinary } from './act/run-act.js'

const REPO = resolve('.')
const STANDINS = join(REPO, 'test', 'workflows', 'act', 'actions')
const ID = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.invalid', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.invalid' }
// The job's npm ci reaches the registry the way this machine does: its trust store and proxy (a
// runner has its machine's). Without them, behind a proxy that re-signs TLS, npm retries every
// tarball for minutes (SELF_SIGNED_CERT_IN_CHAIN) before it falls back to its cache.
const MACHINE_NETWORK = Object.fromEntries(
  ['NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'SSL_CERT_DIR', 'HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy']
    .filter((k) => process.env[k] !== undefined)
    .map((k) => [k, process.env[k]]),
)
const sh = (cwd: string, cmd: string, args: string[]) =>
  execFileSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, ...ID }, stdio: ['ignore', 'pipe', 'inherit'] })

it('act runs release.yml check on a tag .ci/release cut: green; a tag that does not name the version: red', async () => {
  const act = actBinary()
  const dir = mkdtempSync(join(tmpdir(), 'vrd-release-act-'))
  sh(dir, 'git', ['clone', '-q', '--no-hardlinks', REPO, 'maint'])
  const maint = join(dir, 'maint')
  sh(maint, 'git', ['checkout', '-q', '-B', 'main', sh(REPO, 'git', ['rev-parse', 'HEAD']).trim()])
  sh(maint, 'npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'])
  // The maintainer's tree: dist/ as src/ builds it (the branch under test may not have rebuilt it).
  // The cut's own check-dist builds dist/ in place first (a build takes a minute or two on a slow
  // machine), so the test builds no second time: when that check fails, the tree holds the rebuilt
  // dist/ and nothing else; it is committed and the cut runs again.
  const cut = () =>
    spawnSync('bash', ['.ci/release', 'cut', 'minor'], { cwd: maint, encoding: 'utf8', env: { ...process.env, ...ID }, stdio: ['ignore', 'pipe', 'pipe'] })
  let first = cut()
  if (first.status !== 0 && /dist\/ differs from what src\/ builds/.test(first.stderr)) {
    expect(
      sh(maint, 'git', ['status', '--porcelain'])
        .trimEnd()
        .split('\n')
        .every((l) => l.slice(3).startsWith('dist/')),
    ).toBe(true)
    sh(maint, 'git', ['add', '-A', 'dist'])
    sh(maint, 'git', ['commit', '-q', '-m', 'rebuild dist'])
    first = cut()
  }
  expect(first.status, first.stdout + first.stderr).toBe(0)
  const tag = sh(maint, 'git', ['tag', '--list']).trim()
  expect(tag).toMatch(/^v\d+\.\d+\.0$/)
  sh(maint, 'git', ['tag', 'v99.0.0'])

  const runCheck = (ref: string) => {
    const work = mkdtempSync(join(tmpdir(), 'vrd-release-act-run-'))
    // What GitHub checks out for the tag's push: the tagged tree, no node_modules.
    sh(work, 'git', ['clone', '-q', maint, 'repo'])
    const repo = join(work, 'repo')
    sh(repo, 'git', ['checkout', '-q', ref])
    const event = join(work, 'event.json')
    writeFileSync(
      event,
      JSON.stringify({ ref: `refs/tags/${ref}`, ref_type: 'tag', repository: { full_name: 'example-org/vllm-ray-deploy', default_branch: 'main' } }),
    )
    const child = spawn(
      act,
      [
        'push',
        '-C',
        repo,
        '-W',
        '.github/workflows/release.yml',
        '-j',
        'check',
        '-e',
        event,
        '-P',
        'ubuntu-latest=-self-hosted',
        '--local-repository',
        `actions/checkout@v6=${join(STANDINS, 'checkout')}`,
        '--local-repository',
        `actions/setup-node@v6=${join(STANDINS, 'setup-node')}`,
        '--no-cache-server',
      ],
      {
        cwd: repo,
        env: { ...MACHINE_NETWORK, PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', LANG: 'C.UTF-8', XDG_CACHE_HOME: join(work, 'cache') },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    let log = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => (log += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (log += d))
    return new Promise<{ status: number | null; log: string }>((done, fail) => {
      child.on('error', fail)
      child.on('close', (status) => done({ status, log }))
    })
  }

  // Two runs of the same job on two clones (their own work tree, act cache and workspace): they share
  // nothing but npm's cache, so they run at once.
  const [good, bad] = await Promise.all([runCheck(tag), runCheck('v99.0.0')])
  const tail = (log: string) => log.split('\n').slice(-60).join('\n')
  expect(good.status, tail(good.log)).toBe(0)
  expect(good.log).toMatch(/setup-node stand-in: node v24\./)
  expect(good.log).toContain('check-dist: dist/ is what src/ builds')
  expect(good.log).toContain(`release: ${tag}: package.json, CHANGELOG.md and dist/ agree`)
  expect(good.log).toMatch(/🏁\s+Job succeeded/)

  expect(bad.status).not.toBe(0)
  // It failed at the tag step. The step's own words are not asserted here: act's host mode can drop
  // the output of a step that ends within milliseconds (seen once: the failure line, none of the
  // step's stderr); release.test.ts holds the text of the same refusal, run directly.
  expect(bad.log).toMatch(/❌\s+Failure - Main tag, package\.json and CHANGELOG\.md agree/)
  expect(bad.log).not.toMatch(/✅\s+Success - Main tag, package\.json and CHANGELOG\.md agree/)
  // It failed before the install: the wrong tag costs seconds, not an npm ci.
  expect(good.log).toMatch(/Run Main npm ci/)
  expect(bad.log).not.toMatch(/Run Main npm ci/)
}, 1_800_000)
