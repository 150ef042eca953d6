/**
 * `npm run bench` (through .ci/bench, which holds the lab lock /tmp/vrd-lab.flock for the whole
 * run): brings the lab up, measures every row of issue 13 with its baseline in the same run, prints
 * one markdown table and writes it to test/bench/RESULTS.md. Tears down only what it started: when
 * the lab was down before, `lab down` after (never purge); when it had another node count, that
 * count again.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { labDown, labStatus, labUp, resolveLabDir } from '../support/lab.js'
import { UNSETTLED_MESSAGE, failIfUnsettled } from '../../src/tasks/unsettled.js'
import { machineInfo } from './machine.js'
import { log } from './measure.js'
import { type DeliveryYardsticks, deliveryYardsticks, pinNodes, yardstickRows } from './rows/delivery.js'
import { fanOutRow, imageDeliveryRows, redeployRow } from './rows/deploy.js'
import { freshStartRows } from './rows/fresh-start.js'
import { benchLab } from './rows/lab-context.js'
import { logScanRows } from './rows/log-scan.js'
import { healthyCluster, preflightRows } from './rows/preflight.js'
import { REAL_SCRIPT_ENV, longScriptRow, realScriptRow, scriptCheckRow } from './rows/script-check.js'
import { startupRows } from './rows/startup.js'
import { verdictRows } from './rows/verdict.js'
import { weightsRows } from './rows/weights.js'
import { type MissingRow, type Row, renderResults } from './table.js'

const rows: Row[] = []
const missing: MissingRow[] = []
let failures = 0

const machine = machineInfo()
/** The ids row() below runs by; a table row's id (6a, 4-relay-floor, 3-tool) starts with the one that makes it. */
const ROW_IDS = ['6', '1c', '8', '1d', '1e', '1', '4y', '4', '4p', '2', '7', '5', '3', '9'] as const
/** The row that makes a table row: the longest id its own id starts with (`4p-relay` → 4p, `6a` → 6). */
const rowOf = (tableId: string): string | undefined => [...ROW_IDS].sort((a, b) => b.length - a.length).find((id) => tableId.startsWith(id))
/**
 * `VRD_BENCH_ROWS=1,5` runs only those rows and writes RESULTS.partial.md; a table row's id names
 * the row that makes it (`3,6a,4-relay`: rows 3, 6 and 4), and rows 4 and 2 bring the
 * yardsticks (4y) they are measured against.
 */
const asked = process.env.VRD_BENCH_ROWS ? process.env.VRD_BENCH_ROWS.split(',').map((x) => rowOf(x.trim()) ?? x.trim()) : undefined
const only = asked && (asked.some((id) => ['4', '2'].includes(id)) ? [...asked, '4y'] : asked)
const resultsPath = join('test', 'bench', only ? 'RESULTS.partial.md' : 'RESULTS.md')

async function row(id: string, figure: string, fn: () => Promise<Row | Row[]>): Promise<void> {
  if (only && !only.includes(id)) return
  try {
    const r = await fn()
    rows.push(...(Array.isArray(r) ? r : [r]))
  } catch (err) {
    log(`row ${id} failed: ${(err as Error).stack ?? err}`)
    failures++
    missing.push({ id, figure, reason: `failed: ${(err as Error).message.split('\n')[0]!}` })
  }
  // After every row, so a run cut short still leaves what it measured.
  writeFileSync(resultsPath, renderResults(rows, missing, machine))
}

