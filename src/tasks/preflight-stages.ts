/**
 * The preflight after its connections have started (src/tasks/preflight.ts loads this as a chunk of
 * its own once every node's socket is opening): the facts over those connections, the fabric
 * collective, the checks, the fit before launch, the launch-script check and the outcome.
 */
import { existsSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { expectationFromManifest } from '../manifest/expectation.js'
import { readLaunchScript } from '../manifest/launch-path.js'
import type { Manifest, ManifestNode } from '../manifest/schema.js'
import { executorOf } from '../plan/executor-commands.js'
import { imageRef } from '../plan/node-commands.js'
import { runChecks } from '../preflight/checks/index.js'
import type { FactsBundle } from '../preflight/facts.js'
import type { Finding } from '../preflight/finding.js'
import { readLocalModel } from '../preflight/fit/local-model.js'
import { fitFindings, fitOfManifest, kvBytesFlagFindings, nodeMemoryOfFacts } from '../preflight/fit/manifest-fit.js'
import { gatherFacts } from '../preflight/gather/gather.js'
import { runCollective } from '../preflight/gather/run-collective.js'
import { sortFindings } from '../preflight/offline-diagnosis.js'
import { renderFitText } from '../report/fit-report.js'
import type { Result } from '../result/result.js'
import type { LaunchScriptCheck } from '../script-check/index.js'
import { checkLaunchScriptWhenNeeded } from '../script-check/load-checker.js'
import { applyHint, patchTarget } from '../script-check/patch-target.js'
import type { Transport } from '../transport/transport.js'
import { findingsOutcome } from './findings-outcome.js'
import type { TaskOutcome } from './outcome.js'

/** What a preflight gathered and found, before its outcome is rendered. */
export interface PreflightRun {
  readonly facts: FactsBundle
  readonly findings: Finding[]
  readonly notes: readonly { readonly node: string; readonly note: string }[]
  readonly durationMs: number
}

/** The facts over the connections under way (and the fabric collective over the same ones), then the checks. */
export async function gatherAndCheck(
  m: Manifest,
  connecting: ReadonlyMap<string, Promise<Result<Transport>>>,
  opts: { readonly onProgress?: (message: string) => void; readonly collective?: boolean },
): Promise<Omit<PreflightRun, 'durationMs'>> {
  const collectiveOn = opts.collective ?? m.preflight.collective
  const collective = async () => {
    if (!collectiveOn) return undefined
    const settled = await Promise.all([...connecting].map(async ([name, p]) => [name, await p] as const))
    const transports = new Map(settled.flatMap(([name, r]) => (r.ok ? [[name, r.value] as const] : [])))
    return runCollective(m, transports, { image: imageRef(m), ...(opts.onProgress && { onProgress: opts.onProgress }) })
  }
  const [{ facts: gathered, notes }, ran] = await Promise.all([
    gatherFacts(m, {
      transportFor: (node: ManifestNode) => connecting.get(node.name)!,
      ...(opts.onProgress && { onProgress: opts.onProgress }),
    }),
    collective(),
  ])
  const facts = ran ? { ...gathered, collective: ran } : gathered
  const findings = sortFindings(runChecks(facts, expectationFromManifest(m)))
  return { facts, findings, notes }
}

/**
 * The fit before launch against what each node reported (its memory; what its host uses now), with
 * the model's config.json and weights as the runner can read them.
 */
function preflightFit(m: Manifest, manifestPath: string, facts: FactsBundle, env: NodeJS.ProcessEnv) {
  const report = fitOfManifest(m, readLocalModel(m, manifestPath, env), nodeMemoryOfFacts(facts, m))
  return { report, findings: [...fitFindings(report, 'preflight'), ...kvBytesFlagFindings(m)] }
}

/** The preflight's outcome: its findings with the launch script's and the fit's, the facts, the report. */
export async function preflightOutcome(path: string, m: Manifest, r: PreflightRun, env: NodeJS.ProcessEnv): Promise<TaskOutcome> {
  const notes = r.notes.map((n) => `note: ${n.node}: ${n.note}\n`).join('')
  const gathered = `facts from ${r.facts.nodes.filter((n) => n.ok).length}/${r.facts.nodes.length} nodes${r.facts.ray && !r.facts.ray.error ? ` and Ray (${r.facts.ray.nodes.length} nodes)` : ''} in ${(r.durationMs / 1000).toFixed(1)} s\n`
  const script = await launchScriptCheck(path, m)
  const fit = preflightFit(m, path, r.facts, env)
  const outcome = findingsOutcome(
    `preflight of ${m.cluster}`,
    sortFindings([...script.findings, ...r.findings, ...fit.findings]),
    r.facts,
    `${gathered}${notes}${renderFitText(fit.report)}`,
    m,
    [executorOf(m).identityCheck, ...(r.facts.collective ? ['fabric collective'] : []), ...(m.launch.mode === 'script' ? ['launch-script check'] : [])],
  )
  if (!script.patch) return outcome
  return {
    ...outcome,
    text: `${outcome.text}\nLaunch script fixes as one patch (${script.target ? applyHint(script.target) : 'git apply / patch -p1'}):\n${script.patch}`,
    files: [...outcome.files, { output: 'fix-file', fileName: 'vllm-ray-deploy-fix.patch', content: script.patch }],
  }
}

/** `launch.mode: script`: the script read before anything runs (its path is relative to the manifest). */
async function launchScriptCheck(manifestPath: string, m: Manifest): Promise<LaunchScriptCheck> {
  if (m.launch.mode !== 'script') return { findings: [] }
  const file = resolve(dirname(manifestPath), m.launch.path)
  // The one reader of launch.path (inside the repository, a regular file, bounded).
  const read = await readLaunchScript(manifestPath, m.launch.path, { ...(m.launch.allowOutsideRepository && { allowOutsideRepository: true }) })
  if (!read.ok) {
    return {
      findings: [
        {
          code: 'SCRIPT_UNREADABLE',
          severity: 'error',
          node: null,
          message: `The launch script cannot be used: ${read.problem.message}.`,
          evidence: { 'Script path': file },
          fix: read.problem.fix,
        },
      ],
    }
  }
  const target = patchTarget(file, (d) => existsSync(join(d, '.git')))
  return checkLaunchScriptWhenNeeded(read.value.text, { manifest: m, path: relative(process.cwd(), file), target })
}
