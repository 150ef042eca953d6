/**
 * The hub download planner (src/deploy/weights/hub.ts): what the step runs, the token's way
 * (stdin → a 0600 file → HF_TOKEN_PATH, gone afterwards), and the parser of what the step prints.
 * The step's shell wrapper runs for real here, with a stand-in `docker` that records what it was
 * given; the real client against the lab's mirror is test/deploy/hub-download.e2e.test.ts.
 */
import { spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { render, renderScript } from '../../src/command/shell.js'
import { HF_TOKEN_ENV, HUB_DOWNLOAD_CONTAINER, type HubDownloadInput, discardDownloaded, planHubDownload } from '../../src/deploy/weights/hub.js'
import { hubDigestMismatches, parseHubDownload } from '../../src/deploy/weights/hub-listing.js'
import { stdinProvider } from '../../src/execute/step-inputs.js'

const COMMIT = 'e92c2e196f8b7634f3585a96b83bbf0bf41c09ea'
const TOKEN = 'hf_TestTokenValue0123456789'
const base: HubDownloadInput = {
  repo: 'Qwen/Qwen3.5-122B-A10B-FP8',
  revision: COMMIT,
  dest: '/var/lib/vrd/models/qwen',
  image: 'sha256:1111111111111111111111111111111111111111111111111111111111111111',
}

describe('planHubDownload', () => {
  it('runs snapshot_download in a throw-away container of the release image, dest mounted at the same path', () => {
    const [step, ...more] = planHubDownload({ ...base, endpoint: 'http://172.30.230.1:8080' })
    expect(more).toEqual([])
    expect(step!.stdin).toBeUndefined()
    const line = render(step!.cmd)
    expect(line).toMatch(/^mkdir -p \/var\/lib\/vrd\/models\/qwen && sh -c /)
    expect(line).toContain(
      `docker run --rm --name ${HUB_DOWNLOAD_CONTAINER} --network host --entrypoint python3 -v /var/lib/vrd/models/qwen:/var/lib/vrd/models/qwen`,
    )
    expect(line).toContain('-e HF_ENDPOINT=http://172.30.230.1:8080')
    expect(line).not.toContain('-e HF_TOKEN_PATH')
    expect(line).not.toContain('/run/vrd-hub/token')
    expect(line).toMatch(new RegExp(`${base.image} -c '.*snapshot_download.*' Qwen/Qwen3.5-122B-A10B-FP8 ${COMMIT} /var/lib/vrd/models/qwen$`, 's'))
    expect(step!.description).toBe(
      `download Qwen/Qwen3.5-122B-A10B-FP8@${COMMIT} from http://172.30.230.1:8080 into /var/lib/vrd/models/qwen (huggingface_hub in ${base.image})`,
    )
  })

  it('with a token file, the token comes from stdin and the client reads it through HF_TOKEN_PATH', () => {
    const [step] = planHubDownload({ ...base, tokenFile: '/var/lib/vllm-ray-deploy/lab/hf-token' })
    expect(step!.stdin).toEqual({ kind: 'secret-value', name: HF_TOKEN_ENV })
    const line = render(step!.cmd)
    expect(line).toContain('-v /var/lib/vllm-ray-deploy/lab/hf-token:/run/vrd-hub/token:ro')
    expect(line).toContain('-e HF_TOKEN_PATH=/run/vrd-hub/token -e HF_HOME=/run/vrd-hub')
    expect(step!.description).toMatch(/token from HF_TOKEN in a 0600 file/)
  })

  it.each([
    ['repo', { repo: 'no-slash' }],
    ['repo', { repo: 'a/b c' }],
    ['revision', { revision: '-rf' }],
    ['revision', { revision: 'a/../b' }],
    ['dest', { dest: 'relative/path' }],
    ['dest', { dest: '/a/../etc' }],
    ['dest', { dest: '/a:b' }],
    ['tokenFile', { tokenFile: 'token' }],
    ['endpoint', { endpoint: 'ftp://x' }],
  ] as const)('refuses a bad %s before it reaches a command line', (what, change) => {
    expect(() => planHubDownload({ ...base, ...change })).toThrow(what === 'revision' || what === 'repo' ? /hub (repo id|revision)/ : new RegExp(what))
  })
})

describe('the token on the node', () => {
  /** Runs the step's rendered script here, with a `docker` that records its argv, the token file's mode and content. */
  function runStep(tokenFile: string, token: string | undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'hub-step-'))
    const bin = join(dir, 'bin')
    spawnSync('mkdir', ['-p', bin])
    writeFileSync(
      join(bin, 'docker'),
      [
        '#!/bin/sh',
        `rec=${dir}/docker.log`,
        'printf "%s\\n" "$*" >> "$rec"',
        '[ "$1" = run ] || exit 0',
        'for a in "$@"; do case "$a" in *:/run/vrd-hub/token:ro) f=${a%%:*};; esac; done',
        'if [ -n "${f:-}" ]; then echo "mode=$(stat -c %a "$f")" >> "$rec"; echo "content=$(cat "$f")" >> "$rec"; fi',
        'echo \'{"vrd-hub": 1, "commit": "x"}\'',
      ].join('\n'),
    )
    chmodSync(join(bin, 'docker'), 0o755)
    const [step] = planHubDownload({ ...base, dest: join(dir, 'dest'), tokenFile })
    const script = renderScript(step!.cmd)
    const r = spawnSync('sh', ['-c', script], { input: token, env: { PATH: `${bin}:${process.env.PATH}` }, encoding: 'utf8' })
    return { script, r, log: readFileSync(join(dir, 'docker.log'), 'utf8'), dir }
  }

  it('is written 0600 from stdin, read by the container, removed afterwards, and is in no argv or output', async () => {
    const provided = await stdinProvider('m.yml', { [HF_TOKEN_ENV]: `${TOKEN}\n` })({ kind: 'secret-value', name: HF_TOKEN_ENV })
    expect(provided).toEqual({ ok: true, value: TOKEN })
    const stdin = TOKEN
    const dir = mkdtempSync(join(tmpdir(), 'hub-token-'))
    const tokenFile = join(dir, 'state', 'hf-token')
    const { script, r, log } = runStep(tokenFile, stdin as string)
    expect(r.status).toBe(0)
    expect(log).toContain('mode=600')
    expect(log).toContain(`content=${TOKEN}`)
    expect(existsSync(tokenFile)).toBe(false)
    // The argv docker got, the script the node runs, and everything it printed: no token.
    const argvLines = log.split('\n').filter((l) => !l.startsWith('content='))
    for (const text of [script, ...argvLines, r.stdout, r.stderr]) expect(text).not.toContain(TOKEN)
  })

  it('is removed when the download fails too', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hub-token-'))
    const tokenFile = join(dir, 'hf-token')
    const [step] = planHubDownload({ ...base, dest: join(dir, 'dest'), tokenFile })
    const r = spawnSync('sh', ['-c', renderScript(step!.cmd)], { input: TOKEN, env: { PATH: `${join(dir, 'nobin')}:/usr/bin:/bin` }, encoding: 'utf8' })
    // docker is not found here: the step fails, the file is gone anyway.
    expect(r.status).not.toBe(0)
    expect(existsSync(tokenFile)).toBe(false)
  })

  it('an unset or empty HF_TOKEN is an error naming it, not an empty token file', async () => {
    const provide = stdinProvider('m.yml', { [HF_TOKEN_ENV]: '  ' })
    await expect(provide({ kind: 'secret-value', name: HF_TOKEN_ENV })).resolves.toMatchObject({
      ok: false,
      problem: { message: expect.stringMatching(/not set for this run: HF_TOKEN/) },
    })
    await expect(stdinProvider('m.yml', {})({ kind: 'secret-value', name: HF_TOKEN_ENV })).resolves.toMatchObject({
      ok: false,
      problem: { message: expect.stringMatching(/HF_TOKEN/) },
    })
  })
})

