/**
 * Releases a user can pin: CHANGELOG.md in Keep a Changelog form, the maintainers' script
 * (.ci/release) run in a scratch clone (it refuses a dist/ that src/ does not build, then makes the
 * release commit and the annotated tag whose message is the notes, dist/ unchanged), the release
 * workflow's shape, and the Node versions CI runs against action.yml and package.json.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { appendFileSync, mkdtempSync, readFileSync, realpathSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
// @ts-expect-error: a plain .mjs script of .ci, without types
import { cut, notesOf } from '../../.ci/changelog.mjs'

const REPO = resolve('.')
type Notes = { ok: true; notes: string } | { ok: false; problem: string }
type Cut = { ok: true; text: string } | { ok: false; problem: string }
const notes = notesOf as (text: string, version: string) => Notes
const cutText = cut as (text: string, version: string, date: string) => Cut

const SAMPLE = [
  '# Changelog',
  '',
  '## [Unreleased]',
  '',
  '### Added',
  '',
  '- a new input',
  '',
  '## [0.1.0] - 2026-11-01',
  '',
  '### Fixed',
  '',
  '- a bug',
  '',
  '[0.1.0]: https://github.com/o/r/releases/tag/v0.1.0',
  '',
].join('\n')

describe('CHANGELOG.md (Keep a Changelog)', () => {
  it('the notes of a version are its section, without the next heading or the link definitions', () => {
    const r = notes(SAMPLE, '0.1.0')
    expect(r).toEqual({ ok: true, notes: '### Fixed\n\n- a bug\n' })
    expect(notes(SAMPLE, '0.3.0')).toMatchObject({ ok: false, problem: expect.stringMatching(/no section "## \[0.3.0\]/) })
  })

  it('cut renames [Unreleased] to the version and date and opens a new empty [Unreleased]', () => {
    const r = cutText(SAMPLE, '0.2.0', '2026-12-04')
    expect(r.ok).toBe(true)
    const text = (r as { text: string }).text
    expect(text).toContain('## [Unreleased]\n\n## [0.2.0] - 2026-12-04\n\n### Added\n\n- a new input\n')
    expect(notes(text, '0.2.0')).toEqual({ ok: true, notes: '### Added\n\n- a new input\n' })
    // Nothing new since: nothing to release; a version twice, or not semver, is refused.
    expect(cutText(text, '0.2.1', '2026-12-05')).toMatchObject({ ok: false, problem: expect.stringMatching(/lists no change/) })
    expect(cutText(SAMPLE, '0.1.0', '2026-12-04')).toMatchObject({ ok: false, problem: expect.stringMatching(/already has/) })
    expect(cutText(SAMPLE, '1.2', '2026-12-04')).toMatchObject({ ok: false, problem: expect.stringMatching(/not a semantic version/) })
  })

  it("this repository's CHANGELOG.md has an [Unreleased] section with changes (the next release can be cut)", () => {
    const text = readFileSync('CHANGELOG.md', 'utf8')
    expect(cutText(text, '99.0.0', '2026-12-04').ok).toBe(true)
  })
})

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=release test', '-c', 'user.email=release@example.invalid', ...args], { cwd, encoding: 'utf8' }).trim()
const release = (cwd: string, ...args: string[]) =>
  spawnSync('bash', ['.ci/release', ...args], {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      VRD_RELEASE_DATE: '2026-12-04',
      GIT_AUTHOR_NAME: 'release test',
      GIT_AUTHOR_EMAIL: 'release@example.invalid',
      GIT_COMMITTER_NAME: 'release test',
      GIT_COMMITTER_EMAIL: 'release@example.invalid',
    },
  })

describe('.ci/release in a scratch clone', () => {
  it('refuses a dist/ that src/ does not build; then cuts the next minor: the release commit, the annotated tag with the notes, dist/ unchanged', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vrd-release-'))
    git(dir, 'clone', '-q', '--no-hardlinks', REPO, 'repo')
    const clone = join(dir, 'repo')
    git(clone, 'checkout', '-q', '-B', 'main', git(REPO, 'rev-parse', 'HEAD'))
    symlinkSync(realpathSync(join(REPO, 'node_modules')), join(clone, 'node_modules'))
    const current = (JSON.parse(readFileSync(join(clone, 'package.json'), 'utf8')) as { version: string }).version

    // A dist/ that is not what src/ builds (here: edited by hand) stops the release before any change.
    appendFileSync(join(clone, 'dist', 'index.js'), '\n// edited by hand\n')
    git(clone, 'commit', '-q', '-am', 'dist edited by hand')
    const refused = release(clone, 'cut', 'minor')
    expect(refused.status, refused.stdout + refused.stderr).toBe(1)
    expect(refused.stderr).toMatch(/dist\/ differs from what src\/ builds/)
    expect(git(clone, 'tag', '--list')).toBe('')
    // The maintainer commits the rebuild check-dist left in the tree, and cuts again.
    // (-A: the build names its chunks by module ids, which differ where node_modules is a link, as here.)
    git(clone, 'add', '-A', 'dist')
    git(clone, 'commit', '-q', '-m', 'rebuild dist')
    const distBefore = git(clone, 'rev-parse', 'HEAD:dist')

    const r = release(clone, 'cut', 'minor')
    expect(r.status, r.stdout + r.stderr).toBe(0)
    const [major, minor] = current.split('.').map(Number)
    const version = `${major}.${minor! + 1}.0`
    const tag = `v${version}`
    expect(JSON.parse(readFileSync(join(clone, 'package.json'), 'utf8'))).toMatchObject({ version })
    expect(JSON.parse(readFileSync(join(clone, 'package-lock.json'), 'utf8'))).toMatchObject({ version, packages: { '': { version } } })
    expect(r.stdout).toContain(`nothing pushed. To publish: git push origin main ${tag}`)
    expect(git(clone, 'tag', '--list')).toBe(tag)
    expect(git(clone, 'cat-file', '-t', tag)).toBe('tag')
    expect(git(clone, 'rev-parse', `${tag}^{commit}`)).toBe(git(clone, 'rev-parse', 'HEAD'))
    expect(git(clone, 'log', '-1', '--format=%s')).toBe(`Release ${tag}`)
    // The tag's message is the release notes: CHANGELOG.md's new section.
    const changelog = readFileSync(join(clone, 'CHANGELOG.md'), 'utf8')
    expect(changelog).toContain(`## [Unreleased]\n\n## [${version}] - 2026-12-04\n`)
    const section = notes(changelog, version)
    expect(section.ok).toBe(true)
    const message = git(clone, 'tag', '-l', '--format=%(contents)', tag)
    expect(message.trim()).toBe(`${tag}\n\n${(section as { notes: string }).notes.trim()}`)
    expect(release(clone, 'notes', version).stdout).toBe((section as { notes: string }).notes)
    // dist/ is the tree it was: the release changes only the changelog and the version files.
    expect(git(clone, 'rev-parse', 'HEAD:dist')).toBe(distBefore)
    expect(git(clone, 'diff', '--name-only', 'HEAD~1', 'HEAD').split('\n').sort()).toEqual(['CHANGELOG.md', 'package-lock.json', 'package.json'])
    expect(git(clone, 'status', '--porcelain')).toBe('')

    // Nothing since: no second release; a tag that does not name the version is refused by verify.
    const again = release(clone, 'cut', 'patch')
    expect(again.status).toBe(1)
    expect(again.stderr).toMatch(/lists no change: nothing to release/)
    for (const how of ['verify', 'verify-tag']) {
      const wrong = release(clone, how, 'v9.9.9')
      expect(wrong.status, how).toBe(1)
      expect(wrong.stderr, how).toContain(`the tag v9.9.9 does not name package.json's version ${version}`)
    }
    expect(release(clone, 'verify-tag', tag)).toMatchObject({ status: 0, stdout: `release: ${tag}: package.json and CHANGELOG.md agree\n` })
  }, 600_000)
})

describe('.ci/release publishes only from main, and moves the major tag only forward', () => {
  /** A scratch repository with .ci/release: main with v0.1.0 then v0.2.0, an old line with v0.1.1, a side branch with v0.3.0. */
  function history(): string {
    const dir = mkdtempSync(join(tmpdir(), 'vrd-release-history-'))
    git(dir, 'init', '-q', '-b', 'main')
    execFileSync('mkdir', ['-p', join(dir, '.ci')])
    execFileSync('cp', [join(REPO, '.ci', 'release'), join(dir, '.ci', 'release')])
    const commit = (msg: string) => git(dir, 'commit', '-q', '--allow-empty', '-m', msg)
    git(dir, 'add', '.ci')
    commit('one')
    git(dir, 'tag', 'v0.1.0')
    git(dir, 'tag', 'v0')
    commit('two')
    git(dir, 'tag', 'v0.2.0')
    git(dir, 'checkout', '-q', '-b', 'old-line', 'v0.1.0')
    commit('a patch of the old line')
    git(dir, 'tag', 'v0.1.1')
    git(dir, 'checkout', '-q', '-b', 'side', 'main')
    commit('not on main')
    git(dir, 'tag', 'v0.3.0')
    git(dir, 'checkout', '-q', 'main')
    // origin/main, as the workflow's checkout with fetch-depth: 0 has it.
    git(dir, 'update-ref', 'refs/remotes/origin/main', 'main')
    return dir
  }

  it('on-branch: a tag on main passes; a tag on any other commit is refused, naming the commit', () => {
    const dir = history()
    expect(release(dir, 'on-branch', 'v0.2.0')).toMatchObject({ status: 0 })
    const side = release(dir, 'on-branch', 'v0.3.0')
    expect(side.status).toBe(1)
    expect(side.stderr).toContain(`the tag v0.3.0 names ${git(dir, 'rev-parse', 'v0.3.0^{commit}')}, which is not on origin/main`)
    expect(release(dir, 'on-branch', 'v0.1.1').status).toBe(1)
    expect(release(dir, 'on-branch', 'v9.9.9').stderr).toContain('no tag v9.9.9')
  })

  it('major-target: forward to a newer release on the same line; never back, never to an older line', () => {
    const dir = history()
    const target = (tag: string) => release(dir, 'major-target', tag).stdout.trim()
    expect(target('v0.2.0')).toBe('v0')
    git(dir, 'tag', '-f', 'v0', 'v0.2.0')
    // v0 now at v0.2.0: the old line's patch and v0.1.0 itself do not move it back, v0.2.0 again does nothing.
    expect(target('v0.1.1')).toBe('')
    expect(release(dir, 'major-target', 'v0.1.1').stderr).toContain('v0 stays at v0.2.0')
    expect(target('v0.1.0')).toBe('')
    expect(target('v0.2.0')).toBe('')
    // A first v1 release: its major tag does not exist yet.
    git(dir, 'tag', 'v1.0.0', 'main')
    expect(target('v1.0.0')).toBe('v1')
  })

  it('the workflow runs both: on-branch before anything is built and again before publishing, major-target before moving the tag', () => {
    const w = parse(readFileSync('.github/workflows/release.yml', 'utf8')) as {
      jobs: Record<string, { steps: { run?: string; with?: Record<string, unknown> }[] }>
    }
    const check = w.jobs['check']!.steps
    expect(check.find((s) => s.with?.['fetch-depth'] !== undefined)?.with?.['fetch-depth']).toBe(0)
    const checkRuns = check.map((s) => s.run ?? '')
    expect(checkRuns.findIndex((r) => r.includes('.ci/release on-branch "$TAG" origin/main'))).toBeLessThan(checkRuns.findIndex((r) => /^npm ci/.test(r)))
    const publish = w.jobs['publish']!.steps.map((s) => s.run ?? '').join('\n')
    expect(publish).toMatch(
      /on-branch "\$TAG" origin\/main\n\s*major=\$\(bash \.ci\/release major-target "\$TAG"\)\n\s*if \[ -z "\$major" \]; then .*exit 0; fi\n\s*git tag -f "\$major"/,
    )
  })
})

