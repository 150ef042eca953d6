/** The pure parts of a rollout: release ids, release files and fingerprint, node state, report table, smoke judging. */
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { releaseIdProblem, resolveReleaseId, timestampReleaseId } from '../../src/deploy/release-id.js'
import { releaseFiles, releaseFingerprint } from '../../src/deploy/release-files.js'
import { commonCurrent, parseNodeState } from '../../src/deploy/node-state.js'
import type { RolloutReport } from '../../src/deploy/rollout.js'
import { loadManifestFile } from '../../src/manifest/load-manifest.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { planRelease } from '../../src/plan/plan.js'
import { renderNodeTable, rolloutHeadline } from '../../src/report/rollout-report.js'
import { flatGroups } from '../../src/action/log-groups.js'
import { rolloutOutcome } from '../../src/tasks/deploy-task.js'

const EXAMPLE = fileURLToPath(new URL('../../src/manifest/examples/dgx-spark-pair.yml', import.meta.url))
const ID = `sha256:${'ab'.repeat(32)}`
const meta = { who: 'tester', createdAt: '2026-12-03T14:00:00.000Z' }
let m: Manifest

beforeAll(async () => {
  const r = await loadManifestFile(EXAMPLE)
  m = { ...r.manifest!, container: { ...r.manifest!.container, secretEnv: ['HF_TOKEN'] } }
})

describe('release ids', () => {
  it('accepts SHAs, timestamps and tags; refuses slashes, leading dashes, dots and odd characters', () => {
    for (const ok of ['4f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39', '20261203T140501Z', 'v1.2.3', 'release_7-rc.1']) expect(releaseIdProblem(ok)).toBeUndefined()
    expect(releaseIdProblem('a/b')).toMatch(/contains "\/"/)
    expect(releaseIdProblem('-rf')).toMatch(/starts with "-"/)
    expect(releaseIdProblem('')).toMatch(/empty/)
    for (const bad of ['..', '.hidden', 'a b', 'x;rm', 'é', 'a'.repeat(129)]) expect(releaseIdProblem(bad), bad).toMatch(/may only hold/)
  })
  it('defaults to $GITHUB_SHA, then to a UTC timestamp', () => {
    const now = new Date('2026-12-03T14:05:01.123Z')
    expect(timestampReleaseId(now)).toBe('20261203T140501Z')
    expect(resolveReleaseId(undefined, { GITHUB_SHA: 'abc123' }, now)).toEqual({ ok: true, value: 'abc123' })
    expect(resolveReleaseId('', {}, now)).toEqual({ ok: true, value: '20261203T140501Z' })
    expect(resolveReleaseId('v2', { GITHUB_SHA: 'abc' }, now)).toEqual({ ok: true, value: 'v2' })
    const bad = resolveReleaseId('../x', {}, now)
    expect(!bad.ok && bad.problem).toMatchObject({ code: 'RELEASE_ID_INVALID', evidence: { 'release id': '../x' } })
  })
})