async function main(): Promise<number> {
  const dir = resolveLabDir()
  const actionEntry = process.env.VRD_BENCH_ACTION ?? 'dist/index.js'
  log(`lab dir ${dir}; action bundle ${actionEntry}`)

  await row('6', 'Action start-up', () => startupRows(actionEntry))
  await row('1c', 'time to verdict on the seed bug, no cluster: the static launch-script check', () => scriptCheckRow(actionEntry))
  await row('8', 'log signatures on a capture', async () => logScanRows())
  await row('1d', 'the static launch-script check on a 1,000-line script', async () => longScriptRow())
  const realScript = process.env[REAL_SCRIPT_ENV]
  const realFigure = 'the static launch-script check on a real 1,000-line launch script'
  if (realScript) await row('1e', realFigure, async () => realScriptRow(realScript))
  else if (!only || only.includes('1e'))
    missing.push({
      id: '1e',
      figure: realFigure,
      reason: `not measured: ${REAL_SCRIPT_ENV} names no file (third-party code is not in the repository; test/script-check/fixtures/real/README.md says which script and commit)`,
    })
  // Rows without the bench's lab asked for alone: no lab (row 9 makes its own, from a fresh clone).
  if (only?.every((id) => ['6', '1c', '8', '1d', '1e', '9'].includes(id))) {
    await row('9', 'fresh start: npm start from a fresh clone', () => freshStartRows())
    const text = renderResults(rows, missing, machine)
    writeFileSync(resultsPath, text)
    process.stdout.write(text)
    return failures > 0 ? 1 : 0
  }

  const before = await labStatus({ dir })
  const nodesBefore = before.nodes.filter((n) => n.state !== 'missing').length
  log(before.down ? 'the lab is down: bringing it up (and down again at the end)' : `the lab exists with ${nodesBefore} node(s): reusing it`)
  try {
    const info = await labUp({ dir, nodes: 2, onProgress: (m) => log(`lab: ${m}`) })
    const lab = await benchLab(info)
    await row('1', 'time to verdict on the seed bug', () => verdictRows(lab))
    let yardsticks: DeliveryYardsticks | undefined
    await row('4y', 'image delivery yardsticks (naive, link rate)', async () => {
      yardsticks = await deliveryYardsticks(lab)
      return yardstickRows(yardsticks, lab.manifest.nodes.length)
    })
    const needYardsticks = (): DeliveryYardsticks => {
      if (!yardsticks) throw new Error('the delivery yardsticks could not be measured (row 4y)')
      return yardsticks
    }
    await row('4', 'image delivery: pull, load and relay', () => imageDeliveryRows(lab, needYardsticks()))
    await row('4p', 'image delivery with a core per node (pull, load, relay and their yardsticks)', async () => {
      await pinNodes(lab, true)
      try {
        const y = await deliveryYardsticks(lab, { pinned: true })
        return [...yardstickRows(y, lab.manifest.nodes.length), ...(await imageDeliveryRows(lab, y))]
      } finally {
        await pinNodes(lab, false)
      }
    })
    await row('2', 'unchanged redeploy against a cold deploy', () => redeployRow(lab, needYardsticks()))
    await row('7', 'weights: relay against each, a redeploy with the files present', () => weightsRows(lab))
    await row('5', 'preflight of a healthy live cluster', async () => {
      await healthyCluster(lab)
      return preflightRows(lab)
    })
    if (only && !only.includes('3')) {
      // not asked for
    } else if (process.env.VRD_BENCH_SKIP_FANOUT === '1')
      missing.push({ id: '3', figure: 'fan-out: deploy to 1, 2 and 4 lab nodes', reason: 'skipped (VRD_BENCH_SKIP_FANOUT=1)' })
    else await row('3', 'fan-out: deploy to 1, 2 and 4 lab nodes', () => fanOutRow(lab))
  } finally {
    if (before.down) {
      log('lab down (it was down before this run)')
      await labDown({ dir, onProgress: (m) => log(`lab: ${m}`) })
    } else {
      const want = nodesBefore > 0 ? nodesBefore : 2
      const now = (await labStatus({ dir })).nodes.filter((n) => n.state !== 'missing').length
      if (now !== want) {
        log(`lab back to ${want} node(s)`)
        await labUp({ dir, nodes: want, onProgress: (m) => log(`lab: ${m}`) })
      }
    }
  }

  // Last, with the bench's lab down again: its own lab instance, created anew from a fresh clone.
  await row('9', 'fresh start: npm start from a fresh clone', () => freshStartRows())

  const text = renderResults(rows, missing, machine)
  writeFileSync(resultsPath, text)
  process.stdout.write(text)
  // A row that could not be measured is a failure of the run; a missed goal is a result.
  return failures > 0 ? 1 : 0
}

failIfUnsettled(main(), () => {
  log(`bug: ${UNSETTLED_MESSAGE}`)
  process.exitCode = 3
}).then(
  (code) => process.exit(code),
  (err) => {
    log(`bug: ${(err as Error).stack ?? err}`)
    process.exit(3)
  },
)