interface Step {
  readonly uses?: string
  readonly run?: string
  readonly with?: Record<string, unknown>
  readonly env?: Record<string, string>
}
interface Job {
  readonly needs?: string[]
  readonly permissions?: Record<string, string>
  readonly steps: Step[]
}
const workflow = (f: string) =>
  parse(readFileSync(join('.github/workflows', f), 'utf8')) as { on: Record<string, unknown>; permissions: unknown; jobs: Record<string, Job> }

describe('the release workflow', () => {
  const w = workflow('release.yml')
  it('runs on a version tag only: the checks (check-dist included) and the full suite gate publishing', () => {
    expect(w.on).toEqual({ push: { tags: ['v[0-9]+.[0-9]+.[0-9]+'] } })
    expect(w.permissions).toEqual({ contents: 'read' })
    const runs = w.jobs['check']!.steps.map((s) => s.run)
    expect(runs).toContain('bash .ci/release verify "$TAG"')
    // The tag is checked before the install: a wrong tag fails in seconds, not after npm ci.
    expect(runs.indexOf('bash .ci/release verify-tag "$TAG"')).toBeGreaterThan(-1)
    expect(runs.indexOf('bash .ci/release verify-tag "$TAG"')).toBeLessThan(runs.findIndex((r) => /^npm ci/.test(r ?? '')))
    expect(w.jobs['test']!.steps.some((s) => /\.ci\/run$/.test(s.run ?? ''))).toBe(true)
    expect(w.jobs['publish']!.needs).toEqual(['check', 'test'])
    // Only the job that publishes may write.
    for (const [id, job] of Object.entries(w.jobs)) expect(job.permissions, id).toEqual(id === 'publish' ? { contents: 'write' } : undefined)
  })

  it('publishes the changelog section as the notes, ships the JSON Schema, moves the major tag', () => {
    const runs = w.jobs['publish']!.steps.map((s) => s.run ?? '').join('\n')
    expect(runs).toContain('bash .ci/release notes "${TAG#v}"')
    expect(runs).toMatch(/gh release create "\$TAG" --verify-tag [^\n]*--notes-file/)
    expect(runs).toContain('src/manifest/cluster-manifest.schema.json')
    expect(runs).toContain('major=$(bash .ci/release major-target "$TAG")')
    expect(runs).toContain('git push -f origin "refs/tags/$major"')
  })
})

