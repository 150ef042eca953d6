/**
 * `source FILE` / `. FILE`: the sourced file's commands run on the script's path, its lines keep
 * their own file and line in findings, and a fix in it is a hunk of the same patch (which
 * `git apply` takes from the repository root). A file that cannot be named, read, or that is
 * already being read (a cycle) is a SCRIPT_SOURCE_NOT_FOLLOWED note, never a crash. Styles:
 * test/script-check/fixtures/sourced/README.md.
 */
import { fail, ok, problem } from '../../src/result/result.js'
import { execFileSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { main } from '../../src/cli/cli-main.js'
import { checkLaunchScript, type ReadSourced } from '../../src/script-check/index.js'
import { checkLaunchScriptWhenNeeded, sourcedFileReader } from '../../src/script-check/load-checker.js'
import { deployBlockedScript } from './support/blocked-deploy.js'

const DIR = 'test/script-check/fixtures/sourced'
const check = (path: string) => checkLaunchScript(readFileSync(path, 'utf8'), { path, readSourced: sourcedFileReader(resolve(path)) })
const codes = (r: ReturnType<typeof checkLaunchScript>) => r.findings.map((f) => `${f.code}@${f.evidence['Script line']}`)

/** The fixtures copied at their repository paths into a fresh directory, the patch applied there with git apply; the patched tree's root. */
function applyInCopy(patch: string): string {
  const root = mkdtempSync(join(tmpdir(), 'vrd-sourced-'))
  mkdirSync(join(root, dirname(DIR)), { recursive: true })
  cpSync(DIR, join(root, DIR), { recursive: true })
  writeFileSync(join(root, 'fix.patch'), patch)
  execFileSync('git', ['apply', '--verbose', 'fix.patch'], { cwd: root, stdio: 'pipe' })
  return root
}

describe('a sourced settings file (numbered steps: SCRIPT_DIR from BASH_SOURCE, source "$SCRIPT_DIR/00_setup_common.sh")', () => {
  const path = `${DIR}/numbered-steps/05_start_ray_head.sh`
  const r = check(path)

  it('the head starts Ray without --node-ip-address while the sourced file exports VLLM_HOST_IP: named at the file and line that set it', () => {
    expect(codes(r)).toEqual([`SCRIPT_HEAD_IDENTITY_UNPINNED@${path}:7`])
    expect(r.findings[0]!.evidence.VLLM_HOST_IP).toBe(`192.168.100.10 (set at line 4 of ${DIR}/numbered-steps/00_setup_common.sh (export))`)
  })

  it('the patch pins the head in the script; applied, nothing is left to report', () => {
    expect(r.patch).toContain('+uv run ray start --head --port "$RAY_PORT" --num-gpus 1 --block --node-ip-address=192.168.100.10')
    const root = applyInCopy(r.patch!)
    const again = checkLaunchScript(readFileSync(join(root, path), 'utf8'), {
      path,
      readSourced: (p) => ok(readFileSync(join(root, p), 'utf8')),
    })
    expect(again.findings).toEqual([])
    rmSync(root, { recursive: true, force: true })
  })
})

describe('a settings file per node (source ./env_spark2.sh, then docker run -e … sleep infinity and docker exec … ray start)', () => {
  const path = `${DIR}/per-node-env/run_spark2.sh`
  const env = `${DIR}/per-node-env/env_spark2.sh`
  const r = check(path)

  it("the worker's VLLM_HOST_IP, copied from the head's file, differs from its Ray identity: the finding is at the sourced file's line", () => {
    expect(codes(r)).toEqual([`SCRIPT_VLLM_HOST_IP_OVERRIDE@${env}:6`])
    expect(r.findings[0]!.evidence.Container).toMatch(/^vllm-node \(started at line 6;/)
  })

  it('the patch edits the sourced file (a hunk for it, named from the same root); applied, nothing is left to report', () => {
    expect(r.patch).toContain(`--- a/${env}\n+++ b/${env}\n`)
    expect(r.patch).toContain('+export VLLM_HOST_IP=192.168.100.11')
    expect(r.patch).not.toContain(`--- a/${path}`)
    // The script itself is unchanged.
    expect(r.patched).toBe(readFileSync(path, 'utf8'))
    const root = applyInCopy(r.patch!)
    expect(readFileSync(join(root, env), 'utf8')).toContain('export VLLM_HOST_IP=192.168.100.11\n')
    const again = checkLaunchScript(readFileSync(join(root, path), 'utf8'), {
      path,
      readSourced: (p) => ok(readFileSync(join(root, p), 'utf8')),
    })
    expect(again.findings).toEqual([])
    rmSync(root, { recursive: true, force: true })
  })
})

describe('a library two folders up whose helper starts the container (source "$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/lib/…")', () => {
  const path = `${DIR}/lib-style/scripts/ray/start-head.sh`
  const r = check(path)

  it('the docker run of the helper that runs ray start is named in the library (line 15), the line to edit is the call in the script', () => {
    expect(codes(r)).toEqual([`SCRIPT_HEAD_IDENTITY_UNPINNED@${path}:6`])
    expect(r.findings[0]!.evidence['ray start written at']).toBe(`line 15 of ${DIR}/lib-style/lib/spark-common.sh`)
    expect(r.patch).toContain('+spark_ray_container spark-ray "$PRIMARY_IP" --head --port=6379 --node-ip-address=10.10.10.1')
  })
})

describe('step scripts that source settings and run the next script with bash (bash ./02_ray_node2.sh → bash run_cluster.sh … -e VLLM_HOST_IP=…)', () => {
  it("the worker handed the head's address through two scripts into vLLM's run_cluster.sh: named where the value was written, no pin to the head's address", () => {
    const path = `${DIR}/step-scripts/run_node2.sh`
    const r = check(path)
    expect(codes(r)).toEqual([`SCRIPT_WORKER_USES_HEAD_IP@${DIR}/step-scripts/02_ray_node2.sh:3`])
    expect(r.findings[0]!.evidence['ray start written at']).toMatch(/^line \d+ of test\/script-check\/fixtures\/real\/dev\/vllm-run_cluster-0c37e23\.sh$/)
    expect(r.patch).toBeUndefined()
  })

  it("vLLM's run_cluster.sh run by a wrapper with the node's own VLLM_HOST_IP: its argument loop and ${arg#VLLM_HOST_IP=} give Ray that identity, nothing to report", () => {
    const rc = readFileSync('test/script-check/fixtures/real/dev/vllm-run_cluster-0c37e23.sh', 'utf8')
    const read: ReadSourced = (p) => (p === 'run_cluster.sh' ? ok(rc) : fail(problem('SOURCE_UNREADABLE', 'does not exist')))
    const wrap = (args: string) => checkLaunchScript(`#!/bin/bash\nbash run_cluster.sh img 10.0.0.1 ${args}\n`, { path: 'w.sh', readSourced: read })
    expect(wrap('--worker /hf -e VLLM_HOST_IP=10.0.0.2').findings).toEqual([])
    expect(wrap('--head /hf -e VLLM_HOST_IP=10.0.0.1').findings).toEqual([])
    expect(codes(wrap('--worker /hf -e VLLM_HOST_IP=10.0.0.1'))).toEqual(['SCRIPT_WORKER_USES_HEAD_IP@w.sh:2'])
  })

  it('for loops over known words run once per word with break and continue; trims of known values stay mapped', () => {
    const run = (body: string) => codes(checkLaunchScript(`#!/bin/bash\n${body}\n`, { path: 'l.sh' }))
    // The loop picks the value after skipping -e (continue) and stops at the first match (break); the head is then pinned to it.
    const pick = (ip: string) =>
      `IP=\nfor a in -e NCCL_SOCKET_IFNAME=eth1 VLLM_HOST_IP=${ip} VLLM_HOST_IP=9.9.9.9; do\n  [ "$a" = -e ] && continue\n  case "$a" in VLLM_HOST_IP=*) IP="\${a#VLLM_HOST_IP=}"; break;; esac\ndone\nexport VLLM_HOST_IP=10.0.0.1\nray start --head --node-ip-address="$IP"`
    expect(run(pick('10.0.0.1'))).toEqual([])
    expect(run(pick('10.0.0.7'))).toEqual(['SCRIPT_VLLM_HOST_IP_OVERRIDE@l.sh:7'])
    // ${x%%pat} and ${x##pat} take the longest match; over unknown words ("$@") the body still runs once.
    expect(run('X=10.0.0.5:6379:x\nexport VLLM_HOST_IP=${X%%:*}\nray start --head --node-ip-address=10.0.0.5')).toEqual([])
    expect(run('for a in "$@"; do export VLLM_HOST_IP=10.0.0.3; done\nray start --head')).toEqual(['SCRIPT_HEAD_IDENTITY_UNPINNED@l.sh:3'])
  })

  it('a script file the script wrote (cat > FILE <<EOF) and then runs, by bash and directly', () => {
    const text = (run: string) =>
      `#!/bin/bash\ncat > /tmp/node.sh <<'S'\nexport VLLM_HOST_IP=10.0.0.1\nray start --head --port=6379\nS\nchmod +x /tmp/node.sh\n${run}\n`
    for (const run of ['bash /tmp/node.sh', '/tmp/node.sh', 'sh -e /tmp/node.sh'])
      expect(codes(checkLaunchScript(text(run), { path: 'w.sh' })), run).toEqual(['SCRIPT_HEAD_IDENTITY_UNPINNED@w.sh:4'])
  })
})

describe('files that cannot be followed: a note each, and the walk goes on', () => {
  it('a cycle (a sources b sources a), a file that is not there, a path from a variable', () => {
    const path = `${DIR}/cycle/a.sh`
    const r = check(path)
    expect(r.findings.map((f) => [f.code, f.severity, f.evidence['Script line'], f.evidence['Not read because']])).toEqual([
      [
        'SCRIPT_SOURCE_NOT_FOLLOWED',
        'warning',
        `${DIR}/cycle/b.sh:2`,
        `${path} is already being read (${path} → ${DIR}/cycle/b.sh → ${path}): a cycle, read once`,
      ],
      ['SCRIPT_SOURCE_NOT_FOLLOWED', 'warning', `${path}:3`, `${DIR}/cycle/not-there.sh does not exist`],
      ['SCRIPT_SOURCE_NOT_FOLLOWED', 'warning', `${path}:4`, 'its path depends on ${SETTINGS_FILE}, which is not known before the script runs'],
    ])
  })

  it('a file outside the repository, one that is not bash, and a check given no reader', () => {
    const root = mkdtempSync(join(tmpdir(), 'vrd-sourced-out-'))
    mkdirSync(join(root, 'repo', '.git'), { recursive: true })
    writeFileSync(join(root, 'outside.sh'), 'export VLLM_HOST_IP=1.2.3.4\n')
    writeFileSync(join(root, 'repo', 'broken.sh'), 'if then fi (\n')
    const script = join(root, 'repo', 'run.sh')
    writeFileSync(script, '#!/bin/bash\nsource ../outside.sh\n. ./broken.sh\nray start --head --node-ip-address=10.0.0.1\n')
    const r = checkLaunchScript(readFileSync(script, 'utf8'), { path: script, readSourced: sourcedFileReader(script, {}) })
    expect(r.findings.map((f) => f.evidence['Not read because'])).toEqual([
      expect.stringMatching(/^.*outside\.sh is outside the repository .*repo$/),
      expect.stringMatching(/broken\.sh is not valid bash \(line 1: /),
    ])
    // A shell's or a venv's start-up file is a note (info), a project file a warning.
    const env = checkLaunchScript('#!/bin/bash\nsource ~/.bashrc\nsource /opt/conda/etc/profile.d/conda.sh\n. .venv/bin/activate\n. ./cluster.env\n', {
      path: 'e.sh',
    })
    expect(env.findings.filter((f) => f.code === 'SCRIPT_SOURCE_NOT_FOLLOWED').map((f) => f.severity)).toEqual(['info', 'info', 'info', 'warning'])
    const bare = checkLaunchScript('#!/bin/bash\n. ./settings.sh\nray start --head\n', { path: 'run.sh' })
    expect(bare.findings.map((f) => [f.code, f.evidence['Not read because']])).toEqual([
      ['SCRIPT_SOURCE_NOT_FOLLOWED', 'settings.sh this check was given no files to read besides the script'],
    ])
    rmSync(root, { recursive: true, force: true })
  })
})

describe('the lab\'s scenario scripts as they are on disk (. "$(dirname "$0")/common.sh")', () => {
  it('healthy: nothing to report; seed-bug: both roles, the ray start named in common.sh, the patch in the scenario', () => {
    expect(check('src/lab/scenarios/healthy.sh').findings).toEqual([])
    const r = check('src/lab/scenarios/seed-bug.sh')
    expect(codes(r)).toEqual([
      'SCRIPT_HEAD_IDENTITY_UNPINNED@src/lab/scenarios/seed-bug.sh:8',
      'SCRIPT_WORKER_IDENTITY_UNPINNED@src/lab/scenarios/seed-bug.sh:10',
    ])
    expect(r.findings[0]!.evidence['ray start written at']).toMatch(/^line \d+ of src\/lab\/scenarios\/common\.sh$/)
    expect(r.patch).toContain('--- a/src/lab/scenarios/seed-bug.sh')
  })
})

describe('on the paths users run', () => {
  it('the loader reads sourced files by itself (what diagnose, preflight and the deploy call)', async () => {
    const path = `${DIR}/numbered-steps/05_start_ray_head.sh`
    const r = await checkLaunchScriptWhenNeeded(readFileSync(path, 'utf8'), { path })
    expect(codes(r)).toEqual([`SCRIPT_HEAD_IDENTITY_UNPINNED@${path}:7`])
  })

  it('diagnose --launch-script: the finding at the sourced file, the patch naming it from the repository root', async () => {
    let out = ''
    const code = await main(['diagnose', '--launch-script', `${DIR}/per-node-env/run_spark2.sh`], { out: (s) => (out += s), err: () => {}, env: {} })
    expect(code).toBe(1)
    expect(out).toMatch(new RegExp(`Script line: +${DIR}/per-node-env/env_spark2.sh:6$`, 'm'))
    expect(out).toContain(`--- a/${DIR}/per-node-env/env_spark2.sh`)
  })

  describe('the deploy (deploy.scriptCheck: block)', () => {
    it('stops at the script-check stage before anything on the nodes changes, on a finding in a sourced library', async () => {
      const r = await deployBlockedScript(`${DIR}/lib-style`, 'scripts/ray/start-head.sh')
      expect(r.failure?.stage).toBe('script-check')
      expect(r.changed).toBe(false)
      const f = r.findings.find((x) => x.code === 'SCRIPT_HEAD_IDENTITY_UNPINNED')!
      expect(f.evidence['ray start written at']).toMatch(/^line 15 of .*lib\/spark-common\.sh$/)
    })
  })
})
