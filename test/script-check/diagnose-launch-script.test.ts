/**
 * `diagnose --launch-script` through both front doors: the CLI prints the findings with their
 * patches, `--json` carries them, `--fix-out` writes one file that `git apply` and `patch -p1`
 * take from the directory the command ran in; the bundled Action (dist) sets `fix-file`.
 */
import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { main } from '../../src/cli/cli-main.js'
import { runAction } from '../support/action.js'

const SCRIPT = 'test/script-check/fixtures/spark-vllm-qwen35.sh'
const EXAMPLE = 'src/manifest/examples/dgx-spark-pair.yml'

async function cli(...args: string[]) {
  let out = ''
  let err = ''
  const code = await main(args, { out: (s) => (out += s), err: (s) => (err += s), env: {} })
  return { code, out, err }
}

/** A copy of the script at its repository path in a fresh directory, the patch applied there by a real tool. */
function applyThere(tool: 'git' | 'patch', patchFile: string): string {
  const dir = mkdtempSync(join(tmpdir(), `vrd-fix-${tool}-`))
  mkdirSync(join(dir, dirname(SCRIPT)), { recursive: true })
  copyFileSync(SCRIPT, join(dir, SCRIPT))
  if (tool === 'git') execFileSync('git', ['apply', patchFile], { cwd: dir, stdio: 'pipe' })
  else execFileSync('patch', ['-p1', '-i', patchFile], { cwd: dir, stdio: 'pipe' })
  return join(dir, SCRIPT)
}

