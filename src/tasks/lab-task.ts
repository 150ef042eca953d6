import { type LabProblem, type LabResult, fileSystemProblem, labDown, labProblemText, labStatus, labUp, renderLabStatus } from '../lab/index.js'
import { fail } from '../result/result.js'
import { escapeMarkdown } from '../report/escape.js'
import { verdictLine } from '../report/verdict.js'
import { SCENARIOS, runLabScenario } from '../lab/scenario.js'
import { hubDown, hubStatus, hubUp, hubUsage } from '../lab/hub-service.js'
import { type TaskOutcome, usageError } from './outcome.js'

const ok = (headline: string, text: string, json: unknown): TaskOutcome => ({
  exitCode: 0,
  headline,
  text,
  json,
  summary: `${verdictLine('passed', headline)}\n`,
  annotations: [],
  outputs: { result: 'ok' },
  files: [],
})

/**
 * The lab's one adapter from a Problem to an outcome: exit 1, the message with its fix (and the
 * failing command's output), never the internal-error exit. What throws out of the lab is a bug and
 * goes on to the front door's internal-error path.
 */
export function labFailure(problem: LabProblem): TaskOutcome {
  const message = labProblemText(problem)
  return {
    exitCode: 1,
    headline: `lab: ${message}`,
    text: `error: ${message}\n`,
    json: { error: message, code: problem.code },
    summary: `${verdictLine('failed', `lab: ${message}`)}\n`,
    annotations: [{ level: 'error', title: `lab ${problem.code}`, message }],
    outputs: { result: 'error' },
    files: [],
  }
}

/**
 * Runs one lab command: its Problem comes back as it is, and an error the file system threw under it
 * (the lab dir unwritable, the disk full) becomes one too. Anything else thrown is a bug.
 */
async function labCall<T>(run: () => Promise<LabResult<T>> | LabResult<T>): Promise<LabResult<T>> {
  try {
    return await run()
  } catch (err) {
    const problem = fileSystemProblem(err)
    if (problem) return fail(problem)
    // bug: anything else a lab command throws; the front door's internal-error exit reports it
    throw err
  }
}

export async function labUpTask(nodes: number | undefined, onProgress: (m: string) => void): Promise<TaskOutcome> {
  const up = await labCall(() => labUp({ ...(nodes !== undefined && { nodes }), onProgress }))
  if (!up.ok) return labFailure(up.problem)
  const info = up.value
  const lines = [
    `lab up: ${info.nodes.length} nodes in ${(info.durationMs / 1000).toFixed(1)} s${info.changed.length ? ` (changed: ${info.changed.join(', ')})` : ' (nothing to change)'}`,
    ...info.nodes.map((n) => `  ${n.name.padEnd(8)} ${n.role.padEnd(6)} mgmt ${n.mgmtIp}  fabric ${n.fabricIp}`),
    `manifest:    ${info.manifestPath}`,
    `ssh key:     ${info.sshKeyPath}`,
    `known_hosts: ${info.knownHostsPath}`,
    `try:         vllm-ray-deploy validate --manifest ${info.manifestPath}`,
  ]
  return ok(lines[0]!, lines.join('\n') + '\n', info)
}

export async function labDownTask(purge: boolean, onProgress: (m: string) => void): Promise<TaskOutcome> {
  const r = await labCall(() => labDown({ purge, onProgress }))
  if (!r.ok) return labFailure(r.problem)
  return ok('lab down: removed', `lab down: done\n${JSON.stringify(r.value, null, 2)}\n`, r.value)
}

export async function labStatusTask(): Promise<TaskOutcome> {
  const s = await labCall(() => labStatus({}))
  if (!s.ok) return labFailure(s.problem)
  return ok('lab status', renderLabStatus(s.value), s.value)
}

export async function labScenarioTask(name: string | undefined, serve: boolean, onProgress: (m: string) => void): Promise<TaskOutcome> {
  if (!name || !(SCENARIOS as readonly string[]).includes(name)) {
    return usageError(`lab scenario needs one of ${SCENARIOS.join(', ')}${name ? `, not "${name}"` : ''}`)
  }
  const run = await labCall(() => runLabScenario(name as (typeof SCENARIOS)[number], { serve, onProgress }))
  if (!run.ok) return labFailure(run.problem)
  const r = run.value
  const lines = [
    `scenario ${name}: Ray ${r.execution.ok ? 'up on every node' : `did not come up (${r.execution.stoppedAt?.stage}: ${r.execution.stoppedAt?.reason})`} in ${(r.execution.durationMs / 1000).toFixed(1)} s`,
  ]
  if (r.vllm) {
    lines.push(`vllm: ${r.vllm.ready ? 'ready' : 'NOT ready'}: ${r.vllm.reason}`, ...r.vllm.findings.map((f) => `  ${f.code}: ${f.message}`))
    if (!r.vllm.ready && r.vllm.started)
      lines.push('note: vllm serve is still running (waiting) in the head container; the next scenario or `lab down` removes it')
  }
  lines.push(`next: vllm-ray-deploy preflight --manifest ${r.manifestPath} --ssh-key ${r.manifestPath.replace(/manifest\.yml$/, 'id_ed25519')}`)
  const ok = r.execution.ok && (!r.vllm || r.vllm.ready)
  return {
    exitCode: ok ? 0 : 1,
    headline: lines[0]!,
    text: lines.join('\n') + '\n',
    json: { scenario: name, ok, execution: r.execution.results.map((s) => ({ id: s.step.id, status: s.status, detail: s.detail })), vllm: r.vllm },
    summary: `${verdictLine(ok ? 'passed' : 'failed', lines[0]!)}\n\n${lines.slice(1).map(escapeMarkdown).join('\n\n')}\n`,
    annotations: [],
    outputs: { result: ok ? 'ok' : 'failed' },
    files: [],
  }
}

/** `lab hub up MODEL_DIR [org/name] | down | status`: the lab's hub mirror as a service (src/lab/hub-service.ts). */
export async function labHubTask(sub: string | undefined, dir: string | undefined, repo: string | undefined): Promise<TaskOutcome> {
  if (sub === 'up') {
    if (!dir) return usageError('lab hub up needs the model directory to serve: lab hub up MODEL_DIR [org/name]')
    const up = await labCall(() => hubUp({ dir, ...(repo && { repo }) }))
    if (!up.ok) return labFailure(up.problem)
    const lines = hubUsage(up.value)
    return ok(lines[0]!, `${lines.join('\n')}\n`, up.value)
  }
  if (sub === 'down') {
    const down = await labCall(() => hubDown())
    if (!down.ok) return labFailure(down.problem)
    const line = down.value ? 'lab hub down: the mirror was stopped' : 'lab hub down: no mirror was running'
    return ok(line, `${line}\n`, { stopped: down.value })
  }
  if (sub === 'status') {
    const status = await labCall(() => hubStatus())
    if (!status.ok) return labFailure(status.problem)
    const s = status.value
    const lines = s ? hubUsage(s) : ['lab hub: no mirror running (lab hub up MODEL_DIR [org/name] starts one)']
    return ok(lines[0]!, `${lines.join('\n')}\n`, s ?? { running: false })
  }
  return usageError(`lab hub needs up, down or status${sub ? `, not "${sub}"` : ''}`)
}
