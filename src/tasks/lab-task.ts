import { LabError, labDown, labStatus, labUp, renderLabStatus } from '../lab/index.js'
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

function labFailure(err: unknown): TaskOutcome {
  // bug: anything but a LabError is not the user's doing: it goes on to the front door's internal-error path
  if (!(err instanceof LabError)) throw err
  return {
    exitCode: 1,
    headline: `lab: ${err.message}`,
    text: `error: ${err.message}\n`,
    json: { error: err.message, code: err.code },
    summary: `${verdictLine('failed', `lab: ${err.message}`)}\n`,
    annotations: [{ level: 'error', title: `lab ${err.code}`, message: err.message }],
    outputs: { result: 'error' },
    files: [],
  }
}

export async function labUpTask(nodes: number | undefined, onProgress: (m: string) => void): Promise<TaskOutcome> {
  try {
    const info = await labUp({ ...(nodes !== undefined && { nodes }), onProgress })
    const lines = [
      `lab up: ${info.nodes.length} nodes in ${(info.durationMs / 1000).toFixed(1)} s${info.changed.length ? ` (changed: ${info.changed.join(', ')})` : ' (nothing to change)'}`,
      ...info.nodes.map((n) => `  ${n.name.padEnd(8)} ${n.role.padEnd(6)} mgmt ${n.mgmtIp}  fabric ${n.fabricIp}`),
      `manifest:    ${info.manifestPath}`,
      `ssh key:     ${info.sshKeyPath}`,
      `known_hosts: ${info.knownHostsPath}`,
      `try:         vllm-ray-deploy validate --manifest ${info.manifestPath}`,
    ]
    return ok(lines[0]!, lines.join('\n') + '\n', info)
  } catch (err) {
    return labFailure(err)
  }
}

export async function labDownTask(purge: boolean, onProgress: (m: string) => void): Promise<TaskOutcome> {
  try {
    const r = await labDown({ purge, onProgress })
    return ok('lab down: removed', `lab down: done\n${JSON.stringify(r, null, 2)}\n`, r)
  } catch (err) {
    return labFailure(err)
  }
}

export async function labStatusTask(): Promise<TaskOutcome> {
  try {
    const s = await labStatus({})
    return ok('lab status', renderLabStatus(s), s)
  } catch (err) {
    return labFailure(err)
  }
}

export async function labScenarioTask(name: string | undefined, serve: boolean, onProgress: (m: string) => void): Promise<TaskOutcome> {
  if (!name || !(SCENARIOS as readonly string[]).includes(name)) {
    return usageError(`lab scenario needs one of ${SCENARIOS.join(', ')}${name ? `, not "${name}"` : ''}`)
  }
  try {
    const r = await runLabScenario(name as (typeof SCENARIOS)[number], { serve, onProgress })
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
  } catch (err) {
    return labFailure(err)
  }
}

/** `lab hub up MODEL_DIR [org/name] | down | status`: the lab's hub mirror as a service (src/lab/hub-service.ts). */
export async function labHubTask(sub: string | undefined, dir: string | undefined, repo: string | undefined): Promise<TaskOutcome> {
  try {
    if (sub === 'up') {
      if (!dir) return usageError('lab hub up needs the model directory to serve: lab hub up MODEL_DIR [org/name]')
      const s = await hubUp({ dir, ...(repo && { repo }) })
      const lines = hubUsage(s)
      return ok(lines[0]!, `${lines.join('\n')}\n`, s)
    }
    if (sub === 'down') {
      const stopped = await hubDown()
      const line = stopped ? 'lab hub down: the mirror was stopped' : 'lab hub down: no mirror was running'
      return ok(line, `${line}\n`, { stopped })
    }
    if (sub === 'status') {
      const s = hubStatus()
      const lines = s ? hubUsage(s) : ['lab hub: no mirror running (lab hub up MODEL_DIR [org/name] starts one)']
      return ok(lines[0]!, `${lines.join('\n')}\n`, s ?? { running: false })
    }
    return usageError(`lab hub needs up, down or status${sub ? `, not "${sub}"` : ''}`)
  } catch (err) {
    return labFailure(err)
  }
}
