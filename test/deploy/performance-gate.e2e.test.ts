/**
 * The performance gate on the lab (issue 39): the stand-in's decode step made three times as slow (its
 * per-step delay, VLLM_STANDIN_TOKEN_DELAY_S, in the release's container env: a new release) fails
 * the smoke gate with PERFORMANCE_REGRESSION and both figures side by side in the summary, and is
 * rolled back; a release at the first one's speed passes. The delay is large (0.1 s a step) so the
 * machine's own jitter stays below the 1.5× threshold; the slow release is 0.3 s a step, not 0.2: a
 * loaded CI machine once added 32 ms to p1's 100 ms step (132 → 198 ms, 1.49×), which a doubled delay
 * does not clear and a tripled one does with room.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseDocument } from 'yaml'
import { argv } from '../../src/command/shell.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { clusterStateDir } from '../../src/plan/release-commands.js'
import { type DeployTaskOptions, deployTask } from '../../src/tasks/deploy-task.js'
import type { Transport } from '../../src/transport/transport.js'
import { leaveLabNodes, openLab } from './support/lab-nodes.js'

let manifest: Manifest
let transports: Map<string, Transport>
let creds: DeployTaskOptions['credentials']
let dir: string
let labText: string

const progress = (m: string) => process.stderr.write(`[performance-e2e] ${m}\n`)

/** The lab's manifest with the stand-in's per-step delay set in the container env, written as its own file. */
function withDelay(seconds: string, maxSlowdown = 1.5): string {
  const doc = parseDocument(labText)
  doc.setIn(['container', 'env'], { VLLM_STANDIN_TOKEN_DELAY_S: seconds })
  // The lab's manifest leaves the gate off (its fast stand-in is too noisy to compare); here it fails a deploy.
  doc.setIn(['smoke', 'regression'], { action: 'fail', maxSlowdown })
  const path = join(dir, `delay-${seconds}-${maxSlowdown}.yml`)
  writeFileSync(path, doc.toString())
  return path
}

const deploy = (path: string, release: string) => deployTask(path, { credentials: creds, env: process.env, onProgress: progress, release })
const json = (o: { json: unknown }) =>
  o.json as { result: string; failure?: { stage: string }; onFailure?: { action: string }; findings: { code: string }[]; performance?: { rows: unknown[] } }

beforeAll(async () => {
  const lab = await openLab(progress)
  creds = lab.creds
  dir = mkdtempSync(join(tmpdir(), 'vrd-performance-e2e-'))
  labText = readFileSync(lab.path, 'utf8')
  manifest = lab.manifest
  transports = lab.transports
}, 900_000)

afterAll(async () => {
  await leaveLabNodes(transports, manifest)
}, 120_000)

describe.sequential('the performance gate on the lab', () => {
  it('the first release keeps its figures on the head', async () => {
    const o = await deploy(withDelay('0.1'), 'p1')
    expect(o.exitCode, o.text).toBe(0)
    const kept = await transports.get('spark-a')!.run(argv('cat', `${clusterStateDir(manifest)}/releases/p1/performance.json`), { timeoutMs: 30_000 })
    const record = JSON.parse(kept.stdout) as { figures: { tpotMs: number; ttftMs: number } }
    // Eight tokens at 0.1 s a step: the figures are the stand-in's delay, not the machine's noise.
    expect(record.figures.tpotMs).toBeGreaterThan(90)
    expect(record.figures.ttftMs).toBeGreaterThan(90)
  }, 900_000)

  it('a release three times as slow fails the smoke gate with both figures in the summary, and p1 serves again', async () => {
    const o = await deploy(withDelay('0.3'), 'p2')
    expect(o.exitCode).toBe(1)
    const r = json(o)
    expect(r.failure?.stage).toBe('smoke')
    expect(r.findings.map((f) => f.code)).toContain('PERFORMANCE_REGRESSION')
    expect(r.onFailure?.action).toBe('rollback')
    expect(o.summary).toMatch(/\| time per output token \(TPOT\) \| \d+\.\d ms \| \d+\.\d ms \| [1-4]\.\d\d× \| \*\*regressed\*\* \|/)
    expect(o.summary).toMatch(/\| figure \| p1 \| p2 \|/)
    const current = await transports.get('spark-a')!.run(argv('readlink', `${clusterStateDir(manifest)}/current`), { timeoutMs: 30_000 })
    expect(current.stdout.trim().endsWith('/p1')).toBe(true)
  }, 900_000)

  it('a release at p1 speed passes, its figures beside p1 in the summary', async () => {
    // The same speed under a loaded CI machine: time to first token (the HTTP round trip and the first step, not the
    // per-step delay alone) was read 1.71× p1's at load 10 on 2 cores, so this case allows 2.5×; the slow case above
    // keeps 1.5× and a decode three times as slow.
    const o = await deploy(withDelay('0.10', 2.5), 'p3')
    expect(o.exitCode, o.text).toBe(0)
    expect(json(o).performance?.rows.length).toBeGreaterThanOrEqual(3)
    expect(o.summary).toMatch(/\| figure \| p1 \| p3 \|/)
    expect(o.summary).not.toMatch(/regressed/)
  }, 900_000)
})