describe('release files and fingerprint', () => {
  it('holds the start script with the image by ID and the release secret file by path, never a secret value', () => {
    const head = m.nodes.find((n) => n.role === 'head')!
    const files = releaseFiles({ manifest: m, release: 'r1', imageId: ID }, head, meta)
    expect(Object.keys(files).sort()).toEqual(['env', 'fingerprint', 'image-id', 'manifest.json', 'release.json', 'serve.sh', 'start.sh'])
    const start = files['start.sh']!.content
    expect(start).toContain(` ${ID} `)
    expect(start).toContain('--env-file /var/lib/vllm-ray-deploy/spark-pair/releases/r1/secret.env')
    expect(start).toContain(`--node-ip-address=${head.fabricIp}`)
    expect(start).toContain('io.vllm-ray-deploy.release=r1')
    expect(files['serve.sh']!.content).toContain('vllm serve')
    expect(files['env']!.content).toContain(`VLLM_HOST_IP=${head.fabricIp}`)
    expect(files['env']!.content).toContain('# secret HF_TOKEN: value in secret.env (0600)')
    expect(files['image-id']!.content).toBe(`${ID}\n`)
    expect(files['start.sh']!.mode).toBe('0700')
    expect(JSON.parse(files['release.json']!.content)).toMatchObject({ release: 'r1', imageId: ID, who: 'tester', node: head.name })
    // A worker has no serve script.
    expect(Object.keys(releaseFiles({ manifest: m, release: 'r1', imageId: ID }, m.nodes.find((n) => n.role === 'worker')!, meta))).not.toContain('serve.sh')
  })
  it('the fingerprint ignores the release id and changes with what starts', () => {
    const fp = releaseFingerprint({ manifest: m, imageId: ID })
    expect(fp).toMatch(/^sha256:[0-9a-f]{64}$/)
    const head = m.nodes.find((n) => n.role === 'head')!
    expect(releaseFiles({ manifest: m, release: 'r1', imageId: ID }, head, meta)['fingerprint']!.content).toBe(
      releaseFiles({ manifest: m, release: 'r2', imageId: ID }, head, meta)['fingerprint']!.content,
    )
    const changed = [
      releaseFingerprint({ manifest: m, imageId: `sha256:${'cd'.repeat(32)}` }),
      releaseFingerprint({ manifest: { ...m, vllm: { ...m.vllm, args: ['--max-model-len', '4096'] } }, imageId: ID }),
      releaseFingerprint({ manifest: { ...m, vllm: { ...m.vllm, model: 'other/model' } }, imageId: ID }),
      releaseFingerprint({ manifest: { ...m, container: { ...m.container, env: { A: '1' } } }, imageId: ID }),
      releaseFingerprint({ manifest: { ...m, container: { ...m.container, secretEnv: ['HF_TOKEN', 'OTHER'] } }, imageId: ID }),
      releaseFingerprint({ manifest: { ...m, launch: { mode: 'script', path: 'l.sh', args: [], env: {} } }, imageId: ID, launchScript: 'echo a' }),
      releaseFingerprint({ manifest: { ...m, launch: { mode: 'script', path: 'l.sh', args: [], env: {} } }, imageId: ID, launchScript: 'echo b' }),
    ]
    expect(new Set([fp, ...changed]).size).toBe(changed.length + 1)
    // Smoke and deploy settings do not restart anything.
    expect(releaseFingerprint({ manifest: { ...m, deploy: { ...m.deploy, releasesKept: 9 } }, imageId: ID })).toBe(fp)
  })
  it('a script release carries the launch script and calls it with the node identity and the image ID', () => {
    const sm: Manifest = { ...m, launch: { mode: 'script', path: 'launch.sh', args: ['--x'], env: {} } }
    const w = sm.nodes.find((n) => n.role === 'worker')!
    const files = releaseFiles({ manifest: sm, release: 'r1', imageId: ID, launchScript: '#!/bin/bash\necho hi\n' }, w, meta)
    expect(files['launch.sh']!.content).toBe('#!/bin/bash\necho hi\n')
    expect(files['start.sh']!.content).toContain(`VRD_IMAGE=${ID}`)
    expect(files['start.sh']!.content).toContain(`VRD_NODE_IP=${w.fabricIp}`)
    expect(files['start.sh']!.content).toContain('bash /var/lib/vllm-ray-deploy/spark-pair/releases/r1/launch.sh --x')
  })
})

describe('release plan', () => {
  it('runs the gates in order: files, stop, Ray, cluster, preflight, vllm, smoke', () => {
    const p = planRelease(m, { release: 'r1', files: 'write' })
    expect(p.phases.map((x) => x.name)).toEqual(['release-files', 'stop-previous', 'ray-head', 'ray-workers', 'ray-cluster', 'preflight', 'vllm', 'smoke'])
    expect(p.phases[0]!.steps.map((s) => s.action)).toEqual(['release-files', 'secret-env', 'release-files', 'secret-env'])
    const v = planRelease({ ...m, launch: { mode: 'script', path: 'l.sh', args: [], env: {} } }, { release: 'r0', files: 'verify' })
    expect(v.phases.map((x) => x.name).slice(0, 4)).toEqual(['release-files', 'stop-previous', 'launch-head', 'launch-workers'])
    expect(v.phases[0]!.steps.every((s) => s.action === 'release-verify')).toBe(true)
    // Secrets are named, never included: no step's command line holds a value from the environment.
    expect(p.phases.flatMap((x) => x.steps).find((s) => s.action === 'secret-env')!.stdin).toEqual({ kind: 'secret-env', names: ['HF_TOKEN'] })
  })
})