describe('CI runs on the Node versions the Action and the CLI promise', () => {
  const action = parse(readFileSync('action.yml', 'utf8')) as { runs: { using: string } }
  const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } }
  const tools = readFileSync('.ci/tools', 'utf8')
  const pinned = (name: string) => new RegExp(`^${name}=(\\S+)$`, 'm').exec(tools)?.[1]
  const nodeVersions = (f: string) =>
    Object.values(workflow(f).jobs).flatMap((j) =>
      j.steps.filter((s) => s.uses?.startsWith('actions/setup-node@')).map((s) => String(s.with?.['node-version'])),
    )

  it("the Action's runtime: action.yml's node24 is the version ci.yml and release.yml test on, and .ci/tools installs", () => {
    const major = /^node(\d+)$/.exec(action.runs.using)?.[1]
    expect(major).toBeDefined()
    expect(pinned('VRD_NODE_ACTION_VERSION')?.split('.')[0]).toBe(major)
    expect(nodeVersions('ci.yml')).toContain(pinned('VRD_NODE_ACTION_VERSION'))
    expect(new Set(nodeVersions('release.yml'))).toEqual(new Set([pinned('VRD_NODE_ACTION_VERSION')]))
  })

  it("the CLI's floor: the lowest version engines allows is the one ci.yml tests on, and .ci/tools installs", () => {
    const lowest = /^>=(\d+\.\d+\.\d+)$/.exec(pkg.engines.node)?.[1]
    expect(lowest, `engines.node ${pkg.engines.node} names its lowest version`).toBeDefined()
    expect(pinned('VRD_NODE_LOWEST_VERSION')).toBe(lowest)
    expect(nodeVersions('ci.yml')).toContain(lowest)
  })
})
