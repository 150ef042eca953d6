import type { Plan } from '../plan/plan.js'
import { stepsByNode } from '../plan/plan.js'
import { escapeMarkdownCell } from './findings.js'

/** Phase by phase, each step with its node and the exact command. */
export function renderPlanText(plan: Plan): string {
  const out = [
    `Plan for cluster ${plan.cluster}: image ${plan.image}, release ${plan.release}, launch ${plan.launch}`,
    ...plan.nodes.map((n) => `  ${n.name.padEnd(12)} ${n.role.padEnd(6)} ssh ${n.ssh}  fabric ${n.fabricIp}`),
    '',
  ]
  if (plan.around) out.push('Before the phases:', ...plan.around.before.map((x) => `   - ${x}`), '')
  plan.phases.forEach((phase, i) => {
    out.push(`${i + 1}. ${phase.name}${phase.parallel ? ' (nodes in parallel)' : ''}: ${phase.description}`)
    for (const s of phase.steps) {
      out.push(`   [${s.node}] ${s.action}: ${s.description}${s.stdin ? `  (stdin: ${s.stdin.kind})` : ''}`)
      out.push(`     $ ${s.command}`)
      if (s.runs) out.push(`     which runs: ${s.runs.command}`)
    }
    out.push('')
  })
  if (plan.around) out.push('After the phases:', ...plan.around.after.map((x) => `   - ${x}`), '')
  return out.join('\n')
}

export function renderPlanMarkdown(plan: Plan): string {
  const out = [`### Plan for \`${plan.cluster}\``, '', `Image \`${plan.image}\`, release \`${plan.release}\`.`, '']
  if (plan.around) out.push('Before the phases:', '', ...plan.around.before.map((x) => `- ${x}`), '')
  out.push('| phase | node | step | timeout |', '| --- | --- | --- | --- |')
  for (const phase of plan.phases) {
    if (phase.steps.length === 0) out.push(`| ${phase.name} | all | ${escapeMarkdownCell(phase.description)} | |`)
    for (const s of phase.steps) out.push(`| ${phase.name} | ${s.node} | ${escapeMarkdownCell(s.description)} | ${s.timeoutSeconds} s |`)
  }
  if (plan.around) out.push('', 'After the phases:', '', ...plan.around.after.map((x) => `- ${x}`))
  return out.join('\n') + '\n'
}

/** JSON view: phases plus, per node, the ordered commands (argv kept as data). */
export function planJson(plan: Plan) {
  return {
    cluster: plan.cluster,
    image: plan.image,
    release: plan.release,
    head: plan.head,
    launch: plan.launch,
    nodes: plan.nodes.map((n) => ({
      ...n,
      steps: (stepsByNode(plan).get(n.name) ?? []).map((s) => ({
        id: s.id,
        action: s.action,
        description: s.description,
        command: s.command,
        timeoutSeconds: s.timeoutSeconds,
        ...(s.stdin && { stdin: s.stdin }),
        ...(s.runs && { runs: s.runs }),
        cmd: s.cmd,
      })),
    })),
    phases: plan.phases.map((p) => ({ name: p.name, description: p.description, parallel: p.parallel, steps: p.steps.map((s) => s.id) })),
    ...(plan.around && { around: plan.around }),
  }
}