describe('node state', () => {
  it('parses the state lines and finds the release every node agrees on', () => {
    const a = parseNodeState(
      'a',
      'current=r2\nprevious=r1\nfingerprint=sha256:f\nimage-id=sha256:i\ncurrent-container=cid\ncontainer=cid true 2026-12-03T14:00:00Z sha256:i r2\nrelease=r2\nrelease=r1\n',
    )
    expect(a).toEqual({
      node: 'a',
      current: 'r2',
      previous: 'r1',
      fingerprint: 'sha256:f',
      imageId: 'sha256:i',
      currentContainer: 'cid',
      container: { id: 'cid', running: true, startedAt: '2026-12-03T14:00:00Z', imageId: 'sha256:i', release: 'r2' },
      releases: ['r2', 'r1'],
    })
    const fresh = parseNodeState('b', 'current=\nprevious=\n')
    expect(fresh).toEqual({ node: 'b', releases: [] })
    expect(
      commonCurrent(
        new Map([
          ['a', a],
          ['b', { ...a, node: 'b' }],
        ]),
      )?.current,
    ).toBe('r2')
    expect(
      commonCurrent(
        new Map([
          ['a', a],
          ['b', fresh],
        ]),
      ),
    ).toBeUndefined()
    expect(parseNodeState('c', 'container=cid false 0001-01-01 sha256:i <no value>\n').container?.release).toBe('')
  })
})

describe('report', () => {
  const report: RolloutReport = {
    command: 'deploy',
    result: 'failed',
    release: 'bug1',
    previousRelease: 'r1',
    imageId: ID,
    changed: true,
    rolledBack: true,
    failure: { stage: 'preflight', reason: 'identity preflight: VLLM_PIN_NOT_IN_RAY' },
    onFailure: { action: 'rollback', ok: true, detail: 'rolled back: release r1 started again', release: 'r1' },
    findings: [],
    nodes: [
      { node: 'spark-a', role: 'head', release: 'r1', imageId: 'abababababab', rayIdentity: '192.168.200.12 (head)', state: 'running r1' },
      { node: 'spark-b', role: 'worker', release: 'r1', imageId: 'abababababab', rayIdentity: '192.168.200.13', state: 'running r1' },
    ],
    durationMs: 42_000,
  }
  it('one table row per node and a headline that says what on-failure did', () => {
    expect(renderNodeTable(report.nodes)).toBe(
      [
        'NODE     ROLE    RELEASE  IMAGE ID      RAY IDENTITY           STATE',
        'spark-a  head    r1       abababababab  192.168.200.12 (head)  running r1',
        'spark-b  worker  r1       abababababab  192.168.200.13         running r1',
        '',
      ].join('\n'),
    )
    expect(rolloutHeadline('pair', report)).toBe('deploy pair: release bug1 failed at preflight; on-failure rollback: done')
  })
  it('the outcome carries the Action outputs and exits 1 on a failed deploy, 130 when cancelled', () => {
    const o = rolloutOutcome('pair', report)
    expect(o.exitCode).toBe(1)
    expect(o.outputs).toMatchObject({ result: 'failed', release: 'bug1', 'previous-release': 'r1', 'image-id': ID, changed: 'true', 'rolled-back': 'true' })
    expect(o.text).toContain('on-failure rollback: rolled back: release r1 started again')
    expect(rolloutOutcome('pair', { ...report, result: 'cancelled' }).exitCode).toBe(130)
    expect(rolloutOutcome('pair', { ...report, result: 'unchanged', failure: undefined, onFailure: undefined, rolledBack: false }).exitCode).toBe(0)
  })
  it('nested stages become flat log groups', () => {
    const ev: string[] = []
    const g = flatGroups(
      (n) => ev.push(`open ${n}`),
      () => ev.push('close'),
    )
    g('rollback', 'start')
    g('image', 'start')
    g('image', 'end')
    g('rollback', 'end')
    expect(ev).toEqual(['open rollback', 'close', 'open image', 'close'])
  })
})
