import type { Result } from '../result/result.js'
import { existsSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { expectationFromManifest } from '../manifest/expectation.js'
import { readLaunchScript } from '../manifest/launch-path.js'
import type { LaunchScriptCheck } from '../script-check/index.js'
import { checkLaunchScriptWhenNeeded } from '../script-check/load-checker.js'
import { applyHint, patchTarget } from '../script-check/patch-target.js'
import { runChecks } from '../preflight/checks/index.js'
import { sortFindings } from '../preflight/offline-diagnosis.js'
import { gatherFacts } from '../preflight/gather/gather.js'
import { runCollective } from '../preflight/gather/run-collective.js'
import { imageRef } from '../plan/node-commands.js'
import { SshTransport } from '../transport/ssh.js'
import { type SshCredentials, sshTargetFor } from '../transport/targets.js'
import type { Transport } from '../transport/transport.js'
import type { Manifest, ManifestNode } from '../manifest/schema.js'
import { findingsOutcome } from './findings-outcome.js'
import type { TaskOutcome } from './outcome.js'
import { loadOrFail } from './validate.js'
import { executorOf } from '../plan/executor-commands.js'
import type { FactsBundle } from '../preflight/facts.js'
import { readLocalModel } from '../preflight/fit/local-model.js'
import { fitFindings, fitOfManifest, kvBytesFlagFindings, nodeMemoryOfFacts } from '../preflight/fit/manifest-fit.js'
import { renderFitText } from '../report/fit-report.js'

export interface PreflightOptions {
  readonly credentials: SshCredentials
  readonly onProgress?: (message: string) => void
  /** Override how nodes are reached (tests); default SSH from the manifest. */
  readonly connect?: (m: Manifest, node: ManifestNode) => Promise<Result<Transport>>
  /** The runner's environment (the hub cache the fit reads); default process.env. */
  readonly env?: NodeJS.ProcessEnv
  /** Run the fabric collective (default: the manifest's preflight.collective). */
  readonly collective?: boolean
}

/** Live preflight of a manifest's cluster: gather facts, run the checks, report. Callable from code. */
export async function preflightManifest(m: Manifest, opts: PreflightOptions) {
  const connect = opts.connect ?? ((mm: Manifest, node: ManifestNode) => SshTransport.connect(sshTargetFor(mm, node, opts.credentials)))
  const started = Date.now()
  const opened: Transport[] = []
  // Every node is connected once; the facts and the fabric collective run at once over the same connections.
  const connecting = new Map(
    m.nodes.map((node) => [
      node.name,
      connect(m, node).then((r) => {
        if (r.ok) opened.push(r.value)
        return r
      }),
    ]),
  )
  try {
    const collectiveOn = opts.collective ?? m.preflight.collective
    const collective = async () => {
      if (!collectiveOn) return undefined
      const settled = await Promise.all([...connecting].map(async ([name, p]) => [name, await p] as const))
      const transports = new Map(settled.flatMap(([name, r]) => (r.ok ? [[name, r.value] as const] : [])))
      return runCollective(m, transports, { image: imageRef(m), ...(opts.onProgress && { onProgress: opts.onProgress }) })
    }
    const [{ facts: gathered, notes }, ran] = await Promise.all([
      gatherFacts(m, {
        transportFor: (node) => connecting.get(node.name)!,
        ...(opts.onProgress && { onProgress: opts.onProgress }),
      }),
      collective(),
    ])
    const facts = ran ? { ...gathered, collective: ran } : gathered
    const findings = sortFindings(runChecks(facts, expectationFromManifest(m)))
    return { facts, findings, notes, durationMs: Date.now() - started }
  } finally {
    await Promise.all([...connecting.values()])
    await Promise.all(opened.map((t) => t.close()))
  }
}

/**
 * The fit before launch against what each node reported (its memory; what its host uses now), with
 * the model's config.json and weights as the runner can read them.
 */
export function preflightFit(m: Manifest, manifestPath: string, facts: FactsBundle, env: NodeJS.ProcessEnv) {
  const report = fitOfManifest(m, readLocalModel(m, manifestPath, env), nodeMemoryOfFacts(facts, m))
  return { report, findings: [...fitFindings(report, 'preflight'), ...kvBytesFlagFindings(m)] }
}

export async function preflightTask(path: string, opts: PreflightOptions): Promise<TaskOutcome> {
  const loaded = await loadOrFail(path)
  if (!loaded.ok) return loaded.problem
  const r = await preflightManifest(loaded.value.manifest, opts)
  const notes = r.notes.map((n) => `note: ${n.node}: ${n.note}\n`).join('')
  const gathered = `facts from ${r.facts.nodes.filter((n) => n.ok).length}/${r.facts.nodes.length} nodes${r.facts.ray && !r.facts.ray.error ? ` and Ray (${r.facts.ray.nodes.length} nodes)` : ''} in ${(r.durationMs / 1000).toFixed(1)} s\n`
  const script = await launchScriptCheck(path, loaded.value.manifest)
  const fit = preflightFit(loaded.value.manifest, path, r.facts, opts.env ?? process.env)
  const outcome = findingsOutcome(
    `preflight of ${loaded.value.manifest.cluster}`,
    sortFindings([...script.findings, ...r.findings, ...fit.findings]),
    r.facts,
    `${gathered}${notes}${renderFitText(fit.report)}`,
    loaded.value.manifest,
    [
      executorOf(loaded.value.manifest).identityCheck,
      ...(r.facts.collective ? ['fabric collective'] : []),
      ...(loaded.value.manifest.launch.mode === 'script' ? ['launch-script check'] : []),
    ],
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