describe('vllm-ray-deploy diagnose --launch-script', () => {
  it('prints both findings of the incident script with their lines and patches, and exits 1', async () => {
    const r = await cli('diagnose', '--launch-script', SCRIPT, '--manifest', EXAMPLE)
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/^SCRIPT_HEAD_IDENTITY_UNPINNED +error +spark-a /m)
    expect(r.out).toMatch(/^SCRIPT_VLLM_HOST_IP_OVERRIDE +error +spark-b /m)
    expect(r.out).toMatch(new RegExp(`Script line: +${SCRIPT}:21$`, 'm'))
    expect(r.out).toMatch(new RegExp(`Script line: +${SCRIPT}:24$`, 'm'))
    expect(r.out).toContain('  patch (git apply / patch -p1):')
    expect(r.out).toContain(`--- a/${SCRIPT}`)
  })

  it('the DGX Spark style (docker run -e VLLM_HOST_IP … sleep infinity, then docker exec NAME ray start --head): the seed incident, with the container named', async () => {
    const DOCKER_EXEC = 'test/script-check/fixtures/spark-docker-exec.sh'
    const r = await cli('diagnose', '--launch-script', DOCKER_EXEC, '--manifest', EXAMPLE)
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/^SCRIPT_HEAD_IDENTITY_UNPINNED +error +spark-a /m)
    expect(r.out).toMatch(new RegExp(`Script line: +${DOCKER_EXEC}:32$`, 'm'))
    expect(r.out).toMatch(/Container: +vllm \(started at line 16;/)
    expect(r.out).toContain('+    docker exec "$NAME" ray start --head --port "$PORT" --node-ip-address=192.168.200.12')
  })

  it('--json carries each patch and the combined one', async () => {
    const r = await cli('diagnose', '--launch-script', SCRIPT, '--json')
    const j = JSON.parse(r.out) as { findings: { code: string; patch?: string }[]; patch: string }
    expect(j.findings.map((f) => [f.code, f.patch !== undefined])).toEqual([
      ['SCRIPT_HEAD_IDENTITY_UNPINNED', true],
      ['SCRIPT_VLLM_HOST_IP_OVERRIDE', true],
    ])
    expect(j.patch).toContain('--node-ip-address=192.168.200.12')
    expect(j.patch).toContain('--node-ip-address=192.168.200.13')
  })

  it('--fix-out writes one file that git apply and patch -p1 both take; the patched script then has no findings', async () => {
    const fixOut = join(mkdtempSync(join(tmpdir(), 'vrd-fixout-')), 'fix.patch')
    await cli('diagnose', '--launch-script', SCRIPT, '--fix-out', fixOut)
    for (const tool of ['git', 'patch'] as const) {
      const patched = applyThere(tool, fixOut)
      expect(readFileSync(patched, 'utf8')).not.toBe(readFileSync(SCRIPT, 'utf8'))
      const again = await cli('diagnose', '--launch-script', patched, '--manifest', EXAMPLE, '--json')
      expect(again.code, again.out).toBe(0)
      expect((JSON.parse(again.out) as { findings: unknown[] }).findings).toEqual([])
    }
  })

  describe("the incident's script with each role's ray start in a bash -c string (spark-vllm-qwen35-bash-c.sh)", () => {
    const BASH_C = 'test/script-check/fixtures/spark-vllm-qwen35-bash-c.sh'
    /** The script alone in a fresh directory (no repository above it), or at sub/dir/ of a fresh git repository. */
    function place(inRepo: boolean): { root: string; script: string } {
      const root = mkdtempSync(join(tmpdir(), inRepo ? 'vrd-repo-' : 'vrd-loose-'))
      if (inRepo) execFileSync('git', ['init', '-q', root])
      const script = inRepo ? join(root, 'sub', 'dir', 'launch.sh') : join(root, 'launch.sh')
      mkdirSync(dirname(script), { recursive: true })
      copyFileSync(BASH_C, script)
      return { root, script }
    }

    for (const inRepo of [false, true]) {
      it(`run from another directory: both bugs at the lines to edit, one --fix-out patch that patch -p1 applies from the ${inRepo ? 'repository root' : "script's directory"}, then clean`, async () => {
        const { root, script } = place(inRepo)
        const fixOut = join(mkdtempSync(join(tmpdir(), 'vrd-fixout-')), 'fix.patch')
        // The CLI runs here (the project's checkout), which is neither the script's directory nor its repository.
        const r = await cli('diagnose', '--launch-script', script, '--fix-out', fixOut, '--json')
        expect(r.code).toBe(1)
        const j = JSON.parse(r.out) as { findings: { code: string; evidence: Record<string, string> }[]; patchAppliesFrom: { directory: string; root: string } }
        expect(j.findings.map((f) => `${f.code}@${f.evidence['Script line']!.replace(/^.*:(\d+)$/, '$1')}`)).toEqual([
          'SCRIPT_HEAD_IDENTITY_UNPINNED@26',
          'SCRIPT_VLLM_HOST_IP_OVERRIDE@29',
        ])
        expect(j.patchAppliesFrom).toEqual({ directory: root, root: inRepo ? 'repository root' : 'script directory' })
        const diff = readFileSync(fixOut, 'utf8')
        expect(diff).toContain(`--- a/${inRepo ? 'sub/dir/launch.sh' : 'launch.sh'}\n`)
        expect(diff).toContain('+  start_node "ray start --head --port=6379 --block --node-ip-address=192.168.200.12"')
        expect(diff).not.toContain('..')
        execFileSync('patch', ['-p1', '-i', fixOut], { cwd: root, stdio: 'pipe' })
        const again = await cli('diagnose', '--launch-script', script, '--json')
        expect(again.code, again.out).toBe(0)
        expect((JSON.parse(again.out) as { findings: unknown[] }).findings).toEqual([])
      })
    }

    it('the text output says where the patch applies from', async () => {
      const { root, script } = place(false)
      const r = await cli('diagnose', '--launch-script', script)
      expect(r.out).toContain(`apply it from ${root} (the script directory)`)
    })
  })

  // Runs the bundled dist (rebuilt with `npm run build`; mvdan-sh bundles into it as plain CommonJS).
  it('the Action (dist) takes the launch-script input and sets fix-file', () => {
    const a = runAction({ command: 'diagnose', 'launch-script': SCRIPT, manifest: EXAMPLE })
    expect(a.status, a.stdout + a.stderr).toBe(1)
    expect(a.stdout).toMatch(new RegExp(`^::error title=SCRIPT_HEAD_IDENTITY_UNPINNED on spark-a,file=${SCRIPT},line=21::`, 'm'))
    expect(readFileSync(a.outputs['fix-file']!, 'utf8')).toContain(`+++ b/${SCRIPT}`)
  }, 60_000)
})
