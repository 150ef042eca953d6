/**
 * `docker compose` in a launch script: a service's `environment:` (list and map forms) and
 * `env_file:` are its container's environment, for the command in the file and for every later
 * `docker compose exec SERVICE` / `docker exec CONTAINER`; compose files from the repository and
 * from here-documents the script writes; a fix in the compose file is a hunk of the patch. Styles:
 * test/script-check/fixtures/compose/README.md.
 */
import { ok } from '../../src/result/result.js'
import { execFileSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { main } from '../../src/cli/cli-main.js'
import { composeServices, interpolate } from '../../src/script-check/compose.js'
import { checkLaunchScript } from '../../src/script-check/index.js'
import { sourcedFileReader } from '../../src/script-check/load-checker.js'
import { deployBlockedScript } from './support/blocked-deploy.js'

const DIR = 'test/script-check/fixtures/compose'
const check = (path: string) => checkLaunchScript(readFileSync(path, 'utf8'), { path, readSourced: sourcedFileReader(resolve(path)) })
const codes = (r: ReturnType<typeof checkLaunchScript>) => r.findings.map((f) => `${f.code}@${f.evidence['Script line']}`)
const text = (t: string) => ({ text: t, known: true, map: Array.from({ length: t.length }, (_, i) => i) })

describe('a compose file per role in the repository (env_file + environment map, ray start in command:)', () => {
  const path = `${DIR}/repo-file/start-head.sh`
  const yml = `${DIR}/repo-file/head/docker-compose.yml`
  const r = check(path)

  it("the head's ray start in the compose file has no --node-ip-address while env_file gives VLLM_HOST_IP: named in the compose file", () => {
    expect(codes(r)).toEqual([`SCRIPT_HEAD_IDENTITY_UNPINNED@${yml}:14`])
    expect(r.findings[0]!.evidence.VLLM_HOST_IP).toBe(`192.168.100.10 (set at line 3 of ${DIR}/repo-file/cluster.env (env file))`)
    expect(r.findings[0]!.evidence.Container).toMatch(/^ray-head \(started at line 4;/)
  })

  it('the patch edits the command inside the compose file; git apply takes it and nothing is left to report', () => {
    expect(r.patch).toContain(`--- a/${yml}`)
    expect(r.patch).toContain('+    command: ["ray start --head --port=6379 --dashboard-host=0.0.0.0 --block --node-ip-address=192.168.100.10"]')
    const root = mkdtempSync(join(tmpdir(), 'vrd-compose-'))
    mkdirSync(join(root, dirname(DIR)), { recursive: true })
    cpSync(DIR, join(root, DIR), { recursive: true })
    writeFileSync(join(root, 'fix.patch'), r.patch!)
    execFileSync('git', ['apply', 'fix.patch'], { cwd: root, stdio: 'pipe' })
    const again = checkLaunchScript(readFileSync(join(root, path), 'utf8'), {
      path,
      readSourced: (p) => ok(readFileSync(join(root, p), 'utf8')),
    })
    expect(again.findings).toEqual([])
    rmSync(root, { recursive: true, force: true })
  })
})

describe('a compose file the script writes (list form, ${VAR}), then compose exec and docker exec', () => {
  const path = `${DIR}/heredoc/launch.sh`
  const r = check(path)

  it("the head's compose exec runs with the service's VLLM_HOST_IP: the seed incident, patched at the exec", () => {
    expect(codes(r)).toEqual([`SCRIPT_HEAD_IDENTITY_UNPINNED@${path}:21`, `SCRIPT_VLLM_HOST_IP_OVERRIDE@${path}:5`])
    expect(r.findings[0]!.evidence.Container).toMatch(/^vllm_node \(started at line 19;/)
    expect(r.findings[0]!.patch).toContain('+  docker compose exec vllm ray start --head --port=6379 --node-ip-address=10.10.10.1')
  })

  it("the worker's docker exec of the same container gets the head's VLLM_HOST_IP; one setting serves both roles, so no rewrite of it is offered", () => {
    const w = r.findings[1]!
    expect(w.evidence.VLLM_HOST_IP).toBe('10.10.10.1 (set at line 5 (compose))')
    expect(w.patch).toBeUndefined()
  })
})

describe('compose forms', () => {
  const run = (script: string) => codes(checkLaunchScript(script, { path: 't.sh' }))

  it('environment map and list, env_file as one path, command as a string, run -e winning over the file', () => {
    const yml = (env: string, extra = '') => `#!/bin/bash\ncat > compose.yaml <<'Y'\nservices:\n  head:\n    image: img\n${env}${extra}\nY\n`
    expect(run(`${yml('    environment:\n      VLLM_HOST_IP: "10.0.0.1"', '\n    command: ray start --head --block')}docker compose up -d head\n`)).toEqual([
      'SCRIPT_HEAD_IDENTITY_UNPINNED@t.sh:8',
    ])
    expect(run(`${yml('    environment:\n      - VLLM_HOST_IP=10.0.0.1')}docker compose run --rm head ray start --head\n`)).toEqual([
      'SCRIPT_HEAD_IDENTITY_UNPINNED@t.sh:9',
    ])
    expect(run(`${yml('    environment:\n      - VLLM_HOST_IP=10.0.0.1')}docker compose run -e VLLM_HOST_IP= head ray start --head\n`)).toEqual([])
    expect(
      run(`${yml('    env_file: node.env')}cat > node.env <<'E'\nVLLM_HOST_IP=10.0.0.1\nE\ndocker-compose up -d\ndocker-compose exec head ray start --head\n`),
    ).toEqual(['SCRIPT_HEAD_IDENTITY_UNPINNED@t.sh:12'])
  })

  it('near misses: another service, a service never brought up for exec still has its file environment, a compose file not there', () => {
    const two = `#!/bin/bash\ncat > docker-compose.yml <<'Y'\nservices:\n  a:\n    environment: [VLLM_HOST_IP=10.0.0.1]\n  b:\n    image: img\nY\n`
    expect(run(`${two}docker compose up -d\ndocker compose exec b ray start --head\n`)).toEqual([])
    expect(run(`${two}docker compose exec a ray start --head\n`)).toEqual(['SCRIPT_HEAD_IDENTITY_UNPINNED@t.sh:9'])
    expect(run('#!/bin/bash\ndocker compose -f missing.yml exec a ray start --head --node-ip-address=10.0.0.1\n')).toEqual([])
  })

  it('interpolation: ${VAR}, $VAR, ${VAR:-default}, $$, and what the environment does not set stays symbolic', () => {
    const env = (n: string) => (n === 'IP' ? text('10.0.0.7') : undefined)
    expect(interpolate(text('${IP}'), env).text).toBe('10.0.0.7')
    expect(interpolate(text('x$IP'), env).text).toBe('x10.0.0.7')
    expect(interpolate(text('${NOPE:-eth0}'), env).text).toBe('eth0')
    expect(interpolate(text('a$$b'), env).text).toBe('a$b')
    const v = interpolate(text('${NOPE}'), env)
    expect([v.text, v.known]).toEqual(['${NOPE}', false])
    const svc = composeServices(text('services:\n  s:\n    environment:\n      A: 1\n      B:\n    env_file: [x.env, {path: y.env}]\n')).get('s')!
    expect(svc.env.map((e) => [e.name, e.val.text, e.val.known])).toEqual([
      ['A', '1', true],
      ['B', '${B}', false],
    ])
    expect(svc.envFiles.map((f) => f.text)).toEqual(['x.env', 'y.env'])
  })
})

describe('on the paths users run', () => {
  it('diagnose --launch-script: the finding in the compose file, the patch naming it from the repository root', async () => {
    let out = ''
    const code = await main(['diagnose', '--launch-script', `${DIR}/repo-file/start-head.sh`], { out: (s) => (out += s), err: () => {}, env: {} })
    expect(code).toBe(1)
    expect(out).toMatch(new RegExp(`Script line: +${DIR}/repo-file/head/docker-compose.yml:14$`, 'm'))
    expect(out).toContain(`--- a/${DIR}/repo-file/head/docker-compose.yml`)
  })

  describe('the deploy (deploy.scriptCheck: block)', () => {
    it('stops at the script-check stage before anything on the nodes changes', async () => {
      const r = await deployBlockedScript(`${DIR}/repo-file`, 'start-head.sh')
      expect(r.failure?.stage).toBe('script-check')
      expect(r.changed).toBe(false)
      expect(r.findings.find((x) => x.code === 'SCRIPT_HEAD_IDENTITY_UNPINNED')?.evidence['Script line']).toMatch(/head\/docker-compose\.yml:14$/)
    })
  })
})
