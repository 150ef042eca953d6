/**
 * One launch script serves both executors (issue 34): src/manifest/examples/launch-both-executors.sh,
 * unchanged, deployed on the lab with launch.mode: script under vllm.executorBackend: ray and then
 * under mp, through the deploy task both front doors call. Under ray its containers run Ray (with
 * the GPUs the manifest names); under mp they run no Ray and the tool's vllm serve runs on every
 * node; either way each container carries the release label the tool reads. The script starts its
 * containers with `--ulimit memlock=-1` as NVIDIA's and the Spark scripts do, and the tool's
 * `docker exec` (vllm serve) into them works on the lab too.
 */
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse, stringify } from 'yaml'
import { argv } from '../../src/command/shell.js'
import { parseManifest } from '../../src/manifest/load-manifest.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { LABEL_PREFIX } from '../../src/plan/node-commands.js'
import { type DeployTaskOptions, deployTask } from '../../src/tasks/deploy-task.js'
import type { Transport } from '../../src/transport/transport.js'
import { leaveLabNodes, openLab } from './support/lab-nodes.js'

const EXAMPLE = 'src/manifest/examples/launch-both-executors.sh'
const progress = (m: string) => process.stderr.write(`[example-script-e2e] ${m}\n`)
let dir: string
let labText: string
let manifest: Manifest
let transports: Map<string, Transport>
let creds: DeployTaskOptions['credentials']

/**
 * The lab's manifest with the example as its launch script: the built-in launcher's container and
 * Ray settings left out (a script does not read them), the lab's small Ray sizes passed as the
 * script's arguments (they go to ray start); under mp no ray section at all.
 */
function scriptManifest(executor: 'ray' | 'mp'): string {
  const doc = parse(labText) as Record<string, Record<string, unknown>>
  doc.container = { name: doc.container!.name }
  doc.ray = { port: doc.ray!.port }
  if (executor === 'mp') {
    delete doc.ray
    doc.vllm = { ...doc.vllm, executorBackend: 'mp' }
  }
  doc.launch = { mode: 'script', path: 'launch.sh', allowOutsideRepository: true, args: ['--num-cpus=1', '--object-store-memory=100000000'] }
  const path = join(dir, `${executor}.yml`)
  writeFileSync(path, stringify(doc))
  const parsed = parseManifest(readFileSync(path, 'utf8'), path)
  expect(parsed.errors).toEqual([])
  expect(parsed.warnings).toEqual([])
  return path
}

const sh = async (t: Transport, ...args: string[]) => (await t.run(argv(...args), { timeoutMs: 60_000 })).stdout.trim()
const label = (t: Transport) => sh(t, 'docker', 'inspect', '--format', `{{index .Config.Labels "${LABEL_PREFIX}.release"}}`, manifest.container.name)
const processes = (t: Transport) => sh(t, 'sh', '-c', `docker top ${manifest.container.name} -eo pid,args || true`)

beforeAll(async () => {
  const lab = await openLab(progress)
  labText = readFileSync(lab.path, 'utf8')
  manifest = lab.manifest
  creds = lab.creds
  dir = mkdtempSync(join(tmpdir(), 'vrd-example-script-'))
  copyFileSync(EXAMPLE, join(dir, 'launch.sh'))
  transports = lab.transports
}, 900_000)

afterAll(async () => {
  await leaveLabNodes(transports, manifest)
}, 120_000)

describe.sequential('the example launch script, unchanged, under both executors', () => {
  for (const [executor, release] of [
    ['ray', 'ex-ray'],
    ['mp', 'ex-mp'],
  ] as const)
    it(`deploys under ${executor}: the gates pass, each container labelled with its release, ${executor === 'ray' ? 'Ray in it' : 'no Ray, vllm serve on every node'}`, async () => {
      const o = await deployTask(scriptManifest(executor), { credentials: creds, env: process.env, onProgress: progress, release, force: true })
      expect(o.exitCode, o.text).toBe(0)
      expect(o.outputs.result).toBe('deployed')
      for (const t of transports.values()) {
        expect(await label(t)).toBe(release)
        const ps = await processes(t)
        if (executor === 'ray') expect(ps).toMatch(/raylet/)
        else {
          expect(ps).not.toMatch(/raylet|ray start/)
          expect(ps).toMatch(/vllm serve/)
        }
      }
    }, 900_000)
})