describe('parseHubDownload', () => {
  const sha = 'a78d472077b0104dfd4bda0dae31476392d10a779b25e687b46f2fc5f07dbb1a'
  const blob = '9fa7a2fd23296a04bfcd345c03372edbdc668c48'
  const listing = (files: unknown[], fetched: string[] = []) =>
    `Fetching 2 files\n${JSON.stringify({ repo: base.repo, revision: base.revision, commit: COMMIT, client: '2.4.0', files, fetched, 'vrd-hub': 1 })}\n`
  const run = (stdout: string, code = 0, stderr = '') => ({ node: 'spark-a', code, stdout, stderr })
  const good = [
    {
      path: 'config.json',
      size: 21,
      blobId: 'b44ca83de3f3f4c0311f57d048cd9db556ceaa8d',
      lfs: false,
      sha256: null,
      localSize: 21,
      localBlobId: 'b44ca83de3f3f4c0311f57d048cd9db556ceaa8d',
    },
    { path: 'model-00001-of-00002.safetensors', size: 3000000, blobId: blob, lfs: true, sha256: sha, localSize: 3000000, localBlobId: null },
  ]

  it("reads the hub's listing: paths, sizes, blob ids, the sha256 of LFS files, what this run fetched", () => {
    const r = parseHubDownload(base, run(listing(good, ['model-00001-of-00002.safetensors'])))
    expect(r).toEqual({
      ok: true,
      value: {
        repo: base.repo,
        revision: COMMIT,
        commit: COMMIT,
        client: '2.4.0',
        files: [
          { path: 'config.json', size: 21, blobId: 'b44ca83de3f3f4c0311f57d048cd9db556ceaa8d' },
          { path: 'model-00001-of-00002.safetensors', size: 3000000, blobId: blob, sha256: sha },
        ],
        fetched: ['model-00001-of-00002.safetensors'],
        bytes: 3000021,
      },
    })
  })

  it.each([
    ['unauthorized', 401, 'HUB_UNAUTHORIZED', /HF_TOKEN or \u2060--hf-token-file F\u2060/],
    ['forbidden', 403, 'HUB_FORBIDDEN', /licence/],
    ['gated', 403, 'HUB_GATED', /accept its conditions/],
    ['not-found', 401, 'HUB_REPO_NOT_FOUND', /model\.source\.hub\.repo/],
    ['revision-not-found', 404, 'HUB_REVISION_NOT_FOUND', /model\.source\.hub\.revision/],
    ['unreachable', undefined, 'HUB_UNREACHABLE', /DNS, proxy/],
    ['no-client', undefined, 'HUB_CLIENT_MISSING', /huggingface_hub/],
    ['no-space', undefined, 'DISK_SPACE_LOW', /free space .*nothing was downloaded/],
    ['something-new', 500, 'HUB_DOWNLOAD_FAILED', /resumes/],
  ])('a %s error is a Problem with its code, evidence and fix', (kind, status, code, fix) => {
    const line = JSON.stringify({
      error: { kind, type: 'HfHubHTTPError', status: status ?? null, message: `Client error for url 'http://mirror/x' ${TOKEN}` },
      'vrd-hub': 1,
    })
    const r = parseHubDownload({ ...base, endpoint: 'http://mirror' }, run(`${line}\n`, 1), [TOKEN])
    expect(r.ok).toBe(false)
    if (r.ok) return
    expect(r.problem.code).toBe(code)
    expect(r.problem.fix).toMatch(fix)
    expect(r.problem.evidence).toMatchObject({ node: 'spark-a', repo: base.repo, revision: COMMIT, endpoint: 'http://mirror', error: 'HfHubHTTPError' })
    if (status) expect(r.problem.evidence.status).toBe(String(status))
    expect(JSON.stringify(r.problem)).not.toContain(TOKEN)
    expect(r.problem.evidence.detail).toContain('***')
  })

  it('no result line: the output tail is the evidence (token blanked), the fix names the likely cause', () => {
    const r = parseHubDownload(base, run('', 125, `Unable to find image 'x' locally\nerror ${TOKEN}`), [TOKEN])
    expect(r.ok).toBe(false)
    if (r.ok) return
    expect(r.problem).toMatchObject({ code: 'HUB_DOWNLOAD_FAILED', evidence: { exit: '125' } })
    expect(r.problem.fix).toMatch(/image stage/)
    expect(JSON.stringify(r.problem)).not.toContain(TOKEN)
    const noPython = parseHubDownload(base, run('', 127, 'exec: "python3": executable file not found in $PATH'))
    expect(!noPython.ok && noPython.problem.fix).toMatch(/huggingface_hub/)
  })

  it.each([
    ['an absolute path', { path: '/etc/passwd' }, /not relative/],
    ['a path with ..', { path: 'a/../../x' }, /not relative/],
    ['a negative size', { size: -1 }, /size/],
    ['a short blob id', { blobId: 'abc' }, /blob id/],
    ['a bad sha256', { sha256: 'zz' }, /sha256/],
  ])('a listing with %s is HUB_LISTING_INVALID', (_what, change, why) => {
    const r = parseHubDownload(base, run(listing([{ ...good[1], ...change }])))
    expect(r.ok).toBe(false)
    if (!r.ok) {
      expect(r.problem.code).toBe('HUB_LISTING_INVALID')
      expect(r.problem.message).toMatch(why)
    }
  })

  it('a file kept in git whose node copy has another git blob id is WEIGHTS_DIGEST_MISMATCH naming the file and both ids', () => {
    const other = '0123456789abcdef0123456789abcdef01234567'
    const r = parseHubDownload(base, run(listing([{ ...good[0], localBlobId: other }, good[1]])))
    expect(r).toMatchObject({
      ok: false,
      problem: {
        code: 'WEIGHTS_DIGEST_MISMATCH',
        evidence: { file: 'config.json', hub: `git blob ${good[0]!.blobId}`, found: `git blob ${other}`, node: 'spark-a' },
      },
    })
  })

  it('an LFS file the hub lists without its SHA-256 is refused (HUB_DIGEST_MISSING): its bytes could not be checked', () => {
    const r = parseHubDownload(base, run(listing([good[0], { ...good[1], sha256: null }])))
    expect(r).toMatchObject({ ok: false, problem: { code: 'HUB_DIGEST_MISSING', evidence: { file: 'model-00001-of-00002.safetensors' } } })
  })

  it("a file kept in git without the node's git blob id is a listing this tool cannot read", () => {
    const r = parseHubDownload(base, run(listing([{ ...good[0], localBlobId: null }, good[1]])))
    expect(r).toMatchObject({ ok: false, problem: { code: 'HUB_LISTING_INVALID' } })
  })

  it('hubDigestMismatches: each LFS file whose node SHA-256 differs or is absent; files kept in git are not its business', () => {
    const l = parseHubDownload(base, run(listing(good)))
    if (!l.ok) throw new Error(l.problem.message)
    expect(hubDigestMismatches(l.value, new Map([['model-00001-of-00002.safetensors', { sha256: sha }]]))).toEqual([])
    expect(hubDigestMismatches(l.value, new Map([['model-00001-of-00002.safetensors', { sha256: 'f'.repeat(64) }]]))).toEqual([
      { path: 'model-00001-of-00002.safetensors', hub: sha, found: 'f'.repeat(64) },
    ])
    expect(hubDigestMismatches(l.value, new Map())).toEqual([{ path: 'model-00001-of-00002.safetensors', hub: sha }])
  })

  it("discardDownloaded removes the files and huggingface_hub's record of them, and refuses a path out of dest", () => {
    expect(render(discardDownloaded('/m', ['a/b.safetensors']))).toBe('rm -f -- /m/a/b.safetensors /m/.cache/huggingface/download/a/b.safetensors.metadata')
    expect(() => discardDownloaded('/m', ['../etc/passwd'])).toThrow(/relative/)
  })

  it('a file shorter on disk than the hub lists is HUB_FILE_INCOMPLETE, naming the file and both sizes', () => {
    const r = parseHubDownload(base, run(listing([good[0], { ...good[1], localSize: 1000000 }])))
    expect(r).toMatchObject({
      ok: false,
      problem: { code: 'HUB_FILE_INCOMPLETE', evidence: { node: 'spark-a', file: 'model-00001-of-00002.safetensors', expected: '3000000', found: '1000000' } },
    })
  })
})
